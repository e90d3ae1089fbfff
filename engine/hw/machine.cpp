#include "hw/machine.h"

#include <sstream>

namespace mms {

namespace {
    constexpr std::uint64_t GiB = 1ULL << 30;

    std::vector<DeviceSpec> devices()
    {
        std::vector<DeviceSpec> d;
        // SATA SSD of 2015 (e.g. Samsung 850-class): ~90 us 4 KiB random read, ~480 MB/s sequential write
        // on paper; 250 MB/s sustained for mixed 4-128 KiB swap I/O. Latencies from typical datasheets (kernel-mm.md
        // cost table: 80-120 us read). Bandwidth calibrated to seed 000's DONTNEED elapsed time.
        d.push_back({ "ssd-2015", 90'000, 40'000, 250, 8'000, 128 });
        // 7200 rpm disk: random 4 KiB ~8 ms, sequential ~100 MB/s (kernel-mm.md: 5-10 ms random).
        d.push_back({ "hdd-2007", 8'000'000, 8'000'000, 100, 50'000, 128 });
        // RAM-simulated persistent memory (seed 003's swap): ~1-3 us per 4 KiB (kernel-mm.md).
        d.push_back({ "pmem-ram", 1'000, 1'000, 8'000, 300, 1024 });
        // NVMe of 2020: 10-20 us read (kernel-mm.md).
        d.push_back({ "nvme-2020", 15'000, 15'000, 2'500, 1'000, 1024 });
        return d;
    }

    std::vector<MachineSpec> presets()
    {
        std::vector<MachineSpec> p;
        {
            MachineSpec m;
            m.preset = "generic-12cpu-2015";
            m.description = "Minchan Kim's test box of seed 000: 12 CPUs, 3 GB RAM, 8 GB swap (2015)";
            m.sockets = 1;
            m.cpus = 12;
            m.memoryBytes = 3 * GiB;
            m.swap.push_back({ 8 * GiB, *devicePreset("ssd-2015") });
            m.cost.clockGHz = 2.5;
            // 4.0 swap allocation: get_swap_page() takes swap_avail_lock and si->lock, scan_swap_map() walks
            // swap_map and the cluster list with cold cache lines (calibrated to seed 000's DONTNEED sys time,
            // within the 1-2 us per entry that seed 003 implies for swap_info lock round-trips).
            m.cost.swapAllocNs = 2000.0;
            m.cost.swapFreeNs = 800.0; // swap_entry_free + mem_cgroup_uncharge_swap + frontswap (calibrated, same source)
            m.cost.swapCacheOpNs = 300.0; // radix tree insert/delete with cold nodes (GUESS: ~6 cache misses)
            m.cost.reclaimPerPageNs = 1500.0; // shrink_page_list per page with cold struct page, anon_vma, mapping
            m.cost.listOpNs = 60.0; // LRU list_del/list_add touching two cold neighbour struct pages (GUESS)
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "quad-core-2007";
            m.description = "Rik van Riel's quad-core of seed 001 (Core 2 era, 2007, one socket)";
            m.sockets = 1;
            m.cpus = 4;
            m.memoryBytes = 4 * GiB;
            m.swap.push_back({ 4 * GiB, *devicePreset("hdd-2007") });
            m.cost.clockGHz = 2.4;
            m.cost.lockedRmwNs = 10.0; // Core 2: ~25 cycles locked op (Agner Fog)
            m.cost.lineSameSocketNs = 50.0; // shared L2 / FSB snoop (GUESS)
            m.cost.smpMbNs = 14.0; // mfence ~33 cycles (kernel-mm.md, <=4.14 kernels)
            m.cost.contextSwitchNs = 4000.0; // O(1)-scheduler switch + cache refill (kernel-mm.md: 2-5 us)
            // zeroPageNs stays 1000: clear_page of 4 KiB, 2400 cycles at 2.4 GHz (Rik van Riel: 2000-4000 cycles)
            // 2.6.20 x86-64 flush_tlb_others(): take the sender's tlbstate_lock, write the xAPIC ICR, and spin until
            // every target's invalidate_interrupt has cleared its bit in flush_cpumask. kernel-mm.md (b): 1.5-3 us for
            // one target, +0.3-1 us per further target, from microbenchmarks run in KVM guests, where an IPI costs
            // VM exits; on bare metal with all four cores in one package the low end applies.
            m.cost.ipiSendNs = 1500.0;
            m.cost.ipiPerExtraTargetNs = 300.0;
            m.cost.ipiHandleNs = 600.0; // the target: interrupt entry, INVLPG, ack on the flush_cpumask line, exit
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "xeon-32cpu-2020";
            m.description = "Yang Shi's bench of seed 002: 32 CPUs, 256 GB, NUMA off (one lru_lock), 2020";
            m.sockets = 1;
            m.cpus = 32;
            m.memoryBytes = 256 * GiB;
            m.cost.clockGHz = 2.5;
            // Out-of-line call: call/ret, push/pop prologue and epilogue, the caller's spills around it: ~25 cycles
            // (calibrated: seed 002 saw ~20 ns per page saved by inlining page_evictable plus dropping smp_mb,
            // i.e. ~10 ns for the call once the barrier's ~10 ns is taken out; kernel-mm.md's 5-15 (+5) cycles
            // GUESS is for a bare call).
            m.cost.functionCallNs = 10.0;
            m.cost.smpMbNs = 10.0; // 5.6 smp_mb(): lock addl $0,-4(%rsp), ~one locked op, 25 cycles (barrier.h)
            // Buffered read of a hole (calibrated to seed 002's single dd, 56.64 s / 100 GiB = 2.16 us per page,
            // inside kernel-mm.md's ranges): clear_page_erms of a cold page 2000 cycles (Rik van Riel's 2000-4000);
            // copy_page_to_iter from the just-zeroed, cache-hot page into dd's L1-hot buffer, ~0.6x zeroing (GUESS).
            m.cost.zeroPageNs = 800.0;
            m.cost.copyPageNs = 500.0;
            // shrink_page_list for a clean unmapped page-cache page: trylock, page_check_references,
            // mapping checks, mem_cgroup_uncharge (GUESS: half the 4.0 anon figure, no rmap walk, no swap).
            m.cost.reclaimPerPageNs = 300.0;
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "xeon-e5v3-144cpu-2017";
            m.description = "Huang Ying's Xeon E5 v3 of seed 003: 144 CPUs in 4 sockets, 32 GB RAM, RAM-simulated PMEM swap";
            m.sockets = 4;
            m.cpus = 144;
            m.memoryBytes = 32 * GiB;
            for (int i = 0; i < 2; ++i)
                m.swap.push_back({ 48 * GiB, *devicePreset("pmem-ram") });
            m.cost.clockGHz = 2.5;
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "ivybridge-ex-60core-2014";
            m.description = "Davidlohr Bueso's 4-socket 60-core / 120-thread IvyBridge-EX of seed 004, 130 GB";
            m.sockets = 4;
            m.cpus = 120;
            m.memoryBytes = 130 * GiB;
            m.cost.clockGHz = 2.8;
            p.push_back(m);
        }
        return p;
    }
} // namespace

std::optional<DeviceSpec> devicePreset(const std::string& kind)
{
    for (auto& d : devices())
        if (d.kind == kind)
            return d;
    return std::nullopt;
}

std::vector<std::string> devicePresetNames()
{
    std::vector<std::string> names;
    for (auto& d : devices())
        names.push_back(d.kind);
    return names;
}

std::optional<MachineSpec> machinePreset(const std::string& name)
{
    for (auto& m : presets())
        if (m.preset == name)
            return m;
    return std::nullopt;
}

std::vector<std::string> machinePresetNames()
{
    std::vector<std::string> names;
    for (auto& m : presets())
        names.push_back(m.preset);
    return names;
}

std::string CostModel::describe() const
{
    std::ostringstream o;
    o << "clock " << clockGHz << " GHz, locked RMW " << lockedRmwNs << " ns, line " << lineSameSocketNs << "/"
      << lineCrossSocketNs << " ns, IPI " << ipiSendNs << " ns, zero page " << zeroPageNs << " ns";
    return o.str();
}

} // namespace mms
