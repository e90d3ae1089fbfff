#include "run/run.h"

#include "kernel/kernel.h"
#include "hw/cacheline.h"
#include "mm/page.h"
#include "mm/swapinfo.h"
#include "mm/pte.h"
#include "mm/zswap.h"
#include "run/recorder.h"
#include "run/times.h"
#include "scenario/runsetup.h"
#include "workload/workload.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

namespace mms {

std::uint64_t runSeed(std::uint64_t scenarioSeed, const std::string& variant, const OJson& point, int rep)
{
    std::uint64_t s = Rng::mix(scenarioSeed, Rng::hash(variant));
    s = Rng::mix(s, Rng::hash(point.dump()));
    return Rng::mix(s, static_cast<std::uint64_t>(rep));
}

std::uint64_t bootSeed(std::uint64_t scenarioSeed, const OJson& point, int rep)
{
    return Rng::mix(Rng::mix(scenarioSeed, Rng::hash(point.dump())), static_cast<std::uint64_t>(rep));
}

RunMemory estimateRunMemory(const RunSetup& setup, const RecordingOptions& recording)
{
    // Measured from the classes rather than written down, so the estimate follows any change to their layout.
    constexpr std::uint32_t kProbe = 1u << 12;
    const std::uint64_t perFrame = PageArray(kProbe).memoryBytes() / kProbe + sizeof(CacheLines::Line);
    RunMemory m;
    m.frames = setup.machine.memoryBytes / kPageSize;
    for (const SwapSpec& s : setup.machine.swap)
        m.swapSlots += s.sizeBytes / kPageSize;
    WorkloadFootprint w { m.frames + m.swapSlots, 0, 0 };
    if (setup.workload && setup.workload->footprint)
        w = setup.workload->footprint(setup.params, m.frames, m.swapSlots);
    m.mappedPages = w.mappedPages;
    m.filePages = w.filePages;
    // The swap map is written only where mapped pages go out; every swap cluster has its lock.
    const std::uint64_t swapMap = std::min(m.swapSlots, m.mappedPages) * sizeof(SwapSlot)
        + m.swapSlots / SWAPFILE_CLUSTER * sizeof(SpinLock);
    // A file's page-cache index (a page each) and its PG_readahead marks (a byte each).
    const std::uint64_t fileIndex = m.filePages * (sizeof(Pfn) + sizeof(std::uint8_t));
    // zswap's trees: an entry per swap slot.
    const std::uint64_t zswapTrees = setup.toggles.zswap.enabled ? m.swapSlots * Zswap::kBytesPerSlot : 0;
    m.bytes = m.frames * perFrame + swapMap + m.mappedPages * sizeof(Pte) + fileIndex + zswapTrees + w.setupBytes
        + (recording.enabled ? recording.memoryBudget : 0);
    return m;
}

namespace {
    // Metrics every run reports, from the kernel's counters and the tasks' /usr/bin/time accounting.
    // zram swap devices (only where there is one, so that other runs' results keep their keys), summed over them:
    // the pool's peak in bytes of RAM (mem_used_max), the most pages stored at once, writes that found no memory.
    void addZramMetrics(const Kernel& k, Metrics& out)
    {
        bool any = false;
        double poolPeak = 0, storedPeak = 0, failed = 0;
        for (const auto& si : k.swap) {
            if (!si->zram)
                continue;
            any = true;
            const ZramStats& z = si->zram->stats();
            poolPeak += static_cast<double>(z.maxUsedPages * kPageSize);
            storedPeak += static_cast<double>(z.maxPagesStored);
            failed += static_cast<double>(z.failedWrites);
        }
        if (!any)
            return;
        out["zram_pool_bytes"] = poolPeak;
        out["zram_stored_pages"] = storedPeak;
        out["zram_failed_writes"] = failed;
    }

    // zswap (only where it is enabled, for the same reason): its pool's peak in bytes of RAM, the most pages it held
    // at once, and the debugfs counters of the pages it wrote back and of the stores it refused.
    void addZswapMetrics(const Kernel& k, Metrics& out)
    {
        if (!k.zswap)
            return;
        const ZswapStats& z = k.zswap->stats();
        out["zswap_pool_bytes"] = static_cast<double>(z.maxPoolPages * kPageSize);
        out["zswap_stored_pages"] = static_cast<double>(z.maxStoredPages);
        out["zswap_written_back_pages"] = static_cast<double>(z.writtenBackPages);
        out["zswap_pool_limit_hit"] = static_cast<double>(z.poolLimitHit);
        out["zswap_reject_compress_poor"] = static_cast<double>(z.rejectCompressPoor);
        out["zswap_reject_alloc_fail"] = static_cast<double>(z.rejectAllocFail);
        out["zswap_reject_reclaim_fail"] = static_cast<double>(z.rejectReclaimFail);
        out["zswap_loads"] = static_cast<double>(z.loads);
        out["zswap_same_filled_pages"] = static_cast<double>(z.maxSameFilledPages);
    }

    void addCommonMetrics(const Kernel& k, const Sched& s, Metrics& out)
    {
        addTimeMetrics(s, out);
        for (std::size_t i = 0; i < static_cast<std::size_t>(Vm::Count); ++i)
            out[std::string("vm.") + vmName(static_cast<Vm>(i))] = static_cast<double>(k.vm.v[i]);
        std::uint64_t ipis = 0;
        for (int c = 0; c < s.cpuCount(); ++c)
            ipis += s.cpu(c).ipisReceived;
        out["ipis"] = static_cast<double>(ipis);
        if (s.machine().guest != Guest::None) // only in a guest, so that bare-metal results keep their keys
            out["vm_exits"] = static_cast<double>(k.vmExits);
        out["sim_time_s"] = toSec(s.sim().now());
        addZramMetrics(k, out);
        addZswapMetrics(k, out);
        // Only where memory ran out (page_alloc.cpp's ways out), so that other runs' results keep their keys.
        if (k.nrAllocFail)
            out["alloc_fail"] = static_cast<double>(k.nrAllocFail);
        if (k.oom.nrKill) { // the OOM killer's victims: processes, tasks that ended by SIGKILL, the memory they held
            double killed = 0;
            for (const auto& t : s.tasks())
                killed += t->sigkill;
            std::uint64_t pages = 0;
            for (const OomKill& kill : k.oom.kills)
                pages += kill.pages;
            out["vm.oom_kill"] = static_cast<double>(k.oom.nrKill);
            out["oom_killed_tasks"] = killed;
            out["oom_killed_mib"] = static_cast<double>(pages * kPageSize) / (1 << 20);
        }
    }

    std::vector<LockSummary> summarise(const Kernel& k)
    {
        std::map<std::string, LockSummary> byName;
        for (const LockStat* l : k.lockStats()) {
            LockSummary& s = byName[l->name];
            bool first = s.instances == 0;
            s.name = l->name;
            s.kind = l->kind;
            ++s.instances;
            s.acquisitions += l->acquisitions;
            s.contentions += l->contentions;
            s.conBounces += l->conBounces;
            s.acqBounces += l->acqBounces;
            s.waitTotal += l->waitTotal;
            s.holdTotal += l->holdTotal;
            s.waitMax = std::max(s.waitMax, l->waitMax);
            s.holdMax = std::max(s.holdMax, l->holdMax);
            if (l->contentions)
                s.waitMin = first || s.waitMin == 0 ? l->waitMin : std::min(s.waitMin, l->waitMin);
            if (l->acquisitions)
                s.holdMin = first || s.holdMin == 0 ? l->holdMin : std::min(s.holdMin, l->holdMin);
        }
        std::vector<LockSummary> out;
        for (auto& [n, s] : byName)
            if (s.acquisitions)
                out.push_back(s);
        return out;
    }

    // What each CPU is doing, for the watchdog's error: "CPU 3: usemem-2 in shrink_inactive_list".
    std::string describeCpus(const Sched& s)
    {
        std::ostringstream o;
        for (int c = 0; c < s.cpuCount(); ++c) {
            const Task* t = s.cpu(c).current;
            o << "\n  CPU " << c << ": " << (t ? t->name + " in " + t->fn : std::string("idle"));
        }
        int shown = 0;
        for (const auto& t : s.tasks()) {
            if (t->kthread || t->state == TaskState::Done || t->state == TaskState::Running)
                continue;
            if (shown++ == 16) {
                o << "\n  ...";
                break;
            }
            o << "\n  " << t->name << (t->state == TaskState::Sleeping ? ": asleep in " : ": runnable in ") << t->fn;
        }
        return o.str();
    }

    // Passes cancellation through, adds the workload's own progress, and is the run's watchdog. The simulator polls
    // wasInterrupted() every 64 Ki events (a few hundred times per host second at most), a modest rate for progress
    // too. The watchdog stops a run the model has no way out of (a state the kernel would hang in too, or one the
    // model does not cover): no user task has returned from a system call or fault for kNoProgress of simulated
    // time, or simulated time has not moved over kStuckPolls polls (4 Mi events at one instant).
    class RunInterrupter final : public Interrupter {
    public:
        // Ten simulated minutes: past any stall a real run has (madv-free-swapin's swap storm holds every process in
        // direct reclaim for tens of seconds at a time), and still a few host seconds for a livelock that loops.
        static constexpr Time kNoProgress = Time(600) * 1'000'000'000'000;
        static constexpr int kStuckPolls = 64;

        RunInterrupter(Interrupter* outer, const Workload& workload, const Kernel& k, std::uint64_t maxEvents)
            : m_outer(outer)
            , m_workload(workload)
            , m_k(k)
            , m_maxEvents(maxEvents)
        {
        }
        bool wasInterrupted() override
        {
            watchdog();
            budget();
            if (!m_outer)
                return false;
            const double f = m_workload.progress();
            if (f >= 0)
                m_outer->progress(std::min(f, 1.0));
            return m_outer->wasInterrupted();
        }

    private:
        void watchdog()
        {
            const Time now = m_k.s.sim().now();
            m_stuck = now == m_lastNow ? m_stuck + 1 : 0;
            m_lastNow = now;
            const bool noProgress = m_k.s.liveUserTasks() > 0 && now - m_k.lastUserProgress > kNoProgress;
            if (!noProgress && m_stuck < kStuckPolls)
                return;
            std::ostringstream o;
            o << "the run cannot end: at " << toSec(now) << " simulated s, "
              << (noProgress ? "no user task has returned from a system call or fault for "
                          + std::to_string(kNoProgress / 1'000'000'000'000) + " s"
                             : "simulated time has not moved for " + std::to_string(m_stuck) + " x 64 Ki events")
              << " (the model has no way out of this state; docs/reliability.md)" << describeCpus(m_k.s);
            throw RunStuck(o.str());
        }

        void budget() const
        {
            const std::uint64_t events = m_k.s.sim().eventsProcessed();
            if (m_maxEvents == 0 || events < m_maxEvents)
                return;
            std::ostringstream o;
            o << "the run is larger than its event budget: stopped after " << events << " simulated events (--max-events "
              << m_maxEvents << ") at " << toSec(m_k.s.sim().now()) << " simulated s";
            if (const double f = m_workload.progress(); f >= 0)
                o << ", " << std::lround(std::min(f, 1.0) * 100) << " % of the workload's work done";
            o << "; expected a smaller --scale, less work (the workload's sizes, counts or duration) or a larger "
                 "--max-events";
            throw RunTooLong(o.str());
        }

        Interrupter* m_outer;
        const Workload& m_workload;
        const Kernel& m_k;
        std::uint64_t m_maxEvents;
        Time m_lastNow = -1;
        int m_stuck = 0;
    };
} // namespace

RunResult executeRun(const RunSpec& spec, Interrupter* interrupter)
{
    RunSetup setup = spec.scenario->resolve(spec.variant, spec.point, spec.scale);
    Simulator sim;
    sim.setTrace(spec.queueTrace);
    Sched sched(sim, setup.machine);
    Kernel kernel(sched, setup.toggles);
    kernel.boot(spec.bootSeed);
    WorkloadContext ctx { kernel, sim, setup.params, spec.seed, { setup.toggles.advice, setup.toggles.glibcTrim } };
    std::unique_ptr<Workload> workload = setup.workload->make();
    try {
        workload->setup(ctx);
    } catch (const std::invalid_argument& e) { // a set-up the workload does not model (a zram device under a fast-forward)
        throw ScenarioError(std::string(e.what()) + " (variant " + spec.variant + ")");
    }

    std::unique_ptr<Recorder> recorder;
    if (spec.recording.enabled)
        recorder = std::make_unique<Recorder>(kernel, sched, spec.recording, workload.get());

    // The user tasks end the run; kernel threads (kswapd) then sleep and the event queue drains.
    RunInterrupter watch(interrupter, *workload, kernel, spec.maxEvents);
    bool finished = sim.run(&watch);
    if (std::exception_ptr e = sched.taskError()) {
        try {
            std::rethrow_exception(e);
        } catch (const ProgramError& pe) {
            throw ScenarioError(std::string(pe.what()) + " (variant " + spec.variant + ", at "
                + std::to_string(toSec(sim.now())) + " simulated s: the workload asks for more than the machine allows)");
        }
    }

    RunResult r;
    r.variant = spec.variant;
    r.point = spec.point;
    r.rep = spec.rep;
    r.events = sim.eventsProcessed();
    if (!finished) {
        r.metrics["cancelled"] = 1;
        return r;
    }
    workload->finish(ctx, r.metrics);
    addCommonMetrics(kernel, sched, r.metrics);
    r.cpus = cpuStats(sched, r.metrics);
    addMemoryMetrics(sched, r.metrics);
    r.locks = summarise(kernel);
    if (spec.checkInvariants) {
        std::string err = kernel.checkInvariants();
        if (!err.empty())
            throw std::logic_error("invariant violated after " + spec.variant + ": " + err);
    }
    if (recorder)
        r.recording = recorder->finish();
    return r;
}

} // namespace mms
