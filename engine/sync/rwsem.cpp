#include "sync/rwsem.h"

#include <algorithm>

namespace mms {

namespace {
    // RWSEM_WAIT_TIMEOUT: DIV_ROUND_UP(HZ, 250) jiffies, 4 ms (kernel/locking/rwsem.c, 5.3 on).
    constexpr double kRwsemWaitTimeoutNs = 4'000'000.0;
} // namespace

RwSem::RwSem(std::string name, RwsemImpl impl)
    : m_impl(impl)
{
    m_waitLock.setGuardsItsLine(true); // struct rw_semaphore: its count and wait list beside the lock
    setName(std::move(name));
    m_stat.kind = "rwsem";
}

void RwSem::setName(std::string n)
{
    m_waitLock.setName(n + ".wait_lock");
    m_stat.name = std::move(n);
}

void RwSem::countOp(Sched& s, Task& t)
{
    Sched::burn(t, s.cost().lockedRmwNs + s.lineTransferNs(m_lastCpu, t.cpu));
    m_lastCpu = t.cpu;
}

void RwSem::noteGranted(Sched& s, Task& t, Time since, bool contended)
{
    Time now = s.sim().now();
    if (s.locking().debug()) // a debug kernel's checks (mm/kconfig.h)
        Sched::burn(t, s.locking().acquireNs + (contended ? s.locking().contendedNs : 0.0));
    m_stat.noteAcquire(t.cpu, m_lastCpu, now - since, contended);
    if (contended)
        m_stat.addToBuckets(m_stat.waitPerBucket, since, now);
    auto h = std::find_if(m_holders.begin(), m_holders.end(), [&](const Holder& x) { return x.task == t.id; });
    if (h == m_holders.end())
        m_holders.push_back({ t.id, now + t.debt });
    else // a reader taking it again: the hold is timed from the latest acquisition
        h->since = now + t.debt;
}

// The Xadd fast path: xadd on the count, no wait_lock.
void RwSem::grantFast(Sched& s, Task& t, bool write)
{
    Time since = s.sim().now();
    countOp(s, t);
    (write ? m_writer = true : (++m_readers, true));
    if (write)
        m_owner = &t; // rwsem_set_owner()
    noteGranted(s, t, since, false);
}

// The hold time of the task's acquisition, at the release (the task's own time: the clock plus its pending CPU
// time, which is none after a flush).
void RwSem::noteReleased(Sched& s, Task& t)
{
    if (s.locking().debug()) // a debug kernel's checks (mm/kconfig.h)
        Sched::burn(t, s.locking().releaseNs);
    Time now = s.sim().now() + t.debt;
    auto h = std::find_if(m_holders.begin(), m_holders.end(), [&](const Holder& x) { return x.task == t.id; });
    if (h != m_holders.end()) {
        Time since = h->since;
        m_stat.noteHold(now - since);
        m_stat.addToBuckets(m_stat.holdPerBucket, since, now);
        *h = m_holders.back();
        m_holders.pop_back();
    }
}

MaybeCo RwSem::down_read_flushed(Sched& s, Task& t)
{
    if (s.mightSleepPreempts(t)) [[unlikely]]
        return acquire(s, t, false, true);
    if (fastPath() && canGrant(false)) {
        grantFast(s, t, false);
        return {};
    }
    return acquire(s, t, false, true);
}

MaybeCo RwSem::up_read_flushed(Sched& s, Task& t)
{
    if (fastPath() && m_waiters.empty()) {
        noteReleased(s, t);
        countOp(s, t);
        --m_readers;
        return {};
    }
    return release(s, t, false, true);
}

bool RwSem::down_read_trylock(Sched& s, Task& t)
{
    if (m_impl != RwsemImpl::Xadd || !canGrant(false))
        return false;
    grantFast(s, t, false);
    return true;
}

bool RwSem::up_read_nowait(Sched& s, Task& t)
{
    if (m_impl != RwsemImpl::Xadd || !m_waiters.empty())
        return false;
    noteReleased(s, t);
    countOp(s, t);
    --m_readers;
    return true;
}

Co<> RwSem::acquire(Sched& s, Task& t, bool write, bool flushed)
{
    if (!flushed)
        co_await s.flush(t);
    if (s.mightSleepPreempts(t)) // down_read()/down_write(): might_sleep()
        co_await s.preempt(t);
    Time since = s.sim().now();
    if (fastPath() && canGrant(write)) {
        grantFast(s, t, write);
        co_return;
    }
    if (spinsOnOwner(s, write)) {
        const bool taken = co_await rwsem_optimistic_spin(s, t, write, since);
        if (taken)
            co_return;
    }
    co_await spin_lock(s, t, m_waitLock);
    co_await s.flush(t);
    if (canGrant(write)) {
        countOp(s, t);
        (write ? m_writer = true : (++m_readers, true));
        if (write)
            m_owner = &t;
        spin_unlock(s, t, m_waitLock);
        noteGranted(s, t, since, false);
        co_return;
    }
    m_waiters.push_back(Waiter { &t, write, since });
    spin_unlock(s, t, m_waitLock);
    // The timeline: a contended rwsem acquirer does not spin (no rwsem optimistic spinning before 3.16); its
    // CPU's time until the sleep is wait_lock's and the task's own, drawn as theirs. From the switch out
    // (Sched::block() first spends pending CPU time) until dispatch() began switching it back in, a context switch
    // before it resumes, its CPU runs another task or idles: a LockSleep span. lock_stat's waittime counts from
    // `since`, wait_lock included.
    const int cpu = t.cpu;
    Time asleep = s.sim().now() + t.debt;
    co_await s.sleep(t); // woken with the lock granted (see wakeWaiters), or, a stealing writer, only woken
    s.traceSleep(cpu, asleep, SpanKind::LockSleep, m_stat.name.c_str());
    while (m_impl == RwsemImpl::XaddSteal && write && m_owner != &t) {
        // rwsem_down_write_failed(): woken, try to take it; if a running writer stole it, back to sleep, first in
        // line. From 5.3 a writer that has waited RWSEM_WAIT_TIMEOUT sets RWSEM_FLAG_HANDOFF: the next release
        // grants it the rwsem (wakeWaiters), and no one takes it in between.
        --m_wokenWriters;
        co_await s.flush(t);
        if (!m_writer && m_readers == 0) {
            countOp(s, t);
            m_writer = true;
            m_owner = &t;
            m_handoff = false;
            break;
        }
        if (s.locking().rwsemHandoff && s.sim().now() - since >= ns(kRwsemWaitTimeoutNs))
            m_handoff = true;
        m_waiters.push_front(Waiter { &t, true, since });
        asleep = s.sim().now() + t.debt;
        co_await s.sleep(t);
        s.traceSleep(t.cpu, asleep, SpanKind::LockSleep, m_stat.name.c_str());
    }
    noteGranted(s, t, since, true);
}

void RwSem::wakeWaiters(Sched& s, Task& waker)
{
    // Called under wait_lock with the lock free of the released side.
    if (s.locking().rwsemWakeAllReaders && !m_writer && !m_waiters.empty() && !m_waiters.front().write) {
        // 5.3+: "Grant up to MAX_READERS_WAKEUP read locks to all the readers in the wait list", past the writers.
        constexpr int kMaxReadersWakeup = 0x100; // MAX_READERS_WAKEUP (5.3 kernel/locking/rwsem.c)
        int woken = 0;
        for (std::size_t i = 0; i < m_waiters.size() && woken < kMaxReadersWakeup;) {
            if (m_waiters[i].write) {
                ++i;
                continue;
            }
            const Waiter w = m_waiters[i];
            m_waiters.erase(i);
            ++m_readers;
            ++woken;
            Sched::burn(waker, s.wakeupNs());
            s.wake(*w.t, &waker);
        }
        return;
    }
    while (!m_waiters.empty()) {
        Waiter w = m_waiters.front();
        if (w.write) {
            if (m_readers > 0 || m_writer)
                break;
            if (m_impl == RwsemImpl::XaddSteal && !m_handoff) {
                ++m_wokenWriters; // woken, not granted: it takes the lock when it runs
            } else {
                m_writer = true; // granted, or handed off (RWSEM_FLAG_HANDOFF, then cleared)
                m_owner = w.t;
                m_handoff = false;
            }
        } else {
            if (m_writer)
                break;
            ++m_readers;
        }
        m_waiters.pop_front();
        Sched::burn(waker, s.wakeupNs());
        s.wake(*w.t, &waker);
        if (w.write)
            break;
    }
}

Co<> RwSem::release(Sched& s, Task& t, bool write, bool flushed)
{
    if (!flushed)
        co_await s.flush(t);
    noteReleased(s, t);
    if (write && m_owner == &t) {
        // rwsem_clear_owner(): whoever spins on this writer sees the count released when its line gets there.
        unwatch(t);
        m_owner = nullptr;
        stopSpinners(s, t.cpu);
    }
    if (fastPath()) {
        countOp(s, t);
        (write ? m_writer = false : (--m_readers, true));
        if (m_waiters.empty())
            co_return;
        co_await spin_lock(s, t, m_waitLock);
        co_await s.flush(t);
        wakeWaiters(s, t);
        spin_unlock(s, t, m_waitLock);
        co_return;
    }
    co_await spin_lock(s, t, m_waitLock);
    co_await s.flush(t);
    countOp(s, t);
    (write ? m_writer = false : (--m_readers, true));
    wakeWaiters(s, t);
    spin_unlock(s, t, m_waitLock);
}

// rwsem_optimistic_spin() (kernel/locking/rwsem-xadd.c from 3.16, rwsem.c from 5.3): while a running writer holds
// the rwsem, poll it (osq_lock queues the spinners, one polling the count at a time); when it is released, take it
// if no one holds it for write, queued waiters or not: a writer if no reader holds it either
// (rwsem_try_write_lock_unqueued), a reader by joining the readers (rwsem_try_read_lock_unqueued, 5.3-5.10); not
// while a waiter has set RWSEM_FLAG_HANDOFF. Give up when readers hold it (no owner to spin on), the owner leaves its
// CPU or this task must reschedule.
Co<bool> RwSem::rwsem_optimistic_spin(Sched& s, Task& t, bool write, Time since)
{
    for (;;) {
        Task* owner = m_owner;
        if (!owner || !m_writer || owner->state != TaskState::Running || s.need_resched(t))
            co_return false;
        const Time start = s.sim().now();
        s.spinBegins(t);
        co_await SpinOnOwner { *this, s, t, write };
        s.spinEnded(t);
        t.sysTime += s.sim().now() - start; // cpu_relax() polling: the spinner's CPU is busy
        if (s.trace())
            s.trace()->span(t.cpu, start, s.sim().now(), SpanKind::LockWait, m_stat.name.c_str());
        if (!m_writer && !m_handoff && (!write || m_readers == 0)) {
            countOp(s, t); // the cmpxchg (a writer) or the add (a reader) on the count
            if (write) {
                m_writer = true;
                m_owner = &t;
            } else {
                ++m_readers;
            }
            noteGranted(s, t, since, true);
            co_return true;
        }
    }
}

void RwSem::SpinOnOwner::await_suspend(std::coroutine_handle<> h)
{
    r.m_sched = &s;
    const std::uint64_t serial = ++r.m_spinSerial;
    r.m_spinners.push_back(Spinner { &t, h, serial, write });
    // Watch the owner's on_cpu (rwsem_spin_on_owner: owner->on_cpu); unless already watched, join its chain.
    Task& owner = *r.m_owner;
    bool watched = false;
    for (OffCpuWatch* w = owner.offCpuWatch; w; w = w->nextWatch)
        watched = watched || w == &r;
    if (!watched) {
        r.nextWatch = owner.offCpuWatch;
        owner.offCpuWatch = &r;
    }
    // The scheduler tick at the end of the slice sets need_resched if others wait on this CPU.
    const Time tick = std::max(t.sliceStart + s.timeSlice(), s.sim().now() + 1);
    s.sim().callAt(tick, static_cast<std::uint32_t>(t.cpu), &RwSem::endSpin, &r, serial);
}

void RwSem::endSpin(void* ctx, std::uint64_t serial)
{
    auto& r = *static_cast<RwSem*>(ctx);
    auto it = std::find_if(
        r.m_spinners.begin(), r.m_spinners.end(), [&](const Spinner& sp) { return sp.serial == serial; });
    if (it == r.m_spinners.end())
        return; // that spin is over
    Sched& s = *r.m_sched;
    Task& t = *it->t;
    if (!s.need_resched(t)) { // nobody waits for this CPU: spin on, look again at the next tick
        s.sim().callAt(
            s.sim().now() + s.timeSlice(), static_cast<std::uint32_t>(t.cpu), &RwSem::endSpin, &r, serial);
        return;
    }
    std::coroutine_handle<> h = it->h;
    r.m_spinners.erase(it);
    s.sim().resumeAt(s.sim().now(), static_cast<std::uint32_t>(t.cpu), h);
}

void RwSem::unwatch(Task& owner)
{
    for (OffCpuWatch** w = &owner.offCpuWatch; *w; w = &(*w)->nextWatch)
        if (*w == this) {
            *w = nextWatch;
            nextWatch = nullptr;
            return;
        }
}

void RwSem::ownerOffCpu(Task&)
{
    // Sched::offCpu() has emptied the owner's chain; the spinners see owner->on_cpu clear and go to sleep.
    if (m_sched)
        stopSpinners(*m_sched, -1);
}

// The spinners see the change when the count's line reaches them (from `fromCpu`, or at once when -1).
void RwSem::stopSpinners(Sched& s, int fromCpu)
{
    const Time now = s.sim().now();
    for (const Spinner& sp : m_spinners) {
        const Time when = now + ns(s.lineTransferNs(fromCpu, sp.t->cpu));
        s.sim().resumeAt(when, static_cast<std::uint32_t>(sp.t->cpu), sp.h);
    }
    m_spinners.clear();
}

Co<> RwSem::down_read(Sched& s, Task& t) { return acquire(s, t, false); }
Co<> RwSem::down_write(Sched& s, Task& t) { return acquire(s, t, true); }
Co<> RwSem::up_read(Sched& s, Task& t) { return release(s, t, false); }
Co<> RwSem::up_write(Sched& s, Task& t) { return release(s, t, true); }

} // namespace mms
