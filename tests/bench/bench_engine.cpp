// bench_engine [--scale F] [--reps N] [--scenario ID]...: the engine's speed on this host, as a markdown table.
//  - events per second of one run per variant (single thread; the host-independent event count over host time);
//  - runner wall time at 1 and 2 threads (and more if the host has them), min/median/max of N repetitions;
//  - engine memory per simulated page (the page arrays) and page-table bytes per mapped page.
#include "mm/page.h"
#include "mm/pte.h"
#include "run/runner.h"

#include <oneapi/tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace mms;

namespace {
double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stats {
    double min, median, max;
};
Stats stats(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return { v.front(), v[v.size() / 2], v.back() };
}
} // namespace

int main(int argc, char** argv)
{
    double scale = 0.05;
    int reps = 5;
    std::vector<std::string> ids;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--scale" && i + 1 < argc)
            scale = std::stod(argv[++i]);
        else if (a == "--reps" && i + 1 < argc)
            reps = std::stoi(argv[++i]);
        else if (a == "--scenario" && i + 1 < argc)
            ids.push_back(argv[++i]);
    }
    if (ids.empty())
        for (auto& s : builtinScenarios())
            ids.push_back(s.id);

    std::printf("## Events per second (one run per variant, one thread, scale %g)\n\n", scale);
    std::printf("| scenario | variant | events | host s | Mevents/s |\n|---|---|---:|---:|---:|\n");
    for (auto& id : ids) {
        Scenario sc = loadScenario(id);
        for (auto& v : sc.variantNames()) {
            RunSpec spec;
            spec.scenario = &sc;
            spec.variant = v;
            spec.point = sc.points().front();
            spec.scale = scale;
            spec.seed = runSeed(sc.seed(), v, spec.point, 0);
            double t0 = now();
            RunResult r = executeRun(spec);
            double dt = now() - t0;
            std::printf("| %s | %s | %llu | %.3f | %.2f |\n", id.c_str(), v.c_str(), static_cast<unsigned long long>(r.events), dt,
                static_cast<double>(r.events) / dt / 1e6);
            std::fflush(stdout);
        }
    }

    int maxThreads = static_cast<int>(oneapi::tbb::info::default_concurrency());
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
    std::printf("\n## Memory\n\nPage frame arrays: %.1f bytes per simulated page (flags, owner, index, private, mapcount,"
                " LRU links); page tables: %zu bytes per mapped page.\n",
        static_cast<double>(pages.memoryBytes()) / pages.size(), sizeof(Pte));
    return 0;
}
