#pragma once
// Costs of the machine's primitive operations. Every number has a unit (ns unless stated) and a source that is not
// one of the posts' own results (docs/presets.md has the table per preset). A preset (machine.cpp) fills them from
// its processor (CpuSpec): hardware costs from datasheets and published measurements, kernel code paths as cycle
// counts at the preset's clock, so that they follow the hardware. Cost numbers never belong to a scenario.

#include <cstddef>
#include <cstdint>
#include <string>

namespace mms {

// The processor of a preset: what costModelFor() derives the cost model from.
struct CpuSpec {
    std::string model; // e.g. "Intel Xeon E5-2620 v3 (Haswell-EP)"
    double clockGHz = 2.5; // base clock (datasheet)
    double lockedRmwCycles = 20; // lock add/xadd/cmpxchg on an L1-resident line (Agner Fog, uops.info)
    double lineSameSocketNs = 40; // a modified line moving between two cores of one socket
    // ... between two cores of one last-level cache (MachineSpec::coresPerLlc); 0: as lineSameSocketNs (the cache is
    // the socket's)
    double lineSameLlcNs = 0;
    double lineCrossSocketNs = 120; // ... between sockets
    double storeGBps = 10; // one core streaming stores to DRAM (clear_page, memset of cold pages), 1e9 B/s
    // How much longer a line from another socket's memory takes than one from the core's own (one QPI/UPI hop):
    // Intel's Memory Latency Checker on a 4-socket Xeon E7-4800 v2, 135 ns local and 194-202 ns one hop away,
    // ratio 1.46 (Intel Developer Zone, "Memory latencies on Intel Xeon processor E5-4600 and E7-4800 product
    // families", 2014). A core's stream is as many lines in flight as its fill buffers hold over the latency
    // (Little's law), so a stream from remote memory runs this much slower.
    double remoteMemLatencyRatio = 196.0 / 135.0;
    // A cache line from the socket's own memory, idle (a written line no cache holds any more); 0: not modelled.
    double memLatencyNs = 0;
    // One last-level cache, bytes (the datasheet's "cache", per die or CCX where a socket has several: MachineSpec::
    // coresPerLlc); 0: caches are not modelled, no line leaves.
    double llcBytes = 0;
    // Two SMT threads of one core, both computing, get this many times one thread's work done: Intel's "up to 30 %"
    // for Hyper-Threading on server benchmarks (Marr et al., "Hyper-Threading Technology Architecture and
    // Microarchitecture", Intel Technology Journal 6(1), 2002). Used only on presets with threads per core.
    double smtThroughput = 1.3; // Marr et al., ITJ 6(1), 2002: "up to 30 %"
};

struct CostModel {
    double clockGHz = 2.5; // core clock of the preset, for converting cycle counts

    // --- atomics, cache lines, barriers ---
    double lockedRmwNs = 8.0; // lock add/xadd/cmpxchg/bts, L1 hit: CpuSpec::lockedRmwCycles at the clock
    // Cache-line transfers: costModelFor() sets them from the preset's CpuSpec (each figure sourced in machine.cpp and
    // docs/presets.md). The defaults are CpuSpec's, for a cost model made without a preset (GUESS: the order of the
    // presets' figures, 20-100 ns inside a socket and 120-300 ns between sockets).
    double lineSameLlcNs = 40.0; // between cores of one last-level cache: GUESS, CpuSpec::lineSameSocketNs's default
    double lineSameSocketNs = 40.0; // between cores of one socket, in different caches: GUESS, as CpuSpec's
    double lineCrossSocketNs = 120.0; // between sockets: GUESS, as CpuSpec's
    // smp_mb(): `lock addl $0,-4(%rsp)` since 4.15 (barrier.h), one locked op. The only full barrier the model
    // times is 5.6's in __pagevec_lru_add_fn, so the pre-4.15 mfence form is not needed.
    double smpMbNs = 8.0;
    double functionCallNs = 4.0; // out-of-line call + prologue/epilogue: kernel cycles x clock (costModelFor)

    // --- TLB and IPIs ---
    double tlbFlushLocalNs = 100.0; // INVLPG ~100 ns (Dave Hansen, a5102476a24b comment)
    // A user access to a present page whose PTE lacks the accessed bit (or, for a store, the dirty bit): the
    // processor walks the page tables to the PTE and sets the bit with a locked update (Intel SDM vol. 3A, 4.8 and
    // 8.1.2.1: "the processor uses locked cycles to set the accessed and dirty flag"). Where the kernel clears the
    // bits it flushes the translation (MADV_FREE, and page_referenced() before 3.18), so the access walks; from
    // 3.18 x86's young-bit clear flushes nothing, and a translation still cached would set no bit (not modelled:
    // the walk is charged). costModelFor(): 4 references hitting the paging-structure caches or L1/L2 (GUESS ~10
    // cycles each, as for eptFaultWalkNs) and the locked RMW.
    double adBitWalkNs = 24.0; // 4 x 10 cycles (GUESS) + a 20-cycle locked RMW (Agner Fog), 60 cycles at 2.5 GHz
    double ipiSendNs = 1500.0; // synchronous shootdown to one target: send + wait for ack (KVM-thread microbench, 1.3-1.5 us)
    double ipiPerExtraTargetNs = 400.0; // each further target of the same round (GUESS of +0.3-1 us; docs/presets.md)
    double ipiHandleNs = 600.0; // the interrupted CPU: entry, flush, ack, exit (GUESS, ~1.5k cycles)
    // A synchronous IPI round to `targets` CPUs (at least one): the sender's wait until the last has acknowledged.
    double ipiRoundNs(std::size_t targets) const
    {
        return ipiSendNs + static_cast<double>(targets - 1) * ipiPerExtraTargetNs;
    }

    // --- a KVM guest (hw/guest.h: guestCostModel); all 0 on bare metal ---
    double vmExitNs = 0; // one VM exit and re-entry, the host's handler included
    int ipiSendExits = 0; // exits the sender takes per IPI target (the trapped ICR write)
    int ipiTakeExits = 0; // exits a target takes per IPI (the kick out of guest mode, the trapped EOI)
    // The VM exits of IPIs to `targets` CPUs, sender's and targets' (all folded into the IPI figures above).
    std::uint64_t ipiVmExits(std::size_t targets) const
    {
        return targets * static_cast<std::uint64_t>(ipiSendExits + ipiTakeExits);
    }
    double eptFaultWalkNs = 0; // per page fault: the two-dimensional page walks under EPT beyond a native walk
    // A task woken onto an idle vCPU: the vCPU has halted (HLT exits to the host, which blocks its thread), so the
    // host must wake that thread and enter the guest again, injecting the interrupt, before the switch can begin.
    double haltedVcpuWakeNs = 0; // bare metal: no vCPU, nothing halts in a host (hw/guest.cpp sets a guest's)
    // How long the host keeps a vCPU descheduled each time (MachineSpec::guestPreempt): the slice of the host task
    // it gave way to (hw/guest.cpp). A moment of a descheduled vCPU lies uniformly within it: an IPI or a lock
    // hand-off that reaches such a vCPU waits up to this long.
    double vcpuPreemptMaxNs = 0;
    // A descheduled vCPU that another vCPU of its guest spins on (a lock, an IPI's acknowledgement) runs again this
    // long after the spin begins: the spinner's PAUSE-loop exit and the host's directed yield (hw/guest.cpp).
    double pleBoostNs = 0; // bare metal: no host deschedules a vCPU, nothing to boost (hw/guest.cpp sets a guest's)

    // --- faults, pages, scheduling ---
    double faultEntryNs = 200.0; // exception entry/exit (GUESS of 0.1-0.3 us; docs/presets.md)
    double vmaAdjustNs = 800.0; // split_vma/vma_merge/vma_adjust: vm_area_struct slab alloc or free, rb-tree and
                                // anon_vma/prio-tree relinks (GUESS; no published figure)
    double zeroPageNs = 410.0; // clear a cold 4 KiB page: 4096 B at CpuSpec::storeGBps
    double copyPageNs = 820.0; // copy a cold 4 KiB page: 8 KiB of memory traffic at the same rate
    double userMemsetPageNs = 410.0; // user-space memset of a cold 4 KiB page: the same store stream as zeroPageNs
    double memCoreGBps = 10.0; // one core's memory stream (CpuSpec::storeGBps): the rate of the transfers above
    double remoteMemLatencyRatio = 1.46; // CpuSpec::remoteMemLatencyRatio: a remote node's stream is this much slower
    double memLatencyNs = 0; // CpuSpec::memLatencyNs: a line from local memory (remote: x remoteMemLatencyRatio)
    double llcBytes = 0; // CpuSpec::llcBytes: 0 keeps every written line cached (a bare machine's tests)
    // CpuSpec::smtThroughput: a thread's compute while its SMT sibling computes too takes 2 / this as long (each of
    // the two gets half of the core's 1.3 times); a sibling that idles or spins (PAUSE) leaves it the core.
    double smtThroughput = 1.3; // CpuSpec::smtThroughput's source
    double contextSwitchNs = 3000.0; // switch + cache refill (GUESS of 2-5 us; docs/presets.md)
    double wakeupNs = 1000.0; // try_to_wake_up + IPI-less enqueue (GUESS)
    double timeSliceNs = 3.0e6; // CFS sched_min_granularity-like slice, 3 ms (a scheduler setting, not hardware)

    // --- kernel bookkeeping, per page (small steps between the modelled locks) ---
    double pteOpNs = 4.0; // read/modify/write one PTE in cache (GUESS, ~10 cycles)
    double rmapOpNs = 10.0; // page_add_*_rmap / page_remove_rmap: one atomic on _mapcount plus its test
    double pageAllocNs = 60.0; // buffered_rmqueue from the per-cpu list, no zone->lock (GUESS)
    double pageFreeNs = 50.0; // free_hot_cold_page into the per-cpu list (GUESS)
    double listOpNs = 6.0; // list_add/list_del + counter update on an LRU list (GUESS)
    double reclaimPerPageNs = 600.0; // shrink_page_list bookkeeping per page: trylock, mapping checks, putback (GUESS)
    double swapScanPerSlotNs = 2.0; // scan_swap_map: one swap_map byte (GUESS)
    double swapAllocNs = 250.0; // get_swap_page/scan_swap_map fixed cost under si->lock (GUESS)
    double swapFreeNs = 120.0; // swap_entry_free under si->lock: swap_map, cluster count, counters (GUESS)
    double swapCacheOpNs = 150.0; // radix-tree insert/delete under the swapper space tree_lock (GUESS)
    double bioSubmitNs = 1500.0; // build and submit one bio (GUESS: generic_make_request + driver, ~4k cycles)
    double ioCompleteNs = 800.0; // end_page_writeback / end_swap_bio_read per page, softirq (GUESS)

    // --- the VFS: a name made or removed in a directory (fs/namei.c) ---
    double pathWalkNs = 600.0; // getname + link_path_walk of a short relative name, RCU dentry lookup (GUESS)
    double dirCreateNs = 4000.0; // under the directory's i_mutex: d_alloc, the filesystem's create (inode, entry)
    double dirLinkNs = 2400.0; // under the directory's i_mutex: the filesystem's link (entry, i_nlink)
    double dirUnlinkNs = 2400.0; // under the directory's i_mutex: the filesystem's unlink (entry, i_nlink)
    double inodeEvictNs = 2000.0; // the last iput after unlink, outside the lock: evict, truncate, free the inode
    double shortSyscallNs = 600.0; // a short syscall's own work: stat of a cached path, lseek, getdents (GUESS)
    double loopbackMsgNs = 4800.0; // one message over loopback TCP/UDP, send and receive in one process (GUESS)

    // --- run-to-run noise of memory-bound costs (the only noise; drawn from the seeded PRNG) ---
    double memRunSpread = 0.01; // per boot: where the page cache and buffers land in DRAM (channel, bank, row
                                // locality) moves a streaming kernel's time by about +-1 % run to run (GUESS)
    double memPageSpread = 0.05; // per page: row-buffer hits and misses, prefetcher luck, +-5 % (GUESS)

    std::string describe() const;
};

// The cost model of a machine with this processor: hardware figures from the CpuSpec, kernel code paths as cycle
// counts (the same on every preset) at its clock.
CostModel costModelFor(const CpuSpec& cpu);

} // namespace mms
