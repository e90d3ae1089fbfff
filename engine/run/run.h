#pragma once
// One simulation run: build the machine and the kernel for a variant and sweep point, let the workload run to the
// end, collect metrics and lockstat.

#include "run/result.h"
#include "sim/simulator.h"

#include <functional>
#include <memory>
#include <vector>

namespace mms {

struct RecordingOptions {
    bool enabled = false;
    Time interval = 0; // simulated time between frames; 0 = choose from the run's expected length
    std::size_t memoryBudget = 256u << 20; // bytes; past it frames are decimated
    // The recording so far while the run goes on (the app animates it): after a frame, once `livePeriodSeconds` of
    // host time have passed since the last one, a copy of the recording up to that frame, from the run's thread. It
    // only reads the run: the results and the final recording are the same with it or without it. A copy costs time
    // in proportion to the recording's size: the period stretches to ten times the last copy's cost.
    std::function<void(std::shared_ptr<const Recording>)> live;
    double livePeriodSeconds = 0.25;
};

// The event budget of one run: ten thousand million simulated events, about eight minutes of one host core at the
// engine's 20 M events/s and ten times the largest built-in scenario's run at full scale (docs/reliability.md). A
// valid input can ask for a run of days (workload.duration_s=1e6); it ends here with a message instead.
inline constexpr std::uint64_t kDefaultMaxEvents = 10'000'000'000;

struct RunSpec {
    const Scenario* scenario = nullptr;
    std::string variant;
    OJson point = OJson::object();
    int rep = 0;
    double scale = 1.0;
    std::uint64_t seed = 1; // the run's: the workload's PRNG streams (runSeed)
    std::uint64_t bootSeed = 1; // the kernel's boot draws (bootSeed): shared by the variants of one point and rep
    RecordingOptions recording;
    bool checkInvariants = false; // verify the kernel's invariants at the end (tests)
    std::uint64_t maxEvents = kDefaultMaxEvents; // the event budget (RunTooLong past it); 0: none
    std::vector<Simulator::TracedPush>* queueTrace = nullptr; // benchmarks: the event queue's pushes (setTrace)
};

// A run the model has no way out of, stopped by the watchdog (docs/reliability.md): the message names the simulated
// time and what each CPU was doing. An input error as far as the CLI is concerned (exit 2).
class RunStuck : public ScenarioError {
public:
    using ScenarioError::ScenarioError;
};

// A run stopped at its event budget (RunSpec::maxEvents): the message names the budget, the simulated time and how
// much of the workload's work was done. An input error as far as the CLI is concerned (exit 2).
class RunTooLong : public ScenarioError {
public:
    using ScenarioError::ScenarioError;
};

// Throws ScenarioError for an invalid setup or a program that gave up (ProgramError), RunTooLong past the event
// budget and RunStuck for a run that cannot end; returns with metrics["cancelled"] = 1 if interrupted. While the
// run goes, the interrupter also hears the workload's progress (Interrupter::progress, 0..1, from this thread) when
// the workload can tell it.
RunResult executeRun(const RunSpec& spec, Interrupter* interrupter = nullptr);

// Host memory one run needs at most, from the machine and the workload's footprint (WorkloadKind::footprint) before
// anything is allocated: per page frame, the PageArray bytes (measured from the class) and the cache line's owner
// and stamp; the PTEs of every mapped page; the swap map where mapped pages can go out, and the swap clusters'
// locks; the page-cache index of the workload's files; what its set-up holds while it fills the machine; the
// recording budget. The tasks, VMAs and locks of the workload are small beside these and left out
// (tests/engine/tst_memory.cpp compares the estimate with the peak of every built-in scenario's largest run).
struct RunMemory {
    std::uint64_t frames = 0;
    std::uint64_t swapSlots = 0;
    std::uint64_t mappedPages = 0; // PTEs of the workload's mappings (WorkloadFootprint)
    std::uint64_t filePages = 0; // page-cache index entries of its files
    std::uint64_t bytes = 0;
};
RunMemory estimateRunMemory(const RunSetup& setup, const RecordingOptions& recording);

// The per-run seed: (scenario seed, variant, point, repetition) mixed; host-independent.
std::uint64_t runSeed(std::uint64_t scenarioSeed, const std::string& variant, const OJson& point, int rep);
std::uint64_t bootSeed(std::uint64_t scenarioSeed, const OJson& point, int rep);

} // namespace mms
