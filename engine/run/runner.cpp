#include "run/runner.h"

#include "run/poolqueue.h"
#include "scenario/runsetup.h"
#include "sim/reuse.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

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
            e.mappedPages = m.mappedPages;
        }
    }
    e.budget = memoryBudget(opts, e.perRunBytes);
    e.concurrent = std::min<std::size_t>(plan.size(), static_cast<std::size_t>(threadCount(opts)));
    if (e.perRunBytes > 0)
        e.concurrent = std::min<std::size_t>(e.concurrent, std::max<std::uint64_t>(1, e.budget / e.perRunBytes));
    e.totalBytes = e.perRunBytes * e.concurrent;
    return e;
}

std::uint64_t memoryBudget(const RunnerOptions& opts, std::uint64_t largestRunBytes)
{
    if (opts.memoryBudget)
        return opts.memoryBudget;
    std::uint64_t budget = std::max(kDefaultMemoryBudget, largestRunBytes + largestRunBytes / 4);
    std::string source;
    if (std::uint64_t avail = hostAvailableMemory(source))
        budget = std::min(budget, std::max(avail, largestRunBytes));
    return budget;
}

std::uint64_t hostAvailableMemory(std::string& source)
{
    std::uint64_t avail = 0;
    std::ifstream mi("/proc/meminfo");
    std::string key, unit;
    std::uint64_t kb = 0;
    while (mi >> key >> kb) {
        std::getline(mi, unit);
        if (key == "MemAvailable:") {
            avail = kb * 1024;
            source = "MemAvailable in /proc/meminfo";
            break;
        }
    }
    std::ifstream cg_max("/sys/fs/cgroup/memory.max"), cg_cur("/sys/fs/cgroup/memory.current");
    std::uint64_t max = 0, cur = 0;
    if (cg_max >> max && cg_cur >> cur && max > cur && (avail == 0 || max - cur < avail)) {
        avail = max - cur;
        source = "the cgroup's memory.max less memory.current";
    }
    return avail;
}

namespace {
    std::string gib(std::uint64_t bytes)
    {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1u << 30));
        return buf;
    }
} // namespace

std::string hostMemoryShortfall(const Scenario& sc, const RunnerOptions& opts)
{
    MemoryEstimate e = estimateMemory(sc, opts);
    std::string source;
    std::uint64_t avail = hostAvailableMemory(source);
    if (avail == 0 || e.totalBytes <= avail)
        return {};
    std::ostringstream o;
    o << sc.id() << ": needs about " << gib(e.totalBytes) << " of host memory (" << e.concurrent << " concurrent run"
      << (e.concurrent == 1 ? "" : "s") << " x " << gib(e.perRunBytes) << " for " << e.simulatedPages
      << " simulated pages and swap slots"
      << (e.mappedPages ? " and the page tables of " + std::to_string(e.mappedPages) + " mapped pages" : "")
      << (opts.recording.enabled ? " plus the recording budget" : "")
      << ") but the host has " << gib(avail) << " (" << source << ")";
    return o.str();
}

ResultSet runScenario(const Scenario& sc, const RunnerOptions& opts)
{
    ScenarioOutcome o = std::move(runScenarios({ &sc }, opts).front());
    if (o.error)
        std::rethrow_exception(o.error);
    return std::move(o.results);
}

namespace {
    using Clock = std::chrono::steady_clock;
    using ScenarioDone = std::function<void(std::size_t, const ScenarioOutcome&)>;

    // One run of the pool: which scenario, which run of its plan, and how long it is expected to be.
    struct PoolRun {
        std::size_t scenario;
        std::size_t index; // in the scenario's (sharded) plan and ResultSet
        PlannedRun plan;
        std::uint64_t bytes; // estimateRunMemory: the order of the pool (largest first) and its share of the budget
    };

    // A scenario's ResultSet with a slot for each of its `runs` planned runs, filled in as they finish.
    ResultSet emptyResults(const Scenario& sc, const RunnerOptions& opts, int threads, std::size_t runs)
    {
        ResultSet rs;
        rs.scenario = sc.id();
        rs.engineVersion = engineVersion();
        rs.seed = sc.seed();
        rs.scale = opts.scale;
        rs.threads = threads;
        rs.results.resize(runs);
        return rs;
    }

    // Every scenario's (sharded) plan in one pool, and each scenario's empty ResultSet in `out`.
    std::vector<PoolRun> poolOf(const std::vector<const Scenario*>& scs, const RunnerOptions& opts, int threads,
        std::vector<ScenarioOutcome>& out)
    {
        std::vector<PoolRun> pool;
        for (std::size_t s = 0; s < scs.size(); ++s) {
            const Scenario& sc = *scs[s];
            std::vector<PlannedRun> plan = shardPlan(sc, opts);
            out[s].results = emptyResults(sc, opts, threads, plan.size());
            for (std::size_t i = 0; i < plan.size(); ++i) {
                std::uint64_t bytes = 0; // a setup that cannot be resolved sorts last; its run reports the error
                try {
                    bytes = estimateRunMemory(sc.resolve(plan[i].variant, plan[i].point, opts.scale), opts.recording).bytes;
                } catch (const std::exception&) {
                }
                pool.push_back({ s, i, std::move(plan[i]), bytes });
            }
        }
        // The largest simulated machines first: the workloads scale with the machine's memory, so these are the
        // long runs, and the short ones left for the end keep every core busy to the last (with one pool for all
        // the scenarios, no core waits at a scenario's tail either). The order decides only which run a worker
        // takes next: every run is seeded from its own identity and its result goes to its own slot, so the
        // results do not depend on it.
        std::stable_sort(pool.begin(), pool.end(), [](const PoolRun& a, const PoolRun& b) { return a.bytes > b.bytes; });
        // The run a user watches goes first, whatever its size.
        if (opts.recording.live) {
            auto live = std::find_if(pool.begin(), pool.end(), [&](const PoolRun& r) { return r.scenario == 0 && r.index == opts.liveRun; });
            if (live != pool.end())
                std::rotate(pool.begin(), live, live + 1);
        }
        return pool;
    }

    // What one run of the pool executes: its scenario's setup at its point, seeded from its own identity; the live
    // recording only for the run being watched.
    RunSpec runSpec(const std::vector<const Scenario*>& scs, const PoolRun& run, const RunnerOptions& opts)
    {
        const Scenario& sc = *scs[run.scenario];
        RunSpec spec;
        spec.scenario = &sc;
        spec.variant = run.plan.variant;
        spec.point = run.plan.point;
        spec.rep = run.plan.rep;
        spec.scale = opts.scale;
        spec.seed = runSeed(sc.seed(), spec.variant, spec.point, spec.rep);
        spec.bootSeed = bootSeed(sc.seed(), spec.point, spec.rep);
        spec.checkInvariants = opts.checkInvariants;
        spec.maxEvents = opts.maxEvents;
        spec.recording = opts.recording;
        if (run.scenario != 0 || run.index != opts.liveRun)
            spec.recording.live = nullptr;
        return spec;
    }

    // The pool's runs as the workers execute them: each run's result into its scenario's slot, each scenario
    // handed to `scenarioDone` when its last run ends, and cancellation once any run sees it.
    class PoolRunner {
    public:
        PoolRunner(const std::vector<const Scenario*>& scs, const RunnerOptions& opts, const std::vector<PoolRun>& pool,
            std::vector<ScenarioOutcome>& out, const ScenarioDone& scenarioDone, Clock::time_point start)
            : m_scs(scs)
            , m_opts(opts)
            , m_pool(pool)
            , m_out(out)
            , m_scenarioDone(scenarioDone)
            , m_start(start)
            , m_left(scs.size())
            , m_firstStart(scs.size())
            , m_failed(scs.size())
            , m_tracker(pool.size(), opts.progressFraction)
        {
            for (std::size_t s = 0; s < scs.size(); ++s) {
                m_left[s] = out[s].results.results.size();
                m_firstStart[s] = -1;
                m_failed[s] = false;
            }
        }

        // A scenario with no run in this shard is done before any run starts.
        void finishEmptyScenarios()
        {
            std::lock_guard<std::mutex> lock(m_doneLock);
            for (std::size_t s = 0; s < m_scs.size(); ++s)
                if (m_out[s].results.results.empty())
                    finishScenario(s);
        }

        // Run k of the pool, from a worker.
        void execute(std::size_t k)
        {
            const PoolRun& run = m_pool[k];
            ScenarioOutcome& o = m_out[run.scenario];
            if (m_cancelled.load() || (m_opts.interrupter && m_opts.interrupter->wasInterrupted())) {
                m_cancelled = true;
                return;
            }
            // A scenario that has failed reports its error alone: its runs not yet started are not made.
            if (m_failed[run.scenario].load()) {
                finishRun(run);
                return;
            }
            std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - m_start).count();
            std::int64_t unset = -1;
            m_firstStart[run.scenario].compare_exchange_strong(unset, now);
            RunSpec spec = runSpec(m_scs, run, m_opts);
            RunSlot slot(m_opts.interrupter, m_tracker, k);
            try {
                RunResult& r = o.results.results[run.index];
                r = executeRun(spec, &slot);
                if (r.metrics.count("cancelled"))
                    m_cancelled = true;
                else {
                    m_tracker.set(k, 1.0);
                    if (m_opts.runDone)
                        m_opts.runDone(run.scenario, run.index, r);
                }
            } catch (...) {
                // An invalid setup, or a run that cannot end, fails its scenario only; the other scenarios' runs go
                // on.
                std::lock_guard<std::mutex> lock(m_doneLock);
                if (!o.error)
                    o.error = std::current_exception();
                m_failed[run.scenario] = true;
            }
            finishRun(run);
        }

        void finishRun(const PoolRun& run)
        {
            std::size_t n = ++m_done;
            if (m_opts.progress)
                m_opts.progress(n, m_pool.size());
            if (--m_left[run.scenario] == 0) {
                std::lock_guard<std::mutex> lock(m_doneLock);
                finishScenario(run.scenario);
            }
        }

        // After the workers: every outcome says whether the runs were cancelled. The acquire load of `m_done` (an
        // RMW per finished run) is the way back of runOnWorkers()'s handoff for ThreadSanitizer.
        void close()
        {
            (void)m_done.load(std::memory_order_acquire);
            for (ScenarioOutcome& o : m_out)
                o.results.cancelled = m_cancelled.load();
        }

    private:
        // Called under m_doneLock: scenarioDone hears one scenario at a time.
        void finishScenario(std::size_t s)
        {
            ResultSet& rs = m_out[s].results;
            auto since = std::chrono::nanoseconds(std::max<std::int64_t>(m_firstStart[s].load(), 0));
            rs.wallSeconds = std::chrono::duration<double>(Clock::now() - (m_start + since)).count();
            if (m_scenarioDone)
                m_scenarioDone(s, m_out[s]);
        }

        const std::vector<const Scenario*>& m_scs;
        const RunnerOptions& m_opts;
        const std::vector<PoolRun>& m_pool;
        std::vector<ScenarioOutcome>& m_out;
        const ScenarioDone& m_scenarioDone;
        const Clock::time_point m_start;
        std::vector<std::atomic<std::size_t>> m_left; // per scenario: runs not yet finished
        std::vector<std::atomic<std::int64_t>> m_firstStart; // per scenario: ns from m_start to its first run's start
        std::vector<std::atomic<bool>> m_failed; // per scenario: a run threw (its error is the outcome)
        std::mutex m_doneLock; // scenarioDone hears one scenario at a time; failures are recorded under it too
        std::atomic<std::size_t> m_done { 0 };
        ProgressTracker m_tracker;
        std::atomic<bool> m_cancelled { false };
    };

    // What a finished run freed goes back to the host before the budget counts it free: glibc keeps freed blocks
    // below its mmap threshold (which grows to 32 MiB as large blocks are freed) in the thread's arena, so the
    // resident set would otherwise hold the largest run's arrays while the next runs allocate their own.
    void returnFreedMemory()
    {
#if defined(__GLIBC__)
        malloc_trim(0);
#endif
    }

    // The pool's runs on `threads` workers of a oneTBB arena, in the order `queue` hands them out.
    void runOnWorkers(int threads, PoolQueue& queue, const std::function<void(std::size_t)>& body)
    {
        oneapi::tbb::global_control limit(
            oneapi::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        oneapi::tbb::task_arena arena(threads);
        // oneTBB hands tasks to its workers inside libtbb, which ThreadSanitizer does not see; this release/acquire
        // pair on a global makes the handoff of everything built before (the pool, the results, the closures)
        // visible to it, and PoolRunner::close() the way back. Both cost one atomic per task.
        static std::atomic<std::uint64_t> handoff { 0 };
        handoff.fetch_add(1, std::memory_order_release);
        // Each worker takes a run from the queue until none is left, so runs start in the pool's order as far as
        // the budget allows (a parallel_for over the runs would split the range and start the second worker
        // halfway down the list).
        arena.execute([&] {
            oneapi::tbb::parallel_for(0, threads, [&](int) {
                (void)handoff.load(std::memory_order_acquire);
                for (std::size_t k = queue.take(); k < queue.size(); k = queue.take()) {
                    body(k);
                    returnFreedMemory();
                    queue.done(k);
                }
                // The arrays the runs on this thread kept for the next run of their shape (sim/reuse.h): there is
                // none, so they go back to the host.
                ReusedBlocks::release();
            });
        });
    }
} // namespace

std::vector<ScenarioOutcome> runScenarios(const std::vector<const Scenario*>& scs, const RunnerOptions& opts,
    const std::function<void(std::size_t, const ScenarioOutcome&)>& scenarioDone)
{
    const auto start = Clock::now();
    const int threads = threadCount(opts);
    std::vector<ScenarioOutcome> out(scs.size());
    const std::vector<PoolRun> pool = poolOf(scs, opts, threads, out);
    PoolRunner runner(scs, opts, pool, out, scenarioDone, start);
    runner.finishEmptyScenarios();
    std::vector<std::uint64_t> bytes;
    for (const PoolRun& r : pool)
        bytes.push_back(r.bytes);
    const std::uint64_t largest = bytes.empty() ? 0 : *std::max_element(bytes.begin(), bytes.end());
    PoolQueue queue(std::move(bytes), memoryBudget(opts, largest));
    runOnWorkers(threads, queue, [&](std::size_t k) { runner.execute(k); });
    runner.close();
    return out;
}

} // namespace mms
