// Mm::checkInvariants(): the consistency checks of the memory-management state, in the spirit of mm/debug.c's
// VM_BUG_ON_PAGE and CONFIG_DEBUG_VM's list checks, run by the tests and after a run. Each step returns the first
// violation it finds, or an empty string.
#include "mm/mm.h"

#include <algorithm>

namespace mms {

namespace {
    std::string str(std::uint64_t n) { return std::to_string(n); }

    // Every LRU list walked: each page on one list only, with the flags and the lruvec of that list, and each list
    // as long as its counter. `onList` is set for every page found on a list.
    std::string check_lru_lists(const Mm& k, std::vector<std::uint8_t>& onList)
    {
        const PageArray& pages = k.pages;
        const std::uint32_t n = pages.size();
        for (const Lruvec* v : k.lruvecs)
            for (int l = 0; l < NR_LRU_LISTS; ++l) {
                const auto list = static_cast<LruList>(l);
                std::uint64_t count = 0;
                for (Pfn p = pages.first(k.lruHead(*v, list)); p != kNoPage && p < n; p = pages.next(p)) {
                    if (onList[p]++)
                        return "page " + str(p) + " is on two LRU lists";
                    if (!pages.test(p, PG_lru) || Mm::page_lru(pages.flags(p)) != l)
                        return "page " + str(p) + " on list " + lruListName(list) + " has flags that say otherwise";
                    if (&k.lruvecOf(p) != v)
                        return "page " + str(p) + " is on the lists of another node's or memcg's lruvec";
                    ++count;
                }
                if (count != v->nr[l])
                    return std::string("list ") + lruListName(list) + " holds " + str(count) + " pages but its counter says "
                        + str(v->nr[l]);
            }
        return {};
    }

    // PG_lru exactly on the listed pages; free pages (PG_buddy) with no other flag and no owner, as many as the free
    // lists and the per-cpu lists hold.
    std::string check_free_pages(const Mm& k, const std::vector<std::uint8_t>& onList)
    {
        const PageArray& pages = k.pages;
        std::uint64_t buddy = 0;
        for (Pfn p = 0; p < pages.size(); ++p) {
            bool lru = pages.test(p, PG_lru);
            if (lru != (onList[p] != 0))
                return "page " + str(p) + " has PG_lru " + (lru ? "set" : "clear") + " but is " + (onList[p] ? "" : "not ")
                    + "on a list";
            if (pages.test(p, PG_buddy)) {
                ++buddy;
                if (pages.flags(p) != PG_buddy || pages.owner(p) != 0)
                    return "free page " + str(p) + " has other flags or an owner";
            }
        }
        std::uint64_t pcpPages = 0;
        for (const auto& d : k.nodes) {
            for (const auto& pcp : d->zone.pcp)
                for (Pfn p : pcp)
                    if (k.page_to_nid(p) != d->nid)
                        return "free page " + str(p) + " is on a per-cpu list of another node's zone";
            for (const auto& pcp : d->zone.pcp)
                pcpPages += pcp.size();
            if (std::string e = d->zone.check(pages); !e.empty())
                return e;
        }
        if (buddy != k.nrFreePages() + pcpPages)
            return "PG_buddy pages " + str(buddy) + " != free list " + str(k.nrFreePages()) + " + per-cpu lists "
                + str(pcpPages);
        return {};
    }

    // The page cache: every file page (owner set, not anon) sits in its mapping at its index, and back; no task
    // still sleeps on a page lock; nrpages counts both.
    std::string check_page_cache(const Mm& k)
    {
        const PageArray& pages = k.pages;
        const std::uint32_t n = pages.size();
        std::vector<std::uint64_t> found(k.mappings.size(), 0);
        for (Pfn p = 0; p < n; ++p) {
            if (pages.owner(p) == 0 || pages.test(p, PG_anon | PG_buddy | PG_swapbacked))
                continue;
            std::size_t id = pages.owner(p) - 1u;
            if (id >= k.mappings.size() || k.mappings[id]->lookup(pages.index(p)) != p)
                return "file page " + str(p) + " (mapping " + str(id) + ", index " + str(pages.index(p)) + ") is not in its mapping";
            ++found[id];
        }
        std::uint64_t withPages = 0;
        for (std::size_t id = 0; id < k.mappings.size(); ++id) {
            const AddressSpace& m = *k.mappings[id];
            withPages += m.nrpages != 0;
            std::uint64_t entries = 0;
            for (std::size_t i = 0; i < m.pages.size(); ++i) {
                Pfn p = m.pages[i];
                if (p == kNoPage)
                    continue;
                ++entries;
                if (p >= n || pages.owner(p) != id + 1u || pages.index(p) != i || pages.test(p, PG_buddy))
                    return "mapping " + str(id) + " index " + str(i) + " points to page " + str(p) + " that does not point back";
            }
            if (!m.pageWaiters.empty())
                return "mapping " + str(id) + " still has tasks sleeping on a page lock";
            if (entries != m.nrpages || found[id] != m.nrpages)
                return "mapping " + str(id) + " nrpages " + str(m.nrpages) + " != entries " + str(entries) + " / owned pages "
                    + str(found[id]);
        }
        if (withPages != k.mappingsWithPages)
            return "mappingsWithPages " + str(k.mappingsWithPages) + " != " + str(withPages) + " mappings with pages";
        return {};
    }

    // One mm's PTEs: a present anonymous PTE maps a page that mm owns at that index, a present file PTE its file's
    // page at the VMA's offset, a swap PTE a slot in range; rss, file rss and swapents count them; every file VMA is
    // on its mapping's i_mmap tree. Counts the references to each swap slot (`refs`) and to each page-cache page
    // (`fileMaps`).
    std::string check_ptes(const Mm& k, const MmStruct& mm, std::vector<std::vector<std::uint32_t>>& refs,
        std::vector<std::uint32_t>& fileMaps)
    {
        const PageArray& pages = k.pages;
        const std::uint32_t n = pages.size();
        const std::string who = "mm " + str(mm.id);
        std::uint64_t rss = 0, swapents = 0, fileRss = 0;
        for (std::uint32_t vpn = 0; vpn < mm.pte.size(); ++vpn) {
            Pte e = mm.pte[vpn];
            if (pte::present(e)) {
                Pfn p = pte::pfn(e);
                const Vma* v = mm.file_vma_at(vpn);
                if (v) { // a file mapping: the page of that file at the VMA's offset
                    ++fileRss;
                    if (p >= n || pages.owner(p) != v->file->id + 1u || pages.index(p) != v->pgoff + (vpn - v->start)
                        || pages.test(p, PG_buddy | PG_anon | PG_swapbacked))
                        return "PTE of " + who + " vpn " + str(vpn) + " maps page " + str(p) + " that is not its file's page";
                    ++fileMaps[p];
                    continue;
                }
                ++rss;
                if (pages.owner(p) != mm.id + 1u || pages.index(p) != vpn || pages.test(p, PG_buddy))
                    return "PTE of " + who + " vpn " + str(vpn) + " maps page " + str(p) + " owned by someone else";
            } else if (pte::isSwap(e)) {
                ++swapents;
                auto entry = pte::toSwpEntry(e);
                auto type = pte::swpType(entry);
                if (type >= k.swap.size() || pte::swpOffset(entry) >= k.swap[type]->nrSlots())
                    return "swap PTE out of range";
                ++refs[type][pte::swpOffset(entry)];
            }
        }
        if (rss != mm.rss)
            return who + " rss counter " + str(mm.rss) + " != present PTEs " + str(rss);
        if (swapents != mm.swapents)
            return who + " swapents counter " + str(mm.swapents) + " != swap PTEs " + str(swapents);
        if (fileRss != mm.fileRss)
            return who + " file rss counter " + str(mm.fileRss) + " != present file PTEs " + str(fileRss);
        for (const Vma& v : mm.vmas) {
            auto same = [&](const FileVma& f) {
                return f.mm == &mm && f.start == v.start && f.pgoff == v.pgoff && f.pages == v.pages;
            };
            if (v.file && std::find_if(v.file->i_mmap.begin(), v.file->i_mmap.end(), same) == v.file->i_mmap.end())
                return "file VMA of " + who + " at vpn " + str(v.start) + " is not on its mapping's i_mmap tree";
        }
        return {};
    }

    // A page-cache page's mapcount is the number of present PTEs that map it (the reverse map).
    std::string check_file_mapcounts(const Mm& k, const std::vector<std::uint32_t>& fileMaps)
    {
        const PageArray& pages = k.pages;
        for (Pfn p = 0; p < pages.size(); ++p)
            if (pages.owner(p) != 0 && !pages.test(p, PG_anon | PG_swapbacked | PG_buddy) && pages.mapcount(p) != fileMaps[p])
                return "page-cache page " + str(p) + " has mapcount " + str(pages.mapcount(p)) + " but " + str(fileMaps[p])
                    + " PTEs map it";
        return {};
    }

    // Slots held by the swap slots caches: each is in exactly one cache, reserved, with no reference and no page.
    std::string check_swap_slots_caches(const Mm& k)
    {
        std::vector<std::vector<std::uint8_t>> held(k.swap.size());
        for (std::size_t i = 0; i < k.swap.size(); ++i)
            held[i].assign(k.tg.slotsCache != SlotsCache::Off ? k.swap[i]->nrSlots() : 0, kSlotFree);
        auto hold = [&](std::uint32_t entry, std::uint8_t state) {
            auto type = pte::swpType(entry);
            auto off = pte::swpOffset(entry);
            if (type >= k.swap.size() || off >= held[type].size() || held[type][off] != kSlotFree)
                return "swap slot " + str(type) + ":" + str(off) + " is in two slots caches or out of range";
            held[type][off] = state;
            return std::string();
        };
        for (auto& c : k.swapSlots) {
            for (std::size_t j = c.cur; j < c.slots.size(); ++j)
                if (auto e = hold(c.slots[j], kSlotInAllocCache); !e.empty())
                    return e;
            for (std::uint32_t entry : c.slotsRet)
                if (auto e = hold(entry, kSlotInFreeBuffer); !e.empty())
                    return e;
            for (auto& buf : c.slotsRetDev)
                for (std::uint32_t entry : buf)
                    if (auto e = hold(entry, kSlotInFreeBuffer); !e.empty())
                        return e;
        }
        for (std::size_t i = 0; i < k.swap.size(); ++i)
            for (std::uint32_t off = 0; off < held[i].size(); ++off) {
                const SwapSlot& slot = k.swap[i]->slot[off];
                const std::string at = str(i) + ":" + str(off);
                if (held[i][off] != slot.slotCached)
                    return "swap slot " + at + " slotCached " + str(slot.slotCached) + " but the slots caches say " + str(held[i][off]);
                if (held[i][off] != kSlotFree && (slot.swapMap != 0 || slot.cache() != kNoPage))
                    return "swap slot " + at + " is in a slots cache but still referenced";
            }
        return {};
    }

    // swap_map counts the PTEs that refer to each slot (`refs`); a swap-cache page points back at its slot; inuse
    // counts the slots in use.
    std::string check_swap_map(const Mm& k, const std::vector<std::vector<std::uint32_t>>& refs)
    {
        for (std::size_t i = 0; i < k.swap.size(); ++i) {
            const SwapInfo& si = *k.swap[i];
            std::uint32_t inuse = 0;
            for (std::uint32_t off = 0; off < si.nrSlots(); ++off) {
                if (si.slot[off].swapMap != refs[i][off])
                    return "swap_map[" + str(i) + "][" + str(off) + "] = " + str(si.slot[off].swapMap) + " but "
                        + str(refs[i][off]) + " PTEs refer to it";
                Pfn c = si.slot[off].cache();
                if (c != kNoPage && (!k.pages.test(c, PG_swapcache) || k.pages.priv(c) != pte::swpEntry(static_cast<unsigned>(i), off)))
                    return "swap cache slot " + str(off) + " points to a page that does not point back";
                inuse += si.slotUsed(off);
            }
            if (inuse != si.inuse)
                return "swap device " + str(i) + " inuse " + str(si.inuse) + " != used slots " + str(inuse);
        }
        return {};
    }
} // namespace

std::string Mm::checkInvariants() const
{
    std::vector<std::uint8_t> onList(pages.size(), 0);
    if (std::string e = check_lru_lists(*this, onList); !e.empty())
        return e;
    if (std::string e = check_free_pages(*this, onList); !e.empty())
        return e;
    if (std::string e = check_page_cache(*this); !e.empty())
        return e;
    std::vector<std::vector<std::uint32_t>> refs(swap.size());
    for (std::size_t i = 0; i < swap.size(); ++i)
        refs[i].assign(swap[i]->nrSlots(), 0);
    std::vector<std::uint32_t> fileMaps(pages.size(), 0);
    for (const auto& mm : mms)
        if (std::string e = check_ptes(*this, *mm, refs, fileMaps); !e.empty())
            return e;
    if (std::string e = check_file_mapcounts(*this, fileMaps); !e.empty())
        return e;
    if (std::string e = check_swap_slots_caches(*this); !e.empty())
        return e;
    return check_swap_map(*this, refs);
}

} // namespace mms
