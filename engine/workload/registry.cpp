// The workload kinds. Add a new one here (one line) and in its own file.
#include "workload/aim7.h"
#include "workload/ebizzy.h"
#include "workload/memsetmadvise.h"
#include "workload/sysbench.h"
#include "workload/threadtouch.h"
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
        v.push_back(threadTouchKind());
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

} // namespace mms
