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

#include <algorithm>
#include <cstdint>
#include <limits>
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
    // Inline for the bins where neither the core nor the socket can be over (see Calendar::hot): a stream alone, the
    // common case, runs at its full rate there; the first bin that may be shared goes to transferShared().
    Time transfer(int socket, int core, Time at, double bytes, double slowdown = 1.0)
    {
        return transfer(socket, core, at, bytes, rate(slowdown));
    }
    // A core's stream alone at a `slowdown`: bytes per ps and its inverse. A caller that streams from the same
    // distance again and again computes it once and passes it (the same values: no division a transfer).
    struct Rate {
        double full = 0;
        double inv = 0;
    };
    Rate rate(double slowdown) const
    {
        return slowdown > 1.0 ? Rate { m_coreRate / slowdown, m_coreInv * slowdown } : Rate { m_coreRate, m_coreInv };
    }
    Time transfer(int socket, int core, Time at, double bytes, Rate r);

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
        // The latest bin whose slot has held more demand than the calendar gives in a bin (demand * perBinInv > 1)
        // after a transfer wrote it. A slot's demand only grows until the slot is emptied for a later bin, so where
        // hot < b - 2 none of the three bins share() reads for b asks for more than is given, and share() would say
        // `over` = 1 exactly: transfer() skips it.
        std::int64_t hot = std::numeric_limits<std::int64_t>::min();
        static std::size_t slotOf(std::int64_t b) { return static_cast<std::size_t>(b) & (kBins - 1); }
        Slot& slot(std::int64_t b); // the slot of bin b, emptied if it held an older bin
        double movedIn(std::int64_t b) const;
        bool coldAt(std::int64_t b) const { return hot < b - 2; }
        // After a transfer added to s's demand: remember s's bin if it now asks for more than is given.
        void noteDemand(const Slot& s, double perBinInv)
        {
            if (static_cast<double>(s.demand) * perBinInv > 1.0) [[unlikely]]
                hot = std::max(hot, s.bin);
        }
    };
    // Bin b's slot of a calendar (emptied if it held an older bin) and how many times over the calendar is asked for
    // there, at least 1 (`perBinInv` is 1 / what it gives in a bin, 0 for unlimited).
    struct Share {
        Slot* slot;
        double over;
    };
    static Share share(Calendar& c, std::int64_t b, double perBinInv);
    // The rest of a transfer from time t, `left` bytes to go, `bins` bins already placed: bin by bin with the core and
    // the socket shared.
    Time transferShared(
        Calendar& sc, Calendar* cc, Time at, Time t, double left, int bins, double fullRate, double fullInv);
    static constexpr int kMaxBins = 1 << 22; // a transfer of more than four seconds alone stops there
    double m_socketPerBin; // bytes per bin
    double m_corePerBin;
    double m_socketPerBinInv; // 1 / m_socketPerBin, 0 for unlimited
    double m_corePerBinInv;
    double m_coreRate; // bytes per ps: one core's stream alone
    double m_coreInv; // 1 / m_coreRate
    // Made at a socket's or a core's first transfer: a machine of thousands of CPUs pays only for those that stream.
    static Calendar& calendar(std::vector<std::unique_ptr<Calendar>>& of, int i)
    {
        auto& c = of[static_cast<std::size_t>(i)];
        if (!c) [[unlikely]]
            c = std::make_unique<Calendar>();
        return *c;
    }
    std::vector<std::unique_ptr<Calendar>> m_sockets;
    std::vector<std::unique_ptr<Calendar>> m_cores; // empty with one thread a core
    std::vector<double> m_moved; // bytes since boot, per socket
};

[[gnu::always_inline]] inline MemoryBandwidth::Time MemoryBandwidth::transfer(
    int socket, int core, Time at, double bytes, Rate r)
{
    if (bytes <= 0 || m_corePerBin <= 0)
        return 0;
    Calendar& sc = calendar(m_sockets, socket);
    Calendar* cc = m_cores.empty() ? nullptr : &calendar(m_cores, core);
    // Rates in bytes per ps and their inverses (ps per byte).
    const double fullRate = r.full;
    const double fullInv = r.inv;
    m_moved[static_cast<std::size_t>(socket)] += bytes;
    Time t = std::max<Time>(at, 0);
    double left = bytes;
    // Bin by bin while neither calendar can be over: share() would find `over` = 1 for both, so the stream runs at
    // its full rate, as transferShared() would run it, step for step; each slot is emptied if it held an older bin
    // (Calendar::slot()) and written once. Each bin after the first starts at its beginning.
    std::int64_t b = t / kBin;
    for (int bins = 0; bins < kMaxBins; ++bins, ++b) {
        if (!sc.coldAt(b) || (cc && !cc->coldAt(b))) [[unlikely]]
            return transferShared(sc, cc, at, t, left, bins, fullRate, fullInv);
        const Time span = (b + 1) * kBin - t; // from t to the bin's end
        Slot& s = sc.slots[Calendar::slotOf(b)];
        const bool sKeep = s.bin >= b;
        const std::int64_t sBin = sKeep ? s.bin : b;
        const float sDemand = sKeep ? s.demand : 0.0f;
        const float sMoved = sKeep ? s.moved : 0.0f;
        double canMove = fullRate * static_cast<double>(span);
        // Never more than the controllers have left in the bin.
        if (m_socketPerBin > 0 && sBin == b)
            canMove = std::min(canMove, std::max(0.0, m_socketPerBin - static_cast<double>(sMoved)));
        const bool ends = left <= canMove;
        const double busy = ends ? left * fullInv : static_cast<double>(span); // ps of this bin the transfer runs
        const double moved = ends ? left : canMove;
        const auto demand = static_cast<float>(fullRate * busy);
        if (cc) {
            Slot& c = cc->slots[Calendar::slotOf(b)];
            const bool cKeep = c.bin >= b;
            c.bin = cKeep ? c.bin : b;
            c.demand = (cKeep ? c.demand : 0.0f) + demand;
            c.moved = cKeep ? c.moved : 0.0f;
            cc->noteDemand(c, m_corePerBinInv);
        }
        s.bin = sBin;
        s.demand = sDemand + demand;
        s.moved = sMoved + static_cast<float>(moved);
        sc.noteDemand(s, m_socketPerBinInv);
        if (ends)
            return t + static_cast<Time>(busy + 0.5) - at;
        left -= moved;
        t += span;
    }
    return t - at;
}

} // namespace mms
