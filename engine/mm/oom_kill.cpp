// The OOM killer (mm/oom_kill.h).
#include "mm/oom_kill.h"

#include "mm/mm.h"
#include "sched/signal.h"

#include <algorithm>

namespace mms {

namespace {
    // oom_badness() (2.6.36+, David Rientjes): the memory a kill would give back, in pages -- RSS, swap entries and
    // page tables. The model applies it to every era (the 2.6.20 heuristic's total_vm, CPU-time and nice factors
    // are not modelled); oom_score_adj is 0 for every process.
    std::uint64_t oom_badness(const MmStruct& mm)
    {
        return mm.rss + mm.fileRss + mm.swapents + mm.pgtables.size() + mm.ptl.size();
    }
} // namespace

// SIGKILL to every thread of the user process with the highest oom_badness() (ties: the lowest mm id), and
// TIF_MEMDIE.
bool out_of_memory(Mm& k, const Task& t)
{
    // A victim whose program has ended has exited: its TIF_MEMDIE went with it.
    std::erase_if(k.oom.victims, [&k](std::uint32_t id) { return k.s.tasks()[id]->state == TaskState::Done; });
    if (fatal_signal_pending(t) || !k.oom.victims.empty())
        return true;
    MmStruct* victim = nullptr;
    std::uint64_t worst = 0;
    for (const auto& task : k.s.tasks()) {
        const Task& x = *task;
        if (x.kthread || !x.mm || x.mm->exiting || x.sigkill || x.state == TaskState::Done)
            continue;
        std::uint64_t points = oom_badness(*x.mm) + 1;
        if (points > worst || (points == worst && x.mm->id < victim->id)) {
            worst = points;
            victim = x.mm;
        }
    }
    if (!victim)
        return false;
    std::string name;
    for (const auto& task : k.s.tasks())
        if (task->mm == victim && task->state != TaskState::Done && !task->kthread) {
            send_sigkill(k.s, *task);
            k.oom.victims.push_back(task->id);
            name = name.empty() ? task->name : name;
        }
    ++k.oom.nrKill;
    k.oom.kills.push_back({ k.s.sim().now(), name, worst - 1 });
    return true;
}

void exit_oom_victim(Mm& k, const Task& t)
{
    std::erase_if(k.oom.victims, [&](std::uint32_t id) { return id == t.id; });
}

void exit_oom_victims(Mm& k, const MmStruct& mm)
{
    std::erase_if(k.oom.victims, [&](std::uint32_t id) { return k.s.tasks()[id]->mm == &mm; });
}

} // namespace mms
