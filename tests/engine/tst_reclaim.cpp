// 4.0 direct reclaim with many reclaimers: too_many_isolated() against its closed form, the throttle taken under
// seed 000's pressure, the locks reclaim waits on (anon_vma, swap_avail_lock, si->lock, the swap cache's tree lock)
// in the lock statistics, the NR_ISOLATED count back to zero at the end, and the same bytes at any thread count.
#include "testutil.h"

#include "mm/vmscan.h"
#include "scenario/scenario.h"

#include <QtTest>

using namespace mms;
using namespace mms::test;

namespace {
const LockSummary* findLock(const RunResult& r, const std::string& name)
{
    for (const LockSummary& l : r.locks)
        if (l.name == name)
            return &l;
    return nullptr;
}
} // namespace

class TestReclaim : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // isolated > inactive / 8 for a GFP_IOFS direct reclaimer (every allocation here), per list.
    void tooManyIsolatedClosedForm_data()
    {
        QTest::addColumn<int>("inactive");
        QTest::addColumn<int>("isolated");
        QTest::addColumn<bool>("throttled");
        QTest::addRow("800 inactive, 100 isolated") << 800 << 100 << false;
        QTest::addRow("800 inactive, 101 isolated") << 800 << 101 << true;
        QTest::addRow("7 inactive, 0 isolated") << 7 << 0 << false;
        QTest::addRow("7 inactive, 1 isolated") << 7 << 1 << true;
        QTest::addRow("isolated > inactive") << 32 << 64 << true;
    }
    void tooManyIsolatedClosedForm()
    {
        QFETCH(int, inactive);
        QFETCH(int, isolated);
        QFETCH(bool, throttled);
        Box b(64u << 20);
        b.k.lruvec.nr[LRU_INACTIVE_ANON] = static_cast<std::uint64_t>(inactive);
        b.k.zone.nrIsolatedAnon = static_cast<std::uint64_t>(isolated);
        QCOMPARE(too_many_isolated(b.k, false), throttled);
        // The file side counts its own list and its own isolated pages.
        QCOMPARE(too_many_isolated(b.k, true), false);
        b.k.lruvec.nr[LRU_INACTIVE_FILE] = static_cast<std::uint64_t>(inactive);
        b.k.zone.nrIsolatedFile = static_cast<std::uint64_t>(isolated);
        QCOMPARE(too_many_isolated(b.k, true), throttled);
    }

    // Seed 000's twelve reclaimers at a reduced scale: they isolate more than an eighth of the inactive list and
    // wait, the rmap walks take each process's anon_vma rwsem, every slot allocation passes swap_avail_lock and
    // si->lock, and the swap cache's tree lock is taken on insert and delete.
    void twelveReclaimersThrottleAndShareTheSwapLocks()
    {
        ResultSet rs = run(loadScenario("madv-free-swapin"), scaleFor(0.05, 0.02), 2);
        for (const RunResult& r : rs.results) {
            const QString v = QString::fromStdString(r.variant);
            QVERIFY2(r.metrics.at("vm.pgscan_direct") > 0, qPrintable(v));
            QVERIFY2(r.metrics.at("vm.too_many_isolated_waits") > 0, qPrintable(v));
            const LockSummary* anonVma = findLock(r, "anon_vma->rwsem");
            const LockSummary* avail = findLock(r, "swap_avail_lock");
            const LockSummary* si = findLock(r, "swap_info[0].lock");
            const LockSummary* tree = findLock(r, "swapper_spaces[0].tree_lock");
            QVERIFY2(anonVma && avail && si && tree, qPrintable(v));
            // Two walks (page_referenced, try_to_unmap) per page reclaim unmaps; at least one per page scanned
            // that is still mapped.
            QVERIFY2(anonVma->acquisitions > 0, qPrintable(v));
            // One swap_avail_lock round trip per slot allocated: at least one per page swapped out.
            QVERIFY2(static_cast<double>(avail->acquisitions) >= r.metrics.at("swapouts"), qPrintable(v));
            QVERIFY2(si->acquisitions >= avail->acquisitions, qPrintable(v));
            QVERIFY2(tree->acquisitions >= avail->acquisitions, qPrintable(v));
        }
    }

    void sameBytesAtOneAndTwoThreads()
    {
        Scenario sc = loadScenario("madv-free-swapin");
        const double scale = scaleFor(0.02, 0.01);
        QCOMPARE(withoutHost(run(sc, scale, 2)), withoutHost(run(sc, scale, 1)));
    }
};

QTEST_GUILESS_MAIN(TestReclaim)
#include "tst_reclaim.moc"
