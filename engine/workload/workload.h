#pragma once
// A workload is a user program for simulated tasks. It declares its parameters (with units, defaults and whether
// --scale multiplies them), spawns its processes and threads, and, at the end, turns what happened into the
// scenario's metrics. It talks to the kernel only through the system calls of kernel/syscalls.h: the kernel runs
// the same code whatever program calls it.

#include "kernel/syscalls.h"
#include "workload/kind.h"

#include <stdexcept>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mms {

// The variant's user-space choices: the advice the program passes to madvise() (madvise.advice) and the glibc it
// runs on (glibc.trim). Everything else a variant sets is the kernel's.
struct UserSpace {
    Advice advice = Advice::DontNeed;
    GlibcTrim glibcTrim = GlibcTrim::Madvise;
};

struct WorkloadContext {
    Kernel& k;
    Simulator& sim; // for observer events (Simulator::observeAt) and the clock a progress() report reads
    const nlohmann::json& params; // validated, scaled, every default filled in
    std::uint64_t seed;
    UserSpace user;
};

// A benchmark program that gives up, as the real one exits with its perror() message (ebizzy's "mmap: Cannot
// allocate memory"): thrown from the program's task, it ends the run with that message (an input error to the CLI,
// exit 2: the workload asked for more than the machine allows).
class ProgramError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Workload {
public:
    virtual ~Workload() = default;
    virtual void setup(WorkloadContext& ctx) = 0;
    // Called when the simulation has ended; fills the metrics.
    virtual void finish(WorkloadContext& ctx, Metrics& out) = 0;
    // The share of its planned work done so far, 0..1, for progress inside one run (pages touched of those
    // planned, entries freed of those mapped); negative when the workload cannot tell (progress then moves per
    // finished run only). Called on the run's own thread between events, so it may read the tasks directly.
    virtual double progress() const { return -1; }
};

// time(1) of a command whose processes or threads are `tasks`: their user and system time summed, and the moment the
// last one exited (user_s, sys_s, elapsed_s).
inline void ownTimes(const std::vector<Task*>& tasks, Metrics& out)
{
    Time user = 0, sys = 0, end = 0;
    for (const Task* t : tasks) {
        user += t->userTime;
        sys += t->sysTime;
        end = std::max(end, t->finished);
    }
    out["user_s"] = toSec(user);
    out["sys_s"] = toSec(sys);
    out["elapsed_s"] = toSec(end);
}

// Progress of a workload that runs for a fixed simulated time: now against the run's end (negative before setup).
inline double timeProgress(const Simulator* sim, Time end)
{
    return sim && end > 0 ? std::min(1.0, static_cast<double>(sim->now()) / static_cast<double>(end)) : -1.0;
}

} // namespace mms
