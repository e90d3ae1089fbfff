// Struct page lines (hw/cacheline.h, Mm::touchLine): a line written again by its owner costs nothing; one another
// CPU wrote costs a transfer; one nobody wrote since boot, or one a cache's worth of streamed bytes has pushed out,
// costs a read from its node's memory, longer from another socket's. And the vmstat counters' lines (mm/zvc.h),
// written only when a CPU's delta folds.
#include "hw/cacheline.h"
#include "sched/sched.h"
#include "testutil.h"

#include <QtTest>

#include <cmath>

using namespace mms;

namespace {

constexpr double kPage = 4096;

// What writing `line` costs task t now: the CPU time touchLine() charges, ns.
double touchNs(Kernel& k, Task& t, Pfn line)
{
    const Time before = t.debt;
    k.touchLine(t, line);
    return toNs(t.debt - before);
}

} // namespace

class TestCacheLines : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ownedTransferredOrFromMemory()
    {
        test::Box b(64ull << 20);
        b.k.enableLineTracking();
        Task& t0 = b.s.spawn("t0", 0, false, nullptr, 1);
        Task& t1 = b.s.spawn("t1", 1, false, nullptr, 2);
        const CostModel& c = b.m.cost;
        QVERIFY(c.memLatencyNs > 0 && c.llcBytes > 0);
        // Never written: from memory. Then owned: free. Then another CPU's: one transfer.
        QCOMPARE(touchNs(b.k, t0, 10), c.memLatencyNs);
        QCOMPARE(touchNs(b.k, t0, 10), 0.0);
        QVERIFY(std::fabs(touchNs(b.k, t1, 10) - b.s.lineTransferNs(0, 1)) < 0.001);
        QCOMPARE(touchNs(b.k, t1, 10), 0.0);
    }

    void streamedPastACacheIsInMemoryAgain()
    {
        test::Box b(64ull << 20);
        b.k.enableLineTracking();
        Task& t = b.s.spawn("t", 0, false, nullptr, 1);
        const CostModel& c = b.m.cost;
        touchNs(b.k, t, 10);
        touchNs(b.k, t, 11);
        // Half a cache of streamed pages: both lines still cached. Another whole cache: line 10, not written
        // meanwhile, has been pushed out; line 11, written halfway, has not.
        const auto pages = static_cast<int>(c.llcBytes / kPage);
        for (int i = 0; i < pages / 2; ++i)
            b.s.memTransfer(t, 0, kPage);
        QCOMPARE(touchNs(b.k, t, 11), 0.0);
        for (int i = 0; i < pages; ++i) {
            b.s.memTransfer(t, 0, kPage);
            if (i == pages / 4)
                QCOMPARE(touchNs(b.k, t, 11), 0.0);
        }
        QCOMPARE(touchNs(b.k, t, 10), c.memLatencyNs);
        QCOMPARE(touchNs(b.k, t, 11), 0.0);
    }

    void anotherSocketsMemoryIsFarther()
    {
        MachineSpec m = test::genericMachine(4, 2);
        m.memoryBytes = 64ull << 20;
        Simulator sim;
        Sched s(sim, m);
        Kernel k(s, Toggles {});
        k.enableLineTracking();
        Task& t = s.spawn("t", 0, false, nullptr, 1); // socket 0
        const Pfn last = static_cast<Pfn>(m.memoryPages() - 1);
        QCOMPARE(k.page_to_nid(0), 0);
        QCOMPARE(k.page_to_nid(last), 1);
        QCOMPARE(touchNs(k, t, 0), m.cost.memLatencyNs);
        QVERIFY(std::fabs(touchNs(k, t, last) - m.cost.memLatencyNs * m.cost.remoteMemLatencyRatio) < 0.001);
    }

    void withoutACacheSizeNothingLeaves()
    {
        // A cost model without a cache (a bare machine of the lock tests) keeps every line where it was written.
        MachineSpec m = test::genericMachine(2);
        m.memoryBytes = 64ull << 20;
        m.cost.llcBytes = 0;
        Simulator sim;
        Sched s(sim, m);
        Kernel k(s, Toggles {});
        k.enableLineTracking();
        Task& t = s.spawn("t", 0, false, nullptr, 1);
        touchNs(k, t, 5);
        for (int i = 0; i < 100'000; ++i)
            s.memTransfer(t, 0, kPage);
        QCOMPARE(touchNs(k, t, 5), 0.0);
    }

    // The zoned VM counters (mm/zvc.h): a CPU's changes stay in its per-cpu delta until it passes the zone's
    // stat_threshold, then fold into the zone's and the global counter, two locked RMWs on lines the CPU that folded
    // last wrote.
    void vmstatFoldsPastTheThreshold()
    {
        // calculate_normal_threshold()'s table of samples (mm/vmstat.c): CPUs and zone size give the threshold. The
        // sizes follow the table's fls(mem) column (1 + fls of the zone in 128 MiB units) where its size column
        // disagrees with it (its 64-CPU row says 2-4 GB for a 5, which is 1-2 GB).
        QCOMPARE(zvcNormalThreshold(1, 240'000), 8); // 0.9-1 GB
        QCOMPARE(zvcNormalThreshold(2, 300'000), 20); // 1-2 GB
        QCOMPARE(zvcNormalThreshold(16, 230'000), 40); // 900 MB
        QCOMPARE(zvcNormalThreshold(64, 400'000), 70); // 1-2 GB
        QCOMPARE(zvcNormalThreshold(1024, 3'000'000), 125); // 8-16 GB: the cap
        QCOMPARE(zvcPressureThreshold(32, 1024, 1280), 8);
        QCOMPARE(zvcPressureThreshold(64, 1024, 1040), 1);

        test::Box b(1ull << 30, Toggles::forKernel(*KernelVersion::parse("4.0"))); // zone items, pressure threshold
        b.k.boot(1);
        Task& t0 = b.s.spawn("t0", 0, false, nullptr, 1);
        Task& t1 = b.s.spawn("t1", 1, false, nullptr, 2);
        PgData& d = b.k.node(0);
        const Zone& z = d.zone;
        const int normal = d.statThreshold;
        QCOMPARE(normal, zvcNormalThreshold(12, z.end() - z.start()));
        QCOMPARE(d.statPressureThreshold, zvcPressureThreshold(12, z.watermarkMin, z.watermarkLow));
        auto chargeNs = [&](Task& t, int delta) {
            const Time before = t.debt;
            b.k.lruVmstat(t, d.lruvec, LRU_INACTIVE_FILE, delta);
            return toNs(t.debt - before);
        };
        const double fold = 2 * b.k.cost.lockedRmwNs;
        const double moved = fold + 2 * b.s.lineTransferNs(0, 1);
        // Up to the threshold the CPU's delta takes it; one more folds, on lines nobody wrote yet.
        for (int i = 0; i < normal; ++i)
            QCOMPARE(chargeNs(t0, 1), 0.0);
        QVERIFY(std::fabs(chargeNs(t0, 1) - fold) < 0.001);
        // A batch on CPU 1 larger than the threshold folds at once, and both lines come from CPU 0.
        QVERIFY(std::fabs(chargeNs(t1, -normal - 1) - moved) < 0.001);
        QCOMPARE(b.k.vm.get(Vm::ZvcFold), std::uint64_t { 2 });
        // kswapd awake: the zone folds at the pressure threshold.
        d.kswapdWoken = true;
        for (int i = 0; i < d.statPressureThreshold; ++i)
            QCOMPARE(chargeNs(t0, 1), 0.0);
        QVERIFY(std::fabs(chargeNs(t0, 1) - moved) < 0.001);

        // 2.6.20: zone->nr_active / nr_inactive beside the lists, no delta to fold.
        test::Box old(1ull << 30, Toggles::forKernel(*KernelVersion::parse("2.6.20")));
        old.k.boot(1);
        Task& o = old.s.spawn("o", 0, false, nullptr, 1);
        for (int i = 0; i < 1000; ++i)
            old.k.lruVmstat(o, old.k.node(0).lruvec, LRU_INACTIVE_FILE, 1);
        QCOMPARE(o.debt, Time { 0 });
        QCOMPARE(old.k.vm.get(Vm::ZvcFold), std::uint64_t { 0 });
    }

    void presetsNameTheirCaches()
    {
        for (const std::string& name : machinePresetNames()) {
            const MachineSpec m = *machinePreset(name);
            QVERIFY2(m.cost.llcBytes >= 1.0 * (1 << 20), name.c_str()); // the smallest: a K8 core's 1 MB L2
            QVERIFY2(m.cost.memLatencyNs >= 50 && m.cost.memLatencyNs <= 200, name.c_str());
            // A line from memory costs more than one from a neighbour's cache, one sharing the cache least.
            QVERIFY2(m.cost.memLatencyNs > m.cost.lineSameSocketNs, name.c_str());
            QVERIFY2(m.cost.lineSameLlcNs <= m.cost.lineSameSocketNs, name.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestCacheLines)
#include "tst_cachelines.moc"
