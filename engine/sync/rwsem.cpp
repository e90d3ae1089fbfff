#include "sync/rwsem.h"

namespace mms {

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
    if (m_acquiredAt.size() <= t.id)
        m_acquiredAt.resize(t.id + 1u, -1);
    m_acquiredAt[t.id] = now + t.debt;
}

// The Xadd fast path: xadd on the count, no wait_lock.
void RwSem::grantFast(Sched& s, Task& t, bool write)
{
    Time since = s.sim().now();
    countOp(s, t);
    (write ? m_writer = true : (++m_readers, true));
    noteGranted(s, t, since, false);
}

// The hold time of the task's acquisition, at the release (the task's own time: the clock plus its pending CPU
// time, which is none after a flush).
void RwSem::noteReleased(Sched& s, Task& t)
{
    if (s.locking().debug()) // a debug kernel's checks (mm/kconfig.h)
        Sched::burn(t, s.locking().releaseNs);
    Time now = s.sim().now() + t.debt;
    if (t.id < m_acquiredAt.size() && m_acquiredAt[t.id] >= 0) {
        Time since = m_acquiredAt[t.id];
        m_stat.noteHold(now - since);
        m_stat.addToBuckets(m_stat.holdPerBucket, since, now);
        m_acquiredAt[t.id] = -1;
    }
}

MaybeCo RwSem::down_read_flushed(Sched& s, Task& t)
{
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
    Time since = s.sim().now();
    if (fastPath() && canGrant(write)) {
        grantFast(s, t, write);
        co_return;
    }
    co_await spin_lock(s, t, m_waitLock);
    co_await s.flush(t);
    if (canGrant(write)) {
        countOp(s, t);
        (write ? m_writer = true : (++m_readers, true));
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
    while (m_impl == RwsemImpl::XaddSteal && write) {
        // rwsem_down_write_failed(): woken, try to take it; if a running writer stole it, back to sleep, first in
        // line.
        --m_wokenWriters;
        co_await s.flush(t);
        if (!m_writer && m_readers == 0) {
            countOp(s, t);
            m_writer = true;
            break;
        }
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
    while (!m_waiters.empty()) {
        Waiter w = m_waiters.front();
        if (w.write) {
            if (m_readers > 0 || m_writer)
                break;
            if (m_impl == RwsemImpl::XaddSteal)
                ++m_wokenWriters; // woken, not granted: it takes the lock when it runs
            else
                m_writer = true;
        } else {
            if (m_writer)
                break;
            ++m_readers;
        }
        m_waiters.pop_front();
        Sched::burn(waker, s.cost().wakeupNs);
        s.wake(*w.t);
        if (w.write)
            break;
    }
}

Co<> RwSem::release(Sched& s, Task& t, bool write, bool flushed)
{
    if (!flushed)
        co_await s.flush(t);
    noteReleased(s, t);
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

Co<> RwSem::down_read(Sched& s, Task& t) { return acquire(s, t, false); }
Co<> RwSem::down_write(Sched& s, Task& t) { return acquire(s, t, true); }
Co<> RwSem::up_read(Sched& s, Task& t) { return release(s, t, false); }
Co<> RwSem::up_write(Sched& s, Task& t) { return release(s, t, true); }

} // namespace mms
