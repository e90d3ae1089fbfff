#pragma once
// /proc/lock_stat columns for one lock instance, plus per-CPU and per-time-bucket wait and hold totals for the
// heatmaps. Times are simulated picoseconds (reported in ns).

#include "sim/simulator.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace mms {

struct LockStat {
    // What every acquisition and release touches comes first, so that a lock's uncontended round trip stays within
    // its first two cache lines (SpinLock puts its own state in the first): thousands of swap cluster locks are
    // taken in random order, and each extra line was a host cache miss.
    std::uint64_t acquisitions = 0;
    std::uint64_t acqBounces = 0; // acquired on another CPU than the previous holder's
    Time holdMin = std::numeric_limits<Time>::max();
    Time holdMax = 0;
    Time holdTotal = 0;
    // Per time bucket (bucketWidth picoseconds; 0 = off): wait and hold time that fell into each bucket.
    Time bucketWidth = 0;
    std::uint64_t contentions = 0; // had to wait
    std::uint64_t conBounces = 0; // waited and the previous holder was on another CPU
    Time waitMin = std::numeric_limits<Time>::max();
    Time waitMax = 0;
    Time waitTotal = 0;
    std::vector<Time> waitPerCpu;
    std::vector<Time> waitPerBucket;
    std::vector<Time> holdPerBucket;
    std::string name;
    std::string kind; // "spinlock", "mutex", "rwsem"

    void noteAcquire(int cpu, int prevCpu, Time waited, bool contended)
    {
        ++acquisitions;
        bool bounce = prevCpu >= 0 && prevCpu != cpu;
        acqBounces += bounce;
        if (contended) {
            ++contentions;
            conBounces += bounce;
            waitMin = std::min(waitMin, waited);
            waitMax = std::max(waitMax, waited);
            waitTotal += waited;
            if (waitPerCpu.size() <= static_cast<std::size_t>(cpu))
                waitPerCpu.resize(static_cast<std::size_t>(cpu) + 1, 0);
            waitPerCpu[static_cast<std::size_t>(cpu)] += waited;
        }
    }
    void noteHold(Time held) // hold min/max/total over all acquisitions
    {
        holdMin = std::min(holdMin, held);
        holdMax = std::max(holdMax, held);
        holdTotal += held;
    }
    void addToBuckets(std::vector<Time>& buckets, Time begin, Time end)
    {
        if (bucketWidth <= 0 || end <= begin)
            return;
        auto last = static_cast<std::size_t>((end - 1) / bucketWidth);
        if (buckets.size() <= last)
            buckets.resize(last + 1, 0);
        for (auto b = static_cast<std::size_t>(begin / bucketWidth); b <= last; ++b) {
            Time lo = std::max(begin, static_cast<Time>(b) * bucketWidth);
            Time hi = std::min(end, static_cast<Time>(b + 1) * bucketWidth);
            buckets[b] += hi - lo;
        }
    }
    Time waitMinOrZero() const { return contentions ? waitMin : 0; }
    Time holdMinOrZero() const { return acquisitions ? holdMin : 0; }
};

// The locks a subsystem reports for lockstat, as /proc/lock_stat lists them: one entry per lock instance (the reports
// sum instances of one name, as lock_stat sums a lock class).
using LockStats = std::vector<const LockStat*>;

// The class of a lock named for its node ("node1 zone->lru_lock" is of "zone->lru_lock"): /proc/lock_stat keys a
// lock by the class of its spin_lock_init(), which every node's instance shares.
inline std::string_view lockClass(std::string_view name)
{
    if (name.substr(0, 4) != "node")
        return name;
    std::size_t i = 4;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9')
        ++i;
    return i > 4 && i < name.size() && name[i] == ' ' ? name.substr(i + 1) : name;
}

} // namespace mms
