#pragma once
// A simulated task (process, thread or kernel thread) and what /usr/bin/time would say about it.

#include "sim/rng.h"
#include "sim/simulator.h"

#include <coroutine>
#include <cstdint>
#include <string>

namespace mms {

struct MmStruct;
struct Task;
struct HostPreemption; // sched/sched.h

// Something spinning on a task's on_cpu (mutex_spin_on_owner): told when that task leaves its CPU.
struct OffCpuWatch {
    virtual void ownerOffCpu(Task& owner) = 0;
    OffCpuWatch* nextWatch = nullptr; // an owner may hold several watched locks
protected:
    ~OffCpuWatch() = default;
};

enum class TaskState : std::uint8_t { Runnable, Running, Sleeping, Done };

struct Task {
    std::uint32_t id = 0;
    std::string name;
    int cpu = 0; // the CPU whose run queue holds this task; a wake-up may move it (Sched::set_task_cpu)
    // sched_setaffinity (taskset -c FIRST-LAST): the CPUs [cpusFirst, cpusFirst + cpusCount) the task may run on;
    // cpusCount 0: every CPU. Threads and forked children inherit it.
    int cpusFirst = 0, cpusCount = 0;
    bool allowedOn(int c) const { return cpusCount == 0 || (c >= cpusFirst && c < cpusFirst + cpusCount); }
    bool kthread = false;
    MmStruct* mm = nullptr;

    TaskState state = TaskState::Runnable;
    std::coroutine_handle<> resumePoint; // where a sleeping or runnable task continues
    std::uint32_t sleepGen = 0; // bumped at every sleep, so a stale timer or wait-list entry cannot wake a later one
    bool interruptible = false; // asleep in TASK_INTERRUPTIBLE: a signal wakes it (Sched::signal_wake_up)

    // CPU time consumed by the task but not yet pushed onto the global clock. Every access to shared state
    // (a lock, an I/O, a wake-up) first flushes it, so shared state is always touched at the right time.
    Time debt = 0;

    // SMT: the task running on the sibling thread of this task's core (&Cpu::current of that CPU; null on a core
    // of one thread), and how much longer compute takes while that sibling computes: smtNum / smtDen (2 over
    // CostModel::smtThroughput, in thousandths), the picoseconds' remainders carried in smtCarry so that one charge
    // and the same charge in parts stretch to the same total. `spinning`: the task waits in a spin loop (a
    // spinlock's queue, a mutex's owner): its PAUSEs leave the core's units to its sibling. Kept by the scheduler and
    // the lock models; read by Sched::burnCompute.
    Task* const* siblingCurrent = nullptr;
    std::int64_t smtNum = 1, smtDen = 1, smtCarry = 0;
    bool spinning = false;
    // While `spinning`: where the interrupt handlers its CPU took during the spin end (Sched::interrupt). The spin
    // absorbs them; what runs past the spin's end delays the task there (Sched::spinEnded).
    Time irqUntil = 0;
    // Memory-stream time Sched::memTransfer() has timed for this task and Sched::burnTime() not yet charged: the
    // core's bandwidth, shared with the sibling already, so a computing sibling does not stretch it again.
    // (Mutable: the stream is timed through a const task, before the charge.)
    mutable Time streamCredit = 0;

    // In a KVM guest whose host deschedules running vCPUs (MachineSpec::guestPreempt; null elsewhere): the CPU time
    // the task runs before the host next takes its vCPU, and the time the host has taken from it so far, which
    // passes on its CPU as part of its run but is neither user nor system time (the guest's steal time);
    // stealSettled as userSettled below.
    HostPreemption* host = nullptr;
    Time runToSteal = 0;
    Time stealClock = 0; // the user and system time up to which the host's takes are drawn (Sched::settleHost)
    Time stealTime = 0;
    Time stealSettled = 0;

    // /usr/bin/time accounting
    Time userTime = 0;
    Time sysTime = 0;
    Time started = 0;
    Time finished = -1;
    Time sliceStart = 0;
    Time lastRan = -1; // when it last left a CPU (se.exec_start at its dequeue), -1 before it ran: cache-hot test
    // The part of userTime and sysTime already counted to the CPUs the task has left (Cpu::userTime, sysTime); the
    // rest was spent on `cpu`. Settled when the task moves, so burn() charges the task alone.
    Time userSettled = 0;
    Time sysSettled = 0;

    // The O(1) scheduler's interactivity estimate (Sched::setO1): sleep_avg, when the task last went on or off a
    // CPU or was woken (p->timestamp), and its dynamic priority (p->prio: 100-139, lower runs first). A task starts
    // as a thread created by one that sleeps: wake_up_new_task() gives it CHILD_PENALTY's 95 % of that parent's
    // bonus, 9 tenths of MAX_SLEEP_AVG (Sched::kO1ChildSleepAvg), priority 116.
    Time sleepAvg = 0;
    Time o1Stamp = 0;
    int prio = 120;

    bool sigkill = false; // SIGKILL pending (the OOM killer chose its process): it exits at its next return to user
                          // space, woken for it from an interruptible sleep
    bool exiting = false; // PF_EXITING: in do_exit()
    OffCpuWatch* offCpuWatch = nullptr; // locks whose spinners watch this task run (see Sched::offCpu)

    const char* fn = "user"; // the kernel function now running, for the per-CPU timeline
    Rng rng;

    // One user-visible unit of work done (a transaction, a page, a job): workloads count their own metric here.
    std::uint64_t opsDone = 0;
};

// Marks the kernel function a task is in for the timeline; restores the caller's on scope exit.
class FnScope {
public:
    FnScope(Task& t, const char* fn)
        : m_t(t)
        , m_prev(t.fn)
    {
        t.fn = fn;
    }
    ~FnScope() { m_t.fn = m_prev; }
    FnScope(const FnScope&) = delete;
    FnScope& operator=(const FnScope&) = delete;

private:
    Task& m_t;
    const char* m_prev;
};

} // namespace mms
