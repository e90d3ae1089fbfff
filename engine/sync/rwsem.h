#pragma once
// struct rw_semaphore in two implementations (rwsem.impl):
//  - Spinlock: the 2.6.20 generic rwsem (lib/rwsem-spinlock.c, x86-64 had RWSEM_GENERIC_SPINLOCK=y). Every
//    down/up, readers' too, takes the internal wait_lock spinlock, so readers serialise and bounce its line.
//  - Xadd: the atomic-count rwsem (lib/rwsem.c): readers' fast path is one locked xadd on the count's line;
//    wait_lock is taken only on the slow path.
//  - XaddSteal: the same with 3.10's writer lock stealing (ce6711f3d196, "rwsem: steal writing sem for better
//    performance"): __rwsem_do_wake wakes a writer at the head of the queue without granting it the lock; the woken
//    writer takes it when it runs (rwsem_try_write_lock), unless a running writer took it first, which any writer
//    on the slow path may do while no one holds it, waiters or not. A writer that finds it taken goes back to the
//    head of the queue. Readers still queue behind waiters.
// Contended acquirers sleep, but for a writer of an xadd rwsem that finds a running writer holding it when the kernel
// spins on the owner (Sched::locking().rwsemSpin, 3.16's rwsem_optimistic_spin()): it keeps its CPU polling until
// the owner releases the rwsem, leaves its CPU or this CPU must reschedule, and takes the rwsem if it is free at the
// release (rwsem_try_write_lock_unqueued(), queued waiters or not). On release the queue is served FIFO: a writer
// alone, or every reader up to the next writer (__rwsem_do_wake).

#include "sched/sched.h"
#include "sync/spinlock.h"

#include "sim/fifo.h"
#include <vector>

namespace mms {

enum class RwsemImpl : std::uint8_t { Spinlock, Xadd, XaddSteal };

class RwSem final : private OffCpuWatch {
public:
    explicit RwSem(std::string name = {}, RwsemImpl impl = RwsemImpl::Xadd);

    Co<> down_read(Sched& s, Task& t);
    Co<> up_read(Sched& s, Task& t);
    Co<> down_write(Sched& s, Task& t);
    Co<> up_write(Sched& s, Task& t);
    // down_read()/up_read() for a caller that has just awaited Sched::flush() itself (their first step), so that
    // the common case is a plain call: the Xadd fast path (no writer, no waiter), or a release nobody waits for.
    // Otherwise the coroutine from after its flush. An interrupt may have charged the task while it waited for the
    // flush; that time stays pending here too, as it would inside down_read().
    MaybeCo down_read_flushed(Sched& s, Task& t);
    MaybeCo up_read_flushed(Sched& s, Task& t);
    // down_read_trylock() of the xadd rwsem: the cmpxchg that succeeds while the count shows neither an active nor a
    // waiting writer; true when granted (no suspension, the task's pending CPU time stays pending). The spinlock
    // rwsem's trylock takes wait_lock, which may mean spinning: it answers false, and the caller awaits down_read().
    bool down_read_trylock(Sched& s, Task& t);
    // up_read() when it wakes nobody (xadd, no waiter): done, true; otherwise false with nothing changed, and the
    // caller awaits up_read().
    bool up_read_nowait(Sched& s, Task& t);

    void setImpl(RwsemImpl impl) { m_impl = impl; }
    RwsemImpl impl() const { return m_impl; }
    LockStat& stat() { return m_stat; }
    const LockStat& stat() const { return m_stat; }
    const SpinLock& waitLock() const { return m_waitLock; }
    void setName(std::string n);
    int readers() const { return m_readers; }
    bool writer() const { return m_writer; }

private:
    struct Waiter {
        Task* t;
        bool write;
        Time since;
    };
    struct Spinner {
        Task* t;
        std::coroutine_handle<> h;
        std::uint64_t serial; // names this spin for the slice-end check
        bool write;
    };
    // Awaitable: spin (keep the CPU) until the owner releases the rwsem, leaves its CPU, or the slice ends.
    struct SpinOnOwner {
        RwSem& r;
        Sched& s;
        Task& t;
        bool write;
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<> h);
        void await_resume() const noexcept { }
    };
    // rwsem_optimistic_spin(): true with the rwsem taken, false when the task must queue and sleep.
    Co<bool> rwsem_optimistic_spin(Sched& s, Task& t, bool write, Time since);
    bool spinsOnOwner(const Sched& s, bool write) const
    {
        const RwsemSpin spin = s.locking().rwsemSpin;
        return fastPath() && (spin == RwsemSpin::Reader || (write && spin == RwsemSpin::Writer));
    }
    void ownerOffCpu(Task& owner) override;
    void unwatch(Task& owner);
    void stopSpinners(Sched& s, int fromCpu);
    static void endSpin(void* ctx, std::uint64_t serial);
    Co<> acquire(Sched& s, Task& t, bool write, bool flushed = false);
    Co<> release(Sched& s, Task& t, bool write, bool flushed = false);
    void grantFast(Sched& s, Task& t, bool write);
    void noteReleased(Sched& s, Task& t);
    bool canGrant(bool write) const
    {
        if (m_writer)
            return false;
        if (write)
            return m_readers == 0 && (m_waiters.empty() || (m_impl == RwsemImpl::XaddSteal && !m_handoff));
        return m_waiters.empty() && m_wokenWriters == 0;
    }
    bool fastPath() const { return m_impl != RwsemImpl::Spinlock; }
    void countOp(Sched& s, Task& t); // the locked RMW on the count's cache line
    void wakeWaiters(Sched& s, Task& waker);
    void noteGranted(Sched& s, Task& t, Time since, bool contended);

    LockStat m_stat;
    RwsemImpl m_impl;
    SpinLock m_waitLock;
    int m_readers = 0;
    bool m_writer = false;
    int m_lastCpu = -1;
    int m_wokenWriters = 0; // XaddSteal: writers woken and not yet running (still first in line in the kernel)
    Task* m_owner = nullptr; // sem->owner: the writer holding it (readers set none)
    bool m_handoff = false; // RWSEM_FLAG_HANDOFF: the rwsem goes to the first waiter, no one steals it
    Sched* m_sched = nullptr; // set while writers spin (for the off-CPU and slice-end callbacks)
    std::vector<Spinner> m_spinners;
    std::uint64_t m_spinSerial = 0;
    Fifo<Waiter> m_waiters;
    // The tasks holding it and since when, for hold times: a writer or the readers in at once (a vector by task id
    // would take a slot for every task of the run in every rwsem, every mmap_sem among them).
    struct Holder {
        decltype(Task::id) task;
        Time since;
    };
    std::vector<Holder> m_holders;
};

} // namespace mms
