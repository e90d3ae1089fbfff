#include "run/times.h"

#include "sched/sched.h"

#include <algorithm>

namespace mms {

void addTimeMetrics(const Sched& s, Metrics& out)
{
    Time user = 0, sys = 0, kthreadSys = 0, steal = 0;
    Time first = 0, last = 0;
    bool any = false;
    for (const auto& t : s.tasks()) {
        if (t->kthread) {
            kthreadSys += t->sysTime;
            continue;
        }
        user += t->userTime;
        sys += t->sysTime;
        steal += t->stealTime;
        first = any ? std::min(first, t->started) : t->started;
        last = std::max(last, t->finished);
        any = true;
    }
    out.try_emplace("user_s", toSec(user));
    out.try_emplace("sys_s", toSec(sys));
    out.try_emplace("elapsed_s", toSec(std::max<Time>(0, last - first)));
    out["kthread_sys_s"] = toSec(kthreadSys);
    if (s.host()) // only where a host deschedules vCPUs, so that other results keep their keys
        out["steal_s"] = toSec(steal);
}

std::vector<CpuStat> cpuStats(const Sched& s, Metrics& out)
{
    std::vector<CpuStat> cpus;
    double busySum = 0, busyMax = 0;
    const std::vector<CpuTime> times = s.cpuTimes();
    for (std::size_t i = 0; i < times.size(); ++i) {
        const CpuTime& c = times[i];
        cpus.push_back({ static_cast<int>(i), toSec(c.user), toSec(c.sys), toSec(c.idle), toSec(c.steal) });
        const Time all = c.user + c.sys + c.idle + c.steal;
        const double busy = all > 0 ? static_cast<double>(c.user + c.sys) / static_cast<double>(all) : 0.0;
        busySum += busy;
        busyMax = std::max(busyMax, busy);
    }
    std::uint64_t switches = 0, preemptions = 0, affine = 0;
    for (int i = 0; i < s.cpuCount(); ++i) {
        switches += s.cpu(i).switches;
        preemptions += s.cpu(i).preemptions;
        affine += s.cpu(i).affineWakeups;
    }
    const double seconds = toSec(s.sim().now());
    out["context_switches"] = static_cast<double>(switches);
    if (s.o1()) { // the only scheduler here whose wake-ups preempt, and move to the waker's CPU by its loads
        out["preemptions"] = static_cast<double>(preemptions);
        out["wakeups_affine"] = static_cast<double>(affine);
    }
    out["cs_per_s"] = seconds > 0 ? static_cast<double>(switches) / seconds : 0.0;
    out["cpu_busy_max"] = busyMax;
    out["cpu_busy_mean"] = times.empty() ? 0.0 : busySum / static_cast<double>(times.size());
    return cpus;
}

void addMemoryMetrics(const Sched& s, Metrics& out)
{
    const MemoryBandwidth& m = s.memory();
    const double seconds = toSec(s.sim().now());
    if (m.socketGBps() <= 0 || seconds <= 0)
        return;
    double moved = 0, busiest = 0;
    for (int i = 0; i < m.sockets(); ++i) {
        moved += m.movedBytes(i);
        busiest = std::max(busiest, m.movedBytes(i));
    }
    out["mem_moved_gb"] = moved / 1e9;
    out["mem_bw_busy"] = busiest / (m.socketGBps() * 1e9 * seconds);
}

} // namespace mms
