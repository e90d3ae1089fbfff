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
    PgScanKswapd,
    PgScanDirect,
    PgSteal,
    PgLazyFreed,
    PgActivate,
    PgDeactivate,
    PgRotated,
    AllocStall, // direct reclaim entries
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
    Count
};

const char* vmName(Vm v);

struct VmStat {
    std::array<std::uint64_t, static_cast<std::size_t>(Vm::Count)> v {};
    void inc(Vm e, std::uint64_t n = 1) { v[static_cast<std::size_t>(e)] += n; }
    std::uint64_t get(Vm e) const { return v[static_cast<std::size_t>(e)]; }
};

} // namespace mms
