#include "sync/mutex.h"

#include <algorithm>

namespace mms {

// The timeline (recordings) of a contended acquisition: while the waiter spins its CPU is busy (LockWait); while it
// sleeps the CPU runs another task or idles, and the sleep is drawn as its task's (LockSleep) on the CPU it slept
// on. lock_stat's waittime (and the CPUs x locks map) counts the whole wait.
void Mutex::traceWait(Sched& s, int cpu, Time from, Time to, SpanKind kind) const
{
    if (s.trace() && to > from)
        s.trace()->span(cpu, from, to, kind, m_stat.name.c_str());
}

// Just after a Sleep resumed (see Sched::traceSleep).
void Mutex::traceSleep(Sched& s, int cpu, Time from) const
{
    s.traceSleep(cpu, from, SpanKind::LockSleep, m_stat.name.c_str());
}

Co<> Mutex::lock(Sched& s, Task& t)
{
    if (s.locking().debug()) // a debug kernel's wait_lock round trip and checks (mm/kconfig.h)
        Sched::burn(t, s.locking().mutexOpNs + s.locking().acquireNs);
    co_await s.flush(t);
    if (s.mightSleepPreempts(t)) // mutex_lock(): might_sleep()
        co_await s.preempt(t);
    const Time since = s.sim().now();
    if (!m_owner && m_freeAt > since) {
        co_await lockAtRelease(s, t, since);
        co_return;
    }
    if (!m_owner) { // free (waiters being woken or not: 3.x lets a running task take it)
        m_stat.noteAcquire(t.cpu, m_lastCpu, 0, false);
        Sched::burn(t, s.cost().lockedRmwNs + s.lineTransferNs(m_lastCpu, t.cpu));
        m_owner = &t;
        m_lastCpu = t.cpu;
        m_acquiredAt = since;
        co_return;
    }
    if (spinsOnOwner(s)) {
        const bool taken = co_await mutex_optimistic_spin(s, t, since);
        if (taken)
            co_return;
    }
    traceWait(s, t.cpu, since, s.sim().now(), SpanKind::LockWait); // the optimistic spin, if any
    co_await sleepUntilFree(s, t, since);
    takeAfterSleep(s, t, since);
}

// Released by a holder whose release lies ahead on the clock: it is still running, spending the CPU time of its
// critical section. With spin-on-owner the acquirer polls until the release (mutex_spin_on_owner); without it (or if
// it must reschedule) it sleeps and is handed the mutex at the release.
Co<> Mutex::lockAtRelease(Sched& s, Task& t, Time since)
{
    Time at = m_freeAt + ns(s.lineTransferNs(m_lastCpu, t.cpu));
    m_owner = &t;
    if (spinsOnOwner(s) && !s.need_resched(t)) {
        t.sysTime += at - since;
        co_await ResumeAt { s.sim(), at, static_cast<std::uint32_t>(t.cpu) };
        take(s, t, since, since);
        co_return;
    }
    std::uint64_t arg = (static_cast<std::uint64_t>(t.id) << 32) | (t.sleepGen + 1u);
    s.sim().callAt(
        at, static_cast<std::uint32_t>(t.cpu),
        [](void* ctx, std::uint64_t a) {
            auto* sched = static_cast<Sched*>(ctx);
            sched->wakeIf(*sched->tasks()[a >> 32], static_cast<std::uint32_t>(a));
        },
        &s, arg);
    const int cpu = t.cpu;
    co_await s.sleep(t);
    traceSleep(s, cpu, since);
    take(s, t, since, s.sim().now());
}

// __mutex_lock_common(), 2.6.29-3.x (the loop later kernels call mutex_optimistic_spin(), kernel/locking/mutex.c):
// spin while the owner runs; try to take the mutex whenever it is seen free; if another spinner took it first, spin
// on the new owner. Give up (and sleep) when the owner is off its CPU or this task must reschedule. There is no MCS
// queue before 3.15: every spinner polls. Returns whether the spinner took the mutex.
Co<bool> Mutex::mutex_optimistic_spin(Sched& s, Task& t, Time since)
{
    for (;;) {
        Task* owner = m_owner;
        if (owner) {
            bool released = co_await mutex_spin_on_owner(s, t, owner);
            if (!released)
                co_return false;
        }
        Time now = s.sim().now();
        if (!m_owner && m_freeAt <= now) { // atomic_cmpxchg(&lock->count, 1, 0) == 1
            take(s, t, since, since);
            co_return true;
        }
        if (!m_owner) { // released at a moment that lies ahead: its holder still runs until then
            t.sysTime += m_freeAt - now;
            co_await ResumeAt { s.sim(), m_freeAt, static_cast<std::uint32_t>(t.cpu) };
            continue;
        }
        if (s.need_resched(t))
            co_return false;
    }
}

// __mutex_lock_common() (2.6.x-4.9): sleep until an unlock wakes us, then try again. There is no hand-off: unlock
// releases the mutex and wakes the first waiter, and whoever comes first while that waiter is being woken and
// switched in takes it (a running task, or a spinner); the waiter then sleeps again, first in line. Returns with
// the mutex owned.
Co<> Mutex::sleepUntilFree(Sched& s, Task& t, Time since)
{
    // Whether this task's entry is on the list: unlock() clears it as it takes the entry off, so that neither the
    // acquisition nor the return to the head of the list searches the list (hundreds of waiters on a shared file's
    // i_mmap_mutex). The note lives in this frame, which outlives the entry: the frame leaves this function only
    // with its entry off the list, and frames are destroyed only with the run (Sched::~Sched), when nothing unlocks.
    bool queued = true;
    m_waiters.push_back(Waiter { &t, since, &queued });
    for (;;) {
        Time now = s.sim().now();
        if (m_owner == &t) // __mutex_handoff(): the unlock that woke us made us the owner
            co_return;
        if (!m_owner && m_freeAt <= now) {
            if (queued) {
                dropWaiter(t);
                queued = false;
            }
            m_owner = &t;
            m_handoff = false; // the first waiter has it: the flag is spent
            co_return;
        }
        if (!m_owner) { // released by a holder whose release lies ahead on the clock: wait for that moment
            t.sysTime += m_freeAt - now;
            traceWait(s, t.cpu, now, m_freeAt, SpanKind::LockWait);
            co_await ResumeAt { s.sim(), m_freeAt, static_cast<std::uint32_t>(t.cpu) };
            continue;
        }
        if (!queued) {
            // Woken, and the mutex taken again before we ran: first in line once more. From 4.10 the first waiter
            // then sets MUTEX_FLAG_HANDOFF, so that the next unlock hands the mutex to it.
            m_waiters.push_front(Waiter { &t, since, &queued });
            queued = true;
            m_handoff = s.locking().mutexHandoff;
        }
        const int cpu = t.cpu;
        const Time asleep = now + t.debt; // Sched::block() spends pending CPU time before the switch
        co_await s.sleep(t);
        traceSleep(s, cpu, asleep);
        co_await s.flush(t);
    }
}

// Takes t's entry off the list, wherever it is (nearly always the last: a waiter that finds the mutex free at once).
void Mutex::dropWaiter(const Task& t)
{
    auto it = std::find_if(m_waiters.rbegin(), m_waiters.rend(), [&](const Waiter& w) { return w.t == &t; });
    if (it != m_waiters.rend())
        m_waiters.erase(std::next(it).base());
}

// The acquisition that ends a sleeping wait: lock_stat's wait since `since`, and the cmpxchg on a line the last
// holder's CPU wrote.
void Mutex::takeAfterSleep(Sched& s, Task& t, Time since)
{
    Time waited = s.sim().now() - since;
    m_stat.noteAcquire(t.cpu, m_lastCpu, waited, true);
    m_stat.addToBuckets(m_stat.waitPerBucket, since, s.sim().now());
    Sched::burn(t, s.cost().lockedRmwNs + s.lineTransferNs(m_lastCpu, t.cpu));
    m_lastCpu = t.cpu;
    m_acquiredAt = s.sim().now();
}

void Mutex::unlock(Sched& s, Task& t)
{
    if (s.locking().debug())
        Sched::burn(t, s.locking().mutexOpNs + s.locking().releaseNs);
    Time releaseAt = s.sim().now() + t.debt;
    m_stat.noteHold(releaseAt - m_acquiredAt);
    m_stat.addToBuckets(m_stat.holdPerBucket, m_acquiredAt, releaseAt);
    unwatch(t);
    m_owner = nullptr;
    m_freeAt = releaseAt;
    Waiter w {};
    if (m_handoff && !m_waiters.empty()) {
        // __mutex_unlock_slowpath() with MUTEX_FLAG_HANDOFF: __mutex_handoff() makes the first waiter the owner
        // before waking it; the spinners see a new owner that is not running and go to sleep.
        w = m_waiters.front();
        m_waiters.pop_front();
        *w.queued = false;
        m_handoff = false;
        m_owner = w.t;
        stopSpinners(s, releaseAt, t.cpu);
    } else {
        // The spinners see the release when the lock's cacheline reaches them; the first to try takes it.
        stopSpinners(s, releaseAt, t.cpu);
        if (m_waiters.empty())
            return;
        // __mutex_unlock_slowpath(): release, then wake the first waiter (it leaves the list when it gets the mutex).
        w = m_waiters.front();
        m_waiters.pop_front();
        *w.queued = false;
    }
    Sched::burn(t, s.wakeupNs());
    s.sim().callAt(
        releaseAt, static_cast<std::uint32_t>(t.cpu),
        [](void* ctx, std::uint64_t id) {
            auto* sched = static_cast<Sched*>(ctx);
            sched->wake(*sched->tasks()[id]);
        },
        &s, w.t->id);
}

Co<bool> Mutex::mutex_spin_on_owner(Sched& s, Task& t, Task* owner)
{
    // owner_running(): the owner is on a CPU. A sleeping or preempted owner may be away for long: sleep instead.
    if (owner->state == TaskState::Running && !s.need_resched(t)) {
        Time start = s.sim().now();
        s.spinBegins(t);
        co_await SpinOnOwner { *this, s, t };
        s.spinEnded(t);
        t.sysTime += s.sim().now() - start; // arch_mutex_cpu_relax() polls: the spinner's CPU is busy
    }
    co_return m_owner == nullptr;
}

void Mutex::SpinOnOwner::await_suspend(std::coroutine_handle<> h)
{
    m.m_sched = &s;
    std::uint64_t serial = ++m.m_spinSerial;
    m.m_spinners.push_back(Spinner { &t, h, serial });
    // Watch the owner's on_cpu: unless already watched, this mutex joins the owner's chain.
    Task& owner = *m.m_owner;
    bool watched = false;
    for (OffCpuWatch* w = owner.offCpuWatch; w; w = w->nextWatch)
        watched = watched || w == &m;
    if (!watched) {
        m.nextWatch = owner.offCpuWatch;
        owner.offCpuWatch = &m;
    }
    // The scheduler tick at the end of the slice sets need_resched if others wait on this CPU.
    Time tick = std::max(t.sliceStart + s.timeSlice(), s.sim().now() + 1);
    s.sim().callAt(tick, static_cast<std::uint32_t>(t.cpu), &Mutex::endSpin, &m, serial);
}

void Mutex::endSpin(void* ctx, std::uint64_t serial)
{
    auto& m = *static_cast<Mutex*>(ctx);
    auto it = std::find_if(
        m.m_spinners.begin(), m.m_spinners.end(), [&](const Spinner& sp) { return sp.serial == serial; });
    if (it == m.m_spinners.end())
        return; // that spin is over
    Sched& s = *m.m_sched;
    Task& t = *it->t;
    if (!s.need_resched(t)) { // nobody waits for this CPU: spin on, look again at the next tick
        s.sim().callAt(
            s.sim().now() + s.timeSlice(), static_cast<std::uint32_t>(t.cpu), &Mutex::endSpin, &m, serial);
        return;
    }
    std::coroutine_handle<> h = it->h;
    m.m_spinners.erase(it);
    s.sim().resumeAt(s.sim().now(), static_cast<std::uint32_t>(t.cpu), h);
}

void Mutex::unwatch(Task& owner)
{
    for (OffCpuWatch** w = &owner.offCpuWatch; *w; w = &(*w)->nextWatch)
        if (*w == this) {
            *w = nextWatch;
            nextWatch = nullptr;
            return;
        }
}

void Mutex::ownerOffCpu(Task&)
{
    // Sched::offCpu() has emptied the owner's chain; the spinners see owner_running() fail and go to sleep.
    if (m_sched)
        stopSpinners(*m_sched, m_sched->sim().now(), -1);
}

void Mutex::stopSpinners(Sched& s, Time at, int fromCpu)
{
    // With the MCS queue (3.10 on) one spinner polls, and the release reaches it in one transfer (the others follow
    // it up the queue). Before it every spinner polls the lock's line and tries its cmpxchg when it sees the release:
    // the line is served to them one at a time, and a spinner's reload waits, on average, behind half of the others'
    // (Boyd-Wickizer et al., "Non-scalable locks are dangerous", Linux Symposium 2012, as for a ticket spinlock).
    double allReloadNs = 0;
    if (!s.locking().mutexMcs)
        for (const Spinner& sp : m_spinners)
            allReloadNs += s.lineTransferNs(fromCpu, sp.t->cpu);
    for (const Spinner& sp : m_spinners) {
        const double own = s.lineTransferNs(fromCpu, sp.t->cpu);
        const double others = s.locking().mutexMcs ? 0.0 : allReloadNs - own;
        Time when = at + ns(own + others / 2);
        s.sim().resumeAt(when, static_cast<std::uint32_t>(sp.t->cpu), sp.h);
    }
    m_spinners.clear();
}

void Mutex::take(Sched& s, Task& t, Time since, Time spinSince)
{
    Time now = s.sim().now();
    m_stat.noteAcquire(t.cpu, m_lastCpu, now - since, true);
    m_stat.addToBuckets(m_stat.waitPerBucket, since, now);
    traceWait(s, t.cpu, spinSince, now, SpanKind::LockWait);
    // The poll already brought the lock's line here; the cmpxchg is one locked RMW.
    Sched::burn(t, s.cost().lockedRmwNs);
    m_owner = &t;
    m_lastCpu = t.cpu;
    m_acquiredAt = now;
}

} // namespace mms
