#include "workload/usersync.h"

#include "sim/rng.h"

#include <climits>

namespace mms {

Co<> LowLevelLock::lock(Kernel& k, Task& t, int mark)
{
    for (bool first = true;; first = false) {
        co_await sys::flush(k, t);
        sys::atomic_rmw(k, t, m_lastCpu);
        const int old = m_word;
        m_word = first && old == 0 ? mark : 2; // cmpxchg(0, mark), then xchg(2)
        if (old == 0)
            co_return;
        co_await sys::futex_wait(k, t, m_futex, m_word, 2);
    }
}

Co<> LowLevelLock::unlock(Kernel& k, Task& t)
{
    co_await sys::flush(k, t);
    sys::atomic_rmw(k, t, m_lastCpu);
    const int old = m_word;
    m_word = 0;
    if (old == 2)
        co_await sys::futex_wake(k, t, m_futex, 1);
}

Co<> CondVar::wait(Kernel& k, Task& t, LowLevelLock& m)
{
    co_await m_lock.lock(k, t);
    co_await m.unlock(k, t);
    const int seq = m_seq;
    ++m_waiters;
    // Woken by a broadcast, or back at once because one came between the unlock and FUTEX_WAIT (the word moved on).
    do {
        co_await m_lock.unlock(k, t);
        co_await sys::futex_wait(k, t, m_futex, m_seq, seq);
        co_await m_lock.lock(k, t);
    } while (m_seq == seq);
    co_await m_lock.unlock(k, t);
    co_await m.lock(k, t, 2);
}

Co<> CondVar::broadcast(Kernel& k, Task& t, LowLevelLock& m)
{
    co_await m_lock.lock(k, t);
    if (m_waiters == 0) {
        co_await m_lock.unlock(k, t);
        co_return;
    }
    m_waiters = 0;
    const int seq = ++m_seq;
    co_await m_lock.unlock(k, t);
    // One waiter wakes; the rest move to the mutex's futex. The word still holds `seq`: broadcasts hold `m`.
    co_await sys::futex_cmp_requeue(k, t, m_futex, m.futex(), m_seq, seq, 1, INT_MAX);
}

bool InnodbMutex::testAndSet(Kernel& k, Task& t)
{
    // mutex_test_and_set(): os_fast_mutex_trylock() (a lock cmpxchg on the mutex's line), lock_word = 1 on success.
    sys::atomic_rmw(k, t, m_lastCpu);
    if (m_lockWord != 0)
        return false;
    m_lockWord = 1;
    return true;
}

Co<> InnodbMutex::arrayEnterExit(Kernel& k, Task& t)
{
    co_await m_array.osMutex.lock(k, t);
    sys::compute(t, sys::machine_costs(k).functionCallNs); // the cell, or a counter
    co_await m_array.osMutex.unlock(k, t);
}

Co<std::int64_t> InnodbMutex::eventReset(Kernel& k, Task& t)
{
    co_await m_eventMutex.lock(k, t);
    m_isSet = false;
    const std::int64_t count = m_signalCount;
    co_await m_eventMutex.unlock(k, t);
    co_return count;
}

Co<> InnodbMutex::eventWait(Kernel& k, Task& t, std::int64_t resetCount)
{
    // os_event_wait_low(): sleep until the event is set, or has been set since this waiter reset it.
    co_await m_eventMutex.lock(k, t);
    while (!m_isSet && m_signalCount == resetCount)
        co_await m_cond.wait(k, t, m_eventMutex);
    co_await m_eventMutex.unlock(k, t);
}

Co<> InnodbMutex::eventSet(Kernel& k, Task& t)
{
    co_await m_eventMutex.lock(k, t);
    if (!m_isSet) {
        m_isSet = true;
        ++m_signalCount;
        co_await m_cond.broadcast(k, t, m_eventMutex);
    }
    co_await m_eventMutex.unlock(k, t);
}

Co<> InnodbMutex::enter(Kernel& k, Task& t)
{
    co_await sys::flush(k, t);
    if (testAndSet(k, t))
        co_return;
    ++m_spinWaits;
    const CostModel& c = sys::machine_costs(k);
    const double cycleNs = 1.0 / c.clockGHz;
    for (;;) { // mutex_loop
        int i = 0;
        for (;;) { // spin_loop: read the lock word between delays
            while (m_lockWord != 0 && i < kSpinRounds) {
                const auto delay = static_cast<int>(t.rng.uniform() * (kSpinWaitDelay + 1)); // ut_rnd_interval(0, 6)
                // The calls to ut_rnd_interval() and ut_delay(), then the delay's loop.
                sys::compute(t, 2 * c.functionCallNs + delay * kDelayCyclesPerUnit * cycleNs);
                co_await sys::flush(k, t);
                ++i;
            }
            if (i == kSpinRounds) {
                ++m_yields;
                co_await sys::sched_yield(k, t);
                co_await sys::flush(k, t);
            }
            if (testAndSet(k, t))
                co_return;
            if (++i >= kSpinRounds)
                break;
        }
        // sync_array_reserve_cell() under the array's OS mutex, then os_event_reset() of the mutex's event.
        co_await arrayEnterExit(k, t);
        ++m_array.reserved;
        const std::int64_t resetCount = co_await eventReset(k, t);
        co_await sys::flush(k, t);
        sys::atomic_rmw(k, t, m_lastCpu); // mutex_set_waiters(mutex, 1)
        m_waiters = true;
        bool got = false;
        for (int j = 0; j < 4 && !got; ++j)
            got = testAndSet(k, t);
        if (!got) {
            ++m_osWaits;
            co_await arrayEnterExit(k, t); // sync_array_wait_event(): cell->waiting = TRUE
            co_await eventWait(k, t, resetCount);
        }
        co_await arrayEnterExit(k, t); // sync_array_free_cell()
        --m_array.reserved;
        if (got)
            co_return;
    }
}

Co<> InnodbMutex::exit(Kernel& k, Task& t)
{
    co_await sys::flush(k, t);
    sys::atomic_rmw(k, t, m_lastCpu); // mutex_reset_lock_word(): lock_word = 0, os_fast_mutex_unlock()
    m_lockWord = 0;
    if (!m_waiters)
        co_return;
    // mutex_signal_object(): the waiters flag off, the event set, sync_array_object_signalled() (sg_count++ under the
    // array's OS mutex in 5.0).
    m_waiters = false;
    co_await eventSet(k, t);
    co_await arrayEnterExit(k, t);
}

} // namespace mms
