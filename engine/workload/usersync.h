#pragma once
// User-space synchronisation of seed 001's mysqld as 2007's glibc (NPTL) and InnoDB 5.0 implement it, over the
// kernel's futexes: in 2.6.20 every futex call is an mmap_sem reader (mm/futex.cpp), so how often a program's locks
// enter the kernel decides how much a writer of mmap_sem stops it.
//  - LowLevelLock: glibc's lowlevellock (nptl/sysdeps/unix/sysv/linux/lowlevellock.h), what pthread_mutex_lock()
//    and pthread_mutex_unlock() of a default mutex are: 0 free, 1 locked, 2 locked with waiters; a contended lock
//    sleeps in FUTEX_WAIT, an unlock that finds 2 wakes one waiter.
//  - CondVar: NPTL's pthread_cond_wait() and pthread_cond_broadcast() of 2007: a waiter sleeps on the condition's
//    sequence word; a broadcast bumps it, wakes one waiter and requeues the others onto the mutex's futex
//    (FUTEX_CMP_REQUEUE), where the mutex's unlocks wake them one at a time. Internal state under the condition's
//    own lowlevellock.
//  - InnodbMutex: InnoDB's mutex of MySQL 5.0.30 and later (sync/sync0sync.c, sync0arr.c, os/os0sync.c): a
//    test-and-set on an OS mutex's trylock; contended, spin SYNC_SPIN_ROUNDS rounds of ut_delay() reading the lock
//    word, sched_yield() if the rounds ran out, try again; then reserve a cell in the global wait array (under its
//    OS mutex), reset the mutex's event, set the waiters flag, try four more times, and wait on the event
//    (os_event_wait: a condition variable under the event's OS mutex), and start over when woken. mutex_exit()
//    clears the lock word and, if the waiters flag is set, clears it and sets the event: a broadcast that wakes every
//    waiter of the mutex, each of which spins again.

#include "kernel/syscalls.h"

#include <cstdint>

namespace mms {

class LowLevelLock {
public:
    explicit LowLevelLock(Kernel& k)
        : m_futex(k)
    {
    }
    // lll_lock(): cmpxchg(0, 1), then xchg(2) and FUTEX_WAIT while it was held. `mark` 2 is lll_mutex_cond_lock(),
    // pthread_cond_wait()'s re-lock, which takes the lock as contended so that its unlock wakes the waiters a
    // broadcast requeued onto it.
    Co<> lock(Kernel& k, Task& t, int mark = 1);
    // lll_unlock(): 0, and FUTEX_WAKE of one waiter if it was 2.
    Co<> unlock(Kernel& k, Task& t);
    sys::Futex& futex() { return m_futex; }

private:
    int m_word = 0;
    sys::Futex m_futex;
    int m_lastCpu = -1; // the CPU whose cache holds the lock word's line
};

class CondVar {
public:
    explicit CondVar(Kernel& k)
        : m_lock(k)
        , m_futex(k)
    {
    }
    // pthread_cond_wait(): `m` is held on entry and again on return.
    Co<> wait(Kernel& k, Task& t, LowLevelLock& m);
    // pthread_cond_broadcast() by a holder of `m` (their mutex, as os_event_set() holds it): every waiter of the
    // moment wakes, one now and the others as `m` passes.
    Co<> broadcast(Kernel& k, Task& t, LowLevelLock& m);

private:
    LowLevelLock m_lock; // cond->__data.__lock
    int m_seq = 0; // cond->__data.__futex: the word waiters sleep on
    int m_waiters = 0; // waiters not woken yet
    sys::Futex m_futex;
};

// The wait array's OS mutex (sync_primary_wait_array->os_mutex): every InnoDB mutex of the process reserves and frees
// its waiters' cells under it.
struct InnodbSyncArray {
    explicit InnodbSyncArray(Kernel& k)
        : osMutex(k)
    {
    }
    LowLevelLock osMutex;
    int reserved = 0; // cells in use (n_reserved)
};

class InnodbMutex {
public:
    InnodbMutex(Kernel& k, InnodbSyncArray& array)
        : m_array(array)
        , m_eventMutex(k)
        , m_cond(k)
    {
    }
    // mutex_enter()
    Co<> enter(Kernel& k, Task& t);
    // mutex_exit()
    Co<> exit(Kernel& k, Task& t);

    // sync0sync.c of 5.0: SYNC_SPIN_ROUNDS (srv_n_spin_wait_rounds) and srv_spin_wait_delay, innodb_spin_wait_delay's
    // default: each round waits ut_delay(ut_rnd_interval(0, 6)).
    static constexpr int kSpinRounds = 20;
    static constexpr int kSpinWaitDelay = 6;
    // ut_delay(n) runs n * 50 iterations of `j += i` (ut/ut0ut.c of 5.0; no PAUSE before 5.1's UT_RELAX_CPU): one
    // cycle an iteration, the loop's dependency chain (GUESS).
    static constexpr double kDelayCyclesPerUnit = 50.0;

    // For tests and the workload's counters: spin waits begun, sched_yield()s, waits on the event.
    std::uint64_t spinWaits() const { return m_spinWaits; }
    std::uint64_t yields() const { return m_yields; }
    std::uint64_t osWaits() const { return m_osWaits; }

private:
    bool testAndSet(Kernel& k, Task& t);
    Co<> arrayEnterExit(Kernel& k, Task& t);
    Co<std::int64_t> eventReset(Kernel& k, Task& t);
    Co<> eventWait(Kernel& k, Task& t, std::int64_t resetCount);
    Co<> eventSet(Kernel& k, Task& t);

    InnodbSyncArray& m_array;
    int m_lockWord = 0; // mutex->lock_word (with the OS fast mutex's trylock: one line)
    bool m_waiters = false; // mutex->waiters
    int m_lastCpu = -1;
    // mutex->event: os_event_struct
    LowLevelLock m_eventMutex;
    CondVar m_cond;
    bool m_isSet = false;
    std::int64_t m_signalCount = 0;
    std::uint64_t m_spinWaits = 0;
    std::uint64_t m_yields = 0;
    std::uint64_t m_osWaits = 0;
};

} // namespace mms
