#pragma once
// The process lifecycle (kernel/fork.c, fs/exec.c, kernel/exit.c): what fork gives a process, exec replaces and
// exit and wait give back -- the kernel stack, the slab objects, the mm with its page tables and VMAs, whose file
// VMAs sit on their files' i_mmap trees, linked and unlinked under each file's i_mmap lock for write.
//
// The model runs a forked child in its parent's task (the parent sleeps in wait4 meanwhile, on the same CPU): fork
// makes the child the task's current process, exit makes the parent current again, and wait reaps the child. Each
// task's current process is Kernel::procs[task id]; a child holds its parent, the parent its exited child until
// wait. A child forked into a task of its own (do_fork_task, for a parent that goes on running) starts on the CPU the
// scheduler balances it to, and its parent, asleep in wait() in another task, reaps it when it exits.

#include "mm/page.h"
#include "sim/co.h"

#include <memory>
#include <string>

namespace mms {

class Kernel;
struct Task;
struct MmStruct;
namespace sys {
    struct ExecImage;
}

// copy_process()'s slab objects (task_struct, mm_struct, signal_struct, ...): most forks take freed objects from
// partial slabs; now and then one needs a new slab, which SLUB allocates at the cache's order -- order 3 for these
// caches on a large machine (calculate_order, slub_max_order 3) -- with __GFP_NORETRY, then at the minimum order
// that holds an object (task_struct: order 1).
constexpr int kSlabOrder = 3;
constexpr int kSlabMinOrder = 1;
constexpr int kForkNewSlabEvery = 4; // GUESS: one fork in four needs a new slab
// The page tables a new program's first faults allocate beside mm_init's pgd: a pud, a pmd and a pte page.
constexpr int kExecPageTables = 3;

struct Process {
    MmStruct* mm = nullptr;
    Pfn stack = kNoPage; // the kernel stack (alloc_thread_info_node), order fork.stack_order
    int stackOrder = 0;
    Pfn slab = kNoPage; // the new slab this fork needed, if any
    int slabOrder = 0;
    // current->task_frag: the page sockets' sends copy into (sk_page_frag_refill), order 3 or, failing that, 0.
    Pfn taskFrag = kNoPage;
    int taskFragOrder = 0;
    std::unique_ptr<Process> parent; // asleep in wait4 while this child runs in its task
    bool ownTask = false; // forked into a task of its own (do_fork_task): its parent waits in another task
    std::unique_ptr<Process> zombie; // an exited child not yet reaped by wait
};

// The calling task's current process (made on first use for a task spawned at set-up).
Process& current_process(Kernel& k, Task& t);
// do_fork() -> copy_process(): returns with the child current.
Co<> do_fork(Kernel& k, Task& t);
// do_fork() for a parent that goes on running (a program forking its workers): copy_process() in the parent, then
// wake_up_new_task() -- the child is a new task on the fork-balanced CPU, its own process with the new mm. The
// caller starts its body.
Co<Task*> do_fork_task(Kernel& k, Task& t, std::string name, std::uint64_t seed);
// do_execve(): a new mm with the image's mappings, the old one dropped.
Co<> do_execve(Kernel& k, Task& t, const sys::ExecImage& image);
// do_exit(): the memory goes back (exit_mm -> mmput). A forked child is then a zombie and its parent current again.
Co<> do_exit(Kernel& k, Task& t);
// wait4(): reaps an exited child (release_task: its stack and slab freed). False when there is none (ECHILD).
Co<bool> do_wait(Kernel& k, Task& t);
// exit_mm() of a process started at set-up, whose threads share its mm: the last of them to exit gives the memory
// back (the heap and every mapping: exit_mmap) and closes the process's sockets (exit_files); the others only end.
Co<> exit_mm(Kernel& k, Task& t);
// mmput() of the last user: exit_mmap (the heap and every VMA zapped, file VMAs unlinked), free_pgtables and
// pgd_free, mmdrop.
Co<> mmput(Kernel& k, Task& t, MmStruct& mm);

} // namespace mms
