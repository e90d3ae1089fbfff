#pragma once
// What a run produces, and a set of runs (variant x sweep point x repetition) in a fixed order.

#include "scenario/scenario.h"
#include "sim/simulator.h"
#include "workload/kind.h"

#include <memory>
#include <string>
#include <vector>

namespace mms {

class Recording;

// lockstat summed over every instance of one lock name (e.g. all "ptl" split locks).
struct LockSummary {
    std::string name;
    std::string kind;
    std::uint64_t instances = 0;
    std::uint64_t acquisitions = 0, contentions = 0, conBounces = 0, acqBounces = 0;
    Time waitMin = 0, waitMax = 0, waitTotal = 0;
    Time holdMin = 0, holdMax = 0, holdTotal = 0;
};

// One CPU's line of /proc/stat over the run, from boot to its end (seconds): the user and system time of whatever ran
// there, kernel threads included, and the idle time; user + sys + idle is the run's simulated time (sim_time_s).
struct CpuStat {
    int cpu = 0;
    double userS = 0;
    double sysS = 0;
    double idleS = 0;
    double stealS = 0; // a guest's: what its host took from the tasks here (machine.guest_preempt)
};

struct RunResult {
    std::string variant;
    OJson point = OJson::object();
    int rep = 0;
    Metrics metrics; // the scenario's metrics first in its order when printed; every other counter too
    std::vector<LockSummary> locks; // sorted by name
    std::uint64_t events = 0; // discrete events processed (host-independent)
    std::shared_ptr<const Recording> recording; // only when asked for
    std::vector<CpuStat> cpus; // in CPU order
};

struct ResultSet {
    std::string scenario;
    std::string engineVersion;
    std::uint64_t seed = 0;
    double scale = 1.0;
    std::vector<RunResult> results;
    double wallSeconds = 0; // host
    int threads = 0; // host
    bool cancelled = false;
};

} // namespace mms
