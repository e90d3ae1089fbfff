#pragma once
// What the era-rule suites (tst_kernels*) share: a figure for a message, a toggle added to a list of --set, and the
// lock model's loops of one task more than CPUs taking one lock (a gap, then a hold): a task on the CPU that
// time-slices two of them sleeps, and a woken one must be switched in before it can take the lock, which a spinner
// on another CPU has taken by then, unless the release hands the lock to it.

#include "sched/sched.h"
#include "sync/mutex.h"
#include "sync/rwsem.h"

#include <QString>

#include <string>
#include <utility>
#include <vector>

namespace mms::test {

inline QString num(double x) { return QString::number(x, 'g', 6); }

using Sets = std::vector<std::pair<std::string, std::string>>;
inline Sets with(Sets base, const char* toggle, const char* value)
{
    base.emplace_back(toggle, value);
    return base;
}

inline Co<> mutexLoop(Sched& s, Task& t, Mutex& m, int rounds)
{
    for (int i = 0; i < rounds; ++i) {
        Sched::burn(t, 2'000);
        co_await m.lock(s, t);
        Sched::burn(t, 10'000);
        m.unlock(s, t);
    }
}

// The same with writers of an xadd rwsem.
inline Co<> writerLoop(Sched& s, Task& t, RwSem& l, int rounds)
{
    for (int i = 0; i < rounds; ++i) {
        Sched::burn(t, 2'000);
        co_await l.down_write(s, t);
        Sched::burn(t, 10'000);
        co_await l.up_write(s, t);
    }
}

} // namespace mms::test
