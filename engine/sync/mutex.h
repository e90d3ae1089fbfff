#pragma once
// struct mutex: an uncontended acquire is one locked RMW; a contended one spins for at most spinNs while the owner
// runs (optimistic spinning, 3.x+; 0 for older kernels) and then sleeps. Unlock hands the mutex to the first waiter,
// who owns it from the moment of release until it has been woken and scheduled: a context switch per conflict.

#include "sched/sched.h"
#include "sync/lockstat.h"

#include "sim/fifo.h"

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
    Fifo<Waiter> m_waiters;
};

inline Co<> mutex_lock(Sched& s, Task& t, Mutex& m) { return m.lock(s, t); }
inline void mutex_unlock(Sched& s, Task& t, Mutex& m) { m.unlock(s, t); }

} // namespace mms
