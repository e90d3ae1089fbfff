// NUMA: a node per socket, each with its zone, free lists, LRU lists, locks and kswapd; order-0 allocation from
// the local node until its low watermark, then down the zonelist; pages on the LRU of their own node.

#include "kernel/syscalls.h"
#include "mm/page_alloc.h"
#include "mm/swap.h"
#include "scenario/scenario.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {

// A two-socket machine of 12 CPUs (0-5 on node 0, 6-11 on node 1).
struct TwoNodes {
    explicit TwoNodes(bool numa = true)
        : m(spec(numa))
        , s(sim, m)
        , k(s, Toggles {})
    {
    }
    static MachineSpec spec(bool numa)
    {
        MachineSpec m = test::Box::spec(64ull << 20);
        m.sockets = 2;
        m.numa = numa;
        return m;
    }
    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

// Allocates `n` pages on `t`'s CPU and keeps them, noting the node of each and each node's free pages when the
// first page from another node than the task's came.
struct Allocated {
    std::vector<int> nid;
    std::vector<std::uint64_t> freeAtFallback;
    bool kswapdWokenAtFallback = false;
};
Co<> allocateAndKeep(Kernel& k, Task& t, int n, Allocated& a)
{
    const int local = k.cpu_to_node(t.cpu);
    for (int i = 0; i < n; ++i) {
        const Pfn p = co_await alloc_page(k, t);
        if (p == kNoPage)
            break;
        a.nid.push_back(k.page_to_nid(p));
        if (a.nid.back() != local && a.freeAtFallback.empty()) {
            for (int d = 0; d < k.nrNodes(); ++d)
                a.freeAtFallback.push_back(k.node(d).zone.nrFree());
            a.kswapdWokenAtFallback = k.vm.get(Vm::KswapdWakeup) > 0;
        }
    }
}

} // namespace

class TestNuma : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aNodePerSocketWithItsOwnLocksAndKswapd()
    {
        TwoNodes b;
        Kernel& k = b.k;
        QCOMPARE(k.nrNodes(), 2);
        k.startKswapd();
        for (int nid = 0; nid < 2; ++nid) {
            PgData& d = k.node(nid);
            QCOMPARE(d.nid, nid);
            QVERIFY(d.kswapd);
            QCOMPARE(d.kswapd->name, "kswapd" + std::to_string(nid));
            QCOMPARE(k.cpu_to_node(d.kswapd->cpu), nid);
            QCOMPARE(d.zone.lock.stat().name, "node" + std::to_string(nid) + " zone->lock");
            QCOMPARE(d.lruvec.lru_lock.stat().name, "node" + std::to_string(nid) + " zone->lru_lock");
        }
        // The frames split between the nodes, each node's on its own free lists; the watermarks by each zone's share.
        QCOMPARE(k.page_to_nid(0), 0);
        QCOMPARE(k.page_to_nid(static_cast<Pfn>(k.pages.size() - 1)), 1);
        QVERIFY(k.node(0).zone.nrFree() > 0 && k.node(1).zone.nrFree() > 0);
        QVERIFY(k.node(0).zone.check(k.pages).empty());
        QVERIFY(k.node(1).zone.check(k.pages).empty());
        QVERIFY(k.node(1).zone.watermarkMin > 0);
        QCOMPARE(k.nrFreePages(), k.node(0).zone.nrFree() + k.node(1).zone.nrFree());
        // /proc/lock_stat's row of the class sums the nodes' instances.
        int instances = 0;
        sys::lock_stat(k, "zone->lru_lock", &instances);
        QCOMPARE(instances, 2);
        QCOMPARE(lockClass("node1 zone->lru_lock"), std::string_view("zone->lru_lock"));
        QCOMPARE(lockClass("zone->lock"), std::string_view("zone->lock"));
        QCOMPARE(lockClass("node zone->lock"), std::string_view("node zone->lock"));
    }

    void interleavedMemoryIsOneNodeForEverySocket()
    {
        // Two sockets whose memory the firmware interleaves: the kernel sees one node (one zone, one lru_lock
        // without a node prefix, one kswapd) for the CPUs of both, while lines between the sockets still cross.
        TwoNodes b(false);
        Kernel& k = b.k;
        QCOMPARE(k.nrNodes(), 1);
        QCOMPARE(k.cpu_to_node(0), 0);
        QCOMPARE(k.cpu_to_node(11), 0);
        QCOMPARE(k.page_to_nid(static_cast<Pfn>(k.pages.size() - 1)), 0);
        QCOMPARE(k.node(0).lruvec.lru_lock.stat().name, std::string("zone->lru_lock"));
        k.startKswapd();
        QCOMPARE(k.node(0).kswapd->name, std::string("kswapd0"));
        QVERIFY(b.s.lineTransferNs(0, 11) > b.s.lineTransferNs(0, 1));
        // A line that has left the caches comes 1 in 2 from the reader's socket, 1 in 2 from the other.
        const double r = b.m.cost.remoteMemLatencyRatio;
        QVERIFY(r > 1.0);
        QCOMPARE(b.s.lineMissNs(0, 0), b.m.cost.memLatencyNs * (1 + r) / 2);
        QCOMPARE(b.s.lineMissNs(11, 0), b.s.lineMissNs(0, 0));
    }

    void allocatesLocallyUntilTheLowWatermarkThenFallsBack_data()
    {
        QTest::addColumn<int>("cpu");
        QTest::addRow("a task of node 0") << 0;
        QTest::addRow("a task of node 1") << 7;
    }
    void allocatesLocallyUntilTheLowWatermarkThenFallsBack()
    {
        QFETCH(int, cpu);
        TwoNodes b;
        Kernel& k = b.k;
        const int local = k.cpu_to_node(cpu);
        const int remote = 1 - local;
        const std::uint64_t localFree = k.node(local).zone.nrFree();
        const std::uint64_t low = k.node(local).zone.watermarkLow;
        const auto batch = static_cast<std::uint64_t>(PCP_BATCH);
        k.startKswapd();
        Task& t = b.s.spawn("alloc", cpu, false, nullptr, 1);
        Allocated a;
        const int n = static_cast<int>(localFree - low + 4 * batch);
        b.s.start(t, allocateAndKeep(k, t, n, a));
        QVERIFY(b.sim.run());
        QCOMPARE(static_cast<int>(a.nid.size()), n);
        // Every page from the local node until the first remote one; after it, remote pages only (the local zone
        // stays below its low watermark: nothing is freed).
        const auto firstRemote = std::find(a.nid.begin(), a.nid.end(), remote);
        QVERIFY(firstRemote != a.nid.end());
        QVERIFY(std::all_of(a.nid.begin(), firstRemote, [&](int nid) { return nid == local; }));
        QVERIFY(std::all_of(firstRemote, a.nid.end(), [&](int nid) { return nid == remote; }));
        // The fallback came when the local zone's free pages (the per-CPU list's batch aside) fell below low.
        const std::uint64_t atFallback = a.freeAtFallback[static_cast<std::size_t>(local)];
        QVERIFY2(atFallback < low && atFallback + batch >= low,
            qPrintable(QString("%1 free at the fallback, low %2, batch %3").arg(atFallback).arg(low).arg(batch)));
        const auto localPages = static_cast<std::uint64_t>(firstRemote - a.nid.begin());
        QVERIFY(localPages + low <= localFree + batch && localPages + low + batch >= localFree);
        // The fast path found the remote zone above its low watermark and took its page there: no kswapd is woken
        // until every zone of the zonelist is below low (the slow path's wake_all_kswapds()).
        QVERIFY(a.freeAtFallback[static_cast<std::size_t>(remote)] > k.node(remote).zone.watermarkHigh);
        QVERIFY(!a.kswapdWokenAtFallback);
        QCOMPARE(k.vm.get(Vm::KswapdWakeup), std::uint64_t(0));
    }

    void wakesTheKswapdsOnceEveryZoneIsBelowLow()
    {
        TwoNodes b;
        Kernel& k = b.k;
        k.startKswapd();
        const auto batch = static_cast<std::uint64_t>(PCP_BATCH);
        std::uint64_t aboveLow = 0;
        for (int nid = 0; nid < 2; ++nid)
            aboveLow += k.node(nid).zone.nrFree() - k.node(nid).zone.watermarkLow;
        Task& t = b.s.spawn("alloc", 0, false, nullptr, 1);
        Allocated a;
        b.s.start(t, allocateAndKeep(k, t, static_cast<int>(aboveLow + 2 * batch), a));
        QVERIFY(b.sim.run());
        // Both nodes' kswapds were woken (nothing on their LRU lists to reclaim: they went back to sleep), and
        // once both zones were below low the slow path took the first zone above min again from the local node:
        // the runs of pages are node 0's to its low, node 1's to its low, node 0's again.
        QCOMPARE(k.vm.get(Vm::KswapdWakeup), std::uint64_t(2));
        std::vector<int> runs;
        for (int nid : a.nid)
            if (runs.empty() || runs.back() != nid)
                runs.push_back(nid);
        QVERIFY(runs.size() >= 3);
        QCOMPARE(runs[0], 0);
        QCOMPARE(runs[1], 1);
        QCOMPARE(runs[2], 0);
        for (int nid = 0; nid < 2; ++nid)
            QVERIFY(k.node(nid).zone.nrFree() < k.node(nid).zone.watermarkLow);
    }

    void pagesGoOnTheLruOfTheirNode()
    {
        TwoNodes b;
        Kernel& k = b.k;
        const Pfn p0 = alloc_page_setup(k, 0);
        const Pfn p1 = alloc_page_setup(k, 1);
        QCOMPARE(k.page_to_nid(p0), 0);
        QCOMPARE(k.page_to_nid(p1), 1);
        QCOMPARE(&k.lruvecOf(p0), &k.node(0).lruvec);
        QCOMPARE(&k.lruvecOf(p1), &k.node(1).lruvec);
        QCOMPARE(&k.page_zone(p1), &k.node(1).zone);
    }

    void sameResultsOnTwoSocketsAtAnyThreadCount()
    {
        Scenario two = loadScenario("lru-file-readtwice");
        two.set("machine.sockets", "2");
        two.set("machine.numa", "true");
        const ResultSet one = test::run(two, 0.02, 1);
        QCOMPARE(test::withoutHost(one), test::withoutHost(test::run(two, 0.02, 2)));
        // Both nodes' lru_locks were taken.
        for (const auto& r : one.results) {
            int taken = 0;
            for (const auto& l : r.locks)
                if (lockClass(l.name) == "zone->lru_lock" && l.acquisitions > 0)
                    ++taken;
            QVERIFY2(taken == 2, qPrintable(QString::fromStdString(r.variant)));
        }
    }
};

QTEST_GUILESS_MAIN(TestNuma)
#include "tst_numa.moc"
