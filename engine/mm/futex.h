#pragma once
// kernel/futex.c (2.6.20), for user-space mutexes of seed 001's threads: a futex's hash bucket and wait queue, and
// FUTEX_WAIT and FUTEX_WAKE.

#include "sim/co.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <deque>
#include <set>
#include <utility>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

struct FutexQueue {
    SpinLock hbLock { "futex_hash_bucket.lock" };
    std::deque<std::pair<Task*, std::uint32_t>> waiters; // task and its sleep generation
    std::set<Task*> wokenEarly; // woken between queueing and going to sleep
};
// FUTEX_WAIT: sleeps unless `word` no longer holds `expected`. FUTEX_WAKE: wakes up to `nr` waiters.
Co<> futex_wait(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, const int& word, int expected);
Co<> futex_wake(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, int nr);

} // namespace mms
