#include "run/runner.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>

namespace mms {

namespace {
    // Per-run progress for runScenario: each run's share done in its own slot; the sum over all runs, in 0.1 %
    // steps, goes to the caller whenever it grows. Slots are written by the run's worker only; the sum is read
    // racily, which can only make a report late, never wrong by more than a step.
    class ProgressTracker {
    public:
        ProgressTracker(std::size_t runs, std::function<void(double)> report)
            : m_share(runs)
            , m_report(std::move(report))
        {
        }
        void set(std::size_t run, double fraction)
        {
            if (!m_report)
                return;
            m_share[run].store(fraction, std::memory_order_relaxed);
            double sum = 0;
            for (const auto& s : m_share)
                sum += s.load(std::memory_order_relaxed);
            const int permille = static_cast<int>(1000.0 * sum / static_cast<double>(m_share.size()));
            int last = m_reported.load(std::memory_order_relaxed);
            while (permille > last)
                if (m_reported.compare_exchange_weak(last, permille)) {
                    m_report(permille / 1000.0);
                    return;
                }
        }

    private:
        std::vector<std::atomic<double>> m_share;
        std::atomic<int> m_reported { 0 };
        std::function<void(double)> m_report;
    };

    // The interrupter one run sees: cancellation from the caller's, progress into the run's slot.
    class RunSlot final : public Interrupter {
    public:
        RunSlot(Interrupter* outer, ProgressTracker& tracker, std::size_t run)
            : m_outer(outer)
            , m_tracker(tracker)
            , m_run(run)
        {
        }
        bool wasInterrupted() override { return m_outer && m_outer->wasInterrupted(); }
        void progress(double fraction) override { m_tracker.set(m_run, fraction); }

    private:
        Interrupter* m_outer;
        ProgressTracker& m_tracker;
        std::size_t m_run;
    };
} // namespace

std::string engineVersion() { return MMSCOPE_VERSION; }

std::vector<PlannedRun> planRuns(const Scenario& sc)
{
    std::vector<PlannedRun> runs;
    for (const std::string& v : sc.variantNames())
        for (const OJson& p : sc.points())
            for (int r = 0; r < sc.reps(); ++r)
                runs.push_back({ v, p, r });
    return runs;
}

bool inShard(std::size_t run, std::size_t index, std::size_t count) { return count <= 1 || run % count == index; }

namespace {
    std::vector<PlannedRun> shardPlan(const Scenario& sc, const RunnerOptions& opts)
    {
        std::vector<PlannedRun> all = planRuns(sc), plan;
        for (std::size_t i = 0; i < all.size(); ++i)
            if (inShard(i, opts.shardIndex, opts.shardCount))
                plan.push_back(std::move(all[i]));
        return plan;
    }

    int threadCount(const RunnerOptions& opts)
    {
        return opts.threads > 0 ? opts.threads : static_cast<int>(oneapi::tbb::info::default_concurrency());
    }
} // namespace

MemoryEstimate estimateMemory(const Scenario& sc, const RunnerOptions& opts)
{
    MemoryEstimate e;
    std::vector<PlannedRun> plan = shardPlan(sc, opts);
    for (const PlannedRun& r : plan) {
        RunMemory m = estimateRunMemory(sc.resolve(r.variant, r.point, opts.scale), opts.recording);
        if (m.bytes > e.perRunBytes) {
            e.perRunBytes = m.bytes;
            e.simulatedPages = m.frames + m.swapSlots;
        }
    }
    e.concurrent = std::min<std::size_t>(plan.size(), static_cast<std::size_t>(threadCount(opts)));
    e.totalBytes = e.perRunBytes * e.concurrent;
    return e;
}

ResultSet runScenario(const Scenario& sc, const RunnerOptions& opts)
{
    auto start = std::chrono::steady_clock::now();
    std::vector<PlannedRun> plan = shardPlan(sc, opts);
    ResultSet rs;
    rs.scenario = sc.id();
    rs.engineVersion = engineVersion();
    rs.seed = sc.seed();
    rs.scale = opts.scale;
    rs.results.resize(plan.size());
    int threads = threadCount(opts);
    rs.threads = threads;

    std::atomic<std::size_t> done { 0 };
    ProgressTracker tracker(plan.size(), opts.progressFraction);
    std::atomic<bool> cancelled { false };
    auto body = [&](std::size_t i) {
        if (cancelled.load() || (opts.interrupter && opts.interrupter->wasInterrupted())) {
            cancelled = true;
            return;
        }
        RunSpec spec;
        spec.scenario = &sc;
        spec.variant = plan[i].variant;
        spec.point = plan[i].point;
        spec.rep = plan[i].rep;
        spec.scale = opts.scale;
        spec.seed = runSeed(sc.seed(), spec.variant, spec.point, spec.rep);
        spec.checkInvariants = opts.checkInvariants;
        spec.recording = opts.recording;
        RunSlot slot(opts.interrupter, tracker, i);
        rs.results[i] = executeRun(spec, &slot);
        if (rs.results[i].metrics.count("cancelled"))
            cancelled = true;
        else
            tracker.set(i, 1.0);
        std::size_t n = ++done;
        if (opts.progress)
            opts.progress(n, plan.size());
    };
    oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    oneapi::tbb::task_arena arena(threads);
    // oneTBB hands tasks to its workers inside libtbb, which ThreadSanitizer does not see; this release/acquire
    // pair on a global makes the handoff of everything built above (plan, rs, the closures) visible to it, and
    // `done` (an RMW per finished run, read below) the way back. Both cost one atomic per task.
    static std::atomic<std::uint64_t> handoff { 0 };
    handoff.fetch_add(1, std::memory_order_release);
    arena.execute([&] {
        // grainsize 1: every run is a task; long runs are spread over the workers.
        oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, plan.size(), 1),
            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                (void)handoff.load(std::memory_order_acquire);
                for (std::size_t i = r.begin(); i != r.end(); ++i)
                    body(i);
            });
    });
    (void)done.load(std::memory_order_acquire);
    rs.cancelled = cancelled.load();
    rs.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return rs;
}

} // namespace mms
