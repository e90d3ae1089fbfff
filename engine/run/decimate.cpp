// Recorder::decimate(): a recording halved to every other frame when it outgrows its budget or its frame cap
// (run/recording.h).

#include "run/recorder.h"

#include <algorithm>

namespace mms {

// Every other frame kept (the last one too), at twice the interval: the page map replayed to each kept frame and
// stored again as keyframes and deltas, lock frames and per-CPU waits summed over the frames merged into a kept
// one, CPU bins merged in pairs.
void Recorder::decimate()
{
    Recording& r = *m_rec;
    std::size_t n = r.frameCount();
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < n; i += 2)
        keep.push_back(i);
    if (keep.back() != n - 1)
        keep.push_back(n - 1);

    Recording out = coarserEmpty(r);
    PageFrame page { r.m_keyframes[0], r.m_keyFlags[0], r.m_keyOwners[0] };
    PageFrame prevKept;
    std::size_t from = 0;
    for (std::size_t i = 0, k = 0; i < n && k < keep.size(); ++i) {
        if (i % Recording::kKeyframeEvery == 0) {
            page.state = r.m_keyframes[i / Recording::kKeyframeEvery];
            page.flags = r.m_keyFlags[i / Recording::kKeyframeEvery];
            page.owners = r.m_keyOwners[i / Recording::kKeyframeEvery];
        } else
            for (const auto& d : r.m_deltas[i]) {
                page.state[d.pfn] = d.state;
                page.flags[d.pfn] = d.flags;
                page.owners[d.pfn] = d.owner;
            }
        if (i != keep[k])
            continue;
        std::size_t nf = out.m_frameTimes.size();
        out.m_frameTimes.push_back(r.m_frameTimes[i]);
        appendPageFrame(out, nf, page, prevKept);
        prevKept = page;
        out.m_stateCounts.push_back(r.m_stateCounts[i]);
        out.m_counters.push_back(r.m_counters[i]);
        mergeLockFrames(r, from, i, out, nf);
        from = i + 1;
        ++k;
    }
    mergeCpuBins(r, out);
    out.m_decimations = r.m_decimations;
    out.m_events = r.m_events;
    *m_rec = std::move(out);
    m_last = std::move(prevKept);
}

// A recording with `r`'s names and shape, at twice its interval, and no frame yet.
Recording Recorder::coarserEmpty(const Recording& r)
{
    Recording out;
    out.m_interval = r.m_interval * 2;
    out.m_pages = r.m_pages;
    out.m_cpus = r.m_cpus;
    out.m_cpuPlaces = r.m_cpuPlaces;
    out.m_nodeStarts = r.m_nodeStarts;
    out.m_counterNames = r.m_counterNames;
    out.m_lockNames = r.m_lockNames;
    out.m_fnNames = r.m_fnNames;
    out.m_mmNames = r.m_mmNames;
    out.m_fileNames = r.m_fileNames;
    out.m_locks.resize(r.m_lockNames.size());
    out.m_lockCpuWait.resize(r.m_lockCpuWait.size());
    return out;
}

// `r`'s lock frames from..to, and their per-CPU waits, summed into frame `frame` of `out`.
void Recorder::mergeLockFrames(const Recording& r, std::size_t from, std::size_t to, Recording& out, std::size_t frame)
{
    const auto cpus = static_cast<std::size_t>(r.m_cpus);
    for (std::size_t l = 0; l < r.m_locks.size(); ++l) {
        LockFrame sum;
        for (std::size_t j = from; j <= to; ++j) {
            sum.acquisitions += r.m_locks[l][j].acquisitions;
            sum.contentions += r.m_locks[l][j].contentions;
            sum.wait += r.m_locks[l][j].wait;
            sum.hold += r.m_locks[l][j].hold;
        }
        out.m_locks[l].push_back(sum);
    }
    for (std::size_t l = 0; l < r.m_lockCpuWait.size(); ++l) {
        const auto& in = r.m_lockCpuWait[l];
        if (in.empty())
            continue;
        auto& o = out.m_lockCpuWait[l];
        o.resize((frame + 1) * cpus, 0);
        for (std::size_t j = from; j <= to; ++j)
            for (std::size_t c = 0; c < cpus; ++c)
                o[frame * cpus + c] += in[j * cpus + c];
    }
}

// Each CPU's bins merged in pairs: the shares averaged, the function named the one with the larger share of the
// two (m_topShare, m_sleepShare, halved with them).
void Recorder::mergeCpuBins(const Recording& r, Recording& out)
{
    out.m_cpuBins.resize(r.m_cpuBins.size());
    for (std::size_t c = 0; c < r.m_cpuBins.size(); ++c) {
        auto& in = r.m_cpuBins[c];
        auto& top = m_topShare[c];
        auto& sleepTop = m_sleepShare[c];
        std::vector<float> newTop, newSleepTop;
        for (std::size_t b = 0; b < in.size(); b += 2) {
            CpuBin a = in[b];
            CpuBin z = b + 1 < in.size() ? in[b + 1] : CpuBin {};
            float ta = top[b], tz = b + 1 < in.size() ? top[b + 1] : 0.0f;
            float sa = sleepTop[b], sz = b + 1 < in.size() ? sleepTop[b + 1] : 0.0f;
            CpuBin m { (a.run + z.run) / 2, (a.lockWait + z.lockWait) / 2, (a.lockHold + z.lockHold) / 2,
                (a.ioWait + z.ioWait) / 2, (a.lockSleep + z.lockSleep) / 2, ta >= tz ? a.topFn : z.topFn,
                sa >= sz ? a.sleepFn : z.sleepFn };
            out.m_cpuBins[c].push_back(m);
            newTop.push_back(std::max(ta, tz) / 2);
            newSleepTop.push_back(std::max(sa, sz) / 2);
        }
        top = std::move(newTop);
        sleepTop = std::move(newSleepTop);
    }
}

} // namespace mms
