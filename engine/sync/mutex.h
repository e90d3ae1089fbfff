#pragma once
// struct mutex (2.6.29-4.9): an uncontended acquire is one locked RMW; a contended one spins for at most spinNs
// (optimistic spinning; 0 here) and then sleeps. Unlock releases the mutex and wakes the first waiter, who must be
// switched in before it can try again; a running task may take the mutex meanwhile (no hand-off before 4.10), and
// the waiter then sleeps again at the head of the queue. Each conflict costs the waiter a wake-up and a context
// switch, and the wake-up costs the unlocker.

#include "sched/sched.h"
#include "sync/lockstat.h"

#include <deque>

namespace mms {

class Mutex {
public:
    explicit Mutex(std::string name = {}, double spinNs = 0.0)
        : m_spinNs(spinNs)
    {
        m_stat.name = std::move(name);
        m_stat.kind = "mutex";
    }
    Co<> lock(Sched& s, Task& t);
    void unlock(Sched& s, Task& t);

    LockStat& stat() { return m_stat; }
    const LockStat& stat() const { return m_stat; }
    void setName(std::string n) { m_stat.name = std::move(n); }
    bool held() const { return m_owner != nullptr; }

private:
    struct Waiter {
        Task* t;
        Time since;
    };
    LockStat m_stat;
    double m_spinNs;
    Task* m_owner = nullptr;
    int m_lastCpu = -1;
    Time m_acquiredAt = 0;
    Time m_freeAt = 0; // released by its last holder at this time (may lie ahead of the clock)
    std::deque<Waiter> m_waiters; // not a Fifo: a waiter that loses the race goes back to the head
};

inline Co<> mutex_lock(Sched& s, Task& t, Mutex& m) { return m.lock(s, t); }
inline void mutex_unlock(Sched& s, Task& t, Mutex& m) { m.unlock(s, t); }

} // namespace mms
