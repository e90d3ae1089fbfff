// kernel/exit.c (3.x): do_exit -> exit_mm -> mmput -> exit_mmap (unmap_vmas, free_pgtables: unlink_file_vma of each
// file VMA under its file's i_mmap lock), pgd_free; wait4 -> release_task -> put_task_struct -> free_task (the kernel
// stack, free_thread_info, after the child's last context switch; the slab objects).
#include "kernel/process.h"
#include "kernel/kernel.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page_alloc.h"
#include "net/tcp.h"

namespace mms {

Co<> mmput(Kernel& k, Task& t, MmStruct& mm)
{
    FnScope fn(t, "mmput");
    co_await sys_brk(k, t, mm, 0); // exit_mmap zaps the heap with the rest
    co_await exit_mmap(k, t, mm);
    for (Pfn p : mm.pgtables) // free_pgtables, pgd_free
        co_await free_pages(k, t, p, 0);
    mm.pgtables.clear();
    k.mmdrop(mm);
}

namespace {
    // Whether every other thread of the process is exiting or gone: then t drops the last reference to their
    // files_struct.
    bool lastThread(const Kernel& k, const Task& t, const MmStruct& mm)
    {
        for (const auto& x : k.s.tasks())
            if (x.get() != &t && x->mm == &mm && !x->kthread && !x->exiting && x->state != TaskState::Done)
                return false;
        return true;
    }

    // release_task -> free_task: the kernel stack and the slab the fork took.
    Co<> release_task(Kernel& k, Task& t, Process& child)
    {
        if (child.slab != kNoPage)
            co_await free_pages(k, t, child.slab, child.slabOrder);
        if (child.taskFrag != kNoPage) // free_task -> put_page(tsk->task_frag.page)
            co_await free_pages(k, t, child.taskFrag, child.taskFragOrder);
        child.taskFrag = kNoPage;
        if (child.stack != kNoPage)
            co_await free_pages(k, t, child.stack, child.stackOrder);
        child.slab = child.stack = kNoPage;
    }
} // namespace

Co<> exit_mm(Kernel& k, Task& t)
{
    MmStruct& mm = *t.mm;
    t.exiting = true;
    // mmput(): the memory goes with the last user of the mm. Until then the process's other threads run on (a
    // killed one to its next return to user space) and may still map, fault and unmap.
    if (!lastThread(k, t, mm) || mm.exiting)
        co_return;
    tcp_close_process(k.s, k.sockets, t, mm); // exit_files(): the last thread's put_files_struct() closes the sockets
    mm.exiting = true;
    co_await sys_brk(k, t, mm, 0); // exit_mmap zaps the heap with the rest
    co_await exit_mmap(k, t, mm);
    exit_oom_victims(k, mm); // the memory is back
}

Co<> do_exit(Kernel& k, Task& t)
{
    Process& proc = current_process(k, t);
    if (!proc.parent && !proc.ownTask) {
        // A process started at set-up: its memory goes back; the thread ends when its body returns.
        co_await exit_mm(k, t);
        exit_oom_victim(k, t); // this thread's TIF_MEMDIE, if the memory is still going back
        co_return;
    }
    FnScope fn(t, "do_exit");
    MmStruct* mm = proc.mm;
    proc.mm = nullptr;
    if (mm) {
        tcp_close_process(k.s, k.sockets, t, *mm);
        co_await mmput(k, t, *mm);
    }
    exit_oom_victim(k, t); // a child the OOM killer chose has given its memory back
    if (proc.ownTask) {
        // Its parent sleeps in wait() in another task and reaps it at once; the thread ends when its body returns.
        co_await release_task(k, t, proc);
        t.mm = nullptr;
        co_return;
    }
    t.sigkill = false; // the signal was the child's: its parent, current again, carries on
    // The child is a zombie until its parent, current again, reaps it.
    std::unique_ptr<Process> parent = std::move(proc.parent);
    parent->zombie = std::move(k.procs[t.id]);
    k.procs[t.id] = std::move(parent);
    t.mm = k.procs[t.id]->mm;
}

Co<bool> do_wait(Kernel& k, Task& t)
{
    FnScope fn(t, "do_wait");
    Process& proc = current_process(k, t);
    std::unique_ptr<Process> child = std::move(proc.zombie);
    if (child)
        co_await release_task(k, t, *child);
    Sched::burn(t, k.cost.faultEntryNs + 20 * k.cost.lockedRmwNs); // the syscall, release_task's bookkeeping
    co_return child != nullptr;
}

} // namespace mms
