// kernel/fork.c (3.x): do_fork -> copy_process -> dup_task_struct (the kernel stack), the slab objects, dup_mm ->
// mm_init (pgd_alloc) and dup_mmap (each VMA copied; a file VMA linked into its file's i_mmap tree, i_mmap lock for
// write; copy_page_range).
#include "kernel/process.h"
#include "kernel/kernel.h"
#include "mm/memory.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"

namespace mms {

Process& current_process(Kernel& k, Task& t)
{
    if (k.procs.size() <= t.id)
        k.procs.resize(t.id + 1u);
    std::unique_ptr<Process>& p = k.procs[t.id];
    if (!p) {
        p = std::make_unique<Process>();
        p->mm = t.mm;
    }
    return *p;
}

namespace {
    // dup_mmap(): the child's copy of each VMA at the same address, a file VMA linked after its parent's
    // (__vma_link_file under the file's i_mmap lock).
    Co<> dup_mmap(Kernel& k, Task& t, MmStruct& mm, const MmStruct& oldmm)
    {
        FnScope fn(t, "dup_mmap");
        mm.pte.resize(oldmm.pte.size());
        while (mm.ptl.size() * PTRS_PER_PTE < mm.pte.size())
            mm.ptl.push_back(std::make_unique<SpinLock>("ptl"));
        double walked = 0;
        for (const Vma& v : oldmm.vmas) {
            mm.vmas.push_back(v);
            if (!v.file)
                continue;
            co_await vma_link_file_locked(k, t, *v.file, FileVma { &mm, v.start, v.pages, v.pgoff });
            walked += v.pages;
        }
        // copy_page_range(): the file VMAs' page-table ranges walked (nothing present to copy in the model).
        Sched::burn(t, walked * k.cost.pteOpNs);
    }

    // copy_process(): the child's kernel stack, slab objects and mm (dup_mm), made in the parent's task.
    Co<std::unique_ptr<Process>> copy_process(Kernel& k, Task& t)
    {
        Process& parent = current_process(k, t);
        Sched::burn(t, k.cost.faultEntryNs + 20 * k.cost.lockedRmwNs); // the syscall, copy_process's bookkeeping
        auto child = std::make_unique<Process>();
        child->stackOrder = k.tg.forkStackOrder;
        child->stack = co_await alloc_pages(k, t, child->stackOrder); // alloc_thread_info_node
        if (t.rng.below(kForkNewSlabEvery) == 0) {
            // new_slab(): SLUB's order with __GFP_NORETRY, then the cache's minimum order.
            child->slabOrder = kSlabOrder;
            child->slab = co_await alloc_pages(k, t, kSlabOrder, GFP_NORETRY);
            if (child->slab == kNoPage && !fatal_signal_pending(t)) {
                child->slabOrder = kSlabMinOrder;
                child->slab = co_await alloc_pages(k, t, kSlabMinOrder);
            }
        }
        // dup_mm(): mm_init's pgd, then dup_mmap under the parent's mmap_sem for write.
        MmStruct& mm = k.mm_alloc();
        mm.ppid = parent.mm ? parent.mm->pid : 0;
        mm.forkedAt = k.s.sim().now() + t.debt;
        co_await pte_alloc_one(k, t, mm); // pgd_alloc; an OOM victim that gets none exits next
        child->mm = &mm;
        if (parent.mm) {
            MmStruct& oldmm = *parent.mm;
            co_await oldmm.mmap_sem.down_write(k.s, t);
            co_await dup_mmap(k, t, mm, oldmm);
            co_await oldmm.mmap_sem.up_write(k.s, t);
        }
        co_return child;
    }
} // namespace

Co<> do_fork(Kernel& k, Task& t)
{
    FnScope fn(t, "do_fork");
    std::unique_ptr<Process> child = co_await copy_process(k, t);
    child->parent = std::move(k.procs[t.id]);
    k.procs[t.id] = std::move(child);
    t.mm = k.procs[t.id]->mm; // the child runs; the parent sleeps in wait4
    t.mm->cpuAtFork = t.userTime + t.sysTime; // its CPU time counts from here
}

Co<Task*> do_fork_task(Kernel& k, Task& t, std::string name, std::uint64_t seed)
{
    FnScope fn(t, "do_fork");
    std::unique_ptr<Process> child = co_await copy_process(k, t);
    co_await k.s.flush(t); // the fork's work is done before the child is woken
    Task& c = k.s.spawn(std::move(name), k.s.forkBalanceCpu(t), false, child->mm, seed);
    c.cpusFirst = t.cpusFirst;
    c.cpusCount = t.cpusCount;
    if (k.procs.size() <= c.id)
        k.procs.resize(c.id + 1u);
    child->ownTask = true;
    k.procs[c.id] = std::move(child);
    co_return &c;
}

} // namespace mms
