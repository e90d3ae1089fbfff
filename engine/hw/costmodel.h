#pragma once
// Costs of the machine's primitive operations. Every number has a unit (ns unless stated) and a source; "calibrated"
// marks a value chosen inside the documented range so that a post's baseline column comes out right; the variants'
// differences are then left to the modelled mechanisms. Cost numbers belong to a machine preset (machine.cpp),
// never to a scenario.

#include <string>

namespace mms {

struct CostModel {
    double clockGHz = 2.5; // core clock of the preset, for converting cycle counts

    // --- atomics, cache lines, barriers ---
    double lockedRmwNs = 8.0; // ~20 cycles at 2.5 GHz: lock add/xadd/cmpxchg/bts, L1 hit (Agner Fog tables, uops.info)
    double lineSameSocketNs = 40.0; // cache-line transfer between cores of one socket, 100 cycles (David et al., SOSP'13)
    double lineCrossSocketNs = 120.0; // ... between sockets, 300 cycles (David et al., SOSP'13)
    double smpMbNs = 12.0; // x86-64 >= 4.15: `lock addl $0,-4(%rsp)`, about one locked op (barrier.h, 5.6)
    double functionCallNs = 3.0; // out-of-line call + prologue/epilogue, ~8 cycles (GUESS in kernel-mm.md, seed 002)

    // --- TLB and IPIs ---
    double tlbFlushLocalNs = 100.0; // INVLPG ~100 ns (Dave Hansen, a5102476a24b comment)
    double ipiSendNs = 1500.0; // synchronous shootdown to one target: send + wait for ack (KVM-thread microbench, 1.3-1.5 us)
    double ipiPerExtraTargetNs = 400.0; // each further target of the same round (kernel-mm.md: +0.3-1 us)
    double ipiHandleNs = 600.0; // the interrupted CPU: entry, flush, ack, exit (GUESS, ~1.5k cycles)

    // --- faults, pages, scheduling ---
    double faultEntryNs = 200.0; // exception entry/exit (kernel-mm.md: 0.1-0.3 us)
    double vmaAdjustNs = 800.0; // split_vma/vma_merge/vma_adjust: vm_area_struct slab alloc or free, rb-tree and
                                // anon_vma/prio-tree relinks, ~2k cycles (GUESS; kernel-mm.md has no figure)
    double zeroPageNs = 1000.0; // clear a 4 KiB page, 2000-4000 cycles (Rik van Riel, linux-mm 2005)
    double copyPageNs = 1400.0; // copy a 4 KiB page, ~1.4x zeroing (GUESS, kernel-mm.md)
    double userMemsetPageNs = 780.0; // user-space memset of 4 KiB at ~5.2 GB/s (calibrated: seed 000 user time 6.1 s / 7.9M pages)
    double contextSwitchNs = 3000.0; // switch + cache refill (kernel-mm.md: 2-5 us)
    double wakeupNs = 1000.0; // try_to_wake_up + IPI-less enqueue (GUESS)
    double timeSliceNs = 3.0e6; // CFS sched_min_granularity-like slice, 3 ms (kernel default scaled to 12 CPUs)

    // --- kernel bookkeeping, per page (small steps between the modelled locks) ---
    double pteOpNs = 4.0; // read/modify/write one PTE in cache (GUESS, ~10 cycles)
    double rmapOpNs = 10.0; // page_add_*_rmap / page_remove_rmap: one atomic on _mapcount (~= lockedRmwNs)
    double pageAllocNs = 60.0; // buffered_rmqueue from the per-cpu list, no zone->lock (GUESS)
    double pageFreeNs = 50.0; // free_hot_cold_page into the per-cpu list (GUESS)
    double listOpNs = 6.0; // list_add/list_del + counter update on an LRU list (GUESS)
    double reclaimPerPageNs = 600.0; // shrink_page_list bookkeeping per page: trylock, mapping checks, putback
                                     // (calibrated: seed 000 DONTNEED sys time; kernel-mm.md gives no direct figure)
    double swapScanPerSlotNs = 2.0; // scan_swap_map: one swap_map byte (GUESS)
    double swapAllocNs = 250.0; // get_swap_page/scan_swap_map fixed cost under si->lock (calibrated, seed 000)
    double swapFreeNs = 120.0; // swap_entry_free under si->lock (calibrated from seed 003: ~1.7 us per entry sorted,
                               // most of it lock traffic)
    double swapCacheOpNs = 150.0; // radix-tree insert/delete under the swapper space tree_lock (GUESS)
    double bioSubmitNs = 1500.0; // build and submit one bio (GUESS: generic_make_request + driver, ~4k cycles)
    double ioCompleteNs = 800.0; // end_page_writeback / end_swap_bio_read per page, softirq (GUESS)

    // --- run-to-run noise of memory-bound costs (the only noise; drawn from the seeded PRNG) ---
    double memRunSpread = 0.01; // per boot: where the page cache and buffers land in DRAM (channel, bank, row
                                // locality) moves a streaming kernel's time by about +-1 % run to run (GUESS)
    double memPageSpread = 0.05; // per page: row-buffer hits and misses, prefetcher luck, +-5 % (GUESS)

    std::string describe() const;
};

} // namespace mms
