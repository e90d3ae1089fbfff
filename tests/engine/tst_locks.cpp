// Lock models against closed-form cases: FIFO spinlock hand-off, sleeping mutex, rwsem readers and writers.
#include "sched/sched.h"
#include "sync/mutex.h"
#include "sync/rwsem.h"
#include "sync/spinlock.h"

#include <QtTest>

using namespace mms;

namespace {
MachineSpec machine(int cpus)
{
    MachineSpec m = *machinePreset("generic-12cpu-2015");
    m.cpus = cpus;
    m.sockets = 1;
    return m;
}

Co<> holdSpin(Sched& s, Task& t, SpinLock& l, double holdNs)
{
    co_await spin_lock(s, t, l);
    Sched::burn(t, holdNs);
    spin_unlock(s, t, l);
    co_await s.flush(t);
}

// Runs `beforeNs` of other work first, then takes the spinlock for holdNs.
Co<> lateHold(Sched& s, Task& t, SpinLock& l, double beforeNs, double holdNs)
{
    Sched::burn(t, beforeNs);
    co_await s.flush(t);
    co_await holdSpin(s, t, l, holdNs);
}

Co<> holdMutex(Sched& s, Task& t, Mutex& m, double holdNs)
{
    co_await mutex_lock(s, t, m);
    Sched::burn(t, holdNs);
    mutex_unlock(s, t, m);
    co_await s.flush(t);
}

// Runs `beforeNs` of other work first, then takes the mutex for holdNs.
Co<> lateHoldMutex(Sched& s, Task& t, Mutex& m, double beforeNs, double holdNs)
{
    Sched::burn(t, beforeNs);
    co_await s.flush(t);
    co_await holdMutex(s, t, m, holdNs);
}

// Takes the mutex, runs holdNs, sleeps sleepNs holding it, releases.
Co<> sleepHoldingMutex(Sched& s, Task& t, Mutex& m, double holdNs, double sleepNs)
{
    co_await mutex_lock(s, t, m);
    Sched::burn(t, holdNs);
    co_await s.flush(t);
    co_await s.sleepFor(t, ns(sleepNs));
    mutex_unlock(s, t, m);
    co_await s.flush(t);
}

Co<> holdRw(Sched& s, Task& t, RwSem& l, bool write, double holdNs)
{
    if (write)
        co_await l.down_write(s, t);
    else
        co_await l.down_read(s, t);
    Sched::burn(t, holdNs);
    if (write)
        co_await l.up_write(s, t);
    else
        co_await l.up_read(s, t);
}
} // namespace

class TestLocks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void spinlockFifoHandoff_data()
    {
        QTest::addColumn<int>("cpus");
        QTest::addRow("2 cpus") << 2;
        QTest::addRow("4 cpus") << 4;
        QTest::addRow("12 cpus") << 12;
    }
    void spinlockFifoHandoff()
    {
        QFETCH(int, cpus);
        Simulator sim;
        MachineSpec m = machine(cpus);
        Sched s(sim, m);
        SpinLock lock("test");
        const double hold = 1000.0; // ns
        std::vector<Task*> tasks;
        for (int i = 0; i < cpus; ++i) {
            Task& t = s.spawn("t" + std::to_string(i), i, false, nullptr, 1);
            s.start(t, holdSpin(s, t, lock, hold));
            tasks.push_back(&t);
        }
        QVERIFY(sim.run());
        const LockStat& st = lock.stat();
        QCOMPARE(st.acquisitions, std::uint64_t(cpus));
        QCOMPARE(st.contentions, std::uint64_t(cpus - 1));
        // The i-th waiter waits for i holds, each hold = hold + one locked RMW, plus i line transfers.
        double perHold = hold + m.cost.lockedRmwNs;
        double expectedWait = 0;
        for (int i = 1; i < cpus; ++i)
            expectedWait += i * (perHold + m.cost.lineSameSocketNs);
        QVERIFY2(std::fabs(toNs(st.waitTotal) - expectedWait) < 1.0 + 0.001 * expectedWait,
            qPrintable(QString("wait %1 ns, expected %2 ns").arg(toNs(st.waitTotal)).arg(expectedWait)));
        // Spinning burns CPU: every task's sys time is its wait plus its hold (plus the switch that started it).
        Time sys = 0;
        for (Task* t : tasks)
            sys += t->sysTime;
        double expectedSys = expectedWait + cpus * (perHold + m.cost.contextSwitchNs);
        QVERIFY2(std::fabs(toNs(sys) - expectedSys) < 1.0 + 0.01 * expectedWait,
            qPrintable(QString("sys %1 ns, expected %2 ns").arg(toNs(sys)).arg(expectedSys)));
        QCOMPARE(toNs(st.holdMax), perHold);
    }

    void spinIsContendedOnlyWithAWaiter()
    {
        // spin_is_contended(), which async compaction asks before it takes zone->lock or the lru_lock: a held lock
        // is not contended until someone queues behind the holder.
        Simulator sim;
        Sched s(sim, machine(3));
        SpinLock lock("test");
        Task& holder = s.spawn("holder", 0, false, nullptr, 1);
        Task& waiter = s.spawn("waiter", 1, false, nullptr, 1);
        Task& observer = s.spawn("observer", 2, false, nullptr, 1);
        s.start(holder, holdSpin(s, holder, lock, 1000.0));
        s.start(waiter, lateHold(s, waiter, lock, 200.0, 1000.0));
        std::vector<bool> seen;
        auto observe = [](Sched& s, Task& t, SpinLock& l, std::vector<bool>& out) -> Co<> {
            // ns after the switch-in: the holder alone (1 us hold), the waiter queued (from 200 ns), both done.
            double prev = 0;
            for (double at : { 100.0, 400.0, 4000.0 }) {
                Sched::burn(t, at - prev);
                prev = at;
                co_await s.flush(t);
                out.push_back(l.contended(s.sim().now()));
            }
        };
        s.start(observer, observe(s, observer, lock, seen));
        QVERIFY(sim.run());
        QCOMPARE(seen, (std::vector<bool> { false, true, false }));
        QCOMPARE(lock.stat().contentions, std::uint64_t(1));
    }

    void mutexSleepsAndFreesTheCpu()
    {
        // a (CPU 0, first at equal times) holds the mutex for 50 us; b (CPU 1) must wait, and sleeps.
        Simulator sim;
        Sched s(sim, machine(2));
        Mutex mutex("m", MutexSpin::Off);
        Task& a = s.spawn("a", 0, false, nullptr, 1);
        Task& b = s.spawn("b", 1, false, nullptr, 2);
        s.start(a, holdMutex(s, a, mutex, 50'000));
        s.start(b, holdMutex(s, b, mutex, 1'000));
        QVERIFY(sim.run());
        QCOMPARE(mutex.stat().acquisitions, std::uint64_t(2));
        QCOMPARE(mutex.stat().contentions, std::uint64_t(1));
        // b slept ~50 us: its sys time is far below the wait (a sleeping waiter does not burn CPU).
        QVERIFY(toNs(b.sysTime) < 20'000);
        QVERIFY(toNs(mutex.stat().waitTotal) > 45'000);
    }

    void mutexSpinsOnARunningOwner()
    {
        // a (CPU 0) holds the mutex for 20 us, running; b (CPU 1) arrives 1 us later and spins on the owner
        // (mutex_spin_on_owner): it takes the mutex when it sees a's release (one cacheline transfer), without
        // sleeping, so it never pays a context switch beyond its first dispatch and burns the wait as sys time.
        Simulator sim;
        Sched s(sim, machine(2));
        Mutex mutex("m");
        Task& a = s.spawn("a", 0, false, nullptr, 1);
        Task& b = s.spawn("b", 1, false, nullptr, 2);
        s.start(a, holdMutex(s, a, mutex, 20'000));
        s.start(b, lateHoldMutex(s, b, mutex, 1'000, 1'000));
        QVERIFY(sim.run());
        QCOMPARE(mutex.stat().contentions, std::uint64_t(1));
        double sw = s.cost().contextSwitchNs;
        double rmw = s.cost().lockedRmwNs;
        // a: dispatched at sw, RMW, holds 20 us: releases at sw + rmw + 20 us, which b's poll sees one cacheline
        // transfer later. b: first try at sw + 1 us.
        double release = sw + rmw + 20'000 + s.lineTransferNs(0, 1);
        double bTry = sw + 1'000;
        QVERIFY2(std::fabs(toNs(mutex.stat().waitTotal) - (release - bTry)) < 1.0,
            qPrintable(QString("wait %1 ns, expected %2 ns").arg(toNs(mutex.stat().waitTotal)).arg(release - bTry)));
        // b's sys time: one switch in, the 1 us it ran before, the spin, its RMW and its 1 us hold: no sleep.
        double bSys = sw + 1'000 + (release - bTry) + rmw + 1'000;
        QVERIFY2(std::fabs(toNs(b.sysTime) - bSys) < 1.0,
            qPrintable(QString("b sys %1 ns, expected %2 ns").arg(toNs(b.sysTime)).arg(bSys)));
    }

    void mutexWaitersSleepWhileTheOwnerSleeps()
    {
        // a takes the mutex, then sleeps 50 us holding it (an I/O); b, spinning on it, sees a leave its CPU and
        // sleeps too: it burns next to no CPU for the wait.
        Simulator sim;
        Sched s(sim, machine(2));
        Mutex mutex("m");
        Task& a = s.spawn("a", 0, false, nullptr, 1);
        Task& b = s.spawn("b", 1, false, nullptr, 2);
        s.start(a, sleepHoldingMutex(s, a, mutex, 5'000, 50'000));
        s.start(b, lateHoldMutex(s, b, mutex, 1'000, 1'000));
        QVERIFY(sim.run());
        QCOMPARE(mutex.stat().contentions, std::uint64_t(1));
        QVERIFY(toNs(mutex.stat().waitTotal) > 50'000);
        // b spun only until a slept (about 4 us), then slept: its sys time is far below the ~55 us wait.
        QVERIFY2(toNs(b.sysTime) < 20'000, qPrintable(QString("b sys %1 ns").arg(toNs(b.sysTime))));
        QVERIFY(b.finished > a.finished - ns(10'000));
    }

    void rwsemReadersShareWritersExclude_data()
    {
        QTest::addColumn<bool>("spinlockImpl");
        QTest::addRow("xadd") << false;
        QTest::addRow("spinlock (2.6.20)") << true;
    }
    void rwsemReadersShareWritersExclude()
    {
        QFETCH(bool, spinlockImpl);
        Simulator sim;
        Sched s(sim, machine(4));
        RwSem sem("sem", spinlockImpl ? RwsemImpl::Spinlock : RwsemImpl::Xadd);
        for (int i = 0; i < 3; ++i) {
            Task& t = s.spawn("r" + std::to_string(i), i, false, nullptr, 1);
            s.start(t, holdRw(s, t, sem, false, 10'000));
        }
        QVERIFY(sim.run());
        // Three readers at once: they overlap, so the whole takes about one hold, not three.
        QVERIFY(toNs(sim.now()) < 20'000);
        QCOMPARE(sem.stat().contentions, std::uint64_t(0));
        if (spinlockImpl)
            QVERIFY(sem.waitLock().stat().acquisitions >= 6); // every down_read and up_read takes wait_lock
        else
            QCOMPARE(sem.waitLock().stat().acquisitions, std::uint64_t(0));

        Simulator sim2;
        Sched s2(sim2, machine(4));
        RwSem sem2("sem", spinlockImpl ? RwsemImpl::Spinlock : RwsemImpl::Xadd);
        for (int i = 0; i < 3; ++i) {
            Task& t = s2.spawn("w" + std::to_string(i), i, false, nullptr, 1);
            s2.start(t, holdRw(s2, t, sem2, true, 10'000));
        }
        QVERIFY(sim2.run());
        // Three writers serialise: at least three holds.
        QVERIFY(toNs(sim2.now()) >= 30'000);
        QCOMPARE(sem2.stat().contentions, std::uint64_t(2));
        QCOMPARE(sem2.readers(), 0);
        QVERIFY(!sem2.writer());
    }
};

QTEST_GUILESS_MAIN(TestLocks)
#include "tst_locks.moc"
