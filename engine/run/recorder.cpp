#include "run/recorder.h"

#include "mm/filemap.h"
#include "mm/zswap.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string_view>
#include <unordered_map>

namespace mms {

namespace {
    constexpr double kIpiStormPerSecond = 100000.0; // IPIs/s that make an "IPI storm" event
} // namespace

Recorder::Recorder(Kernel& k, Sched& s, const RecordingOptions& opts, const Workload* workload)
    : m_k(k)
    , m_s(s)
    , m_opts(opts)
    , m_workload(workload)
    , m_rec(std::make_shared<Recording>())
{
    // No interval given: start fine and let the frame cap double it as the run goes on (see recording.h).
    m_rec->m_interval = opts.interval > 0 ? opts.interval : Recording::kFirstInterval;
    m_rec->m_pages = k.pages.size();
    m_rec->m_cpus = s.cpuCount();
    for (int c = 0; c < s.cpuCount(); ++c)
        m_rec->m_cpuPlaces.push_back({ s.cpu(c).socket, s.cpu(c).llc });
    // Node n starts where node n - 1's zone ends (node 0 at PFN 0: its reserved frames lie below its zone).
    for (int nid = 1; nid < k.nrNodes(); ++nid)
        m_rec->m_nodeStarts.push_back(static_cast<std::uint32_t>(k.node(nid - 1).zone.end()));
    m_rec->m_cpuBins.resize(static_cast<std::size_t>(s.cpuCount()));
    m_topShare.resize(static_cast<std::size_t>(s.cpuCount()));
    m_sleepShare.resize(static_cast<std::size_t>(s.cpuCount()));
    m_holdSeen.assign(static_cast<std::size_t>(s.cpuCount()), 0);
    for (std::size_t i = 0; i < static_cast<std::size_t>(Vm::Count); ++i)
        m_rec->m_counterNames.push_back(vmName(static_cast<Vm>(i)));
    for (const char* n : { "ops", "free_pages", "swap_used", "ipis", "zram_pool_pages", "vm_exits", "zswap_pool_pages" })
        m_rec->m_counterNames.push_back(n);
    s.setTrace(this);
    m_livePeriod = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(opts.livePeriodSeconds));
    m_nextPublish = std::chrono::steady_clock::now() + m_livePeriod;
    sample(s.sim().now());
    schedule();
}

Recorder::~Recorder() { m_s.setTrace(nullptr); }

std::uint16_t Recorder::intern(const char* fn)
{
    auto it = m_fnIds.find(fn);
    if (it != m_fnIds.end())
        return it->second;
    std::string name(fn);
    auto byName = m_fnByName.find(name);
    std::uint16_t id;
    if (byName != m_fnByName.end())
        id = byName->second;
    else {
        id = static_cast<std::uint16_t>(std::min<std::size_t>(m_rec->m_fnNames.size(), 65535));
        if (id == m_rec->m_fnNames.size())
            m_rec->m_fnNames.push_back(name);
        m_fnByName.emplace(name, id);
    }
    m_fnIds.emplace(fn, id);
    return id;
}

void Recorder::span(int cpu, Time begin, Time end, SpanKind kind, const char* fn)
{
    if (m_done || end <= begin)
        return;
    if (kind == SpanKind::LockHold) {
        // Spinlock holds nest (ptl, then swap_info->lock): count each instant once per CPU. Spans arrive at
        // release, inner before outer, so only the part after the latest hold seen so far is new.
        Time& seen = m_holdSeen[static_cast<std::size_t>(cpu)];
        begin = std::max(begin, seen);
        seen = std::max(seen, end);
        if (end <= begin)
            return;
    }
    Time w = binWidth();
    auto& bins = m_rec->m_cpuBins[static_cast<std::size_t>(cpu)];
    auto& top = m_topShare[static_cast<std::size_t>(cpu)];
    auto& sleepTop = m_sleepShare[static_cast<std::size_t>(cpu)];
    auto last = static_cast<std::size_t>((end - 1) / w);
    if (bins.size() <= last) {
        bins.resize(last + 1);
        top.resize(last + 1, 0.0f);
        sleepTop.resize(last + 1, 0.0f);
    }
    const bool named = kind == SpanKind::Run || kind == SpanKind::LockWait || kind == SpanKind::LockSleep;
    std::uint16_t id = named ? intern(fn) : 0;
    for (auto b = static_cast<std::size_t>(begin / w); b <= last; ++b) {
        Time lo = std::max(begin, static_cast<Time>(b) * w);
        Time hi = std::min(end, static_cast<Time>(b + 1) * w);
        float share = static_cast<float>(static_cast<double>(hi - lo) / static_cast<double>(w));
        CpuBin& bin = bins[b];
        switch (kind) {
        case SpanKind::Run: bin.run += share; break;
        case SpanKind::LockWait:
            bin.lockWait += share;
            bin.run += share; // a spinning CPU is busy
            break;
        case SpanKind::LockHold: bin.lockHold += share; break;
        case SpanKind::IoWait: bin.ioWait += share; break;
        case SpanKind::Idle: break;
        case SpanKind::LockSleep:
            // Its task's, not the CPU's: the CPU's own spans (another task, __schedule) say what it did meanwhile.
            bin.lockSleep += share;
            if (share > sleepTop[b]) {
                sleepTop[b] = share;
                bin.sleepFn = id;
            }
            continue;
        }
        if (id && share > top[b]) {
            top[b] = share;
            bin.topFn = id;
        }
    }
}

void Recorder::sample(Time at)
{
    const std::size_t f = m_rec->m_frameTimes.size();
    m_rec->m_frameTimes.push_back(at);
    samplePages(f);
    sampleCounters();
    sampleLocks(f);
    decimateWhenDue();
    if (m_opts.live && !m_done)
        publishWhenDue();
}

void Recorder::publishWhenDue()
{
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    if (start < m_nextPublish)
        return;
    auto copy = std::make_shared<Recording>(*m_rec);
    close(*copy);
    const Clock::time_point copied = Clock::now();
    m_nextPublish = copied + std::max(m_livePeriod, 10 * (copied - start));
    m_opts.live(std::move(copy));
}

// Frame f of the page map, a keyframe or the change since the previous frame, and the pages in each state.
void Recorder::samplePages(std::size_t f)
{
    PageFrame cur;
    cur.state.resize(m_k.pages.size());
    cur.flags.resize(m_k.pages.size());
    cur.owners.resize(m_k.pages.size());
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(PageState::Count), 0);
    for (Pfn p = 0; p < m_k.pages.size(); ++p) {
        auto st = static_cast<std::uint8_t>(m_k.pages.state(p));
        cur.state[p] = st;
        cur.flags[p] = m_k.pages.flags(p);
        cur.owners[p] = m_k.pages.owner(p);
        ++counts[st];
    }
    appendPageFrame(*m_rec, f, cur, m_last);
    m_last = std::move(cur);
    nameOwners();
    m_rec->m_stateCounts.push_back(std::move(counts));
}

// Frame f of `r`'s page map: every kKeyframeEvery frames the whole map, otherwise the pages that differ from `prev`.
void Recorder::appendPageFrame(Recording& r, std::size_t f, const PageFrame& cur, const PageFrame& prev)
{
    if (f % Recording::kKeyframeEvery == 0) {
        r.m_keyframes.push_back(cur.state);
        r.m_keyFlags.push_back(cur.flags);
        r.m_keyOwners.push_back(cur.owners);
        r.m_deltas.emplace_back();
        return;
    }
    std::vector<Recording::Delta> d;
    for (Pfn p = 0; p < cur.state.size(); ++p)
        if (cur.state[p] != prev.state[p] || cur.flags[p] != prev.flags[p] || cur.owners[p] != prev.owners[p])
            d.push_back({ p, cur.state[p], cur.flags[p], cur.owners[p] });
    r.m_deltas.push_back(std::move(d));
}

// The vm counters (enum Vm, /proc/vmstat's names), then ops done, free pages, swap slots in use, IPIs received, the
// zram devices' pool (zs_get_total_pages(), 0 without zram), a guest's VM exits (0 on bare metal) and zswap's pool
// (zbud_get_pool_size(), 0 without zswap).
void Recorder::sampleCounters()
{
    std::vector<double> c;
    for (std::size_t i = 0; i < static_cast<std::size_t>(Vm::Count); ++i)
        c.push_back(static_cast<double>(m_k.vm.v[i]));
    std::uint64_t ops = 0;
    for (auto& t : m_s.tasks())
        ops += t->opsDone;
    std::uint64_t swapUsed = 0, zramPool = 0;
    for (auto& si : m_k.swap) {
        swapUsed += si->inuse;
        zramPool += si->zram ? si->zram->poolPages() : 0;
    }
    std::uint64_t ipis = 0;
    for (int cpu = 0; cpu < m_s.cpuCount(); ++cpu)
        ipis += m_s.cpu(cpu).ipisReceived;
    c.push_back(static_cast<double>(ops));
    c.push_back(static_cast<double>(m_k.nrFreePages()));
    c.push_back(static_cast<double>(swapUsed));
    c.push_back(static_cast<double>(ipis));
    c.push_back(static_cast<double>(zramPool));
    c.push_back(static_cast<double>(m_k.vmExits));
    c.push_back(static_cast<double>(m_k.zswap ? m_k.zswap->poolPages() : 0));
    m_rec->m_counters.push_back(std::move(c));
}

// Every lock's lockstat now, summed by name and ordered by name. AIM7 at 961 users has thousands of instances (an
// mmap_sem and ptls per mm) of a dozen names: they are summed through a hash on the name, and only the few sums
// are ordered.
std::map<std::string, Recorder::LockTotals> Recorder::lockTotals() const
{
    std::unordered_map<std::string_view, std::size_t> slot;
    std::vector<std::pair<std::string_view, LockTotals>> sums;
    for (const LockStat* l : m_k.lockStats()) {
        auto [at, fresh] = slot.try_emplace(l->name, sums.size());
        if (fresh)
            sums.emplace_back(l->name, LockTotals {});
        LockTotals& t = sums[at->second].second;
        t.acq += l->acquisitions;
        t.cont += l->contentions;
        t.wait += l->waitTotal;
        t.hold += l->holdTotal;
        if (t.waitCpu.size() < l->waitPerCpu.size())
            t.waitCpu.resize(l->waitPerCpu.size(), 0);
        for (std::size_t c = 0; c < l->waitPerCpu.size(); ++c)
            t.waitCpu[c] += l->waitPerCpu[c];
    }
    std::sort(sums.begin(), sums.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::map<std::string, LockTotals> now;
    for (auto& [name, t] : sums)
        now.emplace_hint(now.end(), std::string(name), std::move(t));
    return now;
}

// Frame f of the locks, stored as the change since the previous frame.
void Recorder::sampleLocks(std::size_t f)
{
    Recording& r = *m_rec;
    std::map<std::string, LockTotals> now = lockTotals();
    const auto cpus = static_cast<std::size_t>(r.m_cpus);
    auto& prev = m_prevLocks;
    for (auto& [name, t] : now) {
        auto it = std::find(r.m_lockNames.begin(), r.m_lockNames.end(), name);
        std::size_t idx;
        if (it == r.m_lockNames.end()) {
            idx = r.m_lockNames.size();
            r.m_lockNames.push_back(name);
            r.m_locks.emplace_back(f, LockFrame {});
        } else
            idx = static_cast<std::size_t>(it - r.m_lockNames.begin());
        const LockTotals& p = prev[name];
        r.m_locks[idx].push_back(LockFrame { t.acq - p.acq, t.cont - p.cont, t.wait - p.wait, t.hold - p.hold });
        // Per-CPU wait, stored only for locks contended at some point (zero-filled back to frame 0 on the first).
        if (r.m_lockCpuWait.size() < r.m_lockNames.size())
            r.m_lockCpuWait.resize(r.m_lockNames.size());
        auto& w = r.m_lockCpuWait[idx];
        if (w.empty() && t.wait == p.wait)
            continue;
        w.resize((f + 1) * cpus, 0);
        for (std::size_t c = 0; c < cpus; ++c) {
            Time now = c < t.waitCpu.size() ? t.waitCpu[c] : 0;
            Time before = c < p.waitCpu.size() ? p.waitCpu[c] : 0;
            w[f * cpus + c] = now - before;
        }
    }
    for (auto& l : r.m_locks)
        if (l.size() < f + 1)
            l.resize(f + 1);
    r.m_lockCpuWait.resize(r.m_lockNames.size());
    for (auto& w : r.m_lockCpuWait)
        if (!w.empty() && w.size() < (f + 1) * cpus)
            w.resize((f + 1) * cpus, 0);
    prev = std::move(now);
}

// Halves the frames when the recording is over its memory budget, or (with no interval given) when the run is
// longer than kMaxFrames intervals. Merges only at an odd frame count: the kept frames (the even ones, the last
// included) then sit at multiples of the doubled interval, where the next samples will fall too, and bin
// f x kCpuBinsPerFrame stays frame f's.
void Recorder::decimateWhenDue()
{
    Recording& r = *m_rec;
    const std::size_t n = r.frameCount();
    if (n % 2 == 0)
        return;
    if (r.memoryBytes() > m_opts.memoryBudget && n > 2 * Recording::kKeyframeEvery) {
        decimate();
        ++r.m_decimations;
    } else if (m_opts.interval <= 0 && (n > Recording::kMaxFrames || coarserForRunLength()))
        decimate(); // the run is longer than kMaxFrames intervals: coarser frames, not a loss to the budget
}

bool Recorder::coarserForRunLength() const
{
    // Every frame scans the whole page array, so sampling a 5 s run at the first 10 us until the cap doubles the
    // interval often enough would cost thousands of scans. The workload's progress, once past 1e-4 of the run,
    // estimates the run's length: double while that still leaves kMaxFrames / 2 frames or more. The time-bound
    // workloads (AIM7, ebizzy, sysbench) know their end exactly; a work-bound one may misjudge it (a memset loop
    // slower at first than later: madv-free-swapin at scale 0.05 gets 130 frames), and the cap above still holds.
    // Measured: dd-sparse-read at scale 0.05 (2.8 s simulated, 270 frames) records in 4.0-4.9 s of host time
    // against 3.6-3.8 s with the fixed 10 ms interval (277 frames).
    const double p = m_workload ? m_workload->progress() : -1.0;
    if (p < 1e-4)
        return false;
    const double estimatedEnd = static_cast<double>(m_s.sim().now()) / std::min(p, 1.0);
    return static_cast<double>(m_rec->m_interval) * static_cast<double>(Recording::kMaxFrames) <= estimatedEnd;
}

void Recorder::schedule()
{
    // An observer's event: after every CPU and device at the same instant, and the run ends without waiting for it
    // (a recorded run's clock, idle time and event count are the unrecorded run's).
    m_s.sim().observeAt(
        m_s.sim().now() + m_rec->m_interval,
        [](void* ctx, std::uint64_t) {
            auto* self = static_cast<Recorder*>(ctx);
            // With no user task left the run is over (kernel threads only drain their work): finish() takes the
            // last frame at the moment the last user task exited, not at this later tick, which would put the
            // last frame up to an interval past the end and stretch the time axis over nothing.
            if (self->m_done || self->m_s.liveUserTasks() == 0)
                return;
            self->sample(self->m_s.sim().now());
            self->schedule();
        },
        this, 0);
}

void Recorder::nameOwners()
{
    Recording& r = *m_rec;
    if (r.m_mmNames.size() < m_k.mms.size())
        r.m_mmNames.resize(m_k.mms.size());
    // An mm is named after its first task. One pass over the tasks, not one per unnamed mm: AIM7 at 961 users
    // leaves thousands of mms of exited children, unnamed for good, and a frame every 20 us.
    std::unordered_map<const MmStruct*, std::size_t> unnamed;
    for (std::size_t i = 0; i < m_k.mms.size(); ++i)
        if (r.m_mmNames[i].empty())
            unnamed.emplace(m_k.mms[i].get(), i);
    if (unnamed.empty())
        return;
    for (const auto& t : m_s.tasks()) {
        auto it = t->mm ? unnamed.find(t->mm) : unnamed.end();
        if (it == unnamed.end())
            continue;
        r.m_mmNames[it->second] = t->name;
        unnamed.erase(it);
    }
    if (r.m_fileNames.size() < m_k.mappings.size())
        r.m_fileNames.resize(m_k.mappings.size());
}

void Recorder::close(Recording& r) const
{
    // No bin past the last frame (a kernel thread's drain after the last exit; a span the next frame will hold).
    const std::size_t bins = r.binCount();
    for (auto& b : r.m_cpuBins)
        if (b.size() > bins)
            b.resize(bins);
    findEvents(r);
}

void Recorder::findEvents(Recording& r) const
{
    auto counter = [&](const char* name, std::size_t f) { return r.m_counters[f][r.counterIndex(name)]; };
    for (std::size_t l = 0; l < r.m_lockNames.size(); ++l)
        for (std::size_t f = 0; f < r.frameCount(); ++f)
            if (r.m_locks[l][f].contentions > 0) {
                r.m_events.push_back({ r.m_frameTimes[f], f, "first-contention", "first contention on " + r.m_lockNames[l] });
                break;
            }
    for (std::size_t f = 0; f < r.frameCount(); ++f)
        if (counter("pgscan_kswapd", f) + counter("pgscan_direct", f) > 0) {
            r.m_events.push_back({ r.m_frameTimes[f], f, "reclaim-starts", "reclaim starts" });
            break;
        }
    for (std::size_t f = 0; f < r.frameCount(); ++f)
        if (counter("pswpin", f) > 0) {
            r.m_events.push_back({ r.m_frameTimes[f], f, "first-swapin", "first swap-in" });
            break;
        }
    // "Out of memory: Killed process": the frame at or after each kill.
    for (const OomKill& kill : m_k.oom.kills) {
        std::size_t f = 0;
        while (f + 1 < r.frameCount() && r.m_frameTimes[f] < kill.at)
            ++f;
        char mib[32];
        std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(kill.pages * kPageSize) / (1 << 20));
        r.m_events.push_back({ r.m_frameTimes[f], f, "oom-kill", "OOM: killed " + kill.task + ", freed " + mib + " MiB" });
    }
    bool inStorm = false;
    for (std::size_t f = 1; f < r.frameCount(); ++f) {
        double dt = toSec(r.m_frameTimes[f] - r.m_frameTimes[f - 1]);
        double rate = dt > 0 ? (counter("tlb_remote_ipi", f) - counter("tlb_remote_ipi", f - 1)) / dt : 0;
        bool storm = rate > kIpiStormPerSecond;
        if (storm && !inStorm)
            r.m_events.push_back({ r.m_frameTimes[f], f, "ipi-storm", "IPI storm (" + std::to_string(static_cast<long long>(rate)) + " IPIs/s)" });
        inStorm = storm;
    }
    std::stable_sort(r.m_events.begin(), r.m_events.end(), [](const InterestingEvent& a, const InterestingEvent& b) { return a.frame < b.frame; });
}

std::shared_ptr<const Recording> Recorder::finish()
{
    if (!m_done) {
        // The run ended when its last user task exited; the clock may have gone on while kernel threads drained
        // their work (never for a sample tick: an observer's event), but the run is over.
        Time end = -1;
        for (const auto& t : m_s.tasks())
            if (!t->kthread && t->finished >= 0)
                end = std::max(end, t->finished);
        if (end < 0)
            end = m_s.sim().now();
        if (m_rec->m_frameTimes.empty() || m_rec->m_frameTimes.back() < end)
            sample(end);
        m_done = true;
        close(*m_rec);
        m_s.setTrace(nullptr);
    }
    return m_rec;
}

} // namespace mms
