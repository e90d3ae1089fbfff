#include "hw/machine.h"

#include <sstream>

namespace mms {

namespace {
    constexpr std::uint64_t GiB = 1ULL << 30;

    // Processors of the presets. Locked RMW latencies are uops.info / Agner Fog instruction-table figures for the
    // microarchitecture (LOCK ADD/XADD/CMPXCHG on an L1-resident line); line transfers are published core-to-core
    // measurements, given in cycles where the measurement is for a related Intel ring/QPI part (David, Guerraoui,
    // Trigonakis, SOSP'13, Westmere-EX: ~100 cycles within a socket, ~300 across) and converted at the preset's
    // clock; store bandwidth is one core's STREAM-like rate for that memory generation. docs/presets.md lists each.
    CpuSpec core2Quad()
    {
        CpuSpec c;
        c.model = "Intel Core 2 Quad Q6600 (Kentsfield, 65 nm, two dual-core dies, FSB 1066)";
        c.clockGHz = 2.4; // Intel ARK
        c.lockedRmwCycles = 24; // Agner Fog, Merom/Conroe: locked RMW ~20-25 clocks
        // Two dual-core dies, each with its own 4 MB L2 (Intel ARK: 8 MB; MachineSpec::coresPerLlc 2). A line
        // between the two cores of a die moves through their L2, which answers in 14 cycles (X-bit labs' CPU-Z
        // figure for the Kentsfield QX6850, "Core 2 Extreme QX9650" review, 2007), once the owner's L1 has
        // written it back: GUESS 20 ns. The dies "will be exchanging data along the system bus and RAM" (the same
        // review): the request crosses the front-side bus and the other die answers its snoop with the modified
        // line, which the north bridge writes to memory on the way: a memory read's bus trip without its DRAM
        // access, GUESS 80 ns (memLatencyNs below: 90).
        c.lineSameLlcNs = 20; // GUESS (above): X-bit labs' 14-cycle L2 hit and the owner's L1 write-back
        c.lineSameSocketNs = 80; // GUESS (above): an FSB read answered by the other die, no DRAM access
        c.lineCrossSocketNs = 120; // two packages on their own buses, through the north bridge (GUESS)
        // FSB 1066 x 8 B = 8.5 GB/s peak; one Core 2 core streams ~4 GB/s of stores: 4 KiB in ~1 us, i.e. 2460
        // cycles at 2.4 GHz, inside Rik van Riel's 2000-4000 cycles for clearing a page (linux-mm, 2005).
        c.storeGBps = 4.0;
        // The memory controller is in the north bridge, one FSB trip beyond Nehalem-EP's integrated one (81 ns,
        // AnandTech 3648): GUESS 90 ns. The last-level caches are the dies' two shared 4 MB L2s (Intel ARK: 8 MB).
        c.memLatencyNs = 90;
        c.llcBytes = 4.0 * (1 << 20); // a die's L2
        return c;
    }

    CpuSpec haswellEp(const std::string& model, double ghz, double llcMiB)
    {
        CpuSpec c;
        c.model = model;
        c.clockGHz = ghz;
        c.lockedRmwCycles = 19; // uops.info, Haswell: LOCK CMPXCHG/ADD m64 latency ~19 cycles
        c.lineSameSocketNs = 100 / ghz; // ~100 cycles (David et al., SOSP'13)
        c.lineCrossSocketNs = 300 / ghz; // ~300 cycles, one QPI hop (same)
        c.storeGBps = 10.0; // one Haswell-EP core, DDR4: ~10 GB/s single-thread STREAM-like stores
        // Local DRAM, idle: GUESS 85 ns, between the measured Nehalem-EP (81 ns, AnandTech 3648) and Skylake-SP
        // (89 ns local on two sockets, qdpma.com "Single Processor"), the generations either side.
        c.memLatencyNs = 85;
        c.llcBytes = llcMiB * (1 << 20); // Intel ARK: the part's L3
        return c;
    }

    // A socket's memory bandwidth as STREAM reaches it: the channels' peak (channels x MT/s x 8 B, the datasheet's
    // "max memory bandwidth") times the fraction of it STREAM triad was measured to reach on Haswell-EP: 102 GB/s
    // on a 2-socket E5 v3 with 8 channels of DDR4-2133 (136.5 GB/s peak; Puget Systems, "Memory performance for
    // Intel Xeon Haswell-EP DDR4"), 0.747. On a Core 2's FSB 1066 it gives 6.4 GB/s, where ScienceMark 2.0
    // measured "sub-6GiB/s" (Hexus' Conroe review; docs/presets.md "Memory bandwidth").
    double streamGBps(int channels, double megaTransfers)
    {
        constexpr double kStreamOfPeak = 102.0 / (2 * 4 * 2133 * 8 / 1000.0);
        return kStreamOfPeak * channels * megaTransfers * 8 / 1000;
    }

    // 2.6.20 x86-64 flush_tlb_others() on a bare-metal box of 2007: take the sender's tlbstate_lock, write the xAPIC
    // ICR, and spin until every target's invalidate_interrupt has cleared its bit in flush_cpumask. A GUESS of
    // 1.5-3 us for one target, +0.3-1 us per further target (docs/presets.md), from microbenchmarks run in KVM
    // guests, where an IPI costs VM exits; on bare metal the low end applies.
    void setBareMetalShootdown2007(CostModel& c)
    {
        c.ipiSendNs = 1500.0; // GUESS: the low end of the 1.5-3 us above (IPI microbenchmarks, kernel-mm.md (b))
        c.ipiPerExtraTargetNs = 300.0; // GUESS: the low end of the +0.3-1 us above
        c.ipiHandleNs = 600.0; // GUESS, ~1.5k cycles: the target's interrupt entry, INVLPG, ack on flush_cpumask, exit
    }

    std::vector<MachineSpec> presets()
    {
        std::vector<MachineSpec> p;
        {
            MachineSpec m;
            m.preset = "generic-12cpu-2015";
            m.description = "one Haswell-EP socket of 2015, 6 cores / 12 threads at 2.4 GHz (Xeon E5-2620 v3 class), "
                            "3 GiB DDR4, 8 GiB swap on a SATA SSD (the machine of seed 000's post, which states only "
                            "12 CPUs, 3 GB RAM and 8 GB swap)";
            m.sockets = 1; // one E5-2620 v3: 6 cores / 12 threads (Intel ARK)
            m.cpus = 12; // the post: "12 cpu" (docs/presets.md)
            m.threadsPerCore = 2; // 6 cores / 12 threads (Intel ARK)
            m.socketMemGBps = streamGBps(4, 1866); // Intel ARK: 4 channels of DDR4-1866, 59 GB/s
            m.memoryBytes = 3 * GiB; // the post: "3G ram"
            m.swap.push_back({ 8 * GiB, deviceSpecFor(DeviceKind::Ssd2015) }); // the post: "8G swap", device not stated
            m.cost = costModelFor(haswellEp("Intel Xeon E5-2620 v3 (Haswell-EP)", 2.4, 15)); // Intel ARK: 2.4 GHz, 15 MB L3
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "quad-core-2007";
            m.description = "Core 2 Quad Q6600 of 2007 (Kentsfield, 4 cores at 2.4 GHz, one socket of two dies), "
                            "4 GiB DDR2, 4 GiB swap on a 7200 rpm disk (the quad-core of seed 001's post)";
            m.sockets = 1; // one Q6600 package (Intel ARK)
            m.cpus = 4; // Intel ARK: 4 cores, no SMT; the post's "quad core system"
            m.coresPerLlc = 2; // Intel ARK: two dual-core dies, an L2 each (core2Quad())
            // Every memory access crosses the front-side bus: FSB 1066 MT/s x 8 B = 8.5 GB/s (Intel ARK), for
            // the four cores together.
            m.socketMemGBps = streamGBps(1, 1066);
            m.memoryBytes = 4 * GiB; // GUESS: the post states no memory size
            m.swap.push_back({ 4 * GiB, deviceSpecFor(DeviceKind::Hdd2007) }); // GUESS: the post states no swap
            m.cost = costModelFor(core2Quad());
            setBareMetalShootdown2007(m.cost);
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "xeon-32cpu-2020";
            m.description = "two Cascade Lake-SP Xeons of 2020 at 2.5 GHz, 8 cores / 16 threads each: 32 CPUs, "
                            "256 GiB DDR4 interleaved over both sockets into one NUMA node (one lru_lock), 64 GiB swap "
                            "on a data-centre NVMe (the bench of seed 002's post: 32c-256g, NUMA disabled; its swap "
                            "is not stated)";
            // The post: "32c-256g with NUMA disabled". Only a board with more than one socket has NUMA to disable:
            // GUESS two sockets, their memory interleaved by the firmware into one node (docs/presets.md).
            m.sockets = 2;
            m.numa = false;
            m.cpus = 32; // the post: "32c-256g" (docs/presets.md)
            m.threadsPerCore = 2; // GUESS: 32 hardware threads on 16 cores, 8 a socket
            m.socketMemGBps = streamGBps(6, 2933); // Intel ARK: 6 channels of DDR4-2933 a socket, 140.8 GB/s
            m.memoryBytes = 256 * GiB; // the post: "32c-256g"
            m.swap.push_back({ 64 * GiB, deviceSpecFor(DeviceKind::Nvme2020) }); // not stated by the post
            CpuSpec c;
            c.model = "Intel Xeon Scalable, Cascade Lake-SP, 8 cores";
            c.clockGHz = 2.5; // Intel ARK: the 8269CY's 2.5 GHz base, the part the post's company ran then
            c.lockedRmwCycles = 18; // uops.info, Skylake-X/Cascade Lake: LOCK ADD/CMPXCHG m64 ~18 cycles
            c.lineSameSocketNs = 100 / c.clockGHz; // ~100 cycles over the mesh (David et al. order, SOSP'13)
            c.lineCrossSocketNs = 300 / c.clockGHz; // ~300 cycles, one UPI hop (same order)
            c.storeGBps = 11.0; // one Skylake-SP core: ~11 GB/s single-thread STREAM-like (mesh-limited)
            // Xeon SP on two sockets: 89 ns local, 139 ns remote (qdpma.com "The Case for Single Processor"; 76 ns
            // on one socket).
            c.memLatencyNs = 89; // Xeon SP, local on two sockets (qdpma.com, above)
            c.remoteMemLatencyRatio = 139.0 / 89.0; // remote 139 ns over local 89 ns (the same)
            c.llcBytes = 8 * 1.375 * (1 << 20); // Intel: 1.375 MB of L3 a core on Skylake-SP/Cascade Lake-SP
            m.cost = costModelFor(c);
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "xeon-e5v3-144cpu-2017";
            m.description = "four Xeon E5-4669 v3 (Haswell-EP, 18 cores / 36 threads at 2.1 GHz each): 144 CPUs, "
                            "32 GiB, swap on two 48 GiB RAM-simulated PMEM devices (the Xeon E5 v3 of seed 003's post)";
            m.sockets = 4; // GUESS of the part behind the post's "Xeon E5 v3" (docs/fidelity.md)
            m.cpus = 144; // the post: 144 CPUs (docs/fidelity.md)
            m.threadsPerCore = 2; // 18 cores / 36 threads a socket (Intel ARK)
            m.socketMemGBps = streamGBps(4, 1866); // Intel ARK: 4 channels of DDR4-1866 a socket, 59.7 GB/s
            m.memoryBytes = 32 * GiB; // the post: 32 GB
            for (int i = 0; i < 2; ++i) // GUESS: the post gives 96 GB of swap, not the device count
                m.swap.push_back({ 48 * GiB, deviceSpecFor(DeviceKind::PmemRam) });
            m.cost = costModelFor(haswellEp("Intel Xeon E5-4669 v3 (Haswell-EP, 4-socket)", 2.1, 45)); // ARK: 2.1 GHz, 45 MB
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "ivybridge-ex-60core-2014";
            m.description = "four Xeon E7-4890 v2 (IvyBridge-EX, 15 cores / 30 threads at 2.8 GHz each): 120 CPUs, "
                            "130 GB, 32 GiB swap on a SATA SSD (Davidlohr Bueso's box of seed 004's post; its swap is "
                            "not stated)";
            m.sockets = 4; // the post's "60-core box": four 15-core E7-4890 v2
            m.cpus = 120; // 60 cores x 2 threads (Intel ARK: Hyper-Threading)
            m.threadsPerCore = 2; // Intel ARK: 15 cores / 30 threads a socket
            // Intel ARK: 4 SMI2 links to memory buffers, each with two DDR3-1333 channels at full speed (1600 in
            // performance mode): 85 GB/s "max memory bandwidth" a socket, i.e. 8 channels of DDR3-1333.
            m.socketMemGBps = streamGBps(8, 1333);
            m.memoryBytes = 130 * GiB; // the post's box: 130 GB (docs/fidelity.md)
            m.swap.push_back({ 32 * GiB, deviceSpecFor(DeviceKind::Ssd2015) }); // not stated by the post
            CpuSpec c;
            c.model = "Intel Xeon E7-4890 v2 (IvyBridge-EX)";
            c.clockGHz = 2.8; // Intel ARK: 2.8 GHz base
            c.lockedRmwCycles = 20; // uops.info, Ivy Bridge: LOCK ADD/CMPXCHG m64 ~20 cycles
            c.lineSameSocketNs = 100 / c.clockGHz; // ~100 cycles (David et al., SOSP'13, on its Westmere-EX forerunner)
            c.lineCrossSocketNs = 300 / c.clockGHz; // ~300 cycles, one QPI hop (same)
            // DDR3 behind the E7 v2's memory buffers: one core streams ~8 GB/s (single-thread STREAM-like)
            c.storeGBps = 8.0;
            c.memLatencyNs = 135; // Intel MLC on a 4-socket E7-4800 v2: 135 ns local (CpuSpec::remoteMemLatencyRatio)
            c.llcBytes = 37.5 * (1 << 20); // Intel ARK: 37.5 MB L3
            m.cost = costModelFor(c);
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "opteron-8x2-2007";
            m.description = "eight dual-core AMD Opteron 885 (K8, 2.6 GHz) on one board, each with its own DDR-400: "
                            "16 CPUs in 8 nodes, 32 GiB, 4 GiB swap on a 7200 rpm disk (the 16-core Opteron of a "
                            "check beyond the posts: Nick Piggin's sysbench of seed 001's thread)";
            // 16-core x86 servers of spring 2007 were eight dual-core sockets (Sun Fire X4600, Tyan VX50): GUESS of
            // the box; AMD's quad-core Opterons shipped that September.
            m.sockets = 8; // GUESS (above): eight sockets of two cores make the 16 cores
            m.cpus = 16; // AMD: two cores a die, no SMT
            m.coresPerLlc = 1; // AMD: a private 1 MB L2 a core, no L3
            m.socketMemGBps = streamGBps(2, 400); // AMD: two channels of DDR-400 a socket, 6.4 GB/s
            m.memoryBytes = 32 * GiB; // GUESS, a configuration: Nick's mail gives no size (the X4600 held up to 64 GB)
            m.swap.push_back({ 4 * GiB, deviceSpecFor(DeviceKind::Hdd2007) }); // a configuration
            CpuSpec c;
            c.model = "AMD Opteron 885 (K8 dual-core, Egypt, 2 x 1 MB L2)";
            c.clockGHz = 2.6; // AMD: the Opteron 885's 2.6 GHz
            c.lockedRmwCycles = 20; // GUESS: Agner Fog's K8 tables give locked read-modify-writes of this order
            // The two cores of a die share no cache: a modified line moves through the die's System Request
            // Interface and crossbar (AMD 40555, "Performance Guidelines for AMD Athlon 64 and AMD Opteron ccNUMA
            // Multiprocessor Systems", 2006, fig. 2), about as long as a local memory access (GUESS: McCalpin's 60 ns,
            // below). Between sockets the request goes to the line's home node, which probes every node and waits
            // for the answers, so it takes a memory access of the eight-socket box and the owner's hops back (GUESS).
            c.lineSameSocketNs = 60; // GUESS (above): McCalpin's 60 ns local access on K8
            c.lineCrossSocketNs = 170; // GUESS (above): the 130 ns below plus a HyperTransport hop or two
            c.storeGBps = 3.0; // GUESS: one K8 core streams about half its socket's dual-channel DDR-400 (6.4 GB/s)
            // John McCalpin's pointer-chasing latencies for K8 Opterons (2010, "AMD Opteron Memory Latency Chart"):
            // 60 ns on one and two sockets, 95 ns on four, set by the snoop responses of every chip. Eight sockets
            // add a hop to the farthest response: GUESS 130 ns.
            c.memLatencyNs = 130; // GUESS (above): McCalpin's 95 ns on four sockets and a hop more
            // AMD 40555, fig. 4: an idle 4-socket box reads one hop away in 108-109 % of the local time and two hops
            // away in 130 %; on eight sockets most memory is one or two hops away (GUESS 1.2).
            c.remoteMemLatencyRatio = 1.2; // GUESS (above): between AMD 40555's 1.08 (one hop) and 1.30 (two)
            c.llcBytes = 1.0 * (1 << 20); // AMD: 1 MB L2 a core, no L3
            m.cost = costModelFor(c);
            setBareMetalShootdown2007(m.cost); // as quad-core-2007; the IPIs travel as HyperTransport messages
            p.push_back(m);
        }
        {
            MachineSpec m;
            m.preset = "epyc-rome-64core-2020";
            m.description = "two AMD EPYC 7452 (Zen 2 Rome, 32 cores at 2.35 GHz each, SMT off): 64 CPUs, "
                            "256 GiB DDR4-3200, 64 GiB swap on a data-centre NVMe (serves no post)";
            m.sockets = 2; // a two-socket EPYC 7452 server (serves no post: a configuration)
            m.cpus = 64; // AMD: 32 cores a socket, SMT off
            m.coresPerLlc = 4; // AMD: a CCX of four cores shares an L3
            m.socketMemGBps = streamGBps(8, 3200); // AMD: 8 channels of DDR4-3200 a socket, 204.8 GB/s
            m.memoryBytes = 256 * GiB; // a configuration
            m.swap.push_back({ 64 * GiB, deviceSpecFor(DeviceKind::Nvme2020) }); // a configuration
            CpuSpec c;
            c.model = "AMD EPYC 7452 (Zen 2, Rome)";
            c.clockGHz = 2.35; // AMD product page
            c.lockedRmwCycles = 8; // uops.info / Agner Fog, Zen 2: LOCK ADD/CMPXCHG m64 ~8 cycles
            // Core-to-core latency on Rome (AnandTech's EPYC 7742 review, 2019): ~30 ns inside a 4-core CCX,
            // ~100 ns between CCXs of a socket (28 of a core's 31 peers), ~200 ns between sockets.
            c.lineSameLlcNs = 30; // AnandTech EPYC 7742 review (above): within a CCX
            c.lineSameSocketNs = 100; // AnandTech EPYC 7742 review: between CCXs of a socket
            c.lineCrossSocketNs = 200; // AnandTech EPYC 7742 review: between sockets
            c.storeGBps = 16.0; // one Zen 2 core: ~16 GB/s single-thread STREAM-like stores (DDR4-3200)
            c.memLatencyNs = 110; // GUESS: Rome's DRAM through the I/O die, ~110 ns
            c.llcBytes = 16.0 * (1 << 20); // AMD: 128 MB L3 a socket, 16 MB a four-core CCX
            m.cost = costModelFor(c);
            p.push_back(m);
        }
        return p;
    }
} // namespace

CostModel costModelFor(const CpuSpec& cpu)
{
    // Kernel code paths as cycle counts: the same instructions on every preset, so their time follows the clock.
    // GUESS marks a count with no measurement behind it (a guess in nanoseconds converted at 2.5 GHz where there
    // was one; docs/presets.md lists each); none is derived from a post's result.
    const double ghz = cpu.clockGHz;
    auto cycles = [ghz](double n) { return n / ghz; };
    CostModel c;
    c.clockGHz = ghz;
    c.lockedRmwNs = cycles(cpu.lockedRmwCycles);
    c.lineSameLlcNs = cpu.lineSameLlcNs > 0 ? cpu.lineSameLlcNs : cpu.lineSameSocketNs;
    c.lineSameSocketNs = cpu.lineSameSocketNs;
    c.lineCrossSocketNs = cpu.lineCrossSocketNs;
    c.smpMbNs = c.lockedRmwNs; // `lock addl $0,-4(%rsp)` (barrier.h, 4.15+)
    // call + ret with a predicted return, push/pop of the callee-saved registers, the caller's spills: ~10 cycles
    // (GUESS within 5-15 cycles; Agner Fog's microarchitecture guide for call/ret and push/pop throughput)
    c.functionCallNs = cycles(10);
    c.faultEntryNs = cycles(500); // exception entry/exit, 0.1-0.3 us at 2.5 GHz (GUESS; docs/presets.md)
    // A 4-level walk whose 4 references hit the paging-structure caches or L1/L2 (GUESS 10 cycles each, an L1/L2
    // hit's latency order in Agner Fog's tables) and the walker's locked update of the PTE's accessed/dirty bits
    // (CostModel::adBitWalkNs; the preset's locked-RMW cycles).
    c.adBitWalkNs = cycles(4 * 10 + cpu.lockedRmwCycles); // 4 references x 10 cycles (GUESS) + the locked RMW
    c.vmaAdjustNs = cycles(2000); // GUESS
    // Page-sized memory streams: 4 KiB of stores for a clear, 4 KiB read + 4 KiB written for a copy.
    c.zeroPageNs = 4096.0 / cpu.storeGBps;
    c.copyPageNs = 2 * 4096.0 / cpu.storeGBps;
    c.userMemsetPageNs = c.zeroPageNs;
    c.memCoreGBps = cpu.storeGBps;
    c.remoteMemLatencyRatio = cpu.remoteMemLatencyRatio;
    c.memLatencyNs = cpu.memLatencyNs;
    c.llcBytes = cpu.llcBytes;
    c.smtThroughput = cpu.smtThroughput;
    c.contextSwitchNs = cycles(7500); // switch + cache refill, 2-5 us at 2.5 GHz (GUESS; docs/presets.md)
    c.wakeupNs = cycles(2500); // GUESS
    c.pteOpNs = cycles(10); // GUESS
    c.rmapOpNs = c.lockedRmwNs + cycles(5); // one atomic on _mapcount plus its test
    c.pageAllocNs = cycles(150); // GUESS
    c.pageFreeNs = cycles(125); // GUESS
    c.listOpNs = cycles(15); // GUESS
    c.reclaimPerPageNs = cycles(1500); // GUESS
    c.swapScanPerSlotNs = cycles(5); // GUESS
    c.swapAllocNs = cycles(625); // GUESS
    c.swapFreeNs = cycles(300); // GUESS
    c.swapCacheOpNs = cycles(375); // GUESS
    c.bioSubmitNs = cycles(3750); // GUESS
    c.ioCompleteNs = cycles(2000); // GUESS
    // The VFS operations: GUESSes of the order of what tmpfs measures in a 2020s guest (creat + close about 6.5 us,
    // link 4.9 us, unlink 5.1 us of system time each; docs/presets.md), most of it under the parent's i_mutex.
    c.pathWalkNs = cycles(1500);
    c.dirCreateNs = cycles(10000);
    c.dirLinkNs = cycles(6000);
    c.dirUnlinkNs = cycles(6000);
    c.inodeEvictNs = cycles(5000);
    c.shortSyscallNs = cycles(1500); // GUESS
    c.loopbackMsgNs = cycles(12000); // GUESS; the same guest: 4-8 us per message over loopback UDP / TCP
    return c;
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
    o << "clock " << clockGHz << " GHz, locked RMW " << lockedRmwNs << " ns, line ";
    if (lineSameLlcNs != lineSameSocketNs)
        o << lineSameLlcNs << "/";
    o << lineSameSocketNs << "/" << lineCrossSocketNs << " ns, IPI " << ipiSendNs << " ns, zero page " << zeroPageNs
      << " ns";
    return o.str();
}

} // namespace mms
