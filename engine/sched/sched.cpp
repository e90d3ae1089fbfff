#include "sched/sched.h"

#include <algorithm>
#include <cmath>

namespace mms {

namespace {
    Co<> taskMain(Sched& s, Task& t, Co<> body)
    {
        try {
            co_await body;
        } catch (...) {
            s.noteTaskError(std::current_exception());
        }
        co_await s.flush(t);
        s.taskExit(t);
    }

    // The time of t not yet counted to a CPU that has passed on the clock of t.cpu: all of it but t.debt, the time
    // charged and not yet spent (an interrupt taken while the task was switching out), which passes on the CPU the
    // task runs on next and counts there; that is system time first.
    CpuTime spentOnCpu(const Task& t)
    {
        const Time pendingSteal = std::min(t.debt, t.stealTime - t.stealSettled);
        const Time pendingSys = std::min(t.debt - pendingSteal, t.sysTime - t.sysSettled);
        const Time pendingUser = t.debt - pendingSteal - pendingSys;
        return { t.userTime - t.userSettled - pendingUser, t.sysTime - t.sysSettled - pendingSys, 0,
            t.stealTime - t.stealSettled - pendingSteal };
    }
} // namespace

Sched::Sched(Simulator& sim, const MachineSpec& machine)
    : m_sim(sim)
    , m_machine(machine)
    // Interleaved memory is one pool of every socket's controllers: each transfer spreads evenly over them all.
    , m_mem(machine.nodes(), machine.coreCount(), machine.threadsPerCore,
          machine.socketMemGBps * machine.sockets / machine.nodes(), machine.cost.memCoreGBps)
{
    m_cpus.resize(static_cast<std::size_t>(machine.cpus));
    for (int i = 0; i < machine.cpus; ++i) {
        m_cpus[static_cast<std::size_t>(i)].id = i;
        m_cpus[static_cast<std::size_t>(i)].socket = machine.socketOf(i);
        m_cpus[static_cast<std::size_t>(i)].core = machine.coreOf(i);
        m_cpus[static_cast<std::size_t>(i)].llc = machine.llcOf(i);
    }
    // Each CPU's SMT sibling (MachineSpec::coreOf: CPUs i and i + cores a socket share a core); with more than two
    // threads a core, the next one round the core.
    if (machine.threadsPerCore > 1)
        for (Cpu& c : m_cpus)
            for (int step = 1; step < machine.cpus && c.sibling < 0; ++step) {
                const Cpu& other = m_cpus[static_cast<std::size_t>((c.id + step) % machine.cpus)];
                if (other.core == c.core)
                    c.sibling = other.id;
            }
    for (int socket = 0; socket < std::max(1, machine.sockets); ++socket)
        for (int node = 0; node < machine.nodes(); ++node) {
            m_memSlowdown.push_back(machine.memSlowdown(socket, node));
            m_memRate.push_back(m_mem.rate(m_memSlowdown.back()));
        }
    m_cacheFilled.assign(static_cast<std::size_t>(machine.llcCount()), 0.0);
    m_cacheClock.assign(m_cacheFilled.size(), 0);
    m_haltedWake = ns(machine.cost.haltedVcpuWakeNs);
    if (machine.guest != Guest::None && machine.guestPreempt > 0) {
        m_host = std::make_unique<HostPreemption>();
        m_host->share = machine.guestPreempt;
        m_host->slice = ns(machine.cost.vcpuPreemptMaxNs);
        m_host->pleBoost = ns(machine.cost.pleBoostNs);
        m_host->meanRunPs = static_cast<double>(m_host->slice) * (1.0 - machine.guestPreempt) / machine.guestPreempt;
    }
    if (machine.cost.llcBytes > 0)
        m_cacheUnitInv = CacheLines::kUnitsPerCache / machine.cost.llcBytes;
}

void Sched::hostSteals(Task& t)
{
    const Time ran = t.userTime + t.sysTime - t.stealClock;
    t.stealClock += ran;
    for (t.runToSteal -= ran; t.runToSteal <= 0; t.runToSteal += t.host->nextRun()) {
        const Time stolen = t.host->stolen();
        t.debt += stolen;
        t.stealTime += stolen;
    }
}

Sched::~Sched()
{
    for (auto h : m_bodies)
        h.destroy();
}

Task& Sched::spawn(std::string name, int cpu, bool kthread, MmStruct* mm, std::uint64_t seed)
{
    auto t = std::make_unique<Task>();
    t->id = static_cast<std::uint32_t>(m_tasks.size());
    t->name = std::move(name);
    t->cpu = cpu % cpuCount();
    t->siblingCurrent = siblingCurrentOf(t->cpu);
    t->smtNum = 2000;
    t->smtDen = std::max<std::int64_t>(1, std::llround(1000 * m_machine.cost.smtThroughput));
    t->kthread = kthread;
    t->mm = mm;
    t->rng = Rng(seed);
    if (m_host) {
        t->host = m_host.get();
        t->runToSteal = m_host->nextRun();
    }
    t->sleepAvg = kO1ChildSleepAvg;
    t->prio = o1Prio(*t);
    m_tasks.push_back(std::move(t));
    return *m_tasks.back();
}

void Sched::start(Task& t, Co<> body)
{
    auto h = taskMain(*this, t, std::move(body)).release();
    m_bodies.push_back(h);
    t.resumePoint = h;
    t.state = TaskState::Runnable;
    t.started = m_sim.now();
    ++m_live;
    m_liveUser += t.kthread ? 0 : 1;
    Cpu& c = cpu(t.cpu);
    c.runq.push_back(&t);
    noteNrRunning(c);
    if (!c.current)
        dispatch(c);
}

namespace {
    // Some run queue holds a task waiting for a CPU that may run on c: an idle c keeps its balancing tick
    // (IdleBalance::tick) while there is one, whether the task was queued while c was idle or c went idle after.
    bool taskWaitsFor(const std::vector<Cpu>& cpus, const Cpu& c)
    {
        for (const Cpu& o : cpus)
            for (std::size_t i = 0; i < o.runq.size(); ++i)
                if (o.runq[i]->allowedOn(c.id))
                    return true;
        return false;
    }

    // The first timer tick after `now` (IdleBalance::tick).
    Time nextTick(Time now) { return (now / Sched::kTick + 1) * Sched::kTick; }
} // namespace

void Sched::dispatch(Cpu& c, bool fromLoop)
{
    if (c.current)
        return;
    if (c.runq.empty() && !(m_idleBalance.on && idleBalance(c))) {
        noteNrRunning(c); // the task that left (slept, yielded, exited), nothing after it
        c.idleSince = m_sim.now();
        if (c.idleStamp < 0)
            c.idleStamp = m_sim.now();
        ++c.switches; // to the idle task
        // What it could not pull now (every waiting task cache-hot), its tick may.
        if (m_idleBalance.tick && !c.tickArmed && taskWaitsFor(m_cpus, c))
            armIdleTick(c, nextTick(m_sim.now()));
        return;
    }
    // The CPU runs again from `start`: at once, or in a guest whose idle vCPU had halted once the host has woken it
    // (CostModel::haltedVcpuWakeNs); until then it stays idle.
    Time start = m_sim.now();
    if (c.idleStamp >= 0) {
        // ttwu_do_wakeup() (update_avg of the idle spell, at most twice the migration cost)
        const Time spell = m_sim.now() - c.idleStamp;
        c.avgIdle = spell > 2 * kMigrationCost ? 2 * kMigrationCost : c.avgIdle + ((spell - c.avgIdle) >> 3);
        c.idleStamp = -1;
        start += m_haltedWake;
    }
    Task* t = pickNext(c);
    c.idleTotal += start - c.idleSince;
    c.current = t;
    noteNrRunning(c);
    c.needResched = false;
    t->o1Stamp = start; // next->timestamp
    ++c.switches;
    if (t->mm)
        c.activeMm = t->mm;
    t->state = TaskState::Running;
    Time sw = switchTime();
    t->sysTime += sw;
    t->sliceStart = start + sw;
    emitSpan(c.id, start, start + sw, SpanKind::Run, "__schedule");
    auto key = static_cast<std::uint32_t>(c.id);
    if (fromLoop && m_sim.runsNext(start + sw, key)) {
        // Nothing else runs before the switch-in: take it now instead of a push and a pop (the same order).
        m_sim.takeInline(start + sw);
        t->resumePoint.resume();
        return;
    }
    m_sim.resumeAt(start + sw, key, t->resumePoint);
}

bool Sched::Flush::await_suspend(std::coroutine_handle<> h)
{
    settleHost(t);
    const Time at = s.spendDebt(t);
    auto key = static_cast<std::uint32_t>(t.cpu);
    if (s.m_sim.runsNext(at, key)) {
        s.m_sim.takeInline(at);
        return false;
    }
    s.m_sim.resumeAt(at, key, h);
    return true;
}

void Sched::Sleep::await_suspend(std::coroutine_handle<> h) { s.block(t, h, interruptible); }

void Sched::offCpu(Task& t)
{
    OffCpuWatch* w = t.offCpuWatch;
    t.offCpuWatch = nullptr;
    while (w) {
        OffCpuWatch* next = w->nextWatch;
        w->nextWatch = nullptr;
        w->ownerOffCpu(t);
        w = next;
    }
}

Task* Sched::pickNext(Cpu& c)
{
    std::size_t best = 0;
    if (m_o1)
        for (std::size_t i = 1; i < c.runq.size(); ++i)
            if (c.runq[i]->prio < c.runq[best]->prio)
                best = i;
    Task* t = c.runq[best];
    c.runq.erase(best);
    return t;
}

void Sched::o1SwitchOut(Task& t, Time at)
{
    if (!m_o1)
        return;
    // schedule(): run_time, at most NS_MAX_SLEEP_AVG, divided by CURRENT_BONUS(prev) (at least 1), off sleep_avg.
    Time run = std::clamp<Time>(at - t.o1Stamp, 0, kO1MaxSleepAvg);
    run /= std::max(1, o1Bonus(t));
    t.sleepAvg = std::max<Time>(0, t.sleepAvg - run);
    t.o1Stamp = at; // prev->timestamp
}

void Sched::o1Wake(Task& t, bool uninterruptible)
{
    const Time now = m_sim.now();
    // recalc_task_prio(): the time slept since the task left its CPU.
    Time slept = now - t.o1Stamp;
    if (slept > 0) {
        const bool user = t.mm != nullptr;
        if (user && slept > kO1InteractiveSleep && t.sleepAvg < kO1InteractiveSleep) {
            t.sleepAvg = kO1InteractiveSleep; // one long sleep does not make a task interactive at once
        } else {
            // A wake-up from an uninterruptible sleep (SLEEP_NONINTERACTIVE: I/O, a semaphore) raises sleep_avg no
            // further than INTERACTIVE_SLEEP.
            if (uninterruptible && user) {
                if (t.sleepAvg >= kO1InteractiveSleep) {
                    slept = 0;
                } else if (t.sleepAvg + slept >= kO1InteractiveSleep) {
                    t.sleepAvg = kO1InteractiveSleep;
                    slept = 0;
                }
            }
            t.sleepAvg += slept;
        }
        t.sleepAvg = std::min(t.sleepAvg, kO1MaxSleepAvg);
    }
    t.prio = o1Prio(t);
    t.o1Stamp = now;
}

void Sched::block(Task& t, std::coroutine_handle<> h, bool interruptible)
{
    offCpu(t);
    t.lastRan = m_sim.now() + t.debt;
    o1SwitchOut(t, t.lastRan);
    ++t.sleepGen;
    t.resumePoint = h;
    t.state = TaskState::Sleeping;
    t.interruptible = interruptible;
    if (t.debt > 0) {
        // The task still has CPU time to spend before it can sleep: it keeps its CPU until then. A wake-up in
        // between only queues it again (the switch below then picks it up).
        const Time at = spendDebt(t);
        m_sim.callAt(
            at, static_cast<std::uint32_t>(t.cpu),
            [](void* ctx, std::uint64_t cpuId) {
                auto* s = static_cast<Sched*>(ctx);
                Cpu& c = s->cpu(static_cast<int>(cpuId));
                c.current = nullptr;
                c.idleSince = s->m_sim.now();
                s->dispatch(c, true);
            },
            this, static_cast<std::uint64_t>(t.cpu));
        return;
    }
    Cpu& c = cpu(t.cpu);
    c.current = nullptr;
    c.idleSince = m_sim.now();
    dispatch(c);
}

void Sched::wake(Task& t, const Task* waker) { tryToWakeUp(t, false, waker); }

void Sched::wakeFromLoop(Task& t) { tryToWakeUp(t, true, nullptr); }

void Sched::tryToWakeUp(Task& t, bool fromLoop, const Task* waker)
{
    if (t.state != TaskState::Sleeping)
        return;
    t.state = TaskState::Runnable;
    const bool uninterruptible = !t.interruptible;
    t.interruptible = false;
    if (m_o1)
        set_task_cpu(t, o1WakeCpu(t, waker ? waker->cpu : t.cpu));
    if (m_wakeIdleSibling)
        set_task_cpu(t, selectIdleSibling(t));
    Cpu& c = cpu(t.cpu);
    c.runq.push_back(&t);
    noteNrRunning(c);
    if (m_o1) {
        o1Wake(t, uninterruptible);
        if (c.current && t.prio < c.current->prio) // TASK_PREEMPTS_CURR: resched_task()
            c.needResched = true;
    }
    if (!c.current)
        dispatch(c, fromLoop);
    else if (m_idleBalance.tick)
        armIdleTicks();
}

void Sched::armIdleTicks()
{
    const Time next = nextTick(m_sim.now());
    for (Cpu& o : m_cpus)
        if (!o.current && o.runq.empty() && !o.tickArmed)
            armIdleTick(o, next);
}

void Sched::armIdleTick(Cpu& c, Time at)
{
    if (c.balanceInterval == 0)
        c.balanceInterval = kMinBalanceInterval;
    c.tickArmed = true;
    m_sim.callAt(
        at, static_cast<std::uint32_t>(c.id),
        [](void* ctx, std::uint64_t cpuId) {
            auto* s = static_cast<Sched*>(ctx);
            s->idleTick(s->cpu(static_cast<int>(cpuId)));
        },
        this, static_cast<std::uint64_t>(c.id));
}

void Sched::idleTick(Cpu& c)
{
    c.tickArmed = false;
    if (c.current || !c.runq.empty())
        return; // busy again: it balances as it next goes idle
    if (idleBalance(c, false)) {
        c.balanceInterval = kMinBalanceInterval;
        dispatch(c, true);
        return;
    }
    // load_balance() found nothing it could move: the interval doubles up to the domain's maximum.
    c.balanceInterval = std::min(2 * c.balanceInterval, kMaxBalanceInterval);
    if (taskWaitsFor(m_cpus, c))
        armIdleTick(c, m_sim.now() + c.balanceInterval);
}

void Sched::set_task_cpu(Task& t, int to)
{
    if (to == t.cpu)
        return;
    const CpuTime here = spentOnCpu(t);
    Cpu& from = cpu(t.cpu);
    from.userTime += here.user;
    from.sysTime += here.sys;
    from.stealTime += here.steal;
    t.userSettled += here.user;
    t.sysSettled += here.sys;
    t.stealSettled += here.steal;
    t.cpu = to;
    t.siblingCurrent = siblingCurrentOf(to);
}

Task* const* Sched::siblingCurrentOf(int c) const
{
    const int sibling = cpu(c).sibling;
    return sibling < 0 ? nullptr : &cpu(sibling).current;
}

int Sched::forkBalanceCpu(const Task& parent) const
{
    auto load = [this](int i) { return (cpu(i).current ? 1u : 0u) + cpu(i).runq.size(); };
    int best = parent.cpu;
    for (int i = 0; i < cpuCount(); ++i)
        if (parent.allowedOn(i) && load(i) < load(best))
            best = i;
    return best;
}

void Sched::noteNrRunning(Cpu& c)
{
    if (!m_o1) // only the O(1) scheduler's wake-ups read it
        return;
    const Time tick = m_sim.now() / kTick;
    if (tick != c.nrTick) // a tick since the last change saw the count held until now
        c.nrAtTick = c.nrHeld;
    c.nrHeld = nrRunning(c);
    c.nrTick = tick;
}

std::uint32_t Sched::nrAtLastTick(const Cpu& c) const
{
    return m_sim.now() / kTick != c.nrTick ? c.nrHeld : c.nrAtTick;
}

// try_to_wake_up() of 2.6.20 (kernel/sched.c) with the domains of include/linux/topology.h (SD_MC_INIT, SD_CPU_INIT:
// wake_idx 1, imbalance_pct 125, SD_WAKE_AFFINE, neither SD_WAKE_BALANCE nor SD_WAKE_IDLE) for a wake-up that is not
// sync (a lock's release, a futex, a socket's data: wake_up_process(), wake_up_interruptible()). Woken from another
// CPU it may run on, t moves to the waker's CPU when that one's load, counted high (target_load: the larger of the
// last tick's sample and now), is no more than half imbalance_pct's 25 % above t's CPU's, counted low
// (source_load: the smaller), with t's own weight added: 100 * (this_load + 128) <= 112 * load, i.e. t's CPU has
// a task more than the waker's at the last tick and now. (The other test, this_load <= load and this_load plus t's
// CPU's load counted high <= one task's weight, holds only for a waker's CPU with nothing on it.) Else t goes back
// where it ran. Then wake_idle(), which only the SMT domain enables: a CPU running one task gives t to its idle
// sibling thread. Across NUMA nodes (SD_NODE_INIT's wake balancing) t stays where it ran.
int Sched::o1WakeCpu(const Task& t, int thisCpu)
{
    constexpr std::uint64_t kLoadScale = 128; // SCHED_LOAD_SCALE: a nice-0 task's load_weight
    constexpr std::uint64_t kImbalance = 100 + (125 - 100) / 2;
    int target = t.cpu;
    const Cpu& prev = cpu(t.cpu);
    Cpu& here = cpu(thisCpu);
    if (thisCpu != t.cpu && t.allowedOn(thisCpu) && m_machine.nodeOf(thisCpu) == m_machine.nodeOf(t.cpu)) {
        const std::uint64_t prevNow = kLoadScale * nrRunning(prev), prevTick = kLoadScale * nrAtLastTick(prev);
        const std::uint64_t hereNow = kLoadScale * nrRunning(here), hereTick = kLoadScale * nrAtLastTick(here);
        const std::uint64_t load = std::min(prevTick, prevNow); // source_load(cpu, wake_idx)
        const std::uint64_t tl = std::max(hereTick, hereNow); // target_load(this_cpu, wake_idx)
        // cpu_avg_load_per_task(this_cpu)
        const std::uint64_t tlPerTask = nrRunning(here) ? hereNow / nrRunning(here) : kLoadScale;
        if ((tl <= load && tl + std::max(prevTick, prevNow) <= tlPerTask)
            || 100 * (tl + kLoadScale) <= kImbalance * load) {
            target = thisCpu;
            ++here.affineWakeups;
        }
    }
    const Cpu& c = cpu(target);
    if (!c.current || nrRunning(c) > 1 || c.sibling < 0)
        return target;
    const Cpu& sibling = cpu(c.sibling);
    return t.allowedOn(sibling.id) && !sibling.current ? sibling.id : target;
}

int Sched::selectIdleSibling(const Task& t) const
{
    const int target = t.cpu;
    auto idle = [this, &t](int i) { return t.allowedOn(i) && !cpu(i).current && cpu(i).runq.empty(); };
    if (idle(target))
        return target;
    // The target's last-level cache (the LLC domain, sd_llc) first, then the others, each scanned from the target
    // on: one scan that returns the first idle CPU of the cache and otherwise the first idle one of another.
    const int n = cpuCount();
    const int llc = cpu(target).llc;
    int other = target;
    auto scan = [&](int from, int to) {
        for (int i = from; i < to; ++i)
            if (idle(i)) {
                if (cpu(i).llc == llc)
                    return i;
                if (other == target)
                    other = i;
            }
        return -1;
    };
    if (int i = scan(target + 1, n); i >= 0)
        return i;
    if (int i = scan(0, target); i >= 0)
        return i;
    return other;
}

void Sched::setIdleBalance(IdleBalance b)
{
    m_idleBalance = b;
    for (Cpu& c : m_cpus)
        c.avgIdle = 2 * kMigrationCost; // sched_init(): rq->avg_idle = 2 * sysctl_sched_migration_cost
}

bool Sched::idleBalance(Cpu& c, bool newidle)
{
    if (newidle && m_idleBalance.rateLimit && c.avgIdle < kMigrationCost)
        return false;
    const Time now = m_sim.now();
    // The longest run queue of c's last-level cache (the LLC domain) and of the other CPUs, in one scan of the CPUs.
    Cpu* busiestIn[2] = { nullptr, nullptr };
    for (Cpu& o : m_cpus) {
        if (&o == &c || o.runq.empty())
            continue;
        Cpu*& b = busiestIn[o.llc == c.llc ? 0 : 1];
        if (!b || o.runq.size() > b->runq.size())
            b = &o;
    }
    for (Cpu* busiest : busiestIn) {
        if (!busiest)
            continue;
        // can_migrate_task(): allowed on c, and not cache-hot unless balancing has failed more than cache_nice_tries
        bool hotOnly = false;
        for (std::size_t i = 0; i < busiest->runq.size(); ++i) {
            Task* t = busiest->runq[i];
            if (!t->allowedOn(c.id))
                continue;
            if (t->lastRan >= 0 && now - t->lastRan < kMigrationCost && c.balanceFailed <= kCacheNiceTries) {
                hotOnly = true;
                continue;
            }
            busiest->runq.erase(i);
            noteNrRunning(*busiest);
            set_task_cpu(*t, c.id);
            c.runq.push_back(t);
            noteNrRunning(c);
            c.balanceFailed = 0;
            return true;
        }
        if (hotOnly)
            ++c.balanceFailed;
    }
    return false;
}

Co<> Sched::cond_resched(Task& t)
{
    co_await flush(t);
    if (preemptPending(t)) {
        co_await preempt(t);
        co_return;
    }
    if (cpu(t.cpu).runq.empty() || m_sim.now() - t.sliceStart < timeSlice())
        co_return;
    co_await yield(t);
}

// schedule() with the running task still runnable: it goes back on its CPU's queue, at the front (preempted: still
// first among its priority) or at the back (its slice used up, or sched_yield()), and the CPU switches.
struct Sched::Requeue {
    Sched& s;
    Task& t;
    bool front;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h)
    {
        Cpu& c = s.cpu(t.cpu);
        offCpu(t);
        t.lastRan = s.m_sim.now();
        s.o1SwitchOut(t, t.lastRan);
        t.resumePoint = h;
        t.state = TaskState::Runnable;
        if (front)
            c.runq.push_front(&t);
        else
            c.runq.push_back(&t);
        c.current = nullptr;
        c.idleSince = s.m_sim.now();
        s.dispatch(c);
    }
    void await_resume() const noexcept { }
};

Co<> Sched::preempt(Task& t)
{
    co_await flush(t);
    Cpu& c = cpu(t.cpu);
    c.needResched = false;
    // The task that set need_resched may have gone to another CPU's idle balance meanwhile: then t runs on.
    bool better = false;
    for (std::size_t i = 0; i < c.runq.size() && !better; ++i)
        better = c.runq[i]->prio < t.prio;
    if (!better)
        co_return;
    ++c.preemptions;
    co_await Requeue { *this, t, true };
}

Co<> Sched::yield(Task& t)
{
    co_await flush(t);
    if (cpu(t.cpu).runq.empty())
        co_return;
    co_await Requeue { *this, t, false };
}

Co<> Sched::sleepFor(Task& t, Time d, bool interruptible) { co_await sleepTimeout(t, d, interruptible); }

Co<> Sched::sleepTimeout(Task& t, Time timeout, bool interruptible)
{
    co_await flush(t);
    std::uint64_t arg = (static_cast<std::uint64_t>(t.id) << 32) | (t.sleepGen + 1u);
    m_sim.callAt(
        m_sim.now() + timeout, static_cast<std::uint32_t>(t.cpu),
        [](void* ctx, std::uint64_t a) {
            auto* s = static_cast<Sched*>(ctx);
            Task& t = *s->m_tasks[a >> 32];
            if (t.sleepGen == static_cast<std::uint32_t>(a))
                s->wakeFromLoop(t); // the timer's own event: the woken task may run inline
        },
        this, arg);
    co_await sleep(t, interruptible);
}

void Sched::interrupt(int cpuId, double handleNs)
{
    Cpu& c = cpu(cpuId);
    ++c.ipisReceived;
    if (!c.current)
        return;
    Task& t = *c.current;
    if (!t.spinning) {
        burn(t, handleNs, Acct::Sys);
        return;
    }
    // The handler interrupts the spin loop (its time is the spin's, already system time); handlers taken back to
    // back run one after another.
    t.irqUntil = std::max(t.irqUntil, m_sim.now()) + ns(handleNs);
}

void Sched::taskExit(Task& t)
{
    offCpu(t);
    t.state = TaskState::Done;
    t.finished = m_sim.now();
    --m_live;
    m_liveUser -= t.kthread ? 0 : 1;
    Cpu& c = cpu(t.cpu);
    c.current = nullptr;
    c.idleSince = m_sim.now();
    dispatch(c);
}

Time Sched::idleTime(int i) const
{
    const Cpu& c = cpu(i);
    return c.idleTotal + (c.current ? 0 : m_sim.now() - c.idleSince);
}

Time Sched::idleTotal() const
{
    Time total = 0;
    for (int i = 0; i < cpuCount(); ++i)
        total += idleTime(i);
    return total;
}

std::vector<CpuTime> Sched::cpuTimes() const
{
    std::vector<CpuTime> out(m_cpus.size());
    for (std::size_t i = 0; i < m_cpus.size(); ++i) {
        out[i].user = m_cpus[i].userTime;
        out[i].sys = m_cpus[i].sysTime;
        out[i].idle = idleTime(static_cast<int>(i));
        out[i].steal = m_cpus[i].stealTime;
    }
    // What each task has spent on the CPU it is on now (or ended on).
    for (const auto& t : m_tasks) {
        const CpuTime here = spentOnCpu(*t);
        CpuTime& c = out[static_cast<std::size_t>(t->cpu)];
        c.user += here.user;
        c.sys += here.sys;
        c.steal += here.steal;
    }
    return out;
}

} // namespace mms
