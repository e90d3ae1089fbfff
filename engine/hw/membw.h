#pragma once
// Memory as a shared resource: each socket's memory controllers deliver at most its bandwidth, each core at most its
// own (one core's load/store units and line fill buffers: SMT siblings share them), and the streams that want more
// than a socket or a core gives share it evenly, as a memory controller's round-robin between requesters does.
//
// Time is cut into bins of 1 us. A calendar per socket and per core holds, for each bin, the demand: the bytes the
// streams in that bin would have moved at their own full rate (the core's rate, and at the socket the rate the core
// leaves each of them). A stream in bin b runs at the core's rate divided by how far the demand on its core and on
// its socket exceeds what they give: N streams alone on N cores of a socket that gives less than N cores' worth each
// get the socket's figure / N, and together move exactly the socket's figure. The demand of b is known once every
// stream of b has been placed; a stream reads the largest of b's demand so far and the two bins' before it (b - 1
// may still be filling while a stream ahead of the others is in b), which in steady state is b's own; a stream
// that starts or stops is felt one or two bins late, and until then the streams of a full bin wait for the next
// (no bin moves more than its socket gives: without that, the bursty streams of a sysbench run on the Core 2's bus
// would move half as much again as the bus gives). Placement follows event order (hence deterministic), each
// stream at its own task's time, which may lie ahead of the clock.

#include <cstdint>
#include <memory>
#include <vector>

namespace mms {

class MemoryBandwidth {
public:
    using Time = std::int64_t; // picoseconds, as the simulator counts them
    // `cores` physical cores over `sockets` memories (transfer()'s socket and core are within them): a socket's, or
    // one pool of every socket's controllers where the memory is interleaved (MachineSpec::numa); GB/s are 1e9
    // bytes per second. A socket rate of 0 is
    // unlimited; a core rate of 0 makes every transfer free (the caller's cost model times it).
    // With one thread a core, a core runs one stream at a time and keeps no calendar of its own.
    MemoryBandwidth(int sockets, int cores, int threadsPerCore, double socketGBps, double coreGBps);

    // The time a transfer of `bytes` to or from the memory of `socket`, by `core`, starting at `at`, takes; a core
    // alone streams `slowdown` times slower than its rate (memory farther away: CostModel::remoteMemLatencyRatio).
    Time transfer(int socket, int core, Time at, double bytes, double slowdown = 1.0);

    // The bytes moved through `socket`'s controllers since boot, and what one socket gives (GB/s, 0: unlimited).
    double movedBytes(int socket) const { return m_moved[static_cast<std::size_t>(socket)]; }
    int sockets() const { return static_cast<int>(m_moved.size()); }
    double socketGBps() const { return m_socketPerBin * 1e3 / static_cast<double>(kBin); }
    // The bytes moved through `socket`'s controllers in the bin that holds `at` (for tests and the app's views).
    double socketBytesAt(int socket, Time at) const;
    static constexpr Time kBin = 1'000'000; // 1 us, in picoseconds
    static constexpr std::uint32_t kBins = 1024; // the calendar's reach: 1 ms ahead of the oldest bin in use
    static_assert((kBins & (kBins - 1)) == 0, "a slot is a bin's low bits");

private:
    struct Slot {
        std::int64_t bin = -1; // the absolute bin index the slot holds now
        float demand = 0; // bytes wanted in that bin at full rate
        float moved = 0; // bytes moved in that bin
    };
    struct Calendar {
        std::vector<Slot> slots = std::vector<Slot>(kBins);
        static std::size_t slotOf(std::int64_t b) { return static_cast<std::size_t>(b) & (kBins - 1); }
        Slot& slot(std::int64_t b); // the slot of bin b, emptied if it held an older bin
        double movedIn(std::int64_t b) const;
    };
    // Bin b's slot of a calendar (emptied if it held an older bin) and how many times over the calendar is asked for
    // there, at least 1 (`perBinInv` is 1 / what it gives in a bin, 0 for unlimited).
    struct Share {
        Slot* slot;
        double over;
    };
    static Share share(Calendar& c, std::int64_t b, double perBinInv);
    double m_socketPerBin; // bytes per bin
    double m_corePerBin;
    double m_socketPerBinInv; // 1 / m_socketPerBin, 0 for unlimited
    double m_corePerBinInv;
    double m_coreRate; // bytes per ps: one core's stream alone
    double m_coreInv; // 1 / m_coreRate
    // Made at a socket's or a core's first transfer: a machine of thousands of CPUs pays only for those that stream.
    Calendar& calendar(std::vector<std::unique_ptr<Calendar>>& of, int i);
    std::vector<std::unique_ptr<Calendar>> m_sockets;
    std::vector<std::unique_ptr<Calendar>> m_cores; // empty with one thread a core
    std::vector<double> m_moved; // bytes since boot, per socket
};

} // namespace mms
