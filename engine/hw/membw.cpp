#include "hw/membw.h"

#include <algorithm>

namespace mms {

MemoryBandwidth::MemoryBandwidth(int sockets, int cores, int threadsPerCore, double socketGBps, double coreGBps)
    // 1 GB/s is 1e9 B per 1e12 ps: a 1 us bin holds 1e3 B per GB/s.
    : m_socketPerBin(socketGBps * static_cast<double>(kBin) / 1e3)
    , m_corePerBin(coreGBps * static_cast<double>(kBin) / 1e3)
    , m_socketPerBinInv(m_socketPerBin > 0 ? 1 / m_socketPerBin : 0)
    , m_corePerBinInv(m_corePerBin > 0 ? 1 / m_corePerBin : 0)
    , m_coreRate(m_corePerBin / static_cast<double>(kBin))
    , m_coreInv(m_coreRate > 0 ? 1 / m_coreRate : 0)
{
    m_sockets.resize(static_cast<std::size_t>(std::max(1, sockets)));
    m_moved.assign(m_sockets.size(), 0.0);
    if (threadsPerCore > 1)
        m_cores.resize(static_cast<std::size_t>(std::max(1, cores)));
}

[[gnu::always_inline]] inline MemoryBandwidth::Slot& MemoryBandwidth::Calendar::slot(std::int64_t b)
{
    // A bin long past: the slot is this one's now. Without branches: consecutive transfers land in the same bin or
    // the next about as often, which no branch predictor guesses.
    Slot& s = slots[slotOf(b)];
    const bool stale = s.bin < b;
    const auto keep = static_cast<float>(!stale);
    s.bin = stale ? b : s.bin;
    s.demand *= keep;
    s.moved *= keep;
    // A slot that holds a later bin than b means b lies more than the calendar's reach behind a transfer already
    // placed: b's traffic is not known any more and is counted in the later bin's slot (an approximation only past
    // kBins bins of skew between two tasks' times).
    return s;
}

double MemoryBandwidth::Calendar::movedIn(std::int64_t b) const
{
    const Slot& s = slots[slotOf(b)];
    return s.bin == b ? s.moved : 0.0;
}

[[gnu::always_inline]] inline MemoryBandwidth::Share MemoryBandwidth::share(
    Calendar& c, std::int64_t b, double perBinInv)
{
    Slot& s = c.slot(b);
    const Slot& before = c.slots[Calendar::slotOf(b - 1)];
    const Slot& twoBefore = c.slots[Calendar::slotOf(b - 2)];
    // The largest demand of the three bins that hold what they say (a slot of another bin counts nothing), as
    // selects rather than branches (see slot()).
    const double asked = std::max({ static_cast<double>(s.demand) * static_cast<double>(s.bin == b),
        static_cast<double>(before.demand) * static_cast<double>(before.bin == b - 1),
        static_cast<double>(twoBefore.demand) * static_cast<double>(twoBefore.bin == b - 2) });
    const double over = asked * perBinInv; // 0 when unlimited
    return { &s, std::max(over, 1.0) };
}

MemoryBandwidth::Time MemoryBandwidth::transferShared(
    Calendar& sc, Calendar* cc, Time at, Time t, double left, int bins, double fullRate, double fullInv)
{
    for (; bins < kMaxBins; ++bins) {
        const std::int64_t b = t / kBin;
        const Time span = (b + 1) * kBin - t; // from t to the bin's end
        // The core's rate, shared with its SMT siblings, then the socket's, shared with the other cores.
        double over = 1.0;
        Slot* coreSlot = nullptr;
        if (cc) {
            const Share c = share(*cc, b, m_corePerBinInv);
            coreSlot = c.slot;
            over = c.over;
        }
        const double coreRate = over > 1.0 ? fullRate / over : fullRate;
        const Share sock = share(sc, b, m_socketPerBinInv);
        over *= sock.over;
        const double rate = over > 1.0 ? fullRate / over : fullRate;
        const double inv = fullInv * over; // ps per byte
        double canMove = rate * static_cast<double>(span);
        // Never more than the controllers have left in the bin (a stream that has just started is felt late).
        if (m_socketPerBin > 0 && sock.slot->bin == b)
            canMove = std::min(canMove, std::max(0.0, m_socketPerBin - sock.slot->moved));
        const bool ends = left <= canMove;
        const double busy = ends ? left * inv : static_cast<double>(span); // ps of this bin the transfer runs
        const double moved = ends ? left : canMove;
        if (coreSlot) {
            coreSlot->demand += static_cast<float>(fullRate * busy);
            cc->noteDemand(*coreSlot, m_corePerBinInv);
        }
        sock.slot->demand += static_cast<float>(coreRate * busy);
        sock.slot->moved += static_cast<float>(moved);
        sc.noteDemand(*sock.slot, m_socketPerBinInv);
        if (ends)
            return t + static_cast<Time>(busy + 0.5) - at;
        left -= moved;
        t += span;
    }
    return t - at; // kMaxBins bins: a transfer of more than four seconds alone
}

double MemoryBandwidth::socketBytesAt(int socket, Time at) const
{
    const auto& c = m_sockets[static_cast<std::size_t>(socket)];
    return c ? c->movedIn(at / kBin) : 0.0;
}

} // namespace mms
