// bench_engine [--scale F] [--reps N] [--scenario ID]... [--max-threads N] [--skip-events] [--skip-runner]:
// the engine's speed on this host, as markdown tables.
//  - events per second of one run per variant (single thread; the host-independent event count over host time),
//    min/median/max over N repetitions;
//  - runner wall time at 1, 2, 4, ... threads up to the host's cores (or --max-threads), min/median/max of N;
//  - engine memory per simulated page (the page arrays), page-table bytes per mapped page, and recording bytes
//    per frame of one recorded run.
#include "benchstats.h"
#include "mm/page.h"
#include "mm/pte.h"
#include "run/recording.h"
#include "run/runner.h"

#include <oneapi/tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace mms;

namespace {
using bench::Stats;
using bench::stats;
double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

int main(int argc, char** argv)
{
    double scale = 0.05;
    int reps = 5;
    int maxThreads = static_cast<int>(oneapi::tbb::info::default_concurrency());
    bool events = true, runner = true;
    std::vector<std::string> ids;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--scale" && i + 1 < argc)
            scale = std::stod(argv[++i]);
        else if (a == "--reps" && i + 1 < argc)
            reps = std::stoi(argv[++i]);
        else if (a == "--scenario" && i + 1 < argc)
            ids.push_back(argv[++i]);
        else if (a == "--max-threads" && i + 1 < argc)
            maxThreads = std::stoi(argv[++i]);
        else if (a == "--skip-events")
            events = false;
        else if (a == "--skip-runner")
            runner = false;
    }
    if (ids.empty())
        for (auto& s : builtinScenarios())
            ids.push_back(s.id);

    std::printf("## Events per second (one run per variant, one thread, scale %g, %d repetitions: min / median / max)\n\n",
        scale, reps);
    std::printf("| scenario | variant | events | host s | Mevents/s |\n|---|---|---:|---:|---:|\n");
    for (auto& id : ids) {
        if (!events)
            break;
        Scenario sc = loadScenario(id);
        for (auto& v : sc.variantNames()) {
            RunSpec spec;
            spec.scenario = &sc;
            spec.variant = v;
            spec.point = sc.points().front();
            spec.scale = scale;
            spec.seed = runSeed(sc.seed(), v, spec.point, 0);
            spec.bootSeed = bootSeed(sc.seed(), spec.point, 0);
            std::vector<double> secs;
            std::uint64_t nev = 0;
            for (int rep = 0; rep < reps; ++rep) {
                double t0 = now();
                RunResult r = executeRun(spec);
                secs.push_back(now() - t0);
                nev = r.events;
            }
            Stats s = stats(secs);
            auto rate = [&](double dt) { return static_cast<double>(nev) / dt / 1e6; };
            std::printf("| %s | %s | %llu | %.3f / %.3f / %.3f | %.2f / %.2f / %.2f |\n", id.c_str(), v.c_str(),
                static_cast<unsigned long long>(nev), s.min, s.median, s.max, rate(s.max), rate(s.median), rate(s.min));
            std::fflush(stdout);
        }
    }

    std::printf("\n## Runner wall time, all runs of a scenario (scale %g, %d repetitions: min / median / max s)\n\n", scale, reps);
    std::printf("| scenario | runs |");
    std::vector<int> threads;
    for (int t = 1; t <= maxThreads; t *= 2)
        threads.push_back(t);
    for (int t : threads)
        std::printf(" %d thread%s |", t, t > 1 ? "s" : "");
    std::printf(" speed-up 1→%d |\n|---|---:|", threads.back());
    for (std::size_t i = 0; i <= threads.size(); ++i)
        std::printf("---:|");
    std::printf("\n");
    for (auto& id : ids) {
        if (!runner)
            break;
        Scenario sc = loadScenario(id);
        std::printf("| %s | %zu |", id.c_str(), planRuns(sc).size());
        std::vector<double> medians;
        for (int t : threads) {
            std::vector<double> walls;
            for (int r = 0; r < reps; ++r) {
                RunnerOptions o;
                o.threads = t;
                o.scale = scale;
                walls.push_back(runScenario(sc, o).wallSeconds);
            }
            Stats s = stats(walls);
            medians.push_back(s.median);
            std::printf(" %.2f / %.2f / %.2f |", s.min, s.median, s.max);
            std::fflush(stdout);
        }
        std::printf(" %.2f× |\n", medians.front() / medians.back());
    }

    PageArray pages(1u << 20);
    std::printf("\n## Memory\n\nPage frame arrays: %.1f bytes per simulated page (flags, owner, index, LRU links and"
                " mapcount; page_private only for pages that have one); page tables: %zu bytes per mapped page.\n",
        static_cast<double>(pages.memoryBytes()) / pages.size(), sizeof(Pte));
    for (std::uint32_t p = 0; p < pages.size(); p += 4) // a quarter of the pages in the swap cache
        pages.setPriv(p, p + 1);
    std::printf("With a quarter of the pages in the swap cache (page_private set): %.1f bytes per page.\n",
        static_cast<double>(pages.memoryBytes()) / pages.size());

    // Recording memory per frame: the first scenario's first variant, recorded.
    {
        Scenario sc = loadScenario(ids.front());
        RunSpec spec;
        spec.scenario = &sc;
        spec.variant = sc.variantNames().front();
        spec.point = sc.points().front();
        spec.scale = scale;
        spec.seed = runSeed(sc.seed(), spec.variant, spec.point, 0);
        spec.bootSeed = bootSeed(sc.seed(), spec.point, 0);
        spec.recording.enabled = true;
        RunResult r = executeRun(spec);
        if (r.recording && r.recording->frameCount() > 0)
            std::printf("Recording of %s/%s at scale %g: %zu frames of %zu pages, %.0f bytes per frame (%.2f per page and"
                        " frame; keyframes every %zu frames).\n",
                ids.front().c_str(), spec.variant.c_str(), scale, r.recording->frameCount(), static_cast<std::size_t>(r.recording->pageCount()),
                static_cast<double>(r.recording->memoryBytes()) / static_cast<double>(r.recording->frameCount()),
                static_cast<double>(r.recording->memoryBytes()) / static_cast<double>(r.recording->frameCount())
                    / static_cast<double>(r.recording->pageCount()),
                static_cast<std::size_t>(Recording::kKeyframeEvery));
    }
    return 0;
}
