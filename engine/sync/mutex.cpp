#include "sync/mutex.h"

#include <algorithm>

namespace mms {

Co<> Mutex::lock(Sched& s, Task& t)
{
    co_await s.flush(t);
    Time since = s.sim().now();
    if (!m_owner && m_freeAt > since) {
        // Released by a holder whose release lies ahead on the clock. The acquirer spins for it if the rest of
        // the hold is within spinNs (mutex_spin_on_owner), else sleeps and is handed the mutex at the release.
        Time at = m_freeAt + ns(s.lineTransferNs(m_lastCpu, t.cpu));
        m_owner = &t;
        if (toNs(at - since) <= m_spinNs) {
            t.sysTime += at - since;
            co_await ResumeAt { s.sim(), at, static_cast<std::uint32_t>(t.cpu) };
        } else {
            std::uint64_t arg = (static_cast<std::uint64_t>(t.id) << 32) | (t.sleepGen + 1u);
            s.sim().callAt(
                at, static_cast<std::uint32_t>(t.cpu),
                [](void* ctx, std::uint64_t a) {
                    auto* sched = static_cast<Sched*>(ctx);
                    sched->wakeIf(*sched->tasks()[a >> 32], static_cast<std::uint32_t>(a));
                },
                &s, arg);
            co_await s.sleep(t);
        }
        Time now = s.sim().now();
        m_stat.noteAcquire(t.cpu, m_lastCpu, now - since, true);
        m_stat.addToBuckets(m_stat.waitPerBucket, since, now);
        if (s.trace())
            s.trace()->span(t.cpu, since, now, SpanKind::LockWait, m_stat.name.c_str());
        Sched::burn(t, s.cost().lockedRmwNs);
        m_lastCpu = t.cpu;
        m_acquiredAt = now;
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
    m_waiters.push_back(Waiter { &t, since });
    if (m_spinNs > 0) {
        // Optimistic spin: the waiter burns CPU for up to spinNs and takes the mutex if it was released meanwhile.
        Sched::burn(t, m_spinNs);
        co_await s.flush(t);
    }
    // __mutex_lock_common() (2.6.x-4.9): sleep until an unlock wakes us, then try again. There is no hand-off:
    // unlock releases the mutex and wakes the first waiter, and whoever comes first while that waiter is being
    // woken and switched in takes it (a running task, or a spinner); the waiter then sleeps again, first in line.
    for (;;) {
        Time now = s.sim().now();
        if (!m_owner && m_freeAt <= now) {
            std::erase_if(m_waiters, [&](const Waiter& w) { return w.t == &t; });
            m_owner = &t;
            break;
        }
        if (!m_owner) { // released by a holder whose release lies ahead on the clock: wait for that moment
            t.sysTime += m_freeAt - now;
            co_await ResumeAt { s.sim(), m_freeAt, static_cast<std::uint32_t>(t.cpu) };
            continue;
        }
        if (std::none_of(m_waiters.begin(), m_waiters.end(), [&](const Waiter& w) { return w.t == &t; }))
            m_waiters.push_front(Waiter { &t, since });
        co_await s.sleep(t);
        co_await s.flush(t);
    }
    Time waited = s.sim().now() - since;
    m_stat.noteAcquire(t.cpu, m_lastCpu, waited, true);
    m_stat.addToBuckets(m_stat.waitPerBucket, since, s.sim().now());
    if (s.trace())
        s.trace()->span(t.cpu, since, s.sim().now(), SpanKind::LockWait, m_stat.name.c_str());
    Sched::burn(t, s.cost().lockedRmwNs + s.lineTransferNs(m_lastCpu, t.cpu));
    m_lastCpu = t.cpu;
    m_acquiredAt = s.sim().now();
}

void Mutex::unlock(Sched& s, Task& t)
{
    Time releaseAt = s.sim().now() + t.debt;
    m_stat.noteHold(releaseAt - m_acquiredAt);
    m_stat.addToBuckets(m_stat.holdPerBucket, m_acquiredAt, releaseAt);
    m_owner = nullptr;
    m_freeAt = releaseAt;
    if (m_waiters.empty())
        return;
    // __mutex_unlock_slowpath(): release, then wake the first waiter (it leaves the list when it gets the mutex).
    Waiter w = m_waiters.front();
    m_waiters.pop_front();
    Sched::burn(t, s.cost().wakeupNs);
    s.sim().callAt(
        releaseAt, static_cast<std::uint32_t>(t.cpu),
        [](void* ctx, std::uint64_t id) {
            auto* sched = static_cast<Sched*>(ctx);
            sched->wake(*sched->tasks()[id]);
        },
        &s, w.t->id);
}

} // namespace mms
