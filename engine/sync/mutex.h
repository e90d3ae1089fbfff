#pragma once
// struct mutex (2.6.29-4.9): an uncontended acquire is one locked RMW. A contended one first spins on the owner
// (CONFIG_MUTEX_SPIN_ON_OWNER, 2.6.29+, on in SLE 11 SP2's 3.0): while the owner runs on a CPU and the spinner
// need not reschedule, the spinner keeps its CPU polling the lock's cacheline, and takes the mutex when the owner
// releases it; if the owner sleeps or is preempted (or the spinner must reschedule) it queues and sleeps.
// Unlock releases the mutex and wakes the first waiter, who must be switched in before it can try again; a running
// task or a spinner may take the mutex meanwhile, and the waiter then sleeps again at the head of the queue. From
// 4.10 (Sched::locking().mutexHandoff) such a waiter sets MUTEX_FLAG_HANDOFF, and the next unlock grants it the mutex
// before waking it (__mutex_handoff()): nobody can take it in between. Each sleeping conflict costs the waiter a
// wake-up and a context switch, and the unlocker the wake-up.

#include "sched/sched.h"
#include "sync/lockstat.h"

#include <deque>
#include <vector>

namespace mms {

// Whether this mutex may spin on its owner: OnOwner for a kernel mutex, which then spins as the kernel's
// CONFIG_MUTEX_SPIN_ON_OWNER says (Sched::locking(): 2.6.30+); Off for one that always sleeps.
enum class MutexSpin : std::uint8_t { Off, OnOwner };

class Mutex final : private OffCpuWatch {
public:
    explicit Mutex(std::string name = {}, MutexSpin spin = MutexSpin::OnOwner)
        : m_spin(spin)
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
        bool* queued; // the waiter's own note that this entry is on the list; cleared when unlock() takes it off
    };
    struct Spinner {
        Task* t;
        std::coroutine_handle<> h;
        std::uint64_t serial; // names this spin for the slice-end check
    };
    // Awaitable: spin (keep the CPU) until the owner releases the mutex, leaves its CPU, or the slice ends.
    struct SpinOnOwner {
        Mutex& m;
        Sched& s;
        Task& t;
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<> h);
        void await_resume() const noexcept { }
    };
    // The steps of lock(), each entered with the acquirer contending since `since`.
    Co<> lockAtRelease(Sched& s, Task& t, Time since);
    Co<bool> mutex_optimistic_spin(Sched& s, Task& t, Time since);
    Co<bool> mutex_spin_on_owner(Sched& s, Task& t, Task* owner);
    Co<> sleepUntilFree(Sched& s, Task& t, Time since);
    void takeAfterSleep(Sched& s, Task& t, Time since);
    void dropWaiter(const Task& t);
    // Contended since `since`, spinning since `spinSince` (the wait's part drawn as busy on the CPU).
    void take(Sched& s, Task& t, Time since, Time spinSince);
    void traceWait(Sched& s, int cpu, Time from, Time to, SpanKind kind) const;
    void traceSleep(Sched& s, int cpu, Time from) const;
    void unwatch(Task& owner);
    void ownerOffCpu(Task& owner) override;
    void stopSpinners(Sched& s, Time at, int fromCpu);
    static void endSpin(void* ctx, std::uint64_t serial);

    LockStat m_stat;
    bool spinsOnOwner(const Sched& s) const { return m_spin == MutexSpin::OnOwner && s.locking().mutexSpin; }
    MutexSpin m_spin;
    Sched* m_sched = nullptr; // set while spinners wait (for the off-CPU and slice-end callbacks)
    std::vector<Spinner> m_spinners;
    std::uint64_t m_spinSerial = 0;
    Task* m_owner = nullptr;
    int m_lastCpu = -1;
    Time m_acquiredAt = 0;
    Time m_freeAt = 0; // released by its last holder at this time (may lie ahead of the clock)
    bool m_handoff = false; // MUTEX_FLAG_HANDOFF: the next unlock grants the mutex to the first waiter
    // Not a Fifo: a waiter that loses the race after its wake-up goes back to the head, and one that wins leaves
    // from wherever it is (the 2.6.29-4.9 wait list without hand-off).
    std::deque<Waiter> m_waiters;
};

inline Co<> mutex_lock(Sched& s, Task& t, Mutex& m) { return m.lock(s, t); }
inline void mutex_unlock(Sched& s, Task& t, Mutex& m) { m.unlock(s, t); }

} // namespace mms
