#pragma once
// What time(1) and /proc/stat say about a finished run, from the scheduler's accounting (Task::userTime, sysTime,
// started, finished; Sched::cpuTimes). Every result has them (executeRun adds them after the workload's own metrics).

#include "run/result.h"

#include <vector>

namespace mms {

class Sched;

// time(1) of the benchmark's command, for each key the workload has not set itself (a workload may restrict them to
// the benchmark's own processes): user_s and sys_s summed over the user tasks (kernel threads excluded), elapsed_s
// from the first user task's start to the last one's exit. Also kthread_sys_s, the kernel threads' system time
// (kswapd's reclaim), which /proc/stat counts and time(1) does not. Seconds.
void addTimeMetrics(const Sched& s, Metrics& out);

// /proc/stat's cpuN lines from boot to now (user, system and idle seconds of each CPU, in CPU order), and in `out`
// cpu_busy_max and cpu_busy_mean: the busiest CPU's and the mean CPU's (user + system) / (user + system + idle).
std::vector<CpuStat> cpuStats(const Sched& s, Metrics& out);

// The memory controllers from boot to now, on a machine whose sockets have a bandwidth figure: mem_moved_gb, the
// GB (1e9 B) cleared, copied, memset and read through them, and mem_bw_busy, the busiest socket's share of what
// its controllers could have moved in that time.
void addMemoryMetrics(const Sched& s, Metrics& out);

} // namespace mms
