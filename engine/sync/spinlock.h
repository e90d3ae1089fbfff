#pragma once
// spinlock_t. A waiter spins: it keeps its CPU and the wait is charged as sys time. Acquiring costs a locked RMW and
// a line transfer from a holder on another CPU; a release with waiters takes the line back from the spinners' shared
// copies, then hands the lock off as arch_spinlock_t does (Sched::locking(): the first in line after one transfer
// for a queued lock, after the others' reloads too for a ticket lock; the nearest waiter for a byte lock).

#include "sched/sched.h"
#include "sync/lockstat.h"

#include "sim/fifo.h"

#include <cstdint>
#include <memory>

namespace mms {

class alignas(64) SpinLock {
public:
    explicit SpinLock(std::string name = {}) { m_stat.name = std::move(name), m_stat.kind = "spinlock"; }

    struct Acquire {
        Sched& s;
        Task& t;
        SpinLock& l;
        std::coroutine_handle<> resumeHandle;
        bool await_ready();
        bool await_suspend(std::coroutine_handle<> h);
        void await_resume() { s.spinEnded(t); }
        // At the moment of trying: the grant time, or -1 when queued behind a holder. A task that has to wait spins
        // (Task::spinning) until it resumes.
        Time attempt();
    };
    // co_await lock.lock(s, t)   -- spin_lock()
    Acquire lock(Sched& s, Task& t) { return Acquire { s, t, *this, {} }; }
    // spin_unlock(): takes effect at the holder's own time (now + its pending CPU time), no suspension. Inline: the
    // common case (nobody waits, no timeline, no lock heatmap) is a few stores; the rest is out of line.
    void unlock(Sched& s, Task& t)
    {
        if (s.locking().releaseNs != 0) [[unlikely]]
            Sched::burn(t, s.locking().releaseNs, Acct::Sys); // a debug kernel's checks (mm/kconfig.h)
        Time releaseAt = s.sim().now() + t.debt;
        m_stat.noteHold(releaseAt - m_acquiredAt);
        if (m_stat.bucketWidth > 0 || s.trace() || !m_waiters.empty()) [[unlikely]] {
            unlockSlow(s, t, releaseAt);
            return;
        }
        m_held = false;
        m_freeAt = releaseAt;
    }

    // lock(s, t).await_ready(), inline, for a loop that takes a lock once per item and holds it briefly (readahead's
    // i_pages, once per page). `rmw` is ns(s.cost().lockedRmwNs), converted once by the caller: the grant's charge
    // when the lock's line is already on this CPU (lineTransferNs() is 0, and x + 0.0 == x), the case this inlines.
    // Everything else goes to await_ready(). True: the lock is ours at the same time, with the same events and
    // statistics, as await_ready() would have granted it; false: nothing changed, await the lock.
    [[gnu::always_inline]] bool tryLockInline(Sched& s, Task& t, Time rmw)
    {
        if (m_held || !m_waiters.empty() || m_lastCpu != t.cpu || s.trace() || s.locking().acquireNs != 0) [[unlikely]]
            return lock(s, t).await_ready();
        Simulator& sim = s.sim();
        Time at = sim.now() + t.debt;
        if (m_freeAt > at)
            return false;
        if (t.debt != 0) {
            // await_suspend() would spend the pending time, attempt and grant: the next two events, taken here.
            if (!sim.runsNextTwice(at, static_cast<std::uint32_t>(t.cpu)))
                return false;
            t.debt = 0;
            sim.takeInline(at); // the attempt
            sim.takeInline(at); // the resumption
        }
        ++m_stat.acquisitions; // grantFree(): no bounce, the line is here
        Sched::burnCompute(t, rmw, Acct::Sys);
        m_held = true;
        m_acquiredAt = at;
        return true;
    }

    bool held() const { return m_held; }
    // spin_is_contended(): someone waits behind the holder (a ticket lock's tail is past head + 1). A grant that
    // lies ahead on the clock is a waiter still spinning for a release that has not happened yet.
    bool contended(Time now) const { return !m_waiters.empty() || (m_held && m_acquiredAt > now); }
    // Host-side only: starts loading the lock's two hot cache lines (its state and LockStat's counters), for a
    // caller that knows it will take the lock after other events have run.
    void prefetch() const
    {
        __builtin_prefetch(this, 1);
        __builtin_prefetch(reinterpret_cast<const char*>(this) + 64, 1);
    }
    LockStat& stat() { return m_stat; }
    const LockStat& stat() const { return m_stat; }
    void setName(std::string n) { m_stat.name = std::move(n); }
    // The data the lock guards shares its cache line (2.6.20's struct rw_semaphore: activity, wait_lock and
    // wait_list in 24 bytes): what a byte lock's losers do to its holder, grant() charges.
    void setGuardsItsLine(bool on) { m_guardsItsLine = on; }

private:
    friend struct Acquire;
    // A spinning waiter keeps its CPU (only a wake-up moves a task), so its entry carries the CPU, its last-level
    // cache and its socket:
    // a ticket lock's hand-off adds up the line transfers to every waiter, and reading them from the task and the
    // CPU table made each hand-off of a lock with hundreds of waiters a chain of host cache misses.
    struct Waiter {
        Task* t;
        std::coroutine_handle<> h;
        Time since;
        int cpu;
        int llc;
        int socket;
    };
    static Waiter waiterOf(const Sched& s, Task& t, std::coroutine_handle<> h, Time since)
    {
        const Cpu& c = s.cpu(t.cpu);
        return Waiter { &t, h, since, t.cpu, c.llc, c.socket };
    }
    // `stolen`: of `waited`, the time the host had the new owner's vCPU descheduled (waiterPreempted()).
    void grant(Sched& s, Task& t, Time at, Time waited, bool contended, Time stolen = 0);
    // How long the waiter a ticket or queued lock is handed to takes to run again in a guest whose host deschedules
    // vCPUs (Sched::hostResidualNs): 0 on bare metal, for a byte lock, or if its vCPU runs.
    static Time waiterPreempted(Sched& s) { return s.host() ? waiterPreemptedInGuest(s) : 0; }
    [[gnu::noinline, gnu::cold]] static Time waiterPreemptedInGuest(Sched& s);
    // grant(s, t, at, 0, false) without the contended branch's bookkeeping, so the hot path saves no registers
    // for calls it does not make.
    void grantFree(Sched& s, Task& t, Time at)
    {
        ++m_stat.acquisitions;
        m_stat.acqBounces += m_lastCpu >= 0 && m_lastCpu != t.cpu;
        Sched::burn(t, s.cost().lockedRmwNs + s.lineTransferNs(m_lastCpu, t.cpu) + s.locking().acquireNs, Acct::Sys);
        m_held = true;
        m_lastCpu = t.cpu;
        m_acquiredAt = at;
    }
    void unlockSlow(Sched& s, Task& t, Time releaseAt);
    // At a release with waiters (sched/locking.h): which of them owns the lock next, and after how long.
    std::size_t nextOwner(const Sched& s) const;
    // The release at `releaseAt` (now or ahead of the clock) to the waiters then; handOffAt() as an event at it.
    void handOff(Sched& s, Time releaseAt);
    void handOffAt(Sched& s, Time releaseAt);
    // `othersReloadNs`: the line transfers to the other waiters, whose reloads a ticket lock's next owner waits behind.
    double handoffNs(const Sched& s, int toCpu, double othersReloadNs) const;
    // The line transfers from the last holder's CPU to every waiter but the `next` one (a ticket lock's).
    double othersReloadNs(const Sched& s, std::size_t next) const;
    // The lock's line passed from `cpu` through every waiter in turn and back to `cpu`: what `cpu`'s access to it
    // waits for when each waiter takes it exclusive once first.
    double throughWaitersNs(const Sched& s, int cpu) const;
    // The queue of spinners. A ticket lock also counts its waiters per CPU, per last-level cache and per socket, so
    // that a hand-off adds up the others' reloads without walking a queue of hundreds.
    void enqueue(const Sched& s, const Waiter& w);
    void dequeue(const Sched& s, std::size_t i);
    // m_waitersAt's count of the waiters on a CPU, in a last-level cache, in a socket.
    std::uint16_t& waitersOnCpu(int cpu) const { return m_waitersAt[static_cast<std::size_t>(cpu)]; }
    static std::size_t llcSlot(const Sched& s, int llc) { return static_cast<std::size_t>(s.cpuCount() + llc); }
    std::uint16_t& waitersInLlc(const Sched& s, int llc) const { return m_waitersAt[llcSlot(s, llc)]; }
    std::uint16_t& waitersInSocket(const Sched& s, int socket) const
    {
        return m_waitersAt[llcSlot(s, s.llcCount()) + static_cast<std::size_t>(socket)];
    }

    // The state an attempt and a release read fills the first cache line (the class is line-aligned); the
    // counters every acquisition updates begin the second (see LockStat).
    bool m_held = false;
    int m_lastCpu = -1;
    Time m_acquiredAt = 0;
    Time m_freeAt = 0; // released by its last holder at this time (may be in the future of the clock)
    Fifo<Waiter> m_waiters;
    std::unique_ptr<std::uint16_t[]> m_waitersAt; // byte, ticket locks: waiters on each CPU, then cache, then socket
    bool m_handOffPending = false; // a release ahead of the clock will hand the lock to the waiters (handOffAt)
    bool m_guardsItsLine = false;
    LockStat m_stat;
};

// RAII-free shorthand for the common pattern in kernel paths:  co_await spin_lock(s, t, l); ... spin_unlock(s, t, l);
inline SpinLock::Acquire spin_lock(Sched& s, Task& t, SpinLock& l) { return l.lock(s, t); }
inline void spin_unlock(Sched& s, Task& t, SpinLock& l) { l.unlock(s, t); }

} // namespace mms
