// The names /proc/vmstat gives the counters (mm/vmstat.c: vmstat_text).
#include "mm/vmstat.h"

namespace mms {

const char* vmName(Vm v)
{
    switch (v) {
    case Vm::PgFault: return "pgfault";
    case Vm::PgMajFault: return "pgmajfault";
    case Vm::PgAlloc: return "pgalloc";
    case Vm::PgFree: return "pgfree";
    case Vm::PswpIn: return "pswpin";
    case Vm::PswpOut: return "pswpout";
    case Vm::SwapRa: return "swap_ra";
    case Vm::SwapRaHit: return "swap_ra_hit";
    case Vm::PgScanKswapd: return "pgscan_kswapd";
    case Vm::PgScanDirect: return "pgscan_direct";
    case Vm::PgSteal: return "pgsteal";
    case Vm::PgLazyFreed: return "pglazyfreed";
    case Vm::PgActivate: return "pgactivate";
    case Vm::PgDeactivate: return "pgdeactivate";
    case Vm::PgRotated: return "pgrotated";
    case Vm::AllocStall: return "allocstall";
    case Vm::IsolateThrottle: return "too_many_isolated_waits";
    case Vm::KswapdWakeup: return "kswapd_wakeup";
    case Vm::TlbLocalFlush: return "tlb_local_flush";
    case Vm::TlbRemoteIpi: return "tlb_remote_ipi";
    case Vm::ZapSwapEntries: return "zap_swap_entries";
    case Vm::SwapSlotsRefill: return "swap_slots_refill";
    case Vm::SwapFreeEntriesCalls: return "swapcache_free_entries_calls";
    case Vm::SwapFreeEntriesSlots: return "swapcache_free_entries_slots";
    case Vm::SwapFreeEntriesPs: return "swapcache_free_entries_ps";
    case Vm::RmapUnmap: return "rmap_unmap";
    case Vm::CompactStall: return "compact_stall";
    case Vm::CompactSuccess: return "compact_success";
    case Vm::CompactFail: return "compact_fail";
    case Vm::CompactIsolated: return "compact_isolated";
    case Vm::PgMigrateSuccess: return "pgmigrate_success";
    case Vm::PgMigrateFail: return "pgmigrate_fail";
    case Vm::ThpFaultAlloc: return "thp_fault_alloc";
    case Vm::ThpFaultFallback: return "thp_fault_fallback";
    case Vm::CompactAbortResched: return "compact_abort_resched";
    case Vm::CompactAbortZoneLock: return "compact_abort_zone_lock";
    case Vm::CompactAbortLruLock: return "compact_abort_lru_lock";
    case Vm::CompactSyncStall: return "compact_sync_stall";
    case Vm::MigrateUnmappedRmapWalks: return "migrate_unmapped_rmap_walks";
    case Vm::MigrateUnmappedRmapNs: return "migrate_unmapped_rmap_ns";
    case Vm::MigrateRmapWalks: return "migrate_rmap_walks";
    case Vm::MigrateRmapVmas: return "migrate_rmap_vmas";
    case Vm::RmapPmdWalks: return "rmap_pmd_walks";
    case Vm::WorkingsetRefault: return "workingset_refault";
    case Vm::WorkingsetActivate: return "workingset_activate";
    case Vm::SwapinSkipCache: return "swapin_skip_swapcache";
    case Vm::ZvcFold: return "zvc_folds";
    case Vm::Count: break;
    }
    return "?";
}

} // namespace mms
