// The O(1) scheduler of 2.6.0-2.6.22 (Sched::setO1) in closed form on a bare scheduler: sleep_avg loses a task's run
// time divided by its bonus and gains the time it slept, up to MAX_SLEEP_AVG, and an uninterruptible sleep gains
// nothing past INTERACTIVE_SLEEP; the dynamic priority follows; a woken task of a better priority makes the running
// one give way at its next preemption point (and one of the same priority does not), and the run queue runs its best
// priority first, and a wake-up moves the woken task to the waker's CPU by the two CPUs' loads (wake_affine). Off
// (CFS from 2.6.23), the same tasks run first come, first served, nobody preempts and a woken task goes back.
#include "mm/mm_types.h"
#include "sched/sched.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {

constexpr Time kMs = 1'000'000'000; // picoseconds

int prioOf(Time sleepAvg) { return 120 - (static_cast<int>(sleepAvg / kMs * 10 / 1000) - 5); }

// `cpus` CPUs (one unless said), under the O(1) scheduler or not, and a user process (an mm) whose tasks the O(1)
// rules for user tasks apply to.
struct Cpus {
    explicit Cpus(bool o1, int cpus = 1)
        : s(sim, test::genericMachine(cpus))
    {
        s.setO1(o1, false);
    }
    Task& task(const char* name, std::uint64_t seed, int cpu = 0) { return s.spawn(name, cpu, false, &mm, seed); }
    Simulator sim;
    Sched s;
    MmStruct mm;
};

// Runs `runMs` of system time, sleeps `sleepMs` (interruptibly or not), and notes sleep_avg and priority on waking.
struct Probe {
    Time sleepAvg = -1;
    int prio = 0;
};
Co<> runSleep(Sched& s, Task& t, double runMs, double sleepMs, bool interruptible, Probe& p)
{
    Sched::burn(t, runMs * 1e6);
    co_await s.sleepFor(t, ns(sleepMs * 1e6), interruptible);
    p.sleepAvg = t.sleepAvg;
    p.prio = t.prio;
}

// Kernel work in 100 us steps, each followed by a preemption point (the return to user space).
Co<> steps(Sched& s, Task& t, int n)
{
    for (int i = 0; i < n; ++i) {
        Sched::burn(t, 100'000.0);
        co_await s.flush(t);
        if (s.preemptPending(t))
            co_await s.preempt(t);
    }
}

// Sleeps `sleepMs` first, then runs 2 ms.
Co<> sleepThenRun(Sched& s, Task& t, double sleepMs, bool interruptible)
{
    co_await s.sleepFor(t, ns(sleepMs * 1e6), interruptible);
    Sched::burn(t, 2e6);
    co_await s.flush(t);
}

} // namespace

class TestO1Sched : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A new task starts at 9 tenths of MAX_SLEEP_AVG (CHILD_PENALTY of a sleeping parent's top bonus): priority 116.
    // It runs 9 ms (and the switch that put it on the CPU), charged at a ninth (bonus 8 after it: 117), then sleeps.
    void sleepAvgArithmetic_data()
    {
        QTest::addColumn<double>("sleepMs");
        QTest::addColumn<bool>("interruptible");
        QTest::addColumn<bool>("capped");
        QTest::addRow("interruptible 50 ms") << 50.0 << true << false;
        QTest::addRow("interruptible 200 ms: capped") << 200.0 << true << true;
        QTest::addRow("uninterruptible 200 ms: past INTERACTIVE_SLEEP, no gain") << 200.0 << false << false;
    }
    void sleepAvgArithmetic()
    {
        QFETCH(double, sleepMs);
        QFETCH(bool, interruptible);
        QFETCH(bool, capped);
        Cpus m(true);
        Sched& s = m.s;
        Task& t = m.task("t", 1);
        QCOMPARE(t.sleepAvg, Sched::kO1ChildSleepAvg);
        QCOMPARE(t.prio, 116);
        Probe p;
        s.start(t, runSleep(s, t, 9.0, sleepMs, interruptible, p));
        QVERIFY(m.sim.run());

        const Time ran = s.switchTime() + 9 * kMs; // from the switch-in to the switch-out
        const Time afterRun = Sched::kO1ChildSleepAvg - ran / 9;
        const Time want = capped ? Sched::kO1MaxSleepAvg : interruptible ? afterRun + ns(sleepMs * 1e6) : afterRun;
        QCOMPARE(p.sleepAvg, want);
        QCOMPARE(p.prio, prioOf(want));
        QCOMPARE(p.prio, capped ? 115 : interruptible ? 116 : 117);
    }

    // Task a (priority 116, never woken) runs 3000 steps of 100 us; b sleeps first and wakes at 200 ms. Woken from
    // an interruptible sleep it is at the top bonus (115) and preempts a at a's next preemption point; from an
    // uninterruptible one it gains nothing and, its switch-in charged, is at 117: it waits for a to end, as every
    // woken task does without the O(1) scheduler.
    void wokenTaskPreemptsAtThePoint_data()
    {
        QTest::addColumn<bool>("o1");
        QTest::addColumn<bool>("interruptible");
        QTest::addColumn<bool>("preempts");
        QTest::addRow("O(1), better priority") << true << true << true;
        QTest::addRow("O(1), no better priority") << true << false << false;
        QTest::addRow("CFS") << false << true << false;
    }
    void wokenTaskPreemptsAtThePoint()
    {
        QFETCH(bool, o1);
        QFETCH(bool, interruptible);
        QFETCH(bool, preempts);
        Cpus m(o1);
        Sched& s = m.s;
        Task& b = m.task("b", 1);
        Task& a = m.task("a", 2);
        constexpr int kSteps = 3000;
        s.start(b, sleepThenRun(s, b, 200.0, interruptible));
        s.start(a, steps(s, a, kSteps));
        QVERIFY(m.sim.run());

        const Time sw = s.switchTime();
        // a is switched in after b went to sleep (b's switch-in, then a's); b wakes 200 ms after b's switch-in.
        const Time aStart = 2 * sw;
        const Time wake = sw + 200 * kMs;
        const Time step = 100'000'000;
        if (preempts) {
            // a's step in progress at the wake-up ends, then b runs 2 ms, then a's remaining steps.
            const Time point = aStart + ((wake - aStart) / step + 1) * step;
            QCOMPARE(b.finished, point + sw + 2 * kMs);
            QCOMPARE(a.finished, b.finished + sw + kSteps * step - (point - aStart));
            QCOMPARE(s.cpu(0).preemptions, std::uint64_t(1));
        } else {
            QCOMPARE(a.finished, aStart + kSteps * step);
            QCOMPARE(b.finished, a.finished + sw + 2 * kMs);
            QCOMPARE(s.cpu(0).preemptions, std::uint64_t(0));
        }
    }

    // a runs 300 ms; c (woken from an uninterruptible sleep: 117) queues at 100 ms, b (interruptible: 115) at 200
    // ms. a has no preemption point: when it ends, the O(1) run queue runs b first; first come, first served runs c
    // first.
    void bestPriorityRunsFirst_data()
    {
        QTest::addColumn<bool>("o1");
        QTest::addRow("O(1)") << true;
        QTest::addRow("CFS") << false;
    }
    void bestPriorityRunsFirst()
    {
        QFETCH(bool, o1);
        Cpus m(o1);
        Sched& s = m.s;
        Task& c = m.task("c", 1);
        Task& b = m.task("b", 2);
        Task& a = m.task("a", 3);
        s.start(c, sleepThenRun(s, c, 100.0, false));
        s.start(b, sleepThenRun(s, b, 200.0, true));
        s.start(a, [](Sched& s, Task& t) -> Co<> {
            Sched::burn(t, 300e6);
            co_await s.flush(t);
        }(s, a));
        QVERIFY(m.sim.run());

        const Time sw = s.switchTime();
        const Time first = a.finished + sw + 2 * kMs;
        const Time second = first + sw + 2 * kMs;
        QCOMPARE(o1 ? b.finished : c.finished, first);
        QCOMPARE(o1 ? c.finished : b.finished, second);
        QCOMPARE(s.cpu(0).preemptions, std::uint64_t(0)); // a has no preemption point
        if (o1)
            QCOMPARE(b.prio, 115);
    }

    // try_to_wake_up()'s wake_affine: w last ran on CPU 1 and sleeps; k, alone on CPU 0, wakes it at `wakeMs`. CPU 1
    // runs h1 and, from `secondMs` on (h2 woken by its timer there), h2 as well. w moves to k's CPU only when CPU 1
    // had a task more than CPU 0 both now and at the last timer tick (rq->cpu_load[0]); without the O(1)
    // scheduler it goes back to CPU 1.
    void wakeAffineByLoad_data()
    {
        QTest::addColumn<bool>("o1");
        QTest::addColumn<double>("secondMs");
        QTest::addColumn<double>("wakeMs");
        QTest::addColumn<int>("cpu");
        QTest::addRow("two tasks since the last tick: to the waker's CPU") << true << 1.0 << 5.2 << 0;
        QTest::addRow("the second after the last tick: stays") << true << 4.5 << 4.8 << 1;
        QTest::addRow("one task: stays") << true << -1.0 << 5.2 << 1;
        QTest::addRow("CFS: stays") << false << 1.0 << 5.2 << 1;
    }
    void wakeAffineByLoad()
    {
        QFETCH(bool, o1);
        QFETCH(double, secondMs);
        QFETCH(double, wakeMs);
        QFETCH(int, cpu);
        Cpus m(o1, 2);
        Sched& s = m.s;
        Task& w = m.task("w", 1, 1);
        Task& h2 = m.task("h2", 2, 1);
        Task& h1 = m.task("h1", 3, 1);
        Task& k = m.task("k", 4, 0);
        int ranOn = -1;
        s.start(w, [](Sched& s, Task& t, int& ranOn) -> Co<> {
            co_await s.flush(t);
            co_await s.sleep(t);
            ranOn = t.cpu;
        }(s, w, ranOn));
        auto hog = [](Sched& s, Task& t, double sleepMs) -> Co<> {
            if (sleepMs >= 0)
                co_await s.sleepFor(t, ns(sleepMs * 1e6), true);
            Sched::burn(t, 20e6);
            co_await s.flush(t);
        };
        if (secondMs >= 0)
            s.start(h2, hog(s, h2, secondMs));
        s.start(h1, hog(s, h1, -1.0));
        s.start(k, [](Sched& s, Task& t, Task& w, double wakeMs) -> Co<> {
            Sched::burn(t, wakeMs * 1e6);
            co_await s.flush(t);
            s.wake(w, &t);
            Sched::burn(t, 1e6);
            co_await s.flush(t);
        }(s, k, w, wakeMs));
        QVERIFY(m.sim.run());
        QCOMPARE(ranOn, cpu);
        QCOMPARE(s.cpu(0).affineWakeups, std::uint64_t(cpu == 0 ? 1 : 0));
    }

    // might_sleep() is a preemption point only with PREEMPT_VOLUNTARY.
    void mightSleepNeedsVoluntary()
    {
        Cpus m(false);
        Sched& s = m.s;
        Task& t = m.task("t", 1);
        s.cpu(0).needResched = true;
        s.setO1(true, false);
        QVERIFY(s.preemptPending(t) && !s.mightSleepPreempts(t));
        s.setO1(true, true);
        QVERIFY(s.preemptPending(t) && s.mightSleepPreempts(t));
        s.setO1(false, true);
        QVERIFY(!s.preemptPending(t) && !s.mightSleepPreempts(t));
    }
};

QTEST_GUILESS_MAIN(TestO1Sched)
#include "tst_o1sched.moc"
