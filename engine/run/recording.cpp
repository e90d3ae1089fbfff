#include "run/recording.h"

#include "mm/page.h"
#include "sync/lockstat.h"

#include <algorithm>

namespace mms {

const char* pageMapStateName(PageMapState s) { return pageStateName(s); }

std::string_view lockNodePrefix(std::string_view lockName)
{
    return lockName.substr(0, lockName.size() - lockClass(lockName).size());
}

std::string PageInfo::flagNames() const { return pageFlagNames(flags); }

const char* PageInfo::listName() const { return pageListName(flags); }

int Recording::nodeOf(std::uint32_t pfn) const
{
    auto it = std::upper_bound(m_nodeStarts.begin(), m_nodeStarts.end(), pfn);
    return it == m_nodeStarts.begin() ? 0 : static_cast<int>(it - m_nodeStarts.begin()) - 1;
}

std::vector<std::uint8_t> Recording::pageMap(std::size_t f) const
{
    f = std::min(f, frameCount() - 1);
    std::size_t key = f / kKeyframeEvery;
    std::vector<std::uint8_t> map = m_keyframes[key];
    for (std::size_t i = key * kKeyframeEvery + 1; i <= f; ++i)
        for (const Delta& d : m_deltas[i])
            map[d.pfn] = d.state;
    return map;
}

PageInfo Recording::pageInfo(std::size_t f, std::uint32_t pfn) const
{
    PageInfo info;
    if (frameCount() == 0 || pfn >= m_pages)
        return info;
    f = std::min(f, frameCount() - 1);
    std::size_t key = f / kKeyframeEvery;
    info.state = static_cast<PageMapState>(m_keyframes[key][pfn]);
    info.flags = m_keyFlags[key][pfn];
    info.owner = m_keyOwners[key][pfn];
    for (std::size_t i = key * kKeyframeEvery + 1; i <= f; ++i) {
        const auto& d = m_deltas[i];
        auto it = std::lower_bound(d.begin(), d.end(), pfn, [](const Delta& a, std::uint32_t p) { return a.pfn < p; });
        if (it != d.end() && it->pfn == pfn) {
            info.state = static_cast<PageMapState>(it->state);
            info.flags = it->flags;
            info.owner = it->owner;
        }
    }
    return info;
}

std::string Recording::ownerName(std::uint16_t owner, std::uint16_t flags) const
{
    if (owner == 0)
        return "none";
    std::size_t id = owner - 1u;
    if (flags & (PG_swapbacked | PG_anon)) {
        if (id < m_mmNames.size() && !m_mmNames[id].empty())
            return m_mmNames[id];
        return "mm " + std::to_string(id);
    }
    if (id < m_fileNames.size() && !m_fileNames[id].empty())
        return m_fileNames[id];
    return "file " + std::to_string(id);
}

Time Recording::lockCpuWait(std::size_t lock, int cpu, std::size_t f) const
{
    if (lock >= m_lockCpuWait.size() || cpu < 0 || cpu >= m_cpus)
        return 0;
    const auto& w = m_lockCpuWait[lock];
    std::size_t i = f * static_cast<std::size_t>(m_cpus) + static_cast<std::size_t>(cpu);
    return i < w.size() ? w[i] : 0;
}

std::size_t Recording::counterIndex(const std::string& name) const
{
    auto it = std::find(m_counterNames.begin(), m_counterNames.end(), name);
    return it == m_counterNames.end() ? m_counterNames.size() : static_cast<std::size_t>(it - m_counterNames.begin());
}

std::size_t Recording::binCount() const
{
    if (frameCount() == 0 || binWidth() <= 0)
        return 0;
    const Time end = m_frameTimes.back();
    return static_cast<std::size_t>((end + binWidth() - 1) / binWidth());
}

std::string Recording::explain(int cpu, std::size_t f) const
{
    const auto& bins = m_cpuBins[static_cast<std::size_t>(cpu)];
    float run = 0, wait = 0, io = 0, sleep = 0;
    std::uint16_t runFn = 0, waitFn = 0, sleepFn = 0;
    float bestRun = -1, bestWait = -1, bestSleep = 0;
    if (frameCount() == 0 || binWidth() <= 0)
        return "idle";
    f = std::min(f, frameCount() - 1);
    const auto first = static_cast<std::size_t>(m_frameTimes[f] / binWidth());
    const std::size_t lo = f + 1 == frameCount() ? first - std::min(first, kCpuBinsPerFrame) : first;
    for (std::size_t b = lo; b < std::min(bins.size(), lo + kCpuBinsPerFrame); ++b) {
        run += bins[b].run;
        wait += bins[b].lockWait;
        io += bins[b].ioWait;
        sleep += bins[b].lockSleep;
        if (bins[b].lockSleep > bestSleep) {
            bestSleep = bins[b].lockSleep;
            sleepFn = bins[b].sleepFn;
        }
        if (bins[b].lockWait > bins[b].run - bins[b].lockWait && bins[b].lockWait > bestWait) {
            bestWait = bins[b].lockWait;
            waitFn = bins[b].topFn;
        } else if (bins[b].run > bestRun) {
            bestRun = bins[b].run;
            runFn = bins[b].topFn;
        }
    }
    if (wait > run * 0.5f && waitFn)
        return "spinning on " + m_fnNames[waitFn];
    if (run > 0.05f * kCpuBinsPerFrame && runFn)
        return m_fnNames[runFn] == "user" ? "running user code" : "in " + m_fnNames[runFn] + "()";
    if (sleep > io && sleep > 0.05f * kCpuBinsPerFrame && sleepFn)
        return "idle, its task sleeps on " + m_fnNames[sleepFn];
    if (io > 0.05f * kCpuBinsPerFrame)
        return "idle, its task waits for I/O";
    return "idle";
}

std::size_t Recording::nextEventFrame(std::size_t f) const
{
    for (const InterestingEvent& e : m_events)
        if (e.frame > f)
            return e.frame;
    return frameCount();
}

std::size_t Recording::memoryBytes() const
{
    std::size_t b = 0;
    for (auto& k : m_keyframes)
        b += k.capacity();
    for (auto& k : m_keyFlags)
        b += k.capacity() * sizeof(std::uint16_t);
    for (auto& k : m_keyOwners)
        b += k.capacity() * sizeof(std::uint16_t);
    for (auto& w : m_lockCpuWait)
        b += w.capacity() * sizeof(Time);
    for (auto& d : m_deltas)
        b += d.capacity() * sizeof(Delta) + sizeof(d);
    b += m_stateCounts.size() * (static_cast<std::size_t>(PageMapState::Count) * 8 + 24);
    for (auto& c : m_counters)
        b += c.capacity() * sizeof(double) + sizeof(c);
    for (auto& l : m_locks)
        b += l.capacity() * sizeof(LockFrame);
    for (auto& c : m_cpuBins)
        b += c.capacity() * sizeof(CpuBin);
    return b;
}

} // namespace mms
