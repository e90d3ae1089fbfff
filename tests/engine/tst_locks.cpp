// Lock models against closed-form cases: FIFO spinlock hand-off, sleeping mutex, rwsem readers and writers; and
// the timeline spans their waits leave (spinning is the CPU's time, sleeping is not), an I/O wait's included.
#include "block/blkdev.h"
#include "sched/sched.h"
#include "sync/mutex.h"
#include "sync/rwsem.h"
#include "sync/spinlock.h"
#include "testutil.h"

#include "../recorded.h" // holdMutexFor(), userWork(), startSleepingMutexTasks()

#include <algorithm>

#include <QtTest>

using namespace mms;
using mms::test::holdMutexFor;
using mms::test::userWork;

namespace {
MachineSpec machine(int cpus) { return test::genericMachine(cpus); }

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

// Runs `beforeNs` of other work first, then takes the mutex for holdNs.
Co<> lateHoldMutex(Sched& s, Task& t, Mutex& m, double beforeNs, double holdNs)
{
    Sched::burn(t, beforeNs);
    co_await s.flush(t);
    co_await holdMutexFor(s, t, m, holdNs);
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

// The spans a recording bins (Recorder is the real TraceSink), kept whole.
struct Spans final : TraceSink {
    struct Span {
        int cpu;
        Time begin, end;
        SpanKind kind;
        std::string fn;
    };
    std::vector<Span> all;
    void span(int cpu, Time begin, Time end, SpanKind kind, const char* fn) override
    {
        if (end > begin)
            all.push_back({ cpu, begin, end, kind, fn });
    }
    std::vector<Span> of(int cpu, SpanKind kind) const
    {
        std::vector<Span> out;
        std::copy_if(all.begin(), all.end(), std::back_inserter(out),
            [&](const Span& x) { return x.cpu == cpu && x.kind == kind; });
        return out;
    }
    Time total(int cpu, SpanKind kind) const
    {
        Time sum = 0;
        for (const Span& x : of(cpu, kind))
            sum += x.end - x.begin;
        return sum;
    }
    // The CPU's own time (running, spinning) is never counted twice: its Run and LockWait spans do not overlap.
    // (A sleeping waiter's whole wait drawn as LockWait did overlap the other task's run on that CPU.)
    QString overlap(int cpus) const
    {
        for (int c = 0; c < cpus; ++c) {
            std::vector<Span> busy = of(c, SpanKind::Run), wait = of(c, SpanKind::LockWait);
            busy.insert(busy.end(), wait.begin(), wait.end());
            std::sort(busy.begin(), busy.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
            for (std::size_t i = 1; i < busy.size(); ++i)
                if (busy[i].begin < busy[i - 1].end)
                    return QStringLiteral("cpu %1: %2 [%3, %4) overlaps %5 [%6, %7)")
                        .arg(c)
                        .arg(QString::fromStdString(busy[i].fn))
                        .arg(busy[i].begin)
                        .arg(busy[i].end)
                        .arg(QString::fromStdString(busy[i - 1].fn))
                        .arg(busy[i - 1].begin)
                        .arg(busy[i - 1].end);
        }
        return {};
    }
};

// Reads one page from `dev` and sleeps until it completes (io_schedule); `asleep` and `back` are when the task
// went to sleep and when it ran again.
Co<> readOnePage(Sched& s, Task& t, BlockDevice& dev, Time& asleep, Time& back)
{
    Sched::burn(t, 1'000);
    co_await s.flush(t);
    std::uint64_t h = dev.submit(false, { Pfn(1) });
    asleep = s.sim().now();
    co_await dev.waitFor(t, h);
    back = s.sim().now();
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
// A reader that awaits the flush itself and then takes and drops the rwsem by down_read_flushed/up_read_flushed,
// as rmap_walk_file and handle_mm_fault do; otherwise the same steps as holdRw's reader.
Co<> holdReadFlushed(Sched& s, Task& t, RwSem& l, double holdNs)
{
    co_await s.flush(t);
    co_await l.down_read_flushed(s, t);
    Sched::burn(t, holdNs);
    co_await s.flush(t);
    co_await l.up_read_flushed(s, t);
}

// Rounds of work then a hold: readers (through either entry) and writers on one rwsem, so that some readers find a
// writer or waiters and take the slow path.
Co<> rwRounds(Sched& s, Task& t, RwSem& l, bool write, bool flushed, int rounds)
{
    for (int i = 0; i < rounds; ++i) {
        Sched::burn(t, 300.0 * (t.cpu + 1));
        if (write)
            co_await holdRw(s, t, l, true, 2'000);
        else if (flushed)
            co_await holdReadFlushed(s, t, l, 1'000);
        else
            co_await holdRw(s, t, l, false, 1'000);
    }
}

// Runs `beforeNs` of other work, then holds the rwsem for holdNs; `granted` and `released` get the clock at the
// grant and at the release.
Co<> timedRw(Sched& s, Task& t, RwSem& l, bool write, double beforeNs, double holdNs, Time& granted, Time& released)
{
    Sched::burn(t, beforeNs);
    co_await s.flush(t);
    if (write)
        co_await l.down_write(s, t);
    else
        co_await l.down_read(s, t);
    co_await s.flush(t);
    granted = s.sim().now();
    Sched::burn(t, holdNs);
    co_await s.flush(t);
    released = s.sim().now();
    if (write)
        co_await l.up_write(s, t);
    else
        co_await l.up_read(s, t);
}

// The hand-off tests' queue on five CPUs: w0 takes the rwsem at t=0, then r1, w2, r3 and r4 ask for it 1 us apart;
// each holds it 10 us. The clock at each task's grant (g) and release (r), and the rwsem's contentions.
struct RwQueue {
    bool ran = false;
    Time g[5] = {}, r[5] = {};
    std::uint64_t contentions = 0;
};
RwQueue runRwQueue(const Locking& l, RwsemImpl impl)
{
    Simulator sim;
    Sched s(sim, machine(5));
    s.setLocking(l);
    RwSem sem("sem", impl);
    RwQueue q;
    const bool write[5] = { true, false, true, false, false };
    for (int i = 0; i < 5; ++i) {
        Task& t = s.spawn("t" + std::to_string(i), i, false, nullptr, 1);
        s.start(t, timedRw(s, t, sem, write[i], 1'000.0 * i, 10'000, q.g[i], q.r[i]));
    }
    q.ran = sim.run();
    q.contentions = sem.stat().contentions;
    return q;
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
        // The i-th waiter waits for i holds, each hold = hold + one locked RMW, plus i hand-offs of two line
        // transfers (the release's store takes the line back from the spinning head, then the head reloads it)
        // and, in the hold of each earlier waiter granted with another queued behind it, the transfer of its stores
        // (the locked byte, the next MCS node). The first waiter is granted the release as it asks, before the
        // others queue: waiters 2 .. n-2 pass.
        const double x = m.cost.lineSameSocketNs;
        double perHold = hold + m.cost.lockedRmwNs;
        double expectedWait = 0;
        for (int i = 1; i < cpus; ++i)
            expectedWait += i * (perHold + 2 * x) + std::max(i - 2, 0) * x;
        QVERIFY2(std::fabs(toNs(st.waitTotal) - expectedWait) < 1.0 + 0.001 * expectedWait,
            qPrintable(QString("wait %1 ns, expected %2 ns").arg(toNs(st.waitTotal)).arg(expectedWait)));
        // Spinning burns CPU: every task's sys time is its wait plus its hold (plus the switch that started it).
        Time sys = 0;
        for (Task* t : tasks)
            sys += t->sysTime;
        const int passes = std::max(cpus - 3, 0); // the waiters granted with another behind them
        double expectedSys = expectedWait + cpus * (perHold + m.cost.contextSwitchNs) + passes * x;
        QVERIFY2(std::fabs(toNs(sys) - expectedSys) < 1.0 + 0.01 * expectedWait,
            qPrintable(QString("sys %1 ns, expected %2 ns").arg(toNs(sys)).arg(expectedSys)));
        QVERIFY(std::fabs(toNs(st.holdMax) - perHold - (passes > 0 ? x : 0.0)) <= 0.001); // kept to the picosecond
    }

    // An interrupt taken while a task spins for a lock runs inside the spin: it costs the task nothing unless its
    // handler outlasts the spin, and then only the remainder, which the task pays holding the lock it was granted.
    void interruptsDuringASpinAreAbsorbed()
    {
        struct Outcome {
            Time end, holderReleased, waiterSys;
            std::uint64_t ipis;
        };
        static constexpr double handler = 2000.0; // ns
        auto run = [&](Time irqAt) {
            Simulator sim;
            Sched s(sim, machine(2));
            SpinLock lock("test");
            Task& holder = s.spawn("holder", 0, false, nullptr, 1);
            Task& waiter = s.spawn("waiter", 1, false, nullptr, 1);
            s.start(holder, holdSpin(s, holder, lock, 10000.0));
            s.start(waiter, lateHold(s, waiter, lock, 200.0, 1000.0));
            if (irqAt >= 0)
                sim.callAt(
                    irqAt, 100, [](void* c, std::uint64_t) { static_cast<Sched*>(c)->interrupt(1, handler); }, &s, 0);
            [&] { QVERIFY(sim.run()); }();
            return Outcome { sim.now(), holder.finished, waiter.sysTime, s.cpu(1).ipisReceived };
        };
        const Outcome none = run(-1);
        const Outcome mid = run(ns(3000.0)); // the waiter spins from about 0.2 us to about 10 us
        QCOMPARE(mid.ipis, std::uint64_t(1));
        QCOMPARE(mid.end, none.end);
        QCOMPARE(mid.waiterSys, none.waiterSys);
        // The handler starts 500 ns before the release; the waiter is granted the lock a hand-off after it (the
        // release's store takes the line back, the waiter reloads it), with the rest of the handler to run.
        const Outcome late = run(none.holderReleased - ns(500.0));
        const Time rest = ns(1500.0 - 2 * machine(2).cost.lineSameSocketNs);
        QCOMPARE(late.ipis, std::uint64_t(1));
        QCOMPARE(late.end - none.end, rest);
        QCOMPARE(late.waiterSys - none.waiterSys, rest);
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
        s.start(a, holdMutexFor(s, a, mutex, 50'000));
        s.start(b, holdMutexFor(s, b, mutex, 1'000));
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
        s.start(a, holdMutexFor(s, a, mutex, 20'000));
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
        // sleeps too: it burns next to no CPU for the wait. On the timeline b's wait is split: a spin while a runs
        // (its CPU busy: LockWait), then a sleep (LockSleep), back to back; with b's switch back in they are
        // lock_stat's whole wait.
        Simulator sim;
        Sched s(sim, machine(2));
        Spans spans;
        s.setTrace(&spans);
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
        const auto spins = spans.of(1, SpanKind::LockWait), sleeps = spans.of(1, SpanKind::LockSleep);
        QCOMPARE(spins.size(), std::size_t(1));
        QCOMPARE(sleeps.size(), std::size_t(1));
        QCOMPARE(spins[0].end, sleeps[0].begin);
        // b spun from its attempt (1 us after its switch-in) until a left its CPU (a's 5 us hold and RMW later).
        const double spin = toNs(spins[0].end - spins[0].begin);
        QVERIFY2(spin > 3'000 && spin < 5'000, qPrintable(QString("spin %1 ns").arg(spin)));
        QCOMPARE(spins[0].end - spins[0].begin + sleeps[0].end - sleeps[0].begin + ns(s.cost().contextSwitchNs),
            mutex.stat().waitTotal);
        const QString o = spans.overlap(2);
        QVERIFY2(o.isEmpty(), qPrintable(o));
    }

    void sleepingMutexWaitLeavesTheCpuToAnotherTask()
    {
        // a (CPU 0) holds a sleeping mutex (no spin on owner) for 50 us; b (CPU 1) waits for it, asleep, while c,
        // queued behind b on CPU 1, runs 20 us of user code; then CPU 1 idles until a's unlock wakes b.
        Simulator sim;
        Sched s(sim, machine(2));
        Spans spans;
        s.setTrace(&spans);
        Mutex mutex("m", MutexSpin::Off);
        Task& c = test::startSleepingMutexTasks(s, mutex, 50'000, 20'000).c;
        QVERIFY(sim.run());
        QCOMPARE(mutex.stat().contentions, std::uint64_t(1));
        QVERIFY(toNs(mutex.stat().waitTotal) > 45'000);
        // No spinning on CPU 1: the wait is one sleep, b's, from its attempt to the switch that brings it back.
        QCOMPARE(spans.total(1, SpanKind::LockWait), Time(0));
        const auto sleeps = spans.of(1, SpanKind::LockSleep);
        QCOMPARE(sleeps.size(), std::size_t(1));
        QCOMPARE(sleeps[0].fn, std::string("m"));
        QCOMPARE(sleeps[0].end - sleeps[0].begin + ns(s.cost().contextSwitchNs), mutex.stat().waitTotal);
        // Meanwhile CPU 1 ran c: c's 20 us of user code lie inside b's sleep.
        Time cRan = 0;
        for (const auto& r : spans.of(1, SpanKind::Run))
            if (r.fn == "user" && r.begin >= sleeps[0].begin && r.end <= sleeps[0].end)
                cRan += r.end - r.begin;
        QCOMPARE(cRan, ns(20'000));
        QVERIFY(c.finished < sleeps[0].end);
        const QString o = spans.overlap(2);
        QVERIFY2(o.isEmpty(), qPrintable(o));
    }

    void ioWaitEndsWhereTheSwitchBackInBegins()
    {
        // r (CPU 0) reads a page and sleeps 50 us on the device while c, queued behind it, runs 20 us of user code.
        // The I/O wait is drawn on r's CPU from its sleep until the switch that brings it back begins: the switch
        // ("__schedule") is the CPU's own time and the wait stops where it starts (it overlapped it by a context
        // switch before).
        Simulator sim;
        Sched s(sim, machine(1));
        Spans spans;
        s.setTrace(&spans);
        DeviceSpec spec;
        spec.readLatencyNs = 50'000;
        spec.bandwidthMBps = 4096;
        BlockDevice dev(s, spec, 0);
        Task& r = s.spawn("r", 0, false, nullptr, 1);
        Task& c = s.spawn("c", 0, false, nullptr, 2);
        Time asleep = 0, back = 0;
        s.start(r, readOnePage(s, r, dev, asleep, back));
        s.start(c, userWork(s, c, 20'000));
        QVERIFY(sim.run());
        const auto waits = spans.of(0, SpanKind::IoWait);
        QCOMPARE(waits.size(), std::size_t(1));
        QCOMPARE(waits[0].fn, std::string("io_schedule"));
        QCOMPARE(waits[0].begin, asleep);
        QCOMPARE(waits[0].end + ns(s.cost().contextSwitchNs), back);
        QVERIFY(toNs(back - asleep) > 50'000);
        bool switchedBack = false;
        for (const auto& x : spans.of(0, SpanKind::Run))
            switchedBack |= x.fn == "__schedule" && x.begin == waits[0].end && x.end == back;
        QVERIFY(switchedBack);
        QVERIFY(c.finished < waits[0].end);
    }

    void rwsemWaitIsASleep()
    {
        // Writers on one rwsem (no optimistic spinning before 3.16): the waiters' CPUs are not busy while they wait.
        Simulator sim;
        Sched s(sim, machine(3));
        Locking before316;
        before316.rwsemSpin = RwsemSpin::None;
        s.setLocking(before316);
        Spans spans;
        s.setTrace(&spans);
        RwSem sem("sem");
        for (int i = 0; i < 3; ++i) {
            Task& t = s.spawn("w" + std::to_string(i), i, false, nullptr, 1);
            s.start(t, holdRw(s, t, sem, true, 10'000));
        }
        QVERIFY(sim.run());
        QCOMPARE(sem.stat().contentions, std::uint64_t(2));
        Time slept = 0;
        for (int c = 0; c < 3; ++c) {
            for (const auto& w : spans.of(c, SpanKind::LockWait))
                QVERIFY2(w.fn != "sem", qPrintable(QString("cpu %1 spins on sem").arg(c)));
            slept += spans.total(c, SpanKind::LockSleep);
        }
        QCOMPARE(spans.of(0, SpanKind::LockSleep).size(), std::size_t(0)); // w0 got it at once
        // Two waits, ~one and ~two holds long: all asleep, less the switch back in.
        QVERIFY2(
            toNs(slept) > 25'000 && slept < sem.stat().waitTotal, qPrintable(QString("slept %1 ns").arg(toNs(slept))));
        const QString o = spans.overlap(3);
        QVERIFY2(o.isEmpty(), qPrintable(o));
    }

    void rwsemWriterSpinsOnARunningOwner()
    {
        // rwsem_optimistic_spin() (3.16): w1 (CPU 1) asks 1 us after w0 (CPU 0) took the rwsem for write, while w0
        // runs its 20 us hold: w1 spins, its CPU busy, and takes the rwsem when w0's release reaches it (one line
        // transfer after it), without sleeping.
        Simulator sim;
        Sched s(sim, machine(2));
        Spans spans;
        s.setTrace(&spans);
        RwSem sem("sem");
        Time g[2] = {}, r[2] = {};
        for (int i = 0; i < 2; ++i) {
            Task& t = s.spawn("w" + std::to_string(i), i, false, nullptr, 1);
            s.start(t, timedRw(s, t, sem, true, 1'000.0 * i, 20'000, g[i], r[i]));
        }
        QVERIFY(sim.run());
        QCOMPARE(sem.stat().contentions, std::uint64_t(1));
        QCOMPARE(spans.of(1, SpanKind::LockSleep).size(), std::size_t(0));
        const double spun = toNs(spans.total(1, SpanKind::LockWait));
        QVERIFY2(spun > 18'000 && spun < 20'000, qPrintable(QString("spun %1 ns").arg(spun)));
        QVERIFY(g[1] >= r[0]);
        QVERIFY2(
            toNs(g[1] - r[0]) < 500, qPrintable(QString("granted %1 ns after the release").arg(toNs(g[1] - r[0]))));
        const QString o = spans.overlap(2);
        QVERIFY2(o.isEmpty(), qPrintable(o));
    }

    // down_read_flushed/up_read_flushed after the caller's own flush are down_read/up_read: the same clock, events
    // and statistics, with writers contending and interrupts charging the tasks while they wait for their flushes.
    void rwsemFlushedEntryIsDownRead_data()
    {
        QTest::addColumn<bool>("spinlockImpl");
        QTest::addRow("xadd") << false;
        QTest::addRow("spinlock (2.6.20)") << true;
    }
    void rwsemFlushedEntryIsDownRead()
    {
        QFETCH(bool, spinlockImpl);
        struct Outcome {
            Time end;
            std::uint64_t events;
            LockStat stat;
        };
        auto run = [&](bool flushed) {
            Simulator sim;
            Sched s(sim, machine(4));
            RwSem sem("sem", spinlockImpl ? RwsemImpl::Spinlock : RwsemImpl::Xadd);
            for (int i = 0; i < 4; ++i) {
                Task& t = s.spawn("t" + std::to_string(i), i, false, nullptr, 1);
                s.start(t, rwRounds(s, t, sem, i == 3, flushed, 40));
            }
            for (int i = 1; i <= 200; ++i) // IPIs while the tasks run, wait and flush
                sim.callAt(
                    ns(i * 733.0), 100,
                    [](void* c, std::uint64_t cpu) { static_cast<Sched*>(c)->interrupt(static_cast<int>(cpu), 150); },
                    &s, static_cast<std::uint64_t>(i % 4));
            [&] { QVERIFY(sim.run()); }();
            return Outcome { sim.now(), sim.eventsProcessed(), sem.stat() };
        };
        Outcome a = run(false);
        Outcome b = run(true);
        QVERIFY(a.stat.contentions > 0); // the slow path was taken too
        QCOMPARE(b.end, a.end);
        QCOMPARE(b.events, a.events);
        QCOMPARE(b.stat.acquisitions, a.stat.acquisitions);
        QCOMPARE(b.stat.acqBounces, a.stat.acqBounces);
        QCOMPARE(b.stat.contentions, a.stat.contentions);
        QCOMPARE(b.stat.waitTotal, a.stat.waitTotal);
        QCOMPARE(b.stat.holdTotal, a.stat.holdTotal);
        QCOMPARE(b.stat.holdMax, a.stat.holdMax);
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
    // lib/rwsem-spinlock.c __down_read(): a reader is granted only with no writer active *and an empty wait list*,
    // so a reader that comes while a writer waits for the current readers queues behind that writer rather than
    // sharing the lock with them (the xadd rwsem's negative count does the same).
    void rwsemReaderQueuesBehindWaitingWriter_data()
    {
        QTest::addColumn<bool>("spinlockImpl");
        QTest::addRow("xadd") << false;
        QTest::addRow("spinlock (2.6.20)") << true;
    }
    void rwsemReaderQueuesBehindWaitingWriter()
    {
        QFETCH(bool, spinlockImpl);
        Simulator sim;
        Sched s(sim, machine(3));
        RwSem sem("sem", spinlockImpl ? RwsemImpl::Spinlock : RwsemImpl::Xadd);
        Time g[3] = {}, r[3] = {};
        // r0 reads from t=0 for 20 us; w1 asks at 2 us, r2 at 4 us.
        const double before[3] = { 0, 2'000, 4'000 };
        const bool write[3] = { false, true, false };
        for (int i = 0; i < 3; ++i) {
            Task& t = s.spawn("t" + std::to_string(i), i, false, nullptr, 1);
            s.start(t, timedRw(s, t, sem, write[i], before[i], i == 0 ? 20'000 : 5'000, g[i], r[i]));
        }
        QVERIFY(sim.run());
        QVERIFY2(g[1] >= r[0], "the writer waits for the reader");
        QVERIFY2(g[2] >= r[1], "the late reader waits for the queued writer, not only for the active reader");
        QVERIFY(toNs(g[2]) > 20'000 + 5'000);
        QCOMPARE(sem.stat().contentions, std::uint64_t(2));
        QCOMPARE(sem.readers(), 0);
        QVERIFY(!sem.writer());
    }

    // FIFO hand-off (__rwsem_do_wake): up_write() grants the lock to the head of the queue before the woken task
    // runs -- a writer alone, or every reader up to the next writer -- and the last up_read() grants it to a
    // waiting writer. Queue w0 (holding), r1, w2, r3, r4: r1 alone, then w2, then r3 and r4 together. (From 3.16 w2
    // would spin on w0 instead of queueing: the queue of a kernel before it.)
    void rwsemFifoHandOff_data()
    {
        QTest::addColumn<bool>("spinlockImpl");
        QTest::addRow("xadd") << false;
        QTest::addRow("spinlock (2.6.20)") << true;
    }
    void rwsemFifoHandOff()
    {
        QFETCH(bool, spinlockImpl);
        Locking before316;
        before316.rwsemSpin = RwsemSpin::None;
        before316.rwsemWakeAllReaders = false;
        const RwQueue q = runRwQueue(before316, spinlockImpl ? RwsemImpl::Spinlock : RwsemImpl::Xadd);
        QVERIFY(q.ran);
        const Time *g = q.g, *r = q.r;
        QVERIFY(g[1] >= r[0]); // r1 after w0
        QVERIFY(g[2] >= r[1]); // w2 after r1, although r1 came after w0's grant like everyone else
        QVERIFY(g[3] >= r[2] && g[4] >= r[2]); // r3, r4 after w2
        QVERIFY2(g[3] < r[4] && g[4] < r[3], "r3 and r4 are woken together and share the lock");
        QCOMPARE(q.contentions, std::uint64_t(4));
        // Four hand-offs of a 10 us hold, in one chain: the last readers finish about five holds after t=0.
        QVERIFY(toNs(r[3]) > 50'000 && toNs(r[3]) < 60'000);
    }

    // 5.3's __rwsem_mark_wake() (d3681e269fff): the same queue -- w0 holding, r1, w2, r3, r4 -- and w0's release
    // grants every queued reader at once, past w2, which then waits for all three: two hand-offs instead of three.
    void rwsemWakesAllQueuedReaders()
    {
        Locking l;
        l.rwsemSpin = RwsemSpin::None; // every contender queues, as above
        l.rwsemHandoff = false;
        const RwQueue q = runRwQueue(l, RwsemImpl::Xadd);
        QVERIFY(q.ran);
        const Time *g = q.g, *r = q.r;
        for (int i : { 1, 3, 4 })
            QVERIFY2(g[i] >= r[0] && g[i] < r[1] && g[i] < r[3] && g[i] < r[4], "the readers share the lock");
        QVERIFY2(g[2] >= r[1] && g[2] >= r[3] && g[2] >= r[4], "the writer waits for every woken reader");
        QCOMPARE(q.contentions, std::uint64_t(4));
        // Two hand-offs of a 10 us hold: the writer is done about three holds after t=0.
        QVERIFY(toNs(r[2]) > 30'000 && toNs(r[2]) < 40'000);
    }
};

QTEST_GUILESS_MAIN(TestLocks)
#include "tst_locks.moc"
