// mm/mmap.c's brk() and the heap's faults (handle_mm_fault of an anonymous page: do_anonymous_page, or
// do_huge_pmd_anonymous_page for a 2 MiB-aligned range with thp.enabled). The heap is kept apart from the PTEs
// (MmStruct::heap): its pages are on no LRU list and compaction and reclaim never see them.
#include "mm/mmap.h"

#include "mm/huge_memory.h"
#include "mm/mm.h"
#include "mm/memory.h"
#include "mm/page_alloc.h"
#include "mm/swapfile.h"

namespace mms {

namespace {
    // do_anonymous_page() of one 4 KiB heap page `p`, zeroed. The caller allocates it (alloc_page(), a coroutine only
    // on its slow path), so that a 4 KiB fault costs no coroutine frame of its own: a fallback heap is 512 of them.
    void heap_anonymous_page(Mm& k, Task& t, MmStruct& mm, Pfn p)
    {
        Sched::burn(t, k.cost.faultEntryNs + k.cost.pteOpNs);
        k.burnStream(t, p, k.cost.zeroPageNs * k.memCostJitter);
        mm.heap.push_back(p);
    }
} // namespace

bool vm_enough_memory(const Mm& k, std::uint64_t pages)
{
    const auto [swapTotal, swapFree] = si_swapinfo(k);
    if (k.tg.overcommit == Overcommit::Always)
        return true;
    if (k.tg.overcommit == Overcommit::GuessTotal) // 5.2+: totalram_pages() + total_swap_pages
        return pages <= k.pages.size() + swapTotal;
    // Before 5.2: NR_FREE_PAGES + NR_FILE_PAGES (page cache reclaim can drop) + free swap, less totalreserve_pages
    // (the high watermarks). The model's page cache is its file LRU; it has no reclaimable slab.
    std::uint64_t free = k.nrFreePages() + k.nrFileLru() + swapFree;
    if (free <= k.highWatermarks())
        return false;
    return pages < free - k.highWatermarks();
}

Co<> heap_touch(Mm& k, Task& t, MmStruct& mm)
{
    if (mm.heap.size() >= mm.brkPages)
        co_return;
    FnScope fn(t, "handle_mm_fault");
    Sched::burn(t, k.cost.faultEntryNs);
    while (mm.heap.size() < mm.brkPages) {
        auto i = static_cast<std::uint32_t>(mm.heap.size());
        bool aligned = i % pageblock_nr_pages == 0 && i + pageblock_nr_pages <= mm.brkPages;
        if (aligned && k.tg.thpEnabled && co_await do_huge_pmd_anonymous_page(k, t, mm))
            continue;
        // The range (or, without THP, the rest of the heap) faults 4 KiB at a time.
        std::uint32_t end = aligned ? i + pageblock_nr_pages : mm.brkPages;
        while (mm.heap.size() < end) {
            Pfn p = co_await alloc_page(k, t);
            if (p == kNoPage)
                co_return; // VM_FAULT_OOM for an OOM victim: it dies at the return to user space
            heap_anonymous_page(k, t, mm, p);
        }
    }
}

Co<> sys_brk(Mm& k, Task& t, MmStruct& mm, std::uint32_t pages)
{
    mm.brkPages = pages;
    if (mm.heap.size() <= pages)
        co_return;
    // do_munmap() of the top: the huge pages it cuts into or covers are split (a partial unmap of a THP splits it), so
    // their pages go back one by one, through this CPU's per-cpu list, where the next order-0 allocations (page cache)
    // take them: the 2 MiB block does not form again.
    FnScope fn(t, "zap_pte_range");
    for (std::size_t h = mm.heapHuge.size(); h-- > 0;)
        if (mm.heapHuge[h] + pageblock_nr_pages > pages)
            split_huge_page(k, t, mm, mm.heapHuge[h]);
    for (std::size_t i = pages; i < mm.heap.size(); ++i) {
        Sched::burn(t, k.cost.pteOpNs + k.cost.rmapOpNs);
        co_await free_hot_cold_page(k, t, mm.heap[i]);
    }
    mm.heap.resize(pages);
}

} // namespace mms
