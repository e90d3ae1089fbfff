#pragma once
// What the engine suites share: a run with the kernel's invariants checked after it, a metric or a lock's row of a
// variant, one variant of a built-in scenario with --set applied, and the result JSON without its `host` object (the part that must be byte-identical at any thread count).

#include "../reduced.h"
#include "hw/machine.h"
#include "kernel/kernel.h"
#include "run/json.h"
#include "run/runner.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mms::test {

inline ResultSet run(const Scenario& sc, double scale, int threads = 2)
{
    RunnerOptions o;
    o.scale = scale;
    o.threads = threads;
    o.checkInvariants = true;
    return runScenario(sc, o);
}

inline double metric(const ResultSet& rs, const std::string& variant, const std::string& m)
{
    for (auto& r : rs.results)
        if (r.variant == variant)
            return r.metrics.at(m);
    throw std::runtime_error("no variant " + variant);
}

// A lock's row of the first result of `variant` (summed over its instances by the result); a zero row if the run
// never took it.
inline LockSummary lockOf(const ResultSet& rs, const std::string& variant, const std::string& name)
{
    for (const RunResult& r : rs.results)
        if (r.variant == variant) {
            for (const LockSummary& l : r.locks)
                if (l.name == name)
                    return l;
            return {};
        }
    throw std::runtime_error("no variant " + variant);
}

// One variant of a built-in scenario with `sets` applied (--set), run at `scale` with the invariants checked.
inline ResultSet runWith(const std::string& id, const std::string& variant,
    const std::vector<std::pair<std::string, std::string>>& sets, double scale)
{
    Scenario sc = loadScenario(id);
    sc.selectVariants({ variant });
    for (auto& [k, v] : sets)
        sc.set(k, v);
    return run(sc, scale, 2);
}

// The generic preset's processor in `cpus` CPUs over `sockets` sockets, for the lock and scheduler models' bare
// Sched (no kernel). One thread a core unless asked: the lock and scheduler suites time closed forms that a
// computing SMT sibling would stretch (tst_smt times that).
inline MachineSpec genericMachine(int cpus, int sockets = 1, int threadsPerCore = 1)
{
    MachineSpec m = *machinePreset("generic-12cpu-2015");
    m.cpus = cpus;
    m.sockets = sockets;
    m.threadsPerCore = threadsPerCore;
    return m;
}

// A bare machine with `bytes` of memory and no workload, for tests that drive the kernel's functions directly; its
// kernel runs with `tg` (the default toggles unless given).
struct Box {
    explicit Box(std::uint64_t bytes, const Toggles& tg = {})
        : Box(spec(bytes), tg)
    {
    }
    explicit Box(const MachineSpec& machine, const Toggles& tg = {})
        : m(machine)
        , s(sim, m)
        , k(s, tg)
    {
    }
    static MachineSpec spec(std::uint64_t bytes)
    {
        MachineSpec m = *machinePreset("generic-12cpu-2015");
        m.memoryBytes = bytes;
        return m;
    }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

inline std::string withoutHost(const ResultSet& rs)
{
    OJson j = resultsToJson(rs);
    j.erase("host");
    return j.dump();
}

} // namespace mms::test
