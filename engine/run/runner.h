#pragma once
// Runs a scenario's runs (variant x sweep point x repetition) in parallel with oneTBB. Results come back in a
// fixed order (variants in the scenario's order, then points, then repetitions) whatever the thread count, and
// every run is seeded from (scenario seed, variant, point, repetition) only, so they are byte-identical.

#include "run/run.h"

#include <exception>
#include <functional>

namespace mms {

struct RunnerOptions {
    int threads = 0; // 0 = all host cores
    double scale = 1.0;
    Interrupter* interrupter = nullptr;
    // Called after each run completes (from a worker thread; must be thread-safe): runs done, runs in total.
    std::function<void(std::size_t, std::size_t)> progress;
    // The share of all the work done, 0..1: finished runs plus the running ones' own progress (their workloads'
    // work done of planned). Called from worker threads (must be thread-safe), only when the share has grown by
    // at least 0.1 %; concurrent calls may arrive out of order, so keep the largest.
    std::function<void(double)> progressFraction;
    // Each run's result as soon as it ends, before the others (from its worker; must be thread-safe): the scenario's
    // index in runScenarios' list (0 for runScenario), the run's index in that scenario's ResultSet, and the result.
    // A cancelled or failed run is not reported.
    std::function<void(std::size_t, std::size_t, const RunResult&)> runDone;
    // The run of the first scenario whose recording streams (recording.live), by its index in the ResultSet; it is
    // the first the workers take. The other runs record without copies.
    std::size_t liveRun = 0;
    bool checkInvariants = false;
    std::uint64_t maxEvents = kDefaultMaxEvents; // each run's event budget (RunSpec::maxEvents)
    RecordingOptions recording;
    // Run only slice shardIndex (0-based) of shardCount slices of the plan (mmscope-cli run --shard K/N).
    std::size_t shardIndex = 0;
    std::size_t shardCount = 1;
    // Host memory the runs in flight may need together, by their estimates (estimateRunMemory); 0: the default
    // (memoryBudget()). A worker takes the first run of the pool that fits beside the ones in flight, and waits for
    // one to end when none does; a run larger than the budget goes alone.
    std::uint64_t memoryBudget = 0;
};

// The budget the runner keeps to when RunnerOptions::memoryBudget is 0: kDefaultMemoryBudget, or the largest run and
// a quarter more if that is larger, so that a large run can go beside small ones; no more than the host has
// available (hostAvailableMemory), but always room for the largest run. A pool of small runs is not held back by it:
// 1 GiB is dozens of them. Given: the budget itself.
constexpr std::uint64_t kDefaultMemoryBudget = std::uint64_t { 1 } << 30;
std::uint64_t memoryBudget(const RunnerOptions& opts, std::uint64_t largestRunBytes);

struct PlannedRun {
    std::string variant;
    OJson point;
    int rep;
};
std::vector<PlannedRun> planRuns(const Scenario& sc);
// The slice of a plan of `planSize` runs that shard `index` of `count` runs: run i belongs to shard i mod count,
// so every shard gets a share of each variant (variants differ most in run time). Deterministic, host-independent.
bool inShard(std::size_t run, std::size_t index, std::size_t count);

// Host memory a scenario's runs need at once with these options: the largest run's estimate (run.h) times the runs
// of its size that execute concurrently (threads, at most the runs in the plan or shard, and as many as the memory
// budget holds, at least one).
struct MemoryEstimate {
    std::uint64_t perRunBytes = 0; // the largest run
    std::uint64_t simulatedPages = 0; // of that run: page frames + swap slots
    std::uint64_t mappedPages = 0; // of that run: RunMemory::mappedPages
    std::size_t concurrent = 0;
    std::uint64_t totalBytes = 0;
    std::uint64_t budget = 0; // memoryBudget()
};
MemoryEstimate estimateMemory(const Scenario& sc, const RunnerOptions& opts);

// What the host can give the runs: MemAvailable from /proc/meminfo, lowered to the cgroup's limit when one is set
// (a container, a Slurm job); `source` says which. 0 if neither can be read (then nothing is refused).
std::uint64_t hostAvailableMemory(std::string& source);
// Empty when the scenario's runs fit in the host's memory; otherwise why not, with the estimate and the host's
// figure ("ID: needs about 464.00 GiB of host memory (...) but the host has 20.34 GiB (...)"). The CLI and the GUI
// refuse such a run before anything is allocated, rather than be killed by the OOM killer with the user's work.
std::string hostMemoryShortfall(const Scenario& sc, const RunnerOptions& opts);

ResultSet runScenario(const Scenario& sc, const RunnerOptions& opts);

// Several scenarios' runs in one oneTBB pool (mmscope-cli reproduce): a worker that finishes a run takes the next
// of any scenario, the runs of the largest simulated machines first, so no core idles at one scenario's tail while
// another's runs wait. Each outcome's results are exactly runScenario's for that scenario (the same runs, seeds and
// order); wallSeconds is the span from the scenario's first run's start to its last run's end, and these spans
// overlap. A run that throws (an invalid setup) fails its scenario only: the exception is kept in `error`.
// `scenarioDone` (optional) hears each scenario as soon as its last run ends, one call at a time, from a worker.
// `progress` and `progressFraction` of opts count the runs of all the scenarios together.
struct ScenarioOutcome {
    ResultSet results;
    std::exception_ptr error;
};
std::vector<ScenarioOutcome> runScenarios(const std::vector<const Scenario*>& scs, const RunnerOptions& opts,
    const std::function<void(std::size_t, const ScenarioOutcome&)>& scenarioDone = {});

std::string engineVersion();

} // namespace mms
