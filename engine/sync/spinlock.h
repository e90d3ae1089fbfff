#pragma once
// spinlock_t with FIFO (ticket) hand-off. A waiter spins: it keeps its CPU and the wait is charged as sys time.
// Acquiring costs one locked RMW plus a cache-line transfer when the previous holder ran on another CPU; on release
// the line travels to the next waiter, who owns the lock from then on.

#include "sched/sched.h"
#include "sync/lockstat.h"

#include "sim/fifo.h"

namespace mms {

class SpinLock {
public:
    explicit SpinLock(std::string name = {}) { m_stat.name = std::move(name), m_stat.kind = "spinlock"; }

    struct Acquire {
        Sched& s;
        Task& t;
        SpinLock& l;
        std::coroutine_handle<> resumeHandle;
        bool await_ready();
        bool await_suspend(std::coroutine_handle<> h);
        void await_resume() { }
        Time attempt(); // at the moment of trying: the grant time, or -1 when queued behind a holder
    };
    // co_await lock.lock(s, t)   -- spin_lock()
    Acquire lock(Sched& s, Task& t) { return Acquire { s, t, *this, {} }; }
    // spin_unlock(): takes effect at the holder's own time (now + its pending CPU time), no suspension.
    void unlock(Sched& s, Task& t);

    bool held() const { return m_held; }
    // spin_is_contended(): someone waits behind the holder (a ticket lock's tail is past head + 1). A grant that
    // lies ahead on the clock is a waiter still spinning for a release that has not happened yet.
    bool contended(Time now) const { return !m_waiters.empty() || (m_held && m_acquiredAt > now); }
    LockStat& stat() { return m_stat; }
    const LockStat& stat() const { return m_stat; }
    void setName(std::string n) { m_stat.name = std::move(n); }

private:
    friend struct Acquire;
    struct Waiter {
        Task* t;
        std::coroutine_handle<> h;
        Time since;
    };
    void grant(Sched& s, Task& t, Time at, Time waited, bool contended);

    LockStat m_stat;
    bool m_held = false;
    int m_lastCpu = -1;
    Time m_acquiredAt = 0;
    Time m_freeAt = 0; // released by its last holder at this time (may be in the future of the clock)
    Fifo<Waiter> m_waiters;
};

// RAII-free helper for the common pattern in kernel paths:  co_await spin_lock(s, t, l); ... spin_unlock(s, t, l);
inline SpinLock::Acquire spin_lock(Sched& s, Task& t, SpinLock& l) { return l.lock(s, t); }
inline void spin_unlock(Sched& s, Task& t, SpinLock& l) { l.unlock(s, t); }

} // namespace mms
