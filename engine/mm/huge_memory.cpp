// mm/huge_memory.c (3.x, transparent_hugepage=always with defrag): the order-9 allocation of a THP fault and the
// min_free_kbytes that THP sets at boot, the anonymous huge-page fault of the brk heap and the split that a partial
// unmap of a huge page causes.
#include "mm/huge_memory.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"

#include <algorithm>

namespace mms {

Co<Pfn> alloc_hugepage(Mm& k, Task& t)
{
    constexpr int order = HPAGE_PMD_ORDER;
    FnScope fn(t, "alloc_hugepage_vma");
    Sched::burn(t, k.cost.pageAllocNs);
    Pfn p = co_await rmqueue_order(k, t, order, Wmark::Low);
    if (p == kNoPage) {
        // __alloc_pages_slowpath(), __GFP_NO_KSWAPD: no kswapd wake-up; retry at the min watermark, then one
        // asynchronous direct compaction (MIGRATE_ASYNC: 3.3+ for THP). A deferred or contended compaction
        // fails the allocation at once (3.5+: "fail the allocation instead of entering direct reclaim"). One that
        // was skipped (too little free memory) or ran and found no block is followed, before 3.16, by direct
        // reclaim and a MIGRATE_SYNC_LIGHT compaction (sync_migration = true; a failure defers the next ones);
        // since 3.16 (thp.fault_compaction=async) THP faults never compact synchronously.
        p = co_await rmqueue_order(k, t, order, Wmark::Min);
        bool gaveUp = false;
        if (p == kNoPage)
            p = co_await direct_compact(k, t, order, false, &gaveUp);
        if (p == kNoPage && !gaveUp && k.tg.thpSyncCompaction) {
            std::uint64_t got = 0;
            p = co_await direct_reclaim(k, t, order, got);
            if (p == kNoPage) // order > PAGE_ALLOC_COSTLY_ORDER: no retry loop, one sync compaction
                p = co_await direct_compact(k, t, order, true);
        }
    }
    if (p != kNoPage)
        k.vm.inc(Vm::PgAlloc, 1u << order);
    co_return p;
}

void set_recommended_min_free_kbytes(Mm& k)
{
    // recommended_min = pageblock_nr_pages * nr_zones * 2 (free pageblocks for fragmentation avoidance)
    //                 + pageblock_nr_pages * nr_zones * MIGRATE_PCPTYPES^2 (room for the fallbacks), capped at 5 %
    //                 of memory; only ever raises min_free_kbytes, which setup_per_zone_wmarks() shares out over
    //                 the zones by size. One zone a node here; MIGRATE_PCPTYPES = 3.
    constexpr std::uint64_t MIGRATE_PCPTYPES = 3;
    const auto zones = static_cast<std::uint64_t>(k.nrNodes());
    std::uint64_t recommended = pageblock_nr_pages * zones * 2 + pageblock_nr_pages * zones * MIGRATE_PCPTYPES * MIGRATE_PCPTYPES;
    recommended = std::min<std::uint64_t>(recommended, k.pages.size() / 20);
    std::uint64_t min = 0, managed = 0;
    for (const auto& d : k.nodes) {
        min += d->zone.watermarkMin;
        managed += d->zone.end() - d->zone.start();
    }
    if (recommended <= min)
        return;
    for (auto& d : k.nodes) {
        Zone& z = d->zone;
        z.watermarkMin = zones == 1 ? recommended : recommended * (z.end() - z.start()) / managed;
        z.watermarkLow = z.watermarkMin * 5 / 4; // setup_per_zone_wmarks()
        z.watermarkHigh = z.watermarkMin * 3 / 2;
    }
}

Co<bool> do_huge_pmd_anonymous_page(Mm& k, Task& t, MmStruct& mm)
{
    FnScope fn(t, "do_huge_pmd_anonymous_page");
    // alloc_hugepage_vma(): GFP_TRANSHUGE, direct compaction when no order-9 block is free.
    Pfn p = co_await alloc_hugepage(k, t);
    if (p == kNoPage) {
        k.vm.inc(Vm::ThpFaultFallback);
        co_return false;
    }
    k.vm.inc(Vm::ThpFaultAlloc);
    FnScope clear(t, "clear_huge_page");
    mm.heapHuge.push_back(static_cast<std::uint32_t>(mm.heap.size()));
    for (Pfn q = p; q < p + pageblock_nr_pages; ++q)
        mm.heap.push_back(q);
    k.burnStream(t, p, static_cast<double>(pageblock_nr_pages) * k.cost.zeroPageNs * k.memCostJitter);
    co_return true;
}

void split_huge_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t first)
{
    FnScope fn(t, "split_huge_page");
    Sched::burn(t, static_cast<double>(pageblock_nr_pages) * (k.cost.pteOpNs + k.cost.rmapOpNs));
    std::erase(mm.heapHuge, first);
}

} // namespace mms
