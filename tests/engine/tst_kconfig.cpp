// The kernel's config (mm/kconfig.h, toggles kernel.config and config.*): each debug option adds its cost to the
// paths it instruments and nothing elsewhere; a debug spinlock races like the byte lock; DEBUG_MUTEXES stops the
// spinning on the owner; struct page spans two lines where a debug lock sits in it (before 2.6.33); memcg's LRU size
// counters move with lru_lock; the named configs set what they name; and a debug kernel's run is slower.
#include "kernel/kernel.h"
#include "mm/kconfig.h"
#include "mm/toggles.h"
#include "sched/sched.h"
#include "sync/mutex.h"
#include "sync/spinlock.h"
#include "testutil.h"

#include <QtTest>

#include <cmath>

#include <nlohmann/json.hpp>

using namespace mms;

namespace {

Toggles at(const char* kernel) { return Toggles::forKernel(*KernelVersion::parse(kernel)); }

Toggles with(Toggles t, const char* option, const char* value)
{
    const std::string err = t.set(option, nlohmann::json(value));
    if (!err.empty())
        throw std::runtime_error(std::string(option) + ": expected " + err);
    return t;
}

// A kernel on the generic machine with toggles `t`: what its boot gives the scheduler's Locking.
struct Booted {
    explicit Booted(const Toggles& t)
        : m(test::Box::spec(64 << 20))
        , s(sim, m)
        , k(s, t)
    {
    }
    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

// One uncontended spin_lock/spin_unlock on CPU 0: the task's system time.
double lockPairNs(const Locking& locking)
{
    Simulator sim;
    const MachineSpec m = test::genericMachine(2);
    Sched s(sim, m);
    s.setLocking(locking);
    SpinLock l("l");
    Task& t = s.spawn("t", 0, false, nullptr, 1);
    s.start(t, [](Sched& s, Task& t, SpinLock& l) -> Co<> {
        co_await spin_lock(s, t, l);
        spin_unlock(s, t, l);
        co_await s.flush(t);
    }(s, t, l));
    if (!sim.run())
        throw std::runtime_error("the run did not end");
    return toNs(t.sysTime);
}

} // namespace

class TestKconfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namedConfigsSetWhatTheyName()
    {
        Toggles t = with(at("2.6.20"), "kernel.config", "fedora-rawhide-2007-04");
        const KernelConfig& c = t.config;
        QVERIFY(c.debugSpinlock && c.lockdep && c.debugMutexes && c.debugSlab && c.debugVm && c.debugList);
        QVERIFY(!c.lockStat); // 2.6.23
        QVERIFY(!c.debugPagealloc); // i386 only in 2.6.20
        QVERIFY(c.preemptVoluntary); // Fedora's desktop preemption model; a release config has the kernel's default
        QVERIFY(!with(at("2.6.20"), "kernel.config", "production").config.preemptVoluntary);
        QCOMPARE(
            QString::fromStdString(t.toJson()["kernel.config"].get<std::string>()), QString("fedora-rawhide-2007-04"));
        // One option changed: a custom config; the era's memcg and layout are kept by a named config.
        t = with(t, "config.lockdep", "false");
        QCOMPARE(QString::fromStdString(t.toJson()["kernel.config"].get<std::string>()), QString("custom"));
        QVERIFY(!t.config.memcg); // 2.6.20 has no memory controller
        QVERIFY(with(at("5.6"), "kernel.config", "fedora-debug").config.memcg);
        QCOMPARE(QString::fromStdString(at("5.6").toJson()["kernel.config"].get<std::string>()), QString("production"));
        Toggles u;
        const std::string err = u.set("kernel.config", nlohmann::json("rawhide"));
        QVERIFY(err.find("fedora-rawhide-2007-04") != std::string::npos);
    }

    // Every spinlock is debugged, the scheduler's runqueue lock too: a task's switch-in (rq->lock from schedule() to
    // finish_lock_switch()) and a wake-up (task_rq_lock()) each pay one acquisition's and one release's checks.
    void debugLocksChargeEveryAcquisitionAndRelease()
    {
        const CostModel& c = test::Box::spec(64 << 20).cost;
        const double plain = lockPairNs(Locking {}); // the lock's RMW and the task's switch-in
        for (const char* option : { "config.debug_spinlock", "config.lockdep" }) {
            const DebugCosts d = debugCosts(with(Toggles {}, option, "true").config, c);
            QVERIFY(d.lockAcquireNs > 0 && d.lockReleaseNs > 0);
            Locking l;
            l.acquireNs = d.lockAcquireNs;
            l.releaseNs = d.lockReleaseNs;
            const double pair = d.lockAcquireNs + d.lockReleaseNs;
            // The lock's checks and rq->lock's, each charge rounded to the picosecond.
            QVERIFY2(std::fabs(lockPairNs(l) - plain - 2 * pair) < 0.003,
                qPrintable(QString("%1 ns more, expected %2").arg(lockPairNs(l) - plain).arg(2 * pair)));
            Simulator sim;
            const MachineSpec m = test::genericMachine(2);
            Sched s(sim, m);
            QCOMPARE(s.wakeupNs(), m.cost.wakeupNs);
            s.setLocking(l);
            QCOMPARE(qRound(s.wakeupNs() * 1000), qRound((m.cost.wakeupNs + pair) * 1000));
        }
    }

    void bootSetsTheDebugLocks()
    {
        // 2.6.30: ticket locks and a mutex that spins on its owner, unless the config debugs them.
        Booted plain(at("2.6.30"));
        QCOMPARE(int(plain.s.locking().spinlock), int(SpinlockImpl::Ticket));
        QVERIFY(plain.s.locking().mutexSpin);
        QVERIFY(!plain.s.locking().debug());
        QVERIFY(!plain.s.locking().waitersRmw);
        Booted spin(with(at("2.6.30"), "config.debug_spinlock", "true"));
        QCOMPARE(int(spin.s.locking().spinlock), int(SpinlockImpl::Byte)); // trylock waiters race for the line
        QVERIFY(spin.s.locking().waitersRmw); // and take it from the holder while they wait
        QVERIFY(spin.s.locking().mutexSpin);
        Booted mutexes(with(at("2.6.30"), "config.debug_mutexes", "true"));
        QVERIFY(!mutexes.s.locking().mutexSpin);
        QVERIFY(mutexes.s.locking().mutexOpNs > 0);
        QCOMPARE(mutexes.s.locking().acquireNs, 0.0); // wait_lock is a plain spinlock without the other options
        Booted stat(with(at("2.6.30"), "config.lock_stat", "true"));
        QVERIFY(stat.s.locking().contendedNs > 0);
        QCOMPARE(stat.s.locking().acquireNs, 0.0);
    }

    void eachOptionCostsItsPathsOnly_data()
    {
        QTest::addColumn<QString>("option");
        QTest::addColumn<bool>("list");
        QTest::addColumn<bool>("page");
        QTest::addColumn<bool>("vma");
        QTest::addRow("debug_list") << "config.debug_list" << true << false << false;
        QTest::addRow("debug_vm") << "config.debug_vm" << false << true << false;
        QTest::addRow("debug_pagealloc") << "config.debug_pagealloc" << false << true << false;
        QTest::addRow("debug_slab") << "config.debug_slab" << false << false << true;
        QTest::addRow("lockdep") << "config.lockdep" << false << false << false;
    }
    void eachOptionCostsItsPathsOnly()
    {
        QFETCH(QString, option);
        QFETCH(bool, list);
        QFETCH(bool, page);
        QFETCH(bool, vma);
        const CostModel& m = test::Box::spec(64 << 20).cost;
        const CostModel p = kernelCostModel(Toggles {}.config, m);
        QCOMPARE(p.listOpNs, m.listOpNs);
        QCOMPARE(p.pageAllocNs, m.pageAllocNs);
        QCOMPARE(p.vmaAdjustNs, m.vmaAdjustNs);
        const CostModel d = kernelCostModel(with(Toggles {}, option.toUtf8().constData(), "true").config, m);
        QCOMPARE(d.listOpNs > m.listOpNs, list);
        QCOMPARE(d.pageAllocNs > m.pageAllocNs, page);
        QCOMPARE(d.pageFreeNs > m.pageFreeNs, page);
        QCOMPARE(d.vmaAdjustNs > m.vmaAdjustNs, vma);
    }

    void lockStatTimesContendedAcquisitionsOnly()
    {
        // The waiter on CPU 1 asks while CPU 0 holds the lock: its system time grows by LOCK_STAT's timing.
        auto waiterSys = [](double contendedNs) {
            Simulator sim;
            const MachineSpec m = test::genericMachine(2);
            Sched s(sim, m);
            Locking l;
            l.contendedNs = contendedNs;
            s.setLocking(l);
            SpinLock lock("l");
            Task& a = s.spawn("a", 0, false, nullptr, 1);
            Task& b = s.spawn("b", 1, false, nullptr, 2);
            auto body = [](Sched& s, Task& t, SpinLock& l, double before, double hold) -> Co<> {
                Sched::burn(t, before);
                co_await s.flush(t);
                co_await spin_lock(s, t, l);
                Sched::burn(t, hold);
                co_await s.flush(t);
                spin_unlock(s, t, l);
                co_await s.flush(t);
            };
            s.start(a, body(s, a, lock, 0, 10'000));
            s.start(b, body(s, b, lock, 1'000, 100));
            if (!sim.run())
                throw std::runtime_error("the run did not end");
            return std::pair { toNs(a.sysTime), toNs(b.sysTime) };
        };
        const auto plain = waiterSys(0), stat = waiterSys(50);
        QCOMPARE(qRound(stat.first), qRound(plain.first)); // the holder took it uncontended
        QCOMPARE(qRound(stat.second - plain.second), 50);
    }

    void structPageSpansTwoLinesWithADebugLockInIt()
    {
        QCOMPARE(at("2.6.20").config.structPageLines(), 1);
        QCOMPARE(with(at("2.6.20"), "kernel.config", "fedora-rawhide-2007-04").config.structPageLines(), 2);
        QCOMPARE(with(at("2.6.32"), "config.lockdep", "true").config.structPageLines(), 2);
        QVERIFY(with(at("2.6.32"), "config.lockdep", "true").config.splitPtlocks());
        // 2.6.33 to 3.12: no split lock under a debug lock, struct page as without one.
        QCOMPARE(with(at("3.12"), "config.lockdep", "true").config.structPageLines(), 1);
        QVERIFY(!with(at("3.12"), "config.lockdep", "true").config.splitPtlocks());
        QVERIFY(at("3.12").config.splitPtlocks());
        // 3.13 (49076ec2ccaf): split again, the lock allocated apart.
        QCOMPARE(with(at("3.13"), "config.lockdep", "true").config.structPageLines(), 1);
        QVERIFY(with(at("3.13"), "config.lockdep", "true").config.splitPtlocks());
        QCOMPARE(with(at("3.12"), "config.debug_slab", "true").config.structPageLines(), 1);
    }

    void memcgCountersMoveWithLruLock()
    {
        // lru-file-readtwice on a saturated lru_lock: without the memcg's size counters each acquisition moves one
        // line less, the lock is held less per page and the readers read more.
        Scenario sc = loadScenario("lru-file-readtwice");
        sc.selectVariants({ "mainline" });
        Scenario off = sc;
        off.set("config.memcg", "false");
        const double scale = test::scaleFor(0.05, 0.02);
        ResultSet on = test::run(sc, scale), without = test::run(off, scale);
        QVERIFY(test::metric(without, "mainline", "lru_lock_hold_ns_per_page")
            < test::metric(on, "mainline", "lru_lock_hold_ns_per_page"));
        QVERIFY(test::metric(without, "mainline", "throughput_mbps") > test::metric(on, "mainline", "throughput_mbps"));
    }

    void aDebugKernelIsSlower()
    {
        // Seed 001's vanilla at 4 threads, whose variants run the rawhide config: every lock, list, page and VMA
        // costs more than on the same kernel built for release, and fewer transactions are done.
        Scenario debug = loadScenario("madv-free-tlb-batch");
        debug.selectVariants({ "vanilla" });
        debug.set("threads", "4");
        Scenario sc = debug;
        sc.set("kernel.config", "production");
        const double scale = test::scaleFor(0.1, 0.05);
        ResultSet p = test::run(sc, scale), d = test::run(debug, scale);
        QVERIFY(test::metric(d, "vanilla", "throughput") < test::metric(p, "vanilla", "throughput"));
        QVERIFY(test::metric(d, "vanilla", "context_switches") > 0);
    }
};

QTEST_GUILESS_MAIN(TestKconfig)
#include "tst_kconfig.moc"
