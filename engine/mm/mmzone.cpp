// struct zone's free lists (include/linux/mmzone.h: free_area[MAX_ORDER]) and the buddy operations of
// mm/page_alloc.c on them: memblock_free_all() at boot, __rmqueue_smallest() with expand(), rmqueue_bulk()'s
// batch, __free_one_page() with its merge, and del_page_from_free_area(). Host-side list operations: the callers
// hold zone->lock in simulated time and charge its costs.
#include "mm/mmzone.h"

#include <algorithm>
#include <bit>
#include <string>

namespace mms {

void Zone::init(PageArray& pages, int nid, Pfn first, Pfn end, int cpus)
{
    m_start = first;
    m_end = end;
    m_nrFree = 0;
    m_areaBase = PageArray::kLruListHeads + static_cast<std::uint32_t>(nid * MAX_ORDER);
    pcp.assign(static_cast<std::size_t>(cpus), {});
    pcpFreeFactor.assign(static_cast<std::size_t>(cpus), 0);
    for (int o = 0; o < MAX_ORDER; ++o) {
        pages.listInit(m_areaBase + static_cast<std::uint32_t>(o));
        m_nrArea[o] = 0;
    }
    compactCachedMigratePfn = first;
    compactCachedFreePfn = end;
    // memblock_free_all(): every page freed once; blocks as large as alignment allows, from the top down so the
    // lists hand out low addresses first.
    for (Pfn p = end; p > first;) {
        int order = MAX_ORDER - 1;
        for (;; --order) {
            Pfn size = Pfn(1) << order;
            if (p >= size && (p - size) % size == 0 && p - size >= first)
                break;
        }
        p -= Pfn(1) << order;
        for (Pfn q = p; q < p + (Pfn(1) << order); ++q) {
            pages.setFlags(q, PG_buddy);
            pages.setIndex(q, kNotBuddyHead);
        }
        listAdd(pages, p, order);
    }
}

Pfn Zone::rmqueueSmallest(PageArray& pages, int order)
{
    for (int o = order; o < MAX_ORDER; ++o) {
        Pfn p = pages.first(areaHead(pages, o));
        if (p == kNoPage)
            continue;
        listDel(pages, p);
        // expand(): keep the low half, put the high halves back on the lower lists.
        while (o > order) {
            --o;
            listAdd(pages, p + (Pfn(1) << o), o);
        }
        for (Pfn q = p; q < p + (Pfn(1) << order); ++q)
            pages.setFlags(q, 0);
        return p;
    }
    return kNoPage;
}

std::size_t Zone::rmqueueBulk(PageArray& pages, std::size_t n, Pfn* out, std::uint16_t flags)
{
    std::size_t taken = 0;
    while (taken < n) {
        int o = 0;
        while (o < MAX_ORDER && pages.listEmpty(areaHead(pages, o)))
            ++o;
        if (o == MAX_ORDER)
            break;
        Pfn b = pages.first(areaHead(pages, o));
        listDel(pages, b);
        // The lists below `o` are empty, so one-at-a-time allocation would split this block and take its pages in
        // address order, every one of them through list_del() off some free list (its links cleared, its order
        // forgotten), until the block is used up or the batch is full.
        Pfn size = Pfn(1) << o;
        auto k = static_cast<Pfn>(std::min<std::size_t>(size, n - taken));
        pages.setFlags(b, flags);
        out[taken++] = b;
        for (Pfn q = b + 1; q < b + k; ++q) {
            pages.listUnlinked(q);
            pages.setIndex(q, kNotBuddyHead);
            pages.setFlags(q, flags);
            out[taken++] = q;
        }
        // What is left of the block is what expand() had put back: [k, size) in aligned blocks, at most one per
        // order below `o`, each alone on its list (so the order they are added in makes no difference).
        for (Pfn x = k; x < size; x += x & (~x + 1))
            listAdd(pages, b + x, std::countr_zero(x));
    }
    return taken;
}

void Zone::freeOnePage(PageArray& pages, Pfn p, int order)
{
    for (Pfn q = p; q < p + (Pfn(1) << order); ++q) {
        pages.setFlags(q, PG_buddy);
        pages.setIndex(q, kNotBuddyHead);
    }
    while (order < MAX_ORDER - 1) {
        Pfn buddy = p ^ (Pfn(1) << order);
        if (buddy < m_start || buddy >= m_end || freeBlockOrder(pages, buddy) != order)
            break;
        listDel(pages, buddy); // page_is_buddy(): a free block of the same order; merge
        p = std::min(p, buddy);
        ++order;
    }
    listAdd(pages, p, order);
}

void Zone::delFreeBlock(PageArray& pages, Pfn p)
{
    int order = freeBlockOrder(pages, p);
    listDel(pages, p);
    for (Pfn q = p; q < p + (Pfn(1) << order); ++q)
        pages.setFlags(q, 0);
}

std::string Zone::check(const PageArray& pages) const
{
    std::uint64_t total = 0;
    for (int o = 0; o < MAX_ORDER; ++o) {
        std::uint64_t n = 0;
        Pfn head = areaHead(pages, o);
        for (Pfn p = pages.first(head); p != kNoPage; p = pages.next(p) == head ? kNoPage : pages.next(p)) {
            ++n;
            if (p < m_start || p >= m_end)
                return "free_area[" + std::to_string(o) + "] holds page " + std::to_string(p) + " outside the zone";
            if (freeBlockOrder(pages, p) != o || p % (Pfn(1) << o) != 0)
                return "free block " + std::to_string(p) + " on free_area[" + std::to_string(o)
                    + "] is misaligned or has order " + std::to_string(freeBlockOrder(pages, p));
            for (Pfn q = p; q < p + (Pfn(1) << o); ++q) {
                if (pages.flags(q) != PG_buddy)
                    return "page " + std::to_string(q) + " of free block " + std::to_string(p)
                        + " is not PG_buddy only";
                if (q != p && pages.index(q) != kNotBuddyHead)
                    return "page " + std::to_string(q) + " inside free block " + std::to_string(p)
                        + " looks like a block head (double free?)";
            }
            if (n > m_end)
                return "free_area[" + std::to_string(o) + "] loops";
        }
        if (n != m_nrArea[static_cast<std::size_t>(o)])
            return "free_area[" + std::to_string(o) + "].nr_free "
                + std::to_string(m_nrArea[static_cast<std::size_t>(o)]) + " != " + std::to_string(n) + " blocks";
        total += n << o;
    }
    if (total != m_nrFree)
        return "NR_FREE_PAGES " + std::to_string(m_nrFree) + " != pages on the free lists " + std::to_string(total);
    return {};
}

} // namespace mms
