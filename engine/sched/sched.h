#pragma once
// The CPUs and the scheduler: per-CPU run queues, time slices, sleeping and wake-ups with a context-switch cost.
// A task that spins (on a spinlock, or waiting for an IPI ack) keeps its CPU; one that sleeps (mutex, rwsem, I/O)
// gives it to the next runnable task.

#include "hw/cacheline.h"
#include "hw/machine.h"
#include "hw/membw.h"
#include "sched/locking.h"
#include "sched/task.h"
#include "sim/co.h"
#include "sim/simulator.h"

#include "sim/fifo.h"
#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <vector>

namespace mms {

// What a CPU's timeline span says. Run, LockWait and LockHold are the CPU's own time; IoWait and LockSleep are a
// task of that CPU asleep, while the CPU runs another task or idles (they overlap the other kinds).
enum class SpanKind : std::uint8_t {
    Run, // a task runs `fn`
    LockWait, // a task spins for a lock (a spinlock, a mutex's optimistic spin on its owner): the CPU is busy
    LockHold, // a task holds a spinlock (part of Run)
    IoWait, // a task sleeps on I/O
    Idle,
    LockSleep, // a task sleeps on a mutex or rwsem; fn is the lock's name
};

// Receives per-CPU spans for the timeline (recordings). Optional: the scheduler works without one.
class TraceSink {
public:
    virtual ~TraceSink() = default;
    virtual void span(int cpu, Time begin, Time end, SpanKind kind, const char* fn) = 0;
};

struct Cpu {
    int id = 0;
    int socket = 0;
    int core = 0; // the physical core, numbered across the machine (MachineSpec::coreOf): SMT siblings share it
    int llc = 0; // the last-level cache, numbered across the machine (MachineSpec::llcOf)
    int sibling = -1; // the CPU of the core's other thread, -1 on a core of one thread
    Task* current = nullptr;
    MmStruct* activeMm = nullptr; // the user mm loaded here; kept while idle or in a kernel thread (lazy TLB)
    Fifo<Task*> runq;
    Time idleSince = 0;
    Time idleTotal = 0;
    // User, system and steal time spent here by tasks that have since moved to another CPU (Sched::set_task_cpu); the
    // time of the tasks still here is in theirs (Sched::cpuTimes adds both).
    Time userTime = 0;
    Time sysTime = 0;
    Time stealTime = 0; // a guest's: what its host took from those tasks (HostPreemption)
    std::uint64_t ipisReceived = 0;
    // TIF_NEED_RESCHED of the task running here, set by a wake-up (Sched::setO1's wake-up preemption): a task of a
    // better priority waits, and the running one gives way at its next preemption point. Cleared at the switch.
    bool needResched = false;
    std::uint64_t switches = 0; // switches to another task or to idle here (/proc/stat's ctxt, vmstat's cs)
    std::uint64_t preemptions = 0; // of them, a running task giving way to a woken one (nonvoluntary_ctxt_switches)
    // Idle balancing (Sched::idleBalance): rq->idle_stamp (when the CPU went idle, -1 while busy), rq->avg_idle (the
    // mean of its idle spells, the kernel's update_avg: 1/8 of each new one) and nr_balance_failed (pulls refused
    // because every task that could come was cache-hot).
    Time idleStamp = -1;
    Time avgIdle = 0;
    int balanceFailed = 0;
    // The periodic balancing of an idle CPU (IdleBalance::tick): sd->balance_interval, and whether its next balance
    // is already due (an event is pending).
    Time balanceInterval = 0;
    bool tickArmed = false;
    // nr_running as 2.6.20's update_load() samples it into rq->cpu_load[0] at every timer tick, idle or not (no
    // dynticks on x86-64 before 2.6.24): the count held now, the tick interval it was set in, and the count the last
    // tick before that saw (Sched::nrAtLastTick). Kept and read under the O(1) scheduler only (its wake-up placement).
    std::uint32_t nrHeld = 0;
    std::uint32_t nrAtTick = 0;
    Time nrTick = 0;
    std::uint64_t affineWakeups = 0; // wake-ups try_to_wake_up() moved to the waker's CPU (schedstat ttwu_move_affine)
};

// The kernel's idle balancing as Kernel::boot() sets it: idle_balance() (newidle_balance() from 5.x) pulls a task
// queued behind another CPU's running one to a CPU about to go idle, every sched domain with SD_BALANCE_NEWIDLE
// having it (2.6.20's SD_MC_INIT and SD_CPU_INIT in include/linux/topology.h, and every later release).
struct IdleBalance {
    bool on = false; // a bare scheduler (the lock models' tests) keeps every task on its CPU
    // "sched: Rate-limit newidle" (2.6.32): no pull while the CPU's avg_idle is under the migration cost, since an
    // idle spell that short is over before a pulled task would gain anything (sched.newidle_ratelimit).
    bool rateLimit = false;
    // An idle CPU's own balancing at its timer tick (rebalance_tick(), 2.6.20): while a task waits behind another
    // CPU's running one, an idle CPU looks for it every sd->balance_interval, 1 ms doubling up to 4 ms while it
    // finds nothing to take (SD_MC_INIT and SD_CPU_INIT: min_interval 1, max_interval 4, in jiffies of HZ=1000).
    // Needed where a wake-up does not look for an idle CPU (Sched::setWakeIdleSibling off: before 2.6.32 a woken
    // task goes back to the CPU it last ran on); with that search a task waits behind another only while no CPU
    // is idle, and the tick is not modelled.
    bool tick = false;
};

// One CPU's time from boot to now, as /proc/stat's cpuN line counts it: user and system time of the tasks that ran
// there (kernel threads' too), idle time, and in a guest whose host deschedules vCPUs the steal time the host took
// from the tasks running there. user + sys + idle + steal = the simulated time. A task's time counts where it
// passed on the clock, so the CPU time charged to a task and not yet spent (Task::debt) is in none of them.
struct CpuTime {
    Time user = 0;
    Time sys = 0;
    Time idle = 0;
    Time steal = 0;
};

// The host of a KVM guest descheduling the guest's running vCPUs (MachineSpec::guestPreempt, the share of its time
// a running vCPU is descheduled: other guests' vCPUs, the host's own threads). Each time, the vCPU waits one slice of
// the host task it gave way to (CostModel::vcpuPreemptMaxNs), after a running time drawn from an exponential
// distribution of mean slice x (1 - share) / share, so that the vCPU is descheduled `share` of the time; a moment of
// a descheduled vCPU then lies uniformly within its slice. Whatever the vCPU's task holds waits with it (lock-holder
// preemption: a mutex, a spinlock held across an event; Sched::settleHost says where a take lands), and so does a
// ticket or queued lock handed to it (lock-waiter preemption) and an IPI's acknowledgement it owes. Unless another
// vCPU spins meanwhile: its PAUSE loop exits to the host after the PLE window, and the host yields to a descheduled
// vCPU of the same guest (kvm_vcpu_on_spin()), which then runs within CostModel::pleBoostNs. One generator, seeded at
// boot (Sched::seedHost), draws everything in event order.
struct HostPreemption {
    double share = 0;
    Time slice = 0;
    Time pleBoost = 0;
    double meanRunPs = 0;
    int spinners = 0; // the guest's tasks spinning now (Sched::spinBegins, Sched::spinEnded)
    Rng rng;
    // The running time until the host next deschedules the vCPU.
    Time nextRun() { return static_cast<Time>(-meanRunPs * std::log(1.0 - rng.uniform())); }
    // What the host takes from a vCPU it deschedules now: its slice, or, if another vCPU spins now, until that one's
    // PLE exit boosts it (the exits find it among the descheduled vCPUs). A mutex's owner taken before anyone spins
    // on it is not boosted by the spinners that come later.
    Time stolen() const { return spinners > 0 ? std::min(slice, pleBoost) : slice; }
    // A vCPU the host may have descheduled at this moment, which another vCPU spins on (for its acknowledgement, on
    // the lock handed to it): how long until it runs again, in ns -- 0 if it runs, else the rest of its slice, at
    // most the spinner's PLE boost.
    double residualNs()
    {
        if (rng.uniform() >= share)
            return 0.0;
        return std::min(rng.uniform() * toNs(slice), toNs(pleBoost));
    }
};

enum class Acct : std::uint8_t { User, Sys };

class Sched {
public:
    Sched(Simulator& sim, const MachineSpec& machine);
    ~Sched();
    Sched(const Sched&) = delete;
    Sched& operator=(const Sched&) = delete;

    Simulator& sim() { return m_sim; }
    const Simulator& sim() const { return m_sim; }
    const MachineSpec& machine() const { return m_machine; }
    int llcCount() const { return static_cast<int>(m_cacheFilled.size()); } // MachineSpec::llcCount()
    const CostModel& cost() const { return m_machine.cost; }
    int cpuCount() const { return static_cast<int>(m_cpus.size()); }
    Cpu& cpu(int i) { return m_cpus[static_cast<std::size_t>(i)]; }
    const Cpu& cpu(int i) const { return m_cpus[static_cast<std::size_t>(i)]; }
    const std::vector<std::unique_ptr<Task>>& tasks() const { return m_tasks; }
    void setTrace(TraceSink* sink) { m_trace = sink; }
    TraceSink* trace() const { return m_trace; }

    // Creates a task on `cpu` running `body`; it starts when the simulation runs.
    Task& spawn(std::string name, int cpu, bool kthread, MmStruct* mm, std::uint64_t seed);
    void start(Task& t, Co<> body);
    // wake_up_new_task()'s CPU for a forked task (select_task_rq with SD_BALANCE_FORK -> find_idlest_cpu): the CPU
    // with the fewest tasks running or queued, the parent's own on a tie, else the lowest-numbered.
    int forkBalanceCpu(const Task& parent) const;

    // Charge compute to the running task (no suspension; see Task::debt): `nsCost` is what it takes the core alone,
    // longer while the task's SMT sibling computes too (Task::siblingCurrent).
    static void burn(Task& t, double nsCost, Acct acct = Acct::Sys) { burnCompute(t, ns(nsCost), acct); }
    static void burnCompute(Task& t, Time d, Acct acct = Acct::Sys)
    {
        if (smtBusy(t)) {
            const std::int64_t scaled = d * t.smtNum + t.smtCarry;
            d = scaled / t.smtDen;
            t.smtCarry = scaled % t.smtDen;
        }
        burnWall(t, d, acct);
    }
    // A charge in picoseconds that may carry memory streams memTransfer() has timed: those are not stretched
    // (Task::streamCredit), the rest is compute.
    static void burnTime(Task& t, Time d, Acct acct = Acct::Sys)
    {
        const Time stream = std::min(d, t.streamCredit);
        t.streamCredit -= stream;
        burnWall(t, stream, acct);
        burnCompute(t, d - stream, acct);
    }
    // Charge time the task's CPU is busy whatever its sibling does: the wait for an IPI round's acknowledgements.
    static void burnWall(Task& t, Time d, Acct acct = Acct::Sys)
    {
        t.debt += d;
        (acct == Acct::User ? t.userTime : t.sysTime) += d;
    }
    // In a guest whose host deschedules vCPUs (HostPreemption): what the host takes from t for the CPU time t has run
    // since the last call passes in its run, as steal time, each time its running time reaches the host's next
    // preemption. Called where t pushes its pending time onto the clock (Flush), not at every charge or lock
    // operation, the hottest paths of every run: so a take lands at the task's next flush, after the spinlock
    // sections that hold none (whose waiters' pause loops would end it within CostModel::pleBoostNs anyway).
    static void settleHost(Task& t)
    {
        if (t.host) [[unlikely]]
            hostSteals(t);
    }
    [[gnu::noinline, gnu::cold]] static void hostSteals(Task& t);
    // The task's SMT sibling is computing: a task runs there and is not spinning.
    static bool smtBusy(const Task& t)
    {
        const Task* sibling = t.siblingCurrent ? *t.siblingCurrent : nullptr;
        return sibling && !sibling->spinning;
    }

    // Awaitable: push the task's pending CPU time onto the global clock.
    struct Flush {
        Sched& s;
        Task& t;
        bool await_ready() const noexcept { return t.debt == 0; }
        bool await_suspend(std::coroutine_handle<> h); // false: the time passed inline (Simulator::runsNext)
        void await_resume() const noexcept { }
    };
    Flush flush(Task& t) { return Flush { *this, t }; }
    // The task's pending CPU time spent on its CPU now (drawn as a Run span): when it ends, which the caller then
    // makes an event at or takes inline.
    Time spendDebt(Task& t)
    {
        const Time at = m_sim.now() + t.debt;
        emitSpan(t.cpu, m_sim.now(), at, SpanKind::Run, t.fn);
        t.debt = 0;
        return at;
    }

    // Awaitable: give up the CPU until wake(t). The caller has flushed and registered t on some wait list. An
    // interruptible sleep (TASK_INTERRUPTIBLE: a futex, a socket read, nanosleep) also ends at signal_wake_up(); the
    // caller then finds the signal pending and takes itself off its wait list. Locks and I/O sleep uninterruptibly.
    struct Sleep {
        Sched& s;
        Task& t;
        bool interruptible;
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<> h);
        void await_resume() const noexcept { }
    };
    Sleep sleep(Task& t, bool interruptible = false) { return Sleep { *this, t, interruptible }; }
    // `waker`: the task whose system call or fault wakes t (a lock's release, a futex wake, a socket's send), null
    // for a timer or a device's completion; under the O(1) scheduler it decides where t goes (o1WakeCpu).
    void wake(Task& t, const Task* waker = nullptr);
    // signal_wake_up(): a signal was sent to t; if it sleeps interruptibly, it wakes to take it.
    void signal_wake_up(Task& t)
    {
        if (t.state == TaskState::Sleeping && t.interruptible)
            wake(t);
    }
    // select_idle_sibling(): a woken task whose CPU is busy goes to an idle CPU (same socket first) instead of
    // queueing behind the running task. Kernel::boot() turns it on from 2.6.32 (sched.select_idle_sibling); before,
    // and in a bare scheduler (the lock models' tests), a woken task queues on the CPU it last ran on.
    void setWakeIdleSibling(bool on) { m_wakeIdleSibling = on; }
    void setIdleBalance(IdleBalance b);
    // sysctl_sched_migration_cost, 500000 ns (kernel/sched/fair.c, CFS from 2.6.23; 2.6.20's sd->cache_hot_time was
    // calibrated at boot, GUESS the same): a task that ran more recently is cache-hot, and no idle spell shorter than
    // it on average is worth a pull (IdleBalance::rateLimit).
    static constexpr Time kMigrationCost = 500'000'000;
    // sd->cache_nice_tries of the LLC and package domains (SD_MC_INIT, SD_CPU_INIT: 1): a CPU whose pulls were
    // refused more than that many times, every task it could take being cache-hot, takes a hot one.
    static constexpr int kCacheNiceTries = 1;
    // The timer tick of IdleBalance::tick (HZ=1000: GUESS for Fedora's 2007 x86-64 kernels) and the domains'
    // balance_interval bounds in ticks (2.6.20's include/linux/topology.h, SD_MC_INIT and SD_CPU_INIT).
    static constexpr Time kTick = 1'000'000'000;
    static constexpr Time kMinBalanceInterval = 1 * kTick;
    static constexpr Time kMaxBalanceInterval = 4 * kTick;
    // A transfer of `bytes` to or from the memory of `node` by t's CPU (clearing, copying or reading pages), at
    // the task's time plus `ahead` (CPU time the caller has yet to charge): its duration as the node's and the
    // core's bandwidth leave room for it (hw/membw.h), slower from another socket's memory
    // (MachineSpec::memSlowdown), for the caller to charge.
    Time memTransfer(const Task& t, int node, double bytes, Time ahead = 0)
    {
        const Cpu& c = cpu(t.cpu);
        noteCacheFill(c.llc, bytes);
        const Time d = m_mem.transfer(node, c.core, m_sim.now() + t.debt + ahead, bytes, m_memRate[distance(c.socket, node)]);
        t.streamCredit += d;
        return d;
    }
    void burnTransfer(Task& t, int node, double bytes, Acct acct = Acct::Sys)
    {
        burnTime(t, memTransfer(t, node, bytes), acct);
    }
    // The same with the memory of t's own node (a buffer the CPU allocated locally: a compression stream's, zram's
    // and zswap's pools): its socket's where each socket is a node, the one interleaved pool otherwise.
    void burnLocalTransfer(Task& t, double bytes, Acct acct = Acct::Sys)
    {
        burnTransfer(t, m_machine.nodeOf(t.cpu), bytes, acct);
    }
    const MemoryBandwidth& memory() const { return m_mem; }
    // A KVM guest's host (HostPreemption), null where it deschedules no vCPU (bare metal, MachineSpec::guestPreempt
    // 0). seedHost() seeds its draws for a boot; hostResidualNs() is how long a vCPU that an IPI or a lock's
    // hand-off reaches now waits for the host to run it again (0 without such a host; HostPreemption::residualNs).
    const HostPreemption* host() const { return m_host.get(); }
    void seedHost(std::uint64_t seed)
    {
        if (m_host)
            m_host->rng = Rng(seed);
    }
    double hostResidualNs() { return m_host ? m_host->residualNs() : 0.0; }
    // t starts spinning (a spinlock's queue, a mutex's or rwsem's owner): it keeps its CPU, and in a guest its PAUSE
    // loop makes the host boost a descheduled vCPU (HostPreemption). spinEnded() below ends it.
    void spinBegins(Task& t)
    {
        t.spinning = true;
        if (m_host)
            ++m_host->spinners;
    }
    // The clock of last-level cache `llc` (hw/cacheline.h): every byte its cores stream passes through it.
    // Without a cache size in the cost model the clock stands still and no line is ever pushed out.
    CacheLines::Stamp cacheClock(int llc) const { return m_cacheClock[static_cast<std::size_t>(llc)]; }
    // A written line that has left every cache: a read-for-ownership from the memory of `node` (CostModel::memLatencyNs,
    // longer from another socket's memory).
    double lineMissNs(int cpu, int node) const
    {
        return cost().memLatencyNs * m_memSlowdown[distance(this->cpu(cpu).socket, node)];
    }
    // The kernel's lock implementations (sched/locking.h), which the sync/ primitives read.
    const Locking& locking() const { return m_locking; }
    void setLocking(const Locking& l) { m_locking = l; }
    // What a wake-up costs the waker (try_to_wake_up) and a switch costs the CPU (schedule() to the new task's
    // first instruction): the machine's figures, and a debug kernel's checks on the runqueue lock each takes and
    // releases (task_rq_lock() in the one, rq->lock from schedule() to finish_lock_switch() in the other).
    double wakeupNs() const { return cost().wakeupNs + m_locking.acquireNs + m_locking.releaseNs; }
    Time switchTime() const { return ns(cost().contextSwitchNs + m_locking.acquireNs + m_locking.releaseNs); }
    // Wakes t only if it still sleeps the sleep that `gen` names (see Task::sleepGen).
    void wakeIf(Task& t, std::uint32_t gen, const Task* waker = nullptr)
    {
        if (t.sleepGen == gen)
            wake(t, waker);
    }
    // Sleeps until wake() or until `timeout` has passed, whichever comes first (schedule_timeout).
    Co<> sleepTimeout(Task& t, Time timeout, bool interruptible = false);
    // Like Sleep, for code that already holds the coroutine handle (lock slow paths running as event callbacks).
    void block(Task& t, std::coroutine_handle<> h, bool interruptible = false);

    // need_resched() as a spinner sees it: others wait on its CPU and its slice is used up (the tick would set
    // TIF_NEED_RESCHED), or, under the O(1) scheduler, a woken task of a better priority waits there (setO1). CFS's
    // wake-up preemption (2.6.23 on: a woken task whose vruntime lags by more than the wake-up granularity) is not
    // modelled: from 2.6.23 a woken task waits for the running one to sleep, yield or use up its slice.
    bool need_resched(const Task& t) const
    {
        const Cpu& c = cpu(t.cpu);
        return (!c.runq.empty() && m_sim.now() - t.sliceStart >= timeSlice()) || preemptPending(t);
    }
    // How long a task runs before others waiting on its CPU get their turn at its next cond_resched(): the O(1)
    // scheduler's task_timeslice() at nice 0 (DEF_TIMESLICE, 100 ms), else CostModel::timeSliceNs.
    Time timeSlice() const { return m_o1 ? kO1TimeSlice : ns(cost().timeSliceNs); }

    // The O(1) scheduler of 2.6.0-2.6.22 (kernel/sched.c of 2.6.20; Kernel::boot() sets it from sched.o1). Each
    // task's dynamic priority is 120 (nice 0) less a bonus of -5..+5 from its sleep_avg (CURRENT_BONUS: tenths of
    // MAX_SLEEP_AVG, 1 s, in whole jiffies of HZ=1000): schedule() takes the run time off sleep_avg divided by the
    // bonus, a wake-up adds the time slept (recalc_task_prio()). A CPU runs its best priority first, first come
    // first served among equals (the active array's lists), and a woken task of a better priority than the one
    // running there sets need_resched (TASK_PREEMPTS_CURR): the running task gives way at its next preemption
    // point, where it stays first among its priority. `voluntary` is CONFIG_PREEMPT_VOLUNTARY, which makes every
    // might_sleep() one (mightSleepPreempts()). A woken task goes to the CPU try_to_wake_up() picks (o1WakeCpu). Not
    // modelled: the expired array (a slice of 100 ms used up; these tasks sleep long before) and the on-runqueue
    // credit of an interactive wake-up (irrelevant at the top bonus, where the workloads' tasks are).
    void setO1(bool on, bool voluntary)
    {
        m_o1 = on;
        m_voluntary = on && voluntary;
    }
    bool o1() const { return m_o1; }
    // A preemption point (cond_resched(), the return to user space): a task of a better priority waits for t's CPU.
    bool preemptPending(const Task& t) const { return m_o1 && cpu(t.cpu).needResched; }
    // might_sleep() with PREEMPT_VOLUNTARY (might_resched(): cond_resched()).
    bool mightSleepPreempts(const Task& t) const { return m_voluntary && cpu(t.cpu).needResched; }
    // schedule() at a preemption point with need_resched set: t stays runnable, first among its priority, and the
    // best task of its CPU runs.
    Co<> preempt(Task& t);
    // The O(1) scheduler's constants (2.6.20 kernel/sched.c, nice 0, HZ=1000), in picoseconds.
    static constexpr Time kO1TimeSlice = 100'000'000'000; // DEF_TIMESLICE
    static constexpr Time kO1MaxSleepAvg = 1'000'000'000'000; // MAX_SLEEP_AVG: DEF_TIMESLICE 100 ms x MAX_BONUS 10
    static constexpr int kO1MaxBonus = 10; // MAX_USER_PRIO 40 x PRIO_BONUS_RATIO 25 %
    // INTERACTIVE_SLEEP(p): MAX_SLEEP_AVG x (MAX_BONUS / 2 + DELTA(p) + 1) / MAX_BONUS - 1 jiffies, DELTA 2 at nice 0:
    // an uninterruptible sleep raises sleep_avg no further than this.
    static constexpr Time kO1InteractiveSleep = 799'000'000'000;
    // A new thread's sleep_avg: CURRENT_BONUS(parent) x CHILD_PENALTY (95 %) of MAX_SLEEP_AVG's tenths, its parent
    // (a server's listener, a benchmark's main thread) asleep at the top bonus: 9 tenths.
    static constexpr Time kO1ChildSleepAvg = 900'000'000'000;
    static int o1Bonus(const Task& t) { return static_cast<int>(t.sleepAvg / 1'000'000'000 * kO1MaxBonus / 1000); }
    // effective_prio() at nice 0.
    static int o1Prio(const Task& t) { return 120 - (o1Bonus(t) - kO1MaxBonus / 2); }

    // cond_resched(): flush and, if a preemption is pending (preempt()), or the slice is used up and others wait on
    // this CPU, let them run.
    Co<> cond_resched(Task& t);
    // sched_yield(): flush and, if others wait on this CPU, go behind them.
    Co<> yield(Task& t);
    // Sleep for a fixed time (congestion_wait, usleep) without holding the CPU.
    Co<> sleepFor(Task& t, Time d, bool interruptible = false);
    // The timeline of a sleep that has just ended (IoWait, LockSleep): the task was off `cpu`, the CPU it slept on,
    // from `from` until dispatch() began switching it back in, a context switch ago -- the switch is the CPU's own
    // time, drawn as "__schedule", and the sleep stops where it starts.
    void traceSleep(int cpu, Time from, SpanKind kind, const char* fn)
    {
        emitSpan(cpu, from, m_sim.now() - switchTime(), kind, fn);
    }

    // An interrupt (IPI) taken by whatever runs on `cpu`; the cost lands on that task's sys time. A task spinning
    // for a lock takes it inside its spin: only the part that outlasts the spin costs it (spinEnded).
    void interrupt(int cpu, double handleNs);
    // t's spin for a lock ended now: the interrupt handlers its CPU was still in hold it up for their remainder.
    void spinEnded(Task& t)
    {
        if (m_host && t.spinning)
            --m_host->spinners;
        t.spinning = false;
        if (t.irqUntil > m_sim.now())
            burnWall(t, t.irqUntil - m_sim.now());
        t.irqUntil = 0;
    }

    // A cache line's trip from one CPU to another (every lock acquisition asks: kept inline, caches and sockets
    // looked up in the CPU table rather than divided out).
    double lineTransferNs(int fromCpu, int toCpu) const
    {
        if (fromCpu < 0 || fromCpu == toCpu)
            return 0.0;
        const Cpu& from = cpu(fromCpu);
        const Cpu& to = cpu(toCpu);
        if (from.llc == to.llc)
            return cost().lineSameLlcNs;
        return from.socket == to.socket ? cost().lineSameSocketNs : cost().lineCrossSocketNs;
    }

    void taskExit(Task& t);
    int liveTasks() const { return m_live; }
    int liveUserTasks() const { return m_liveUser; }
    // The first exception a task's body ended with (a program giving up, a model error): the task exits as if it
    // returned, and the run reports this once the simulator stops.
    std::exception_ptr taskError() const { return m_taskError; }
    void noteTaskError(std::exception_ptr e)
    {
        if (!m_taskError)
            m_taskError = std::move(e);
    }
    Time idleTotal() const;
    // The idle time of one CPU up to now, the stretch it is idle in now included.
    Time idleTime(int cpu) const;
    // Every CPU's user, system and idle time up to now, in CPU order.
    std::vector<CpuTime> cpuTimes() const;

private:
    // fromLoop: called from an event callback (the event loop's own frame), where the switched-in task may be
    // resumed at once when its resumption is the next event (Simulator::runsNext); never from a coroutine.
    void dispatch(Cpu& c, bool fromLoop = false);
    void wakeFromLoop(Task& t);
    // set_task_cpu(): t's run queue becomes `to`'s; the time it spent on the CPU it leaves is counted to that CPU.
    void set_task_cpu(Task& t, int to);
    void tryToWakeUp(Task& t, bool fromLoop, const Task* waker);
    static std::uint32_t nrRunning(const Cpu& c)
    {
        return (c.current ? 1u : 0u) + static_cast<std::uint32_t>(c.runq.size());
    }
    // c's nr_running changed (a task queued or taken off its queue, switched in or out): keeps its tick sample (under
    // the O(1) scheduler; a no-op otherwise).
    void noteNrRunning(Cpu& c);
    // rq->cpu_load[0] in tasks (every task's load_weight is SCHED_LOAD_SCALE at nice 0): nr_running at the last tick.
    std::uint32_t nrAtLastTick(const Cpu& c) const;
    // The CPU the O(1) scheduler's try_to_wake_up() puts t on when a task on `thisCpu` wakes it (2.6.20's rules).
    int o1WakeCpu(const Task& t, int thisCpu);
    // The task leaves its CPU (sleeps, yields, exits): whoever spins on its on_cpu stops (see OffCpuWatch).
    static void offCpu(Task& t);
    void emitSpan(int cpu, Time b, Time e, SpanKind k, const char* fn)
    {
        if (m_trace && e > b)
            m_trace->span(cpu, b, e, k, fn);
    }
    friend struct Flush;
    struct Requeue; // the awaiter of preempt() and yield()

    Simulator& m_sim;
    MachineSpec m_machine;
    std::vector<Cpu> m_cpus;
    std::vector<std::unique_ptr<Task>> m_tasks;
    std::vector<std::coroutine_handle<>> m_bodies; // top-level frames, destroyed with the scheduler
    TraceSink* m_trace = nullptr;
    int m_live = 0;
    int m_liveUser = 0;
    std::exception_ptr m_taskError;
    bool m_wakeIdleSibling = false;
    Time m_haltedWake = 0; // CostModel::haltedVcpuWakeNs: 0 on bare metal
    std::unique_ptr<HostPreemption> m_host; // a guest whose host deschedules its vCPUs; null elsewhere
    bool m_o1 = false;
    bool m_voluntary = false;
    // schedule() of a task leaving its CPU at `at` under the O(1) scheduler: its run time off its sleep_avg.
    void o1SwitchOut(Task& t, Time at);
    // activate_task() of a woken task: recalc_task_prio() over the time it slept (tryToWakeUp() then compares its
    // priority with the running task's).
    void o1Wake(Task& t, bool uninterruptible);
    // The run queue's next task: the first of the best priority under the O(1) scheduler, else the first.
    Task* pickNext(Cpu& c);
    IdleBalance m_idleBalance;
    Locking m_locking;
    MemoryBandwidth m_mem;
    // MachineSpec::memSlowdown() of each socket and node, and the rate a core streams at from there: computed once
    // (each is a division, and every page cleared or copied and every line missed asks for one).
    std::vector<double> m_memSlowdown;
    std::vector<MemoryBandwidth::Rate> m_memRate;
    std::size_t distance(int socket, int node) const
    {
        return static_cast<std::size_t>(socket) * static_cast<std::size_t>(m_machine.nodes()) + static_cast<std::size_t>(node);
    }
    // Per last-level cache: the bytes streamed through it, and that as the cache's clock.
    std::vector<double> m_cacheFilled;
    std::vector<CacheLines::Stamp> m_cacheClock;
    double m_cacheUnitInv = 0; // CacheLines::kUnitsPerCache / the cache's bytes, 0 without a cache size
    void noteCacheFill(int llc, double bytes)
    {
        double& f = m_cacheFilled[static_cast<std::size_t>(llc)];
        f += bytes;
        m_cacheClock[static_cast<std::size_t>(llc)] = static_cast<CacheLines::Stamp>(
            static_cast<std::uint64_t>(f * m_cacheUnitInv));
    }
    int selectIdleSibling(const Task& t) const;
    // idle_balance() for `c`, whose run queue is empty: the busiest run queue of its last-level cache (the LLC
    // domain), then of the machine, gives up the first task queued there that may run on `c` and is not cache-hot
    // (a hot one once c.balanceFailed exceeds kCacheNiceTries). Returns whether a task came.
    // `newidle`: from schedule() as c goes idle (the rate limit applies), else from c's idle tick.
    bool idleBalance(Cpu& c, bool newidle = true);
    // IdleBalance::tick: a task was queued behind a running one; every idle CPU without a balance due gets one at
    // its next tick. At the tick (idleTick) the CPU pulls a task, or tries again after its doubled interval while a
    // task it may run still waits somewhere.
    void armIdleTicks();
    void armIdleTick(Cpu& c, Time at);
    void idleTick(Cpu& c);
    // Task::siblingCurrent of a task on `cpu`: the SMT sibling CPU's current, null with one thread a core.
    Task* const* siblingCurrentOf(int cpu) const;
};

} // namespace mms
