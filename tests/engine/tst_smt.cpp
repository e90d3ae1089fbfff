// SMT siblings share a core (Sched::burn, CostModel::smtThroughput): compute takes 2 / 1.3 times as long while
// the sibling thread computes, and as long as alone while the sibling idles, spins for a lock or runs on another
// core; memory streams are not stretched again (their share of the core's bandwidth is in them already).
#include "sched/sched.h"
#include "sync/spinlock.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {

constexpr int kChunks = 200;
constexpr double kChunkNs = 100;

// `chunks` charges of compute, each flushed onto the clock before the next; `took`: from the task's first run (its
// switch-in done) to the end of the last.
Co<> compute(Sched& s, Task& t, int chunks, Time& took)
{
    const Time start = s.sim().now();
    for (int i = 0; i < chunks; ++i) {
        Sched::burn(t, kChunkNs);
        co_await s.flush(t);
    }
    took = s.sim().now() - start;
}

// compute() once `delay` has passed.
Co<> computeAfter(Sched& s, Task& t, Time delay, int chunks, Time& took)
{
    co_await s.sleepFor(t, delay);
    co_await compute(s, t, chunks, took);
}

// `pages` pages cleared, one stream each.
Co<> stream(Sched& s, Task& t, int pages, Time& took)
{
    const Time start = s.sim().now();
    for (int i = 0; i < pages; ++i) {
        s.burnTransfer(t, 0, 4096);
        co_await s.flush(t);
    }
    took = s.sim().now() - start;
}

// Holds `l` for `holdNs`.
Co<> hold(Sched& s, Task& t, SpinLock& l, double holdNs)
{
    co_await spin_lock(s, t, l);
    Sched::burn(t, holdNs);
    co_await s.flush(t);
    spin_unlock(s, t, l);
}

// Waits for `l` from 1 ns on, while its holder keeps it.
Co<> waitFor(Sched& s, Task& t, SpinLock& l)
{
    co_await s.sleepFor(t, 1);
    co_await spin_lock(s, t, l);
    spin_unlock(s, t, l);
}

} // namespace

class TestSmt : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void computeSharesTheCore_data()
    {
        // generic-12cpu-2015's 6 cores x 2 threads: CPUs i and i + 6 are one core's two threads.
        QTest::addColumn<int>("other"); // the other task's CPU, -1 for none
        QTest::addColumn<bool>("slower");
        QTest::addRow("alone") << -1 << false;
        QTest::addRow("sibling computes") << 6 << true;
        QTest::addRow("another core computes") << 1 << false;
    }
    void computeSharesTheCore()
    {
        QFETCH(int, other);
        QFETCH(bool, slower);
        const MachineSpec m = test::genericMachine(12, 1, 2);
        QCOMPARE(m.coreOf(0), m.coreOf(6));
        Simulator sim;
        Sched s(sim, m);
        Time end = 0, otherEnd = 0;
        Task& a = s.spawn("a", 0, false, nullptr, 1);
        s.start(a, compute(s, a, kChunks, end));
        if (other >= 0) {
            Task& b = s.spawn("b", other, false, nullptr, 2);
            s.start(b, compute(s, b, 2 * kChunks, otherEnd)); // busy for all of a's run
        }
        QVERIFY(sim.run());
        const double alone = kChunks * kChunkNs * 1e3;
        const double expected = slower ? alone * (2 / m.cost.smtThroughput) : alone;
        QVERIFY2(std::abs(static_cast<double>(end) - expected) <= 0.01 * expected,
            qPrintable(QString("%1 ps vs %2").arg(end).arg(expected)));
        // The stretched time is CPU time (the thread was running all along), and the switch-in before it.
        QVERIFY(a.sysTime >= end && a.sysTime <= end + ns(m.cost.contextSwitchNs) + 1);
    }

    void aSpinningSiblingLeavesTheCore()
    {
        // The sibling (CPU 6) waits for a spinlock CPU 1 holds throughout: its PAUSE loop does not slow CPU 0, which
        // starts computing once the waiter spins (after the waiter's switch back in, which is compute).
        const MachineSpec m = test::genericMachine(12, 1, 2);
        Simulator sim;
        Sched s(sim, m);
        SpinLock l("l");
        Time end = 0;
        Task& holder = s.spawn("holder", 1, false, nullptr, 1);
        s.start(holder, hold(s, holder, l, 4 * kChunks * kChunkNs));
        Task& waiter = s.spawn("waiter", 6, false, nullptr, 2);
        s.start(waiter, waitFor(s, waiter, l));
        Task& a = s.spawn("a", 0, false, nullptr, 3);
        s.start(a, computeAfter(s, a, ns(10'000), kChunks, end));
        QVERIFY(sim.run());
        QVERIFY(waiter.finished > ns(10'000) + end); // it spun all the while
        QCOMPARE(end, Time(kChunks * kChunkNs * 1e3));
    }

    void streamsAreNotStretchedAgain()
    {
        // A stream's time is the core's bandwidth; a computing sibling does not add the compute slowdown to it.
        const MachineSpec m = test::genericMachine(12, 1, 2);
        Time alone = 0, beside = 0, otherEnd = 0;
        {
            Simulator sim;
            Sched s(sim, m);
            Task& a = s.spawn("a", 0, false, nullptr, 1);
            s.start(a, stream(s, a, 100, alone));
            QVERIFY(sim.run());
        }
        {
            Simulator sim;
            Sched s(sim, m);
            Task& a = s.spawn("a", 0, false, nullptr, 1);
            s.start(a, stream(s, a, 100, beside));
            Task& b = s.spawn("b", 6, false, nullptr, 2);
            s.start(b, compute(s, b, 100 * kChunks, otherEnd));
            QVERIFY(sim.run());
        }
        QCOMPARE(beside, alone);
    }

    void presetsWithoutSmtAreUnaffected()
    {
        const MachineSpec m = *machinePreset("quad-core-2007");
        QCOMPARE(m.threadsPerCore, 1);
        Simulator sim;
        Sched s(sim, m);
        Time end = 0, otherEnd = 0;
        Task& a = s.spawn("a", 0, false, nullptr, 1);
        s.start(a, compute(s, a, kChunks, end));
        Task& b = s.spawn("b", 1, false, nullptr, 2);
        s.start(b, compute(s, b, 2 * kChunks, otherEnd));
        QVERIFY(a.siblingCurrent == nullptr);
        QVERIFY(sim.run());
        QCOMPARE(end, Time(kChunks * kChunkNs * 1e3));
    }
};

QTEST_GUILESS_MAIN(TestSmt)
#include "tst_smt.moc"
