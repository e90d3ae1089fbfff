#pragma once
// A recorded run of a built-in scenario, as the desktop app makes one: the first repetition of a variant at its
// default point. The recorder's and the views' suites look at these. unrecordedRun() is the same run as
// `mmscope-cli run` makes it, without a recording: the results must be the same.

#include "kernel/kernel.h"
#include "run/recorder.h"
#include "run/run.h"
#include "sync/mutex.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mms::test {

// `sets` are --set's PATH=VALUE pairs ("machine.sockets", "2"), applied to the scenario before the run.
using ScenarioSets = std::vector<std::pair<std::string, std::string>>;

inline RunResult runWith(const std::string& scenario, const std::string& variant, double scale,
    const RecordingOptions& recording, const ScenarioSets& sets = {})
{
    static std::map<std::pair<std::string, ScenarioSets>, Scenario> loaded; // a run's spec points at its scenario
    auto [it, added] = loaded.try_emplace({ scenario, sets }, loadScenario(scenario));
    if (added)
        it->second.set(sets);
    const Scenario& sc = it->second;
    RunSpec spec;
    spec.scenario = &sc;
    spec.variant = variant;
    spec.scale = scale;
    spec.seed = runSeed(sc.seed(), spec.variant, spec.point, 0);
    spec.recording = recording;
    return executeRun(spec);
}

inline RunResult recordedRun(const std::string& scenario, const std::string& variant, double scale,
    std::size_t memoryBudget = RecordingOptions {}.memoryBudget, const ScenarioSets& sets = {})
{
    RecordingOptions o;
    o.enabled = true;
    o.memoryBudget = memoryBudget;
    return runWith(scenario, variant, scale, o, sets);
}

inline RunResult unrecordedRun(const std::string& scenario, const std::string& variant, double scale)
{
    return runWith(scenario, variant, scale, RecordingOptions {});
}

// A task asleep on a mutex, recorded: on a 2-CPU machine a (CPU 0) holds a sleeping mutex (no spin on owner) for
// 100 us; b (CPU 1) waits for it, asleep, while c, queued behind b, runs 30 us of user code on CPU 1; then CPU 1
// idles until a's unlock wakes b. Frames every 8 us (bins of 1 us).
struct SleepingMutexRun {
    std::shared_ptr<const Recording> recording;
    Time contextSwitch = 0; // c starts running two switches in (b's, then its own)
    Time cFinished = 0; // c's exit: CPU 1 idles from here
    Time release = 0; // a's unlock, which wakes b
    LockStat stat; // the mutex's
};

inline Co<> holdMutexFor(Sched& s, Task& t, Mutex& m, double holdNs)
{
    co_await mutex_lock(s, t, m);
    Sched::burn(t, holdNs);
    mutex_unlock(s, t, m);
    co_await s.flush(t);
}

inline Co<> userWork(Sched& s, Task& t, double userNs)
{
    Sched::burn(t, userNs, Acct::User);
    co_await s.flush(t);
}

// The three tasks of that scene on a 2-CPU machine: a (CPU 0) holds `mutex` for holdNs; b (CPU 1) then wants it
// for 1 us; c, queued behind b on CPU 1, runs userNs of user code. The mutex must not spin on its owner.
struct SleepingMutexTasks {
    Task& a;
    Task& b;
    Task& c;
};

inline SleepingMutexTasks startSleepingMutexTasks(Sched& s, Mutex& mutex, double holdNs, double userNs)
{
    Task& a = s.spawn("a", 0, false, nullptr, 1);
    Task& b = s.spawn("b", 1, false, nullptr, 2);
    Task& c = s.spawn("c", 1, false, nullptr, 3);
    s.start(a, holdMutexFor(s, a, mutex, holdNs));
    s.start(b, holdMutexFor(s, b, mutex, 1'000));
    s.start(c, userWork(s, c, userNs));
    return { a, b, c };
}

inline SleepingMutexRun sleepingMutexRecording()
{
    MachineSpec m = *machinePreset("generic-12cpu-2015");
    m.cpus = 2;
    m.sockets = 1;
    m.memoryBytes = 64ull << 20;
    Simulator sim;
    Sched s(sim, m);
    Kernel k(s, Toggles {});
    Mutex mutex("m", MutexSpin::Off);
    auto [a, b, c] = startSleepingMutexTasks(s, mutex, 100'000, 30'000);
    RecordingOptions o;
    o.enabled = true;
    o.interval = us(8);
    Recorder recorder(k, s, o);
    sim.run();
    SleepingMutexRun r;
    r.recording = recorder.finish();
    r.contextSwitch = ns(s.cost().contextSwitchNs);
    r.cFinished = c.finished;
    r.release = a.finished; // a unlocks and exits at once
    r.stat = mutex.stat();
    return r;
}

} // namespace mms::test
