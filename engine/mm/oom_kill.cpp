// The OOM killer (mm/oom_kill.h).
#include "mm/oom_kill.h"

#include "mm/mm.h"
#include "mm/swapfile.h"
#include "sched/signal.h"

#include <algorithm>

namespace mms {

namespace {
    // The memory a kill gives back, in pages: RSS, swap entries and page tables.
    std::uint64_t memoryOf(const MmStruct& mm)
    {
        return mm.rss + mm.fileRss + mm.swapents + mm.pgtables.size() + mm.ptl.size();
    }

    // mm->total_vm: the pages of every VMA and of the brk heap, mapped or not.
    std::uint64_t totalVm(const MmStruct& mm)
    {
        std::uint64_t pages = mm.brkPages;
        for (const Vma& v : mm.vmas)
            pages += v.pages;
        return pages;
    }

    // int_sqrt(): the integer square root, rounded down.
    std::uint64_t int_sqrt(std::uint64_t x)
    {
        std::uint64_t r = 0;
        for (std::uint64_t bit = std::uint64_t { 1 } << 62; bit != 0; bit >>= 2) {
            if (x >= r + bit) {
                x -= r + bit;
                r = (r >> 1) + bit;
            } else {
                r >>= 1;
            }
        }
        return r;
    }

    // The candidates: every thread of a user process that is not exiting and not killed already, in the task
    // list's order (the kernel's do_each_thread walks processes in the order they were created).
    std::vector<const Task*> candidates(const Mm& k)
    {
        std::vector<const Task*> c;
        for (const auto& task : k.s.tasks()) {
            const Task& x = *task;
            if (!x.kthread && x.mm && !x.mm->exiting && !x.sigkill && x.state != TaskState::Done)
                c.push_back(&x);
        }
        return c;
    }

    // The candidates that are children of `parent` with an mm of their own (a child's threads share it: the first
    // stands for them), in the order the parent forked them (its children list).
    std::vector<const Task*> childrenOf(const std::vector<const Task*>& cands, const MmStruct& parent)
    {
        std::vector<const Task*> c;
        for (const Task* x : cands)
            if (x->mm != &parent && x->mm->ppid == parent.pid
                && std::none_of(c.begin(), c.end(), [x](const Task* y) { return y->mm == x->mm; }))
                c.push_back(x);
        std::stable_sort(c.begin(), c.end(), [](const Task* a, const Task* b) { return a->mm->pid < b->mm->pid; });
        return c;
    }

    // badness() before 2.6.36 (oom.badness=total_vm) of thread x: its process's virtual size, half of each child's
    // with an mm of its own, then divided by the square root of x's CPU time in units of 2^(SHIFT_HZ + 3) jiffies
    // (8.192 s whatever HZ is) and by the fourth root of its run time in units of 1024 s, and by 4 for root: every
    // process here runs as root (uid 0, CAP_SYS_ADMIN), as the benchmarks' harnesses do (GUESS). PF_SWAPOFF, nice,
    // CAP_SYS_RAWIO, cpusets and oomkilladj do not arise here.
    std::uint64_t badness(const std::vector<const Task*>& cands, const Task& x, Time now)
    {
        const MmStruct& mm = *x.mm;
        std::uint64_t points = totalVm(mm);
        for (const Task* c : childrenOf(cands, mm))
            points += totalVm(*c->mm) / 2 + 1;
        constexpr Time kCpuUnit = 8'192'000'000'000; // 8.192 s
        constexpr Time kRunUnit = 1'024'000'000'000'000; // 1024 s
        const Time cpu = x.userTime + x.sysTime - mm.cpuAtFork;
        const Time start = mm.forkedAt >= 0 ? mm.forkedAt : x.started;
        if (const std::uint64_t s = int_sqrt(static_cast<std::uint64_t>(std::max<Time>(cpu, 0) / kCpuUnit)))
            points /= s;
        if (const std::uint64_t s
            = int_sqrt(int_sqrt(static_cast<std::uint64_t>(std::max<Time>(now - start, 0) / kRunUnit))))
            points /= s;
        return points / 4;
    }

    // totalram_pages + total_swap_pages: what oom_score_adj's units are thousandths of.
    std::uint64_t totalPages(const Mm& k)
    {
        std::uint64_t pages = 0;
        for (const auto& d : k.nodes)
            pages += d->bytes / kPageSize;
        return pages + si_swapinfo(k).total;
    }

    // oom_badness() from 2.6.36 (oom.badness=rss): the memory a kill gives back, less the root bonus of the era
    // (oom.root_bonus; every process is root, above), never below 1 for a process that may be killed.
    std::uint64_t oom_badness(const Mm& k, const MmStruct& mm, std::uint64_t total)
    {
        auto points = static_cast<std::int64_t>(memoryOf(mm));
        switch (k.tg.oomRootBonus) {
        case OomRootBonus::TotalPages: // adj -= 30; adj *= totalpages / 1000
            points -= 30 * static_cast<std::int64_t>(total / 1000);
            break;
        case OomRootBonus::Usage:
            points -= points * 3 / 100;
            break;
        case OomRootBonus::None:
            break;
        }
        return points > 0 ? static_cast<std::uint64_t>(points) : 1;
    }

    // The era's score of a candidate thread (oom.badness), among `cands`.
    std::uint64_t score(const Mm& k, const std::vector<const Task*>& cands, const Task& x, std::uint64_t total)
    {
        return k.tg.oomBadness == OomBadness::TotalVm ? badness(cands, x, k.s.sim().now())
                                                      : oom_badness(k, *x.mm, total);
    }
} // namespace

std::uint64_t oom_badness(const Mm& k, const Task& t)
{
    return t.mm ? score(k, candidates(k), t, totalPages(k)) : 0;
}

// select_bad_process(): the thread with the highest score, the first of equals; then oom_kill_process(): the
// victim is the chosen process or, in the eras that sacrifice a child (oom.sacrifice_child), one of its children;
// SIGKILL to every thread of it, and TIF_MEMDIE.
bool out_of_memory(Mm& k, const Task& t)
{
    // A victim whose program has ended has exited: its TIF_MEMDIE went with it.
    std::erase_if(k.oom.victims, [&k](std::uint32_t id) { return k.s.tasks()[id]->state == TaskState::Done; });
    if (fatal_signal_pending(t) || !k.oom.victims.empty())
        return true;
    const std::vector<const Task*> cands = candidates(k);
    const std::uint64_t total = totalPages(k);
    const Task* chosen = nullptr;
    std::uint64_t chosenPoints = 0;
    for (const Task* x : cands) {
        const std::uint64_t points = score(k, cands, *x, total);
        if (!chosen || points > chosenPoints) {
            chosen = x;
            chosenPoints = points;
        }
    }
    if (!chosen)
        return false;
    const MmStruct* victim = chosen->mm;
    switch (k.tg.oomSacrifice) {
    case OomSacrifice::FirstChild: // "Try to kill a child first"
        if (const std::vector<const Task*> children = childrenOf(cands, *victim); !children.empty())
            victim = children.front()->mm;
        break;
    case OomSacrifice::WorstChild: { // victim_points starts at 0: any child with a score beats the parent
        std::uint64_t victimPoints = 0;
        for (const Task* c : childrenOf(cands, *chosen->mm))
            if (const std::uint64_t points = oom_badness(k, *c->mm, total); points > victimPoints) {
                victim = c->mm;
                victimPoints = points;
            }
        break;
    }
    case OomSacrifice::None:
        break;
    }
    std::string name;
    for (const auto& task : k.s.tasks())
        if (task->mm == victim && task->state != TaskState::Done && !task->kthread) {
            send_sigkill(k.s, *task);
            k.oom.victims.push_back(task->id);
            name = name.empty() ? task->name : name;
        }
    ++k.oom.nrKill;
    k.oom.kills.push_back({ k.s.sim().now(), name, memoryOf(*victim) });
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
