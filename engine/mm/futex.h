#pragma once
// kernel/futex.c (2.6.20), for user-space mutexes of seed 001's threads: a futex's hash bucket and wait queue, and
// FUTEX_WAIT, FUTEX_WAKE and FUTEX_CMP_REQUEUE.

#include "sim/co.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <utility>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

struct FutexQueue {
    std::uint64_t key = 0; // orders two buckets' locks: the kernel's by address, here by the word's creation
    SpinLock hbLock { "futex_hash_bucket.lock" };
    std::deque<std::pair<Task*, std::uint32_t>> waiters; // task and its sleep generation
    std::set<Task*> wokenEarly; // woken between queueing and going to sleep
    // Waiters of this futex that FUTEX_CMP_REQUEUE moved to another futex's queue (the kernel updates each moved
    // futex_q's lock_ptr): where a waiter looks when it wakes or unqueues itself. Erased when its wait ends.
    std::map<Task*, FutexQueue*> requeued;
};
// FUTEX_WAIT: sleeps unless `word` no longer holds `expected`. FUTEX_WAKE: wakes up to `nr` waiters.
Co<> futex_wait(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, const int& word, int expected);
Co<> futex_wake(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, int nr);
// FUTEX_CMP_REQUEUE (2.6.7+): unless `word` no longer holds `expected` (-EAGAIN), wakes up to `nrWake` waiters of
// `q` and moves up to `nrRequeue` more to `to`'s queue, where a FUTEX_WAKE of `to` wakes them (glibc's
// pthread_cond_broadcast() moves a condition's waiters to its mutex's futex: one wakes, the rest follow the mutex).
// Returns how many it woke and moved.
Co<int> futex_cmp_requeue(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, FutexQueue& to, const int& word,
    int expected, int nrWake, int nrRequeue);

} // namespace mms
