// The workload kinds. Add a new one here (one line) and in its own file.
#include "mm/kernel.h"
#include "workload/aim7.h"
#include "workload/ebizzy.h"
#include "workload/memsetmadvise.h"
#include "workload/sysbench.h"
#include "workload/vmscalability.h"
#include "workload/usemem.h"
#include "workload/workload.h"

namespace mms {

const std::vector<WorkloadKind>& workloadKinds()
{
    static const std::vector<WorkloadKind> kinds = [] {
        std::vector<WorkloadKind> v;
        v.push_back(memsetMadviseKind());
        v.push_back(ddKind());
        v.push_back(lruFileReadonceKind());
        v.push_back(lruFileReadtwiceKind());
        v.push_back(lruFileMmapReadKind());
        v.push_back(usememKind());
        v.push_back(sysbenchOltpKind());
        v.push_back(ebizzyKind());
        v.push_back(aim7FserverKind());
        return v;
    }();
    return kinds;
}

const WorkloadKind* findWorkload(const std::string& kind)
{
    for (auto& w : workloadKinds())
        if (w.kind == kind)
            return &w;
    return nullptr;
}

void addCommonMetrics(const Kernel& k, const Sched& s, Metrics& out)
{
    for (std::size_t i = 0; i < static_cast<std::size_t>(Vm::Count); ++i)
        out[std::string("vm.") + vmName(static_cast<Vm>(i))] = static_cast<double>(k.vm.v[i]);
    std::uint64_t ipis = 0;
    for (int c = 0; c < s.cpuCount(); ++c)
        ipis += s.cpu(c).ipisReceived;
    out["ipis"] = static_cast<double>(ipis);
    out["sim_time_s"] = toSec(s.sim().now());
    // Only where memory ran out (page_alloc.cpp's ways out), so that other runs' results keep their keys.
    if (k.nrOomKill)
        out["vm.oom_kill"] = static_cast<double>(k.nrOomKill);
    if (k.nrAllocFail)
        out["alloc_fail"] = static_cast<double>(k.nrAllocFail);
}

} // namespace mms
