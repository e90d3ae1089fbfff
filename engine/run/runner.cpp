#include "run/runner.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <chrono>

namespace mms {

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

ResultSet runScenario(const Scenario& sc, const RunnerOptions& opts)
{
    auto start = std::chrono::steady_clock::now();
    std::vector<PlannedRun> plan = planRuns(sc);
    ResultSet rs;
    rs.scenario = sc.id();
    rs.engineVersion = engineVersion();
    rs.seed = sc.seed();
    rs.scale = opts.scale;
    rs.results.resize(plan.size());
    int threads = opts.threads > 0 ? opts.threads : static_cast<int>(oneapi::tbb::info::default_concurrency());
    rs.threads = threads;

    std::atomic<std::size_t> done { 0 };
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
        rs.results[i] = executeRun(spec, opts.interrupter);
        if (rs.results[i].metrics.count("cancelled"))
            cancelled = true;
        std::size_t n = ++done;
        if (opts.progress)
            opts.progress(n, plan.size());
    };
    oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    oneapi::tbb::task_arena arena(threads);
    arena.execute([&] {
        // grainsize 1: every run is a task; long runs are spread over the workers.
        oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, plan.size(), 1),
            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                for (std::size_t i = r.begin(); i != r.end(); ++i)
                    body(i);
            });
    });
    rs.cancelled = cancelled.load();
    rs.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return rs;
}

} // namespace mms
