#include "run/run.h"

#include "mm/kernel.h"
#include "mm/page.h"
#include "mm/pte.h"
#include "run/recorder.h"
#include "scenario/runsetup.h"
#include "workload/workload.h"

#include <algorithm>
#include <map>
#include <optional>

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
    // Measured from the class rather than written down, so the estimate follows any change to the page layout.
    constexpr std::uint32_t kProbe = 1u << 12;
    const std::uint64_t perFrame = PageArray(kProbe).memoryBytes() / kProbe + sizeof(Pfn) + sizeof(Pte);
    const std::uint64_t perSlot = sizeof(std::uint8_t) /* swap_map */ + sizeof(Pfn) /* swap cache */
        + sizeof(std::uint8_t) /* slots cache */ + sizeof(Pte);
    RunMemory m;
    m.frames = setup.machine.memoryBytes / kPageSize;
    for (const SwapSpec& s : setup.machine.swap)
        m.swapSlots += s.sizeBytes / kPageSize;
    m.bytes = m.frames * perFrame + m.swapSlots * perSlot + (recording.enabled ? recording.memoryBudget : 0);
    return m;
}

namespace {
    // Metrics every run reports, from the kernel's counters and the tasks' /usr/bin/time accounting.
    void addCommonMetrics(const Kernel& k, const Sched& s, Metrics& out)
    {
        for (std::size_t i = 0; i < static_cast<std::size_t>(Vm::Count); ++i)
            out[std::string("vm.") + vmName(static_cast<Vm>(i))] = static_cast<double>(k.vm.v[i]);
        std::uint64_t ipis = 0;
        for (int c = 0; c < s.cpuCount(); ++c)
            ipis += s.cpu(c).ipisReceived;
        out["ipis"] = static_cast<double>(ipis);
        out["sim_time_s"] = toSec(s.sim().now());
        // Only where memory ran out (page_alloc.cpp's ways out), so that other runs' results keep their keys.
        if (k.nrOomKill)
            out["vm.oom_kill"] = static_cast<double>(k.nrOomKill);
        if (k.nrAllocFail)
            out["alloc_fail"] = static_cast<double>(k.nrAllocFail);
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

    // Passes cancellation through and adds the workload's own progress. The simulator polls wasInterrupted()
    // every 64 Ki events (a few hundred times per host second at most), a modest rate for progress too.
    class RunInterrupter final : public Interrupter {
    public:
        RunInterrupter(Interrupter& outer, const Workload& workload)
            : m_outer(outer)
            , m_workload(workload)
        {
        }
        bool wasInterrupted() override
        {
            const double f = m_workload.progress();
            if (f >= 0)
                m_outer.progress(std::min(f, 1.0));
            return m_outer.wasInterrupted();
        }

    private:
        Interrupter& m_outer;
        const Workload& m_workload;
    };
} // namespace

RunResult executeRun(const RunSpec& spec, Interrupter* interrupter)
{
    RunSetup setup = spec.scenario->resolve(spec.variant, spec.point, spec.scale);
    Simulator sim;
    Sched sched(sim, setup.machine);
    Kernel kernel(sched, setup.toggles);
    kernel.boot(spec.bootSeed);
    WorkloadContext ctx { kernel, sim, setup.params, spec.seed, { setup.toggles.advice, setup.toggles.glibcTrim } };
    std::unique_ptr<Workload> workload = setup.workload->make();
    workload->setup(ctx);

    std::unique_ptr<Recorder> recorder;
    if (spec.recording.enabled)
        recorder = std::make_unique<Recorder>(kernel, sched, spec.recording, workload.get());

    // The user tasks end the run; kernel threads (kswapd) then sleep and the event queue drains.
    std::optional<RunInterrupter> watch;
    if (interrupter)
        watch.emplace(*interrupter, *workload);
    bool finished = sim.run(watch ? &*watch : nullptr);

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
