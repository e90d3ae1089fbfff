// zswap in front of a swap device: zbud packs two objects a page, takes its pages from the page allocator and gives
// them back, refuses what does not fit and evicts its oldest page; through the swap path every page the device is
// written is one zswap wrote back or refused, and a run gives the same bytes at any thread count.
#include "block/zcomp.h"
#include "mm/zbud.h"
#include "mm/zswap.h"
#include "scenario/size.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;
using namespace mms::test;

namespace {
// A bare machine of 64 MiB with the toggles of 4.0.
struct ZbudBox {
    ZbudBox()
        : m(spec())
        , s(sim, m)
        , k(s, Toggles::forKernel(*KernelVersion::parse("4.0")))
        , pool(k, "test")
    {
    }
    static MachineSpec spec()
    {
        MachineSpec m = *machinePreset("generic-12cpu-2015");
        m.memoryBytes = 64ull << 20;
        return m;
    }
    std::uint64_t allocated() const { return k.vm.v[static_cast<std::size_t>(Vm::PgAlloc)]; }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
    ZbudPool pool;
};

Co<> allocMany(ZbudPool& pool, Task& t, std::vector<std::uint32_t> sizes, std::vector<ZbudPool::Handle>& handles,
    std::vector<int>& errors)
{
    for (std::uint32_t size : sizes) {
        ZbudPool::Handle h = 0;
        errors.push_back(co_await pool.zbud_alloc(t, size, h));
        handles.push_back(h);
    }
}
Co<> freeAll(ZbudPool& pool, Task& t, std::vector<ZbudPool::Handle> handles)
{
    for (ZbudPool::Handle h : handles)
        co_await pool.zbud_free(t, h);
}
Co<> reclaim(ZbudPool& pool, Task& t, const ZbudPool::Evict& evict, int& result)
{
    result = co_await pool.zbud_reclaim_page(t, 8, evict);
}
// Runs `body` as a task on CPU 0 to its end.
template <typename F>
bool runTask(ZbudBox& b, F body)
{
    Task& t = b.s.spawn("t", 0, false, nullptr, 1);
    b.s.start(t, body(t));
    return b.sim.run();
}
} // namespace

class TestZswap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void zbudPacksTwoObjectsAPage()
    {
        // A memset page compresses to ~24 bytes, 32 with zswap's header: one chunk of 64 bytes, two a zbud page.
        ZbudBox b;
        std::vector<ZbudPool::Handle> h;
        std::vector<int> err;
        const std::uint64_t before = b.allocated();
        QVERIFY(runTask(b, [&](Task& t) { return allocMany(b.pool, t, { 32, 32, 32 }, h, err); }));
        QCOMPARE(err, std::vector<int>({ 0, 0, 0 }));
        QCOMPARE(b.pool.pagesNr(), 2u); // the third object starts a second page
        QCOMPARE(b.allocated() - before, 2u); // from the page allocator
        // Freeing both buddies of the first page gives it back.
        QVERIFY(runTask(b, [&](Task& t) { return freeAll(b.pool, t, { h[0], h[1] }); }));
        QCOMPARE(b.pool.pagesNr(), 1u);
        QVERIFY(runTask(b, [&](Task& t) { return freeAll(b.pool, t, { h[2] }); }));
        QCOMPARE(b.pool.pagesNr(), 0u);
    }

    void zbudRefusesWhatDoesNotFit()
    {
        // The largest object is PAGE_SIZE less the header chunk and one more: an incompressible page (lzo leaves
        // 4096 bytes or more) plus zswap's header is -ENOSPC, and goes to the device.
        ZbudBox b;
        std::vector<ZbudPool::Handle> h;
        std::vector<int> err;
        const std::uint32_t raw = compressedSize(ZcompAlgo::Lzo, PageContent::Random) + 8;
        QVERIFY(runTask(b, [&](Task& t) { return allocMany(b.pool, t, { ZBUD_MAX_SIZE, ZBUD_MAX_SIZE + 1, raw }, h, err); }));
        QCOMPARE(err, std::vector<int>({ 0, -28, -28 }));
        QCOMPARE(b.pool.pagesNr(), 1u);
        // Two objects of more than half a page never share one: program data (~1953 bytes with the header) does.
        ZbudBox c;
        h.clear();
        err.clear();
        QVERIFY(runTask(c, [&](Task& t) { return allocMany(c.pool, t, { 2100, 2100, 1953, 1953 }, h, err); }));
        QCOMPARE(c.pool.pagesNr(), 3u);
    }

    void reclaimEvictsTheOldestPage()
    {
        ZbudBox b;
        std::vector<ZbudPool::Handle> h;
        std::vector<int> err;
        QVERIFY(runTask(b, [&](Task& t) { return allocMany(b.pool, t, { 32, 32, 32, 32 }, h, err); }));
        QCOMPARE(b.pool.pagesNr(), 2u);
        // An eviction that frees what it is given empties the least recently used page (the first two objects).
        std::vector<ZbudPool::Handle> evicted;
        ZbudPool::Evict frees = [&](Task& t, ZbudPool::Handle x) -> Co<int> {
            evicted.push_back(x);
            co_await b.pool.zbud_free(t, x);
            co_return 0;
        };
        int result = -1;
        QVERIFY(runTask(b, [&](Task& t) { return reclaim(b.pool, t, frees, result); }));
        QCOMPARE(result, 0);
        QCOMPARE(evicted, std::vector<ZbudPool::Handle>({ h[0], h[1] }));
        QCOMPARE(b.pool.pagesNr(), 1u);
        // One that cannot evict anything gives up after trying each page: -EAGAIN, and the pages stay.
        ZbudPool::Evict refuses = [](Task&, ZbudPool::Handle) -> Co<int> { co_return -17; };
        QVERIFY(runTask(b, [&](Task& t) { return reclaim(b.pool, t, refuses, result); }));
        QCOMPARE(result, -11);
        QCOMPARE(b.pool.pagesNr(), 1u);
    }

    void everyDeviceWriteIsAWritebackOrARefusal()
    {
        // Seed 000's program with zswap in front of its SSD: the memset pages all compress, so the device is written
        // only when zswap writes a page back (its pool at max_pool_percent of RAM) or refuses one; pswpout counts
        // those, not the stores. The pool stays within its share of RAM, plus a page for each CPU: every reclaimer
        // checks the limit before its store, and stores that passed it together may each start a page.
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("zswap.enabled", "true");
        const double scale = scaleFor(0.02, 0.01);
        ResultSet rs = run(sc, scale, 1);
        const double ram = static_cast<double>(*parseSize(sc.json()["machine"]["memory"].get<std::string>())) * scale;
        const double cpus = sc.json()["machine"]["cpus"].get<double>();
        for (const auto& r : rs.results) {
            const auto& m = r.metrics;
            const QString v = QString::fromStdString(r.variant);
            QVERIFY2(m.at("zswap_stored_pages") > 0, qPrintable(v));
            QVERIFY2(m.at("zswap_written_back_pages") > 0, qPrintable(v));
            QCOMPARE(m.at("swapouts"),
                m.at("zswap_written_back_pages") + m.at("zswap_reject_reclaim_fail") + m.at("zswap_reject_alloc_fail")
                    + m.at("zswap_reject_compress_poor"));
            QVERIFY2(m.at("zswap_pool_bytes") <= 0.2 * ram + cpus * kPageSize, qPrintable(v));
            bool treeLock = false, poolLock = false;
            for (const auto& l : r.locks) {
                treeLock = treeLock || l.name == "zswap_trees[0].lock";
                poolLock = poolLock || l.name == "zswap zbud_pool.lock";
            }
            QVERIFY2(treeLock && poolLock, qPrintable(v));
        }
        // MADV_FREE's stale swap entries come back from zswap as well as from the device.
        QVERIFY(metric(rs, "madvfree", "zswap_loads") > 0);
        QCOMPARE(withoutHost(run(sc, scale, 2)), withoutHost(rs));
    }

    void sameFilledPagesTakeNoPool()
    {
        // From 4.14 a memset page is kept as its word in the zswap entry: nothing is compressed or stored in zbud,
        // the pool never fills, and nothing is written back to the device.
        QVERIFY(!Toggles::forKernel(*KernelVersion::parse("4.13")).zswap.sameFilled);
        QVERIFY(Toggles::forKernel(*KernelVersion::parse("4.14")).zswap.sameFilled);
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("zswap.enabled", "true");
        sc.set("kernel", "4.14");
        sc.selectVariants({ "madvfree" });
        ResultSet rs = run(sc, scaleFor(0.02, 0.01), 1);
        const auto& m = rs.results.at(0).metrics;
        QVERIFY(m.at("zswap_same_filled_pages") > 0);
        QCOMPARE(m.at("zswap_same_filled_pages"), m.at("zswap_stored_pages"));
        QCOMPARE(m.at("zswap_pool_bytes"), 0.0);
        QCOMPARE(m.at("swapouts"), 0.0);
        QCOMPARE(m.at("swapins"), 0.0);
        QVERIFY(m.at("zswap_loads") > 0); // the stale entries come back as words
    }

    void theFillFastForwardRefusesZswap()
    {
        // swap-free-sort's fill is prefaulted straight onto the device: with zswap its pages would be in a pool the
        // shortcut does not build, so the run refuses, naming the toggle.
        Scenario sc = loadScenario("swap-free-sort");
        sc.set("zswap.enabled", "true");
        sc.set("swap.devices", "1");
        try {
            run(sc, 0.01, 1);
            QFAIL("the fast-forward ran with zswap");
        } catch (const ScenarioError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("zswap.enabled=false"), e.what());
        }
    }

    void zswapNeedsItsRelease()
    {
        Scenario sc = loadScenario("madv-free-tlb-batch"); // 2.6.20
        try {
            sc.set("zswap.enabled", "true");
            QFAIL("zswap accepted on 2.6.20");
        } catch (const ScenarioError& e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY2(msg.contains("zswap.enabled") && msg.contains("3.11") && msg.contains("2.6.20"), qPrintable(msg));
        }
    }
};

QTEST_GUILESS_MAIN(TestZswap)
#include "tst_zswap.moc"
