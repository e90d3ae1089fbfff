// time(1) and /proc/stat of a run in closed form: a task that burns known user and system time reports exactly that,
// with the context switch that put it on its CPU as system time; kernel threads are in kthread_sys_s, not in sys_s
// or elapsed_s; a task woken onto another CPU (select_idle_sibling) counts its time to the CPU it ran it on; each
// CPU's user + system + idle is the simulated time; a workload's own user_s, sys_s or elapsed_s stands. Real runs:
// the same identity on every CPU, the per-CPU lines in the JSON and read back from it, the same bytes at any thread
// count.
#include "run/json.h"
#include "run/times.h"
#include "sched/sched.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {
MachineSpec machine(int cpus) { return test::genericMachine(cpus); }

Co<> work(Sched& s, Task& t, double userNs, double sysNs)
{
    Sched::burn(t, userNs, Acct::User);
    Sched::burn(t, sysNs, Acct::Sys);
    co_await s.flush(t);
}

// Runs userNs, sleeps sleepNs, runs userNs again.
Co<> workSleepWork(Sched& s, Task& t, double userNs, double sleepNs)
{
    Sched::burn(t, userNs, Acct::User);
    co_await s.sleepFor(t, ns(sleepNs));
    Sched::burn(t, userNs, Acct::User);
    co_await s.flush(t);
}

// Tasks a and b on `cpu`: a runs 20 us, sleeps 10 us and wakes while b holds the CPU (b runs from a's sleep until
// well past a's wake-up), so that select_idle_sibling() sends a elsewhere.
struct Waking {
    Task& a;
    Task& b;
};
Waking wakeWhileBusy(Sched& s, int cpu)
{
    s.setWakeIdleSibling(true);
    Task& a = s.spawn("a", cpu, false, nullptr, 1);
    Task& b = s.spawn("b", cpu, false, nullptr, 2);
    s.start(a, workSleepWork(s, a, 20'000.0, 10'000.0));
    s.start(b, work(s, b, 0.0, 500'000.0));
    return { a, b };
}

// Tasks b and a on CPU 0: b runs 5 us, sleeps `sleepUs` and wakes behind a, which runs `aUs` of system time there.
struct Queued {
    Task& b;
    Task& a;
};
Queued queueBehind(Sched& s, double sleepUs, double aUs)
{
    Task& b = s.spawn("b", 0, false, nullptr, 1);
    Task& a = s.spawn("a", 0, false, nullptr, 2);
    s.start(b, workSleepWork(s, b, 5'000.0, sleepUs * 1000.0));
    s.start(a, work(s, a, 0.0, aUs * 1000.0));
    return { b, a };
}

// A run's per-CPU lines each add up to its simulated time.
void checkCpuLines(const RunResult& r)
{
    QVERIFY(!r.cpus.empty());
    const double simS = r.metrics.at("sim_time_s");
    double busyMax = 0;
    for (std::size_t i = 0; i < r.cpus.size(); ++i) {
        const CpuStat& c = r.cpus[i];
        QCOMPARE(c.cpu, int(i));
        QVERIFY(c.userS >= 0 && c.sysS >= 0 && c.idleS >= 0);
        QVERIFY2(std::abs(c.userS + c.sysS + c.idleS - simS) <= 1e-12 * std::max(1.0, simS),
                 qPrintable(QStringLiteral("%1 CPU %2: %3 + %4 + %5 != %6").arg(QString::fromStdString(r.variant)).arg(c.cpu).arg(c.userS).arg(c.sysS).arg(c.idleS).arg(simS)));
        busyMax = std::max(busyMax, (c.userS + c.sysS) / simS);
    }
    QVERIFY(std::abs(r.metrics.at("cpu_busy_max") - busyMax) < 1e-9);
    QVERIFY(r.metrics.at("cpu_busy_mean") <= r.metrics.at("cpu_busy_max"));
    QVERIFY(r.metrics.at("kthread_sys_s") >= 0);
}
} // namespace

class TestTimes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneTask_data()
    {
        QTest::addColumn<double>("userNs");
        QTest::addColumn<double>("sysNs");
        QTest::addRow("user only") << 2'000'000.0 << 0.0;
        QTest::addRow("sys only") << 0.0 << 3'000'000.0;
        QTest::addRow("both") << 1'250'000.0 << 750'000.0;
    }
    void oneTask()
    {
        QFETCH(double, userNs);
        QFETCH(double, sysNs);
        Simulator sim;
        Sched s(sim, machine(2));
        Task& t = s.spawn("prog", 0, false, nullptr, 1);
        s.start(t, work(s, t, userNs, sysNs));
        QVERIFY(sim.run());

        const Time cs = ns(s.cost().contextSwitchNs); // dispatch() switching the task in: its system time
        const Time user = ns(userNs), sys = ns(sysNs) + cs, elapsed = user + sys;
        Metrics m;
        addTimeMetrics(s, m);
        QCOMPARE(m.at("user_s"), toSec(user));
        QCOMPARE(m.at("sys_s"), toSec(sys));
        QCOMPARE(m.at("elapsed_s"), toSec(elapsed));
        QCOMPARE(m.at("kthread_sys_s"), 0.0);

        QCOMPARE(sim.now(), elapsed);
        const std::vector<CpuTime> cpus = s.cpuTimes();
        QCOMPARE(cpus.size(), std::size_t(2));
        QCOMPARE(cpus[0].user, user);
        QCOMPARE(cpus[0].sys, sys);
        QCOMPARE(cpus[0].idle, Time(0));
        QCOMPARE(cpus[1].user + cpus[1].sys, Time(0));
        QCOMPARE(cpus[1].idle, elapsed);

        const std::vector<CpuStat> lines = cpuStats(s, m);
        QCOMPARE(lines[0].userS, toSec(user));
        QCOMPARE(lines[0].sysS, toSec(sys));
        QCOMPARE(lines[1].idleS, toSec(elapsed));
        QCOMPARE(m.at("cpu_busy_max"), 1.0);
        QCOMPARE(m.at("cpu_busy_mean"), 0.5);
    }

    // kswapd's time is /proc/stat's, not time(1)'s: a kernel thread that runs longer than the program changes neither
    // sys_s nor elapsed_s.
    void kthreadExcluded()
    {
        Simulator sim;
        Sched s(sim, machine(2));
        Task& prog = s.spawn("prog", 0, false, nullptr, 1);
        Task& kswapd = s.spawn("kswapd0", 1, true, nullptr, 2);
        s.start(prog, work(s, prog, 100'000.0, 400'000.0));
        s.start(kswapd, work(s, kswapd, 0.0, 2'000'000.0));
        QVERIFY(sim.run());

        const Time cs = ns(s.cost().contextSwitchNs);
        Metrics m;
        addTimeMetrics(s, m);
        QCOMPARE(m.at("user_s"), toSec(ns(100'000.0)));
        QCOMPARE(m.at("sys_s"), toSec(ns(400'000.0) + cs));
        QCOMPARE(m.at("elapsed_s"), toSec(ns(500'000.0) + cs));
        QCOMPARE(m.at("kthread_sys_s"), toSec(ns(2'000'000.0) + cs));
        const std::vector<CpuTime> cpus = s.cpuTimes();
        QCOMPARE(cpus[1].sys, ns(2'000'000.0) + cs);
        for (const CpuTime& c : cpus)
            QCOMPARE(c.user + c.sys + c.idle, sim.now());
    }

    // A task that sleeps while another takes its CPU wakes onto the idle CPU: what it ran before counts to the first
    // CPU, what it runs after to the second.
    void movedTask()
    {
        Simulator sim;
        Sched s(sim, machine(2));
        auto [a, b] = wakeWhileBusy(s, 0);
        QVERIFY(sim.run());

        QCOMPARE(a.cpu, 1);
        QCOMPARE(b.cpu, 0);
        const Time cs = ns(s.cost().contextSwitchNs);
        const std::vector<CpuTime> cpus = s.cpuTimes();
        QCOMPARE(cpus[0].user, ns(20'000.0));
        QCOMPARE(cpus[0].sys, cs + cs + ns(500'000.0)); // a's and b's switch-in, b's work
        QCOMPARE(cpus[1].user, ns(20'000.0));
        QCOMPARE(cpus[1].sys, cs); // a's switch-in after its wake-up
        for (const CpuTime& c : cpus)
            QCOMPARE(c.user + c.sys + c.idle, sim.now());
        Metrics m;
        addTimeMetrics(s, m);
        QCOMPARE(m.at("user_s"), toSec(ns(40'000.0)));
        QCOMPARE(m.at("sys_s"), toSec(3 * cs + ns(500'000.0)));
        QCOMPARE(m.at("elapsed_s"), toSec(sim.now()));
    }

    // select_idle_sibling() looks in the woken task's last-level cache first (sd_llc): on a socket of two dies (CPUs
    // 0-1 and 2-3, an L2 each), a task woken for CPU 3 while another runs there goes to idle CPU 2, not to CPU 0,
    // which comes first in the scan from CPU 3 on; on one cache, to CPU 0.
    void wakeGoesToAnIdleCpuOfItsCacheFirst_data()
    {
        QTest::addColumn<int>("coresPerLlc");
        QTest::addColumn<int>("cpu");
        QTest::newRow("two dies") << 2 << 2;
        QTest::newRow("one cache") << 0 << 0;
    }
    void wakeGoesToAnIdleCpuOfItsCacheFirst()
    {
        QFETCH(int, coresPerLlc);
        QFETCH(int, cpu);
        MachineSpec m = machine(4);
        m.coresPerLlc = coresPerLlc;
        Simulator sim;
        Sched s(sim, m);
        auto [a, b] = wakeWhileBusy(s, 3);
        QVERIFY(sim.run());
        QCOMPARE(a.cpu, cpu);
        QCOMPARE(b.cpu, 3);
    }

    // idle_balance(): a CPU about to go idle pulls a task queued behind another CPU's running one, unless the task
    // ran within the migration cost (cache-hot) or, with the 2.6.32 rate limit, the CPU's idle spells average less
    // than that; a CPU whose pulls were refused more than cache_nice_tries times takes a hot one. Task b runs 5 us on
    // CPU 0, sleeps `sleepUs` and wakes behind a (1 ms on CPU 0); c ends on CPU 1 at `cUs`, 100 us after b's wake-up.
    void idleBalancePullsAQueuedTask_data()
    {
        QTest::addColumn<double>("sleepUs");
        QTest::addColumn<bool>("rateLimit");
        QTest::addColumn<Time>("avgIdle"); // CPU 1's before c ends (-1: as booted, twice the migration cost)
        QTest::addColumn<int>("failed"); // CPU 1's refused pulls before c ends
        QTest::addColumn<bool>("pulled");
        const Time cost = Sched::kMigrationCost;
        QTest::addRow("cold") << 600.0 << false << Time(-1) << 0 << true;
        QTest::addRow("hot") << 10.0 << false << Time(-1) << 0 << false;
        QTest::addRow("hot, refused once") << 10.0 << false << Time(-1) << Sched::kCacheNiceTries << false;
        QTest::addRow("hot, refused more than cache_nice_tries") << 10.0 << false << Time(-1) << Sched::kCacheNiceTries + 1 << true;
        QTest::addRow("cold, rate limit, long idle spells") << 600.0 << true << cost << 0 << true;
        QTest::addRow("cold, rate limit, short idle spells") << 600.0 << true << cost - 1 << 0 << false;
    }
    void idleBalancePullsAQueuedTask()
    {
        QFETCH(double, sleepUs);
        QFETCH(bool, rateLimit);
        QFETCH(Time, avgIdle);
        QFETCH(int, failed);
        QFETCH(bool, pulled);
        Simulator sim;
        Sched s(sim, machine(2));
        s.setIdleBalance({ true, rateLimit });
        QCOMPARE(s.cpu(1).avgIdle, 2 * Sched::kMigrationCost);
        if (avgIdle >= 0)
            s.cpu(1).avgIdle = avgIdle;
        s.cpu(1).balanceFailed = failed;
        Task& b = s.spawn("b", 0, false, nullptr, 1);
        Task& a = s.spawn("a", 0, false, nullptr, 2);
        Task& c = s.spawn("c", 1, false, nullptr, 3);
        s.start(b, workSleepWork(s, b, 5'000.0, sleepUs * 1000.0));
        s.start(a, work(s, a, 0.0, 1'000'000.0));
        s.start(c, work(s, c, 0.0, (sleepUs + 105.0) * 1000.0));
        QVERIFY(sim.run());

        const Time cs = ns(s.cost().contextSwitchNs);
        QCOMPARE(b.cpu, pulled ? 1 : 0);
        if (pulled) // b follows c on CPU 1 at once: c's switch-in and work, b's switch-in and last 5 us
            QCOMPARE(b.finished, c.finished + cs + ns(5'000.0));
        else // b waits for a on CPU 0
            QCOMPARE(b.finished, a.finished + cs + ns(5'000.0));
        QCOMPARE(s.cpu(1).balanceFailed, pulled ? 0 : failed + (rateLimit ? 0 : 1));
        for (const CpuTime& t : s.cpuTimes())
            QCOMPARE(t.user + t.sys + t.idle, sim.now());
    }

    // Before select_idle_sibling (IdleBalance::tick): b wakes on CPU 0 behind a (1 ms) while CPU 1 is idle; CPU 1's
    // next tick (at 1 ms) pulls it, and b ends there a switch and 5 us later. Without the tick b waits for a.
    void idleTickPullsAQueuedTask_data()
    {
        QTest::addColumn<bool>("tick");
        QTest::addRow("tick") << true;
        QTest::addRow("no tick") << false;
    }
    void idleTickPullsAQueuedTask()
    {
        QFETCH(bool, tick);
        Simulator sim;
        Sched s(sim, machine(2));
        s.setIdleBalance({ true, false, tick });
        auto [b, a] = queueBehind(s, 600.0, 1'000.0);
        QVERIFY(sim.run());

        const Time cs = ns(s.cost().contextSwitchNs);
        QCOMPARE(b.cpu, tick ? 1 : 0);
        QCOMPARE(b.finished, (tick ? Sched::kTick : a.finished) + cs + ns(5'000.0));
        QCOMPARE(s.cpu(1).balanceInterval, tick ? Sched::kMinBalanceInterval : Time(0));
        QVERIFY(!s.cpu(1).tickArmed);
        for (const CpuTime& t : s.cpuTimes())
            QCOMPARE(t.user + t.sys + t.idle, sim.now());
    }

    // CPU 1 goes idle (c ends at 100 us) while b, queued behind a (2 ms) on CPU 0, is cache-hot: the pull as it goes
    // idle is refused, and its tick at 1 ms, when b has been off a CPU for more than the migration cost, takes b.
    void idleTickAfterARefusedPull()
    {
        Simulator sim;
        Sched s(sim, machine(2));
        s.setIdleBalance({ true, false, true });
        auto [b, a] = queueBehind(s, 10.0, 2'000.0);
        Task& c = s.spawn("c", 1, false, nullptr, 3);
        s.start(c, work(s, c, 0.0, 100'000.0));
        QVERIFY(sim.run());
        QCOMPARE(b.cpu, 1);
        QCOMPARE(b.finished, Sched::kTick + ns(s.cost().contextSwitchNs) + ns(5'000.0));
        QVERIFY(b.finished < a.finished);
    }

    // A task that may not run on the idle CPU stays queued, and the idle CPU stops looking once nothing waits.
    void idleTickKeepsAffinity()
    {
        Simulator sim;
        Sched s(sim, machine(2));
        s.setIdleBalance({ true, false, true });
        auto [b, a] = queueBehind(s, 600.0, 1'000.0);
        b.cpusFirst = 0; // taskset before it first sleeps: its wake-up finds it pinned
        b.cpusCount = 1;
        QVERIFY(sim.run());
        QCOMPARE(b.cpu, 0);
        QCOMPARE(b.finished, a.finished + ns(s.cost().contextSwitchNs) + ns(5'000.0));
        QVERIFY(sim.now() <= b.finished + Sched::kMaxBalanceInterval);
    }

    // A workload that says what its user_s, sys_s or elapsed_s are (its own processes only, or from time 0) keeps it;
    // the others are filled in.
    void workloadDefinitionStands()
    {
        Simulator sim;
        Sched s(sim, machine(1));
        Task& t = s.spawn("prog", 0, false, nullptr, 1);
        s.start(t, work(s, t, 1'000.0, 2'000.0));
        QVERIFY(sim.run());
        Metrics m { { "user_s", 42.0 }, { "elapsed_s", 7.0 } };
        addTimeMetrics(s, m);
        QCOMPARE(m.at("user_s"), 42.0);
        QCOMPARE(m.at("elapsed_s"), 7.0);
        QCOMPARE(m.at("sys_s"), toSec(ns(2'000.0) + ns(s.cost().contextSwitchNs)));

        // The same through a real run: memset-madvise counts its own processes' time.
        const Scenario sc = loadScenario("madv-free-swapin");
        const ResultSet rs = test::run(sc, 0.02);
        for (const RunResult& r : rs.results) {
            QVERIFY(r.metrics.count("user_s") && r.metrics.count("sys_s") && r.metrics.count("kthread_sys_s"));
            double cpuSys = 0;
            for (const CpuStat& c : r.cpus)
                cpuSys += c.sysS;
            // Every task's system time is on some CPU; the program's own is part of it.
            QVERIFY(cpuSys + 1e-5 >= r.metrics.at("sys_s") + r.metrics.at("kthread_sys_s"));
        }
    }

    void realRuns_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("scale");
        QTest::addRow("lru-file-readtwice") << QStringLiteral("lru-file-readtwice") << 0.05;
        QTest::addRow("ebizzy") << QStringLiteral("ebizzy") << 0.05;
        QTest::addRow("madv-free-tlb-batch") << QStringLiteral("madv-free-tlb-batch") << 0.05;
    }
    // Every CPU's line adds up on real runs (wake-ups that move tasks, IPIs, kswapd), the JSON carries the lines and
    // reads them back, and the bytes do not depend on the thread count.
    void realRuns()
    {
        QFETCH(QString, id);
        QFETCH(double, scale);
        const Scenario sc = loadScenario(id.toStdString());
        const ResultSet one = test::run(sc, scale, 1);
        const ResultSet two = test::run(sc, scale, 2);
        for (const RunResult& r : one.results) {
            checkCpuLines(r);
            // Every preset has a bandwidth figure: the memory moved, and no socket past what it gives.
            QVERIFY(r.metrics.at("mem_moved_gb") > 0);
            QVERIFY(r.metrics.at("mem_bw_busy") > 0 && r.metrics.at("mem_bw_busy") <= 1.0 + 1e-6);
        }
        QCOMPARE(test::withoutHost(one), test::withoutHost(two));

        const OJson j = resultsToJson(one);
        const OJson& first = j["results"][0];
        QCOMPARE(first["cpus"].size(), one.results[0].cpus.size());
        QCOMPARE(first["cpus"][0]["idle_s"].get<double>(), one.results[0].cpus[0].idleS);
        for (const char* k : { "user_s", "sys_s", "elapsed_s", "kthread_sys_s", "cpu_busy_max", "cpu_busy_mean" })
            QVERIFY2(first["metrics"].contains(k), k);
        const ResultSet back = resultsFromJson(j, "test");
        QCOMPARE(resultsToJson(back).dump(), j.dump());
        QCOMPARE(back.results[0].cpus.size(), one.results[0].cpus.size());
    }
};

QTEST_GUILESS_MAIN(TestTimes)
#include "tst_times.moc"
