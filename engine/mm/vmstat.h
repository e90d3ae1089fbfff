#pragma once
// /proc/vmstat-like event counters, plus the few the posts quote (IPIs, TLB flushes).

#include <array>
#include <cstdint>

namespace mms {

enum class Vm : std::uint8_t {
    PgFault,
    PgMajFault,
    PgAlloc,
    PgFree,
    PswpIn,
    PswpOut,
    SwapRa, // pages read by swap readahead beyond the faulting one
    SwapRaHit, // swap-in faults that found a page swap readahead read for that entry (4.14's swap_ra_hit)
    PgScanKswapd,
    PgScanDirect,
    PgSteal,
    PgLazyFreed,
    PgActivate,
    PgDeactivate,
    PgRotated,
    AllocStall, // direct reclaim entries
    IsolateThrottle, // model tracepoint: direct reclaimers' congestion_wait()s in shrink_inactive_list's too_many_isolated() loop
    KswapdWakeup,
    TlbLocalFlush,
    TlbRemoteIpi, // IPIs sent for TLB shootdowns (one per target CPU)
    ZapSwapEntries, // swap PTEs freed by zap/madvise
    SwapSlotsRefill, // get_swap_pages() refills of a per-CPU swap slots cache
    SwapFreeEntriesCalls, // swapcache_free_entries() calls
    SwapFreeEntriesSlots, // entries they freed
    SwapFreeEntriesPs, // their summed duration, picoseconds (a model tracepoint, not a /proc/vmstat field)
    RmapUnmap, // PTEs of file pages cleared by try_to_unmap (not a /proc/vmstat field)
    CompactStall, // direct compaction runs (compact_stall)
    CompactSuccess, // ... after which the allocation succeeded
    CompactFail,
    CompactIsolated, // pages isolated by the migrate scanner (compact_isolated, migrate side)
    PgMigrateSuccess,
    PgMigrateFail,
    ThpFaultAlloc, // THP faults that got a huge page (thp_fault_alloc)
    ThpFaultFallback, // ... that fell back to 4 KiB pages (thp_fault_fallback)
    // Model tracepoints, not /proc/vmstat fields: what the kernel's trace events would show, read by name like the
    // rest. Why direct compactions gave up (cc->contended, the first cause of each compaction: need_resched(), a
    // contended zone->lock or lru_lock in compact_checklock_irqsave), and how many ran MIGRATE_SYNC_LIGHT.
    CompactAbortResched,
    CompactAbortZoneLock,
    CompactAbortLruLock,
    CompactSyncStall, // of compact_stall, the MIGRATE_SYNC_LIGHT ones (after a round of reclaim)
    // What 2ebba6b7e1d9 takes away: migration's try_to_unmap() and remove_migration_ptes() of pages no one maps (the
    // i_mmap lock round-trips, waits included), their number and their time in ns. Zero with migrate.skip_unmapped.
    MigrateUnmappedRmapWalks,
    MigrateUnmappedRmapNs,
    // Page migration's rmap walks of page-cache pages (try_to_unmap and remove_migration_ptes, mapped or not: each an
    // i_mmap lock acquisition) and the VMAs they visited (vma_interval_tree_foreach); the pmd walks (mm_find_pmd) of
    // every rmap_one.
    MigrateRmapWalks,
    MigrateRmapVmas,
    RmapPmdWalks,
    WorkingsetRefault, // page-cache misses that found a shadow entry (workingset_refault, lru.workingset)
    WorkingsetActivate, // ... whose refault distance let the page start on the active list
    SwapinSkipCache, // swap-ins of a synchronous device that bypassed the swap cache (swap.skip_swapcache)
    ZvcFold, // model tracepoint: per-cpu vmstat deltas folded into the shared counters (mm/zvc.h)
    Count
};

const char* vmName(Vm v);

struct VmStat {
    std::array<std::uint64_t, static_cast<std::size_t>(Vm::Count)> v {};
    void inc(Vm e, std::uint64_t n = 1) { v[static_cast<std::size_t>(e)] += n; }
    std::uint64_t get(Vm e) const { return v[static_cast<std::size_t>(e)]; }
};

} // namespace mms
