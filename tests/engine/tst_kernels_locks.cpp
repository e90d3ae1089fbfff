// The era rules of the lock implementations (mm/toggles.h: kernelRules; sched/locking.h): each moves the metric its
// changelog names, in the direction it states, on a small run of a built-in scenario with only its toggle flipped.
#include "mm/toggles.h"
#include "sched/sched.h"
#include "sync/mutex.h"
#include "sync/rwsem.h"
#include "ruletest.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;
using namespace mms::test;

namespace {
// mmap-sem-8way (Jakub's test: threads faulting while they mmap and mprotect under mmap_sem for write) with one
// thread per CPU, so that a contender's CPU has nothing else to run (need_resched() stays clear), on the xadd rwsem
// of `kernel` with lock.rwsem_spin at `spin`.
ResultSet mmapSem(const char* kernel, const char* spin)
{
    return runWith("mmap-sem-8way", "vanilla",
        { { "kernel", kernel }, { "rwsem.impl", "xadd" }, { "taskset_cpus", "0" }, { "workload.threads", "8" },
            { "lock.rwsem_spin", spin } },
        0.05);
}

// migration-unmapped (AIM7 new_fserver: every process links and unlinks the shared libraries' VMAs under their
// i_mmap locks) at `users` users on `kernel`, with `sets` on top.
ResultSet fserver(const char* kernel, const char* users, std::vector<std::pair<std::string, std::string>> sets)
{
    sets.insert(sets.begin(), { { "kernel", kernel }, { "users", users } });
    return runWith("migration-unmapped", "baseline", sets, 0.05);
}

LockStat starvingWriters(bool handoff)
{
    Simulator sim;
    Sched s(sim, test::genericMachine(4));
    Locking locking; // 5.3: writers spin on the owner
    locking.rwsemHandoff = handoff;
    s.setLocking(locking);
    RwSem sem("sem", RwsemImpl::XaddSteal);
    for (int i = 0; i < 5; ++i) {
        Task& t = s.spawn("w" + std::to_string(i), i % 4, false, nullptr, 1);
        s.start(t, writerLoop(s, t, sem, 600));
    }
    [&] { QVERIFY(sim.run()); }();
    return sem.stat();
}

// A task taking mutex m `rounds` times: 0.2 us apart, held 1 us, so that the others are still spinning at each release.
Co<> shortHolds(Sched& s, Task& t, Mutex& m, int rounds)
{
    for (int i = 0; i < rounds; ++i) {
        Sched::burn(t, 200);
        co_await m.lock(s, t);
        Sched::burn(t, 1'000);
        m.unlock(s, t);
    }
}

LockStat spinningMutex(bool mcs)
{
    Simulator sim;
    Sched s(sim, test::genericMachine(8, 2));
    Locking locking; // 3.10: spinning on the owner, no hand-off to a sleeping waiter yet (4.10)
    locking.mutexMcs = mcs;
    locking.mutexHandoff = false;
    s.setLocking(locking);
    Mutex m("m");
    for (int i = 0; i < 8; ++i) {
        Task& t = s.spawn("t" + std::to_string(i), i, false, nullptr, 1);
        s.start(t, shortHolds(s, t, m, 600));
    }
    [&] { QVERIFY(sim.run()); }();
    return m.stat();
}

LockStat starvingMutexWaiters(bool handoff)
{
    Simulator sim;
    Sched s(sim, test::genericMachine(4));
    Locking locking;
    locking.mutexHandoff = handoff;
    s.setLocking(locking);
    Mutex m("m");
    for (int i = 0; i < 5; ++i) {
        Task& t = s.spawn("t" + std::to_string(i), i % 4, false, nullptr, 1);
        s.start(t, mutexLoop(s, t, m, 600));
    }
    [&] { QVERIFY(sim.run()); }();
    return m.stat();
}

} // namespace

class TestKernelsLocks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // 3.0 "mm: Convert i_mmap_lock to a mutex", of the series making the unmap paths preemptible: a task waiting for
    // a file's i_mmap lock no longer keeps its CPU for the whole wait; it spins only while the owner runs and
    // sleeps otherwise, leaving the CPU to other tasks -- less system time spent waiting. (The context switches it
    // adds are too few beside re-aim's own forks, exits and directory waits to show in cs_per_s.)
    void immapMutexWaitersSleep()
    {
        ResultSet spin = fserver("2.6.39", "61", { { "i_mmap.lock", "spinlock" } });
        ResultSet mutex = fserver("2.6.39", "61", { { "i_mmap.lock", "mutex" } });
        const LockSummary a = lockOf(spin, "baseline", "mapping->i_mmap_lock"),
                          b = lockOf(mutex, "baseline", "mapping->i_mmap_mutex");
        QVERIFY2(a.contentions > 0, "i_mmap_lock never contended");
        QCOMPARE(lockOf(mutex, "baseline", "mapping->i_mmap_lock").acquisitions, std::uint64_t(0));
        QVERIFY2(b.acquisitions > 0, "i_mmap_mutex never taken");
        const double sa = metric(spin, "baseline", "sys_s"), sb = metric(mutex, "baseline", "sys_s");
        qInfo("sys_s %s -> %s", qPrintable(num(sa)), qPrintable(num(sb)));
        QVERIFY2(sb < sa, qPrintable(num(sa) + " -> " + num(sb)));
    }

    // 0dc8c730c98a (3.10): the mutex's spinners queue on an MCS lock "to reduce cacheline contention": the spinner
    // that takes a released mutex no longer reloads its line behind the others, so a wait for a contended mutex
    // takes less time. Shown on the lock model alone: eight tasks on eight CPUs of two sockets taking one mutex in a
    // loop, the owner always running, so the waiters spin (in re-aim the i_mmap_mutex's waits are mostly sleeps,
    // whose length the hand-off hardly moves).
    void mutexMcsCutsTheWait()
    {
        const LockStat polling = spinningMutex(false), mcs = spinningMutex(true);
        QVERIFY2(polling.contentions > 0 && mcs.contentions > 0, "the mutex was never contended");
        const double wa = polling.waitTotal / static_cast<double>(polling.contentions),
                     wb = mcs.waitTotal / static_cast<double>(mcs.contentions);
        qInfo("wait per contention %s -> %s ps", qPrintable(num(wa)), qPrintable(num(wb)));
        QVERIFY2(wb < wa, qPrintable(num(wa) + " -> " + num(wb)));
    }

    // 4fc828e24cd9 (3.16): "optimistic spinning" for rwsem writers, as mutexes have it: a writer that finds a running
    // writer holding mmap_sem spins instead of going to sleep, so the run switches context less often.
    void rwsemWriterSpinningSwitchesLess()
    {
        ResultSet sleeping = mmapSem("4.0", "none"), spinning = mmapSem("4.0", "writer");
        const double a = metric(sleeping, "vanilla", "cs_per_s"), b = metric(spinning, "vanilla", "cs_per_s");
        qInfo("cs_per_s %s -> %s", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 9d659ae14b54 (4.10): mutex "lock handoff to avoid starvation": a woken waiter that lost the race is handed the
    // mutex at the next unlock, so the longest wait gets shorter. On the lock model's own run, as for the rwsem's
    // hand-off below: in migration-unmapped the longest i_mmap_mutex wait is one sample of a few hundred contended
    // waits, which the page-cache rules of the same era move either way.
    void mutexHandoffBoundsTheWait()
    {
        const LockStat a = starvingMutexWaiters(false), b = starvingMutexWaiters(true);
        QVERIFY2(a.contentions > 0, "the mutex never contended");
        qInfo("longest wait %s -> %s ps", qPrintable(num(a.waitMax)), qPrintable(num(b.waitMax)));
        QVERIFY2(b.waitMax < a.waitMax, qPrintable(num(a.waitMax) + " -> " + num(b.waitMax)));
    }

    // 4f23dbc1e657 (5.3): rwsem "lock handoff to prevent lock starvation": a writer first in line for 4 ms is handed
    // the rwsem, so the longest wait for it gets shorter. The built-in scenarios' rwsems never keep a writer waiting
    // that long (migration-unmapped's i_mmap_rwsem at most ~50 us at 481 users), so the run is the lock model's own:
    // five writers on four CPUs, spinning on each other as 5.3's rwsem does.
    void rwsemHandoffBoundsTheWait()
    {
        const LockStat a = starvingWriters(false), b = starvingWriters(true);
        QVERIFY2(toNs(a.waitMax) > 4'000'000, "no writer waited past RWSEM_WAIT_TIMEOUT");
        qInfo("longest wait %s -> %s ps", qPrintable(num(a.waitMax)), qPrintable(num(b.waitMax)));
        QVERIFY2(b.waitMax < a.waitMax, qPrintable(num(a.waitMax) + " -> " + num(b.waitMax)));
    }

    // cf69482d62d9 (5.3): "readers spinning on writer": a fault that finds mmap_sem held by a running writer spins
    // until the release instead of sleeping, so the run switches context less often.
    void rwsemReaderSpinningSwitchesLess()
    {
        ResultSet writers = mmapSem("5.3", "writer"), readers = mmapSem("5.3", "reader");
        const double a = metric(writers, "vanilla", "cs_per_s"), b = metric(readers, "vanilla", "cs_per_s");
        qInfo("cs_per_s %s -> %s", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 617f3ef95177 (5.11): "Remove reader optimistic spinning": readers that would spin on a writer sleep instead,
    // and the CPU time they burnt spinning is given back.
    void rwsemReaderSpinningRemovedSavesCpu()
    {
        ResultSet readers = mmapSem("5.11", "reader"), writers = mmapSem("5.11", "writer");
        const double a = metric(readers, "vanilla", "sys_s"), b = metric(writers, "vanilla", "sys_s");
        qInfo("sys_s %s -> %s", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(b < a, qPrintable(num(a) + " -> " + num(b)));
    }
};

QTEST_GUILESS_MAIN(TestKernelsLocks)
#include "tst_kernels_locks.moc"
