// 4.0 direct reclaim with many reclaimers: too_many_isolated() against its closed form, congestion_wait() woken
// only when a swap write leaves its queue below the congestion-off threshold, the throttle taken under seed 000's
// pressure, the locks reclaim waits on (anon_vma, swap_avail_lock, si->lock, the swap cache's tree lock) in the
// lock statistics, the NR_ISOLATED count back to zero at the end, a page free_swap_and_cache() holds never freed by
// the reclaimer that isolated it, drain_all_pages() as each era runs it, the inactive anonymous list kept up when
// swap-outs complete in the reclaimer (zram) and left alone with no swap device, and the same bytes at any thread
// count.
#include "testutil.h"

#include "block/blkdev.h"
#include "mm/page_alloc.h"
#include "mm/swap.h"
#include "mm/swapfile.h"
#include "mm/vmscan.h"
#include "scenario/scenario.h"

#include <QtTest>

#include <algorithm>

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

// A 12-CPU box whose one swap device takes 10 us to transfer a one-page request (9 us command overhead + 4 KiB at
// 4096 MB/s) and completes it 50 us later, with `nrRequests` requests at most: submitted together at T0, the k-th
// request completes at T0 + 10k + 50 us.
struct QueueBox {
    explicit QueueBox(int nrRequests)
        : m(spec(nrRequests))
        , s(sim, m)
        , k(s, Toggles {})
    {
    }
    static MachineSpec spec(int nrRequests)
    {
        MachineSpec m = Box::spec(64u << 20);
        DeviceSpec d;
        d.requestOverheadNs = 9'000;
        d.bandwidthMBps = 4096;
        d.readLatencyNs = 50'000;
        d.writeLatencyNs = 50'000;
        d.queueDepth = nrRequests;
        m.swap = { SwapSpec { 64u << 20, d } };
        return m;
    }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

// Submits `writes` one-page writes and `reads` one-page reads at T0, then congestion_wait()s at most `timeout`.
Co<> submitAndWait(
    Kernel& k, Task& t, int writes, int reads, Time timeout, Time& t0, Time& back, int& left, bool& congested)
{
    co_await k.s.flush(t);
    t0 = k.s.sim().now();
    BlockDevice& dev = *k.swap[0]->dev;
    for (int i = 0; i < writes; ++i)
        dev.submit(true, { Pfn(100 + i) });
    for (int i = 0; i < reads; ++i)
        dev.submit(false, { Pfn(1000 + i) });
    congested = dev.asyncCongested();
    co_await k.congestion_wait(t, timeout);
    back = k.s.sim().now();
    left = dev.asyncRequests();
}

// Submits `writes` one-page writes at T0, then wait_iff_congested()s at most `timeout`.
Co<> submitAndWaitIffCongested(Kernel& k, Task& t, int writes, Time timeout, Time& t0, Time& back)
{
    co_await k.s.flush(t);
    t0 = k.s.sim().now();
    BlockDevice& dev = *k.swap[0]->dev;
    for (int i = 0; i < writes; ++i)
        dev.submit(true, { Pfn(100 + i) });
    co_await k.wait_iff_congested(t, k.node(0).zone, timeout);
    back = k.s.sim().now();
}

// Default toggles but `name` = `value`, for a Box.
Toggles togglesWith(const std::string& name, const std::string& value)
{
    Toggles tg;
    if (std::string err = tg.set(name, value); !err.empty())
        throw std::runtime_error(err);
    return tg;
}

// The race of free_swap_and_cache() with reclaim: `holder` keeps lru_lock for 100 us; `zapper` (from 1 us) frees the
// last swap reference of a page reclaim has isolated, takes the page out of the swap cache and queues for lru_lock
// in its last put; `reclaimer` (from 50 us) runs shrink_page_list() and putbackIsolated() on the isolated page.
Co<> holdLruLock(Kernel& k, Task& t, double ns)
{
    co_await spin_lock(k.s, t, k.node(0).lruvec.lru_lock);
    Sched::burn(t, ns);
    co_await k.s.flush(t);
    spin_unlock(k.s, t, k.node(0).lruvec.lru_lock);
}
Co<> zapSwapEntry(Kernel& k, Task& t, std::uint32_t entry)
{
    co_await k.s.sleepFor(t, us(1));
    co_await free_swap_and_cache(k, t, entry);
}
struct ReclaimSeen {
    bool inSwapCache = true; // when the reclaimer looked at the page
    bool pinned = false;
    bool orphan = true;
    std::uint64_t freed = 0; // by shrink_page_list
    std::size_t kept = 0;
};
Co<> reclaimIsolated(Kernel& k, Task& t, Pfn p, ReclaimSeen& seen)
{
    co_await k.s.sleepFor(t, us(50));
    seen.inSwapCache = k.pages.test(p, PG_swapcache);
    seen.pinned = k.isPinned(p);
    seen.orphan = k.orphan(p);
    std::vector<Pfn> list { p };
    seen.freed = co_await shrink_page_list(k, t, list);
    seen.kept = list.size();
    co_await putbackIsolated(k, t, k.node(0), k.node(0).lruvec, list, 1, false);
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
        b.k.node(0).lruvec.nr[LRU_INACTIVE_ANON] = static_cast<std::uint64_t>(inactive);
        b.k.node(0).zone.nrIsolatedAnon = static_cast<std::uint64_t>(isolated);
        QCOMPARE(too_many_isolated(b.k.node(0), false), throttled);
        // The file side counts its own list and its own isolated pages.
        QCOMPARE(too_many_isolated(b.k.node(0), true), false);
        b.k.node(0).lruvec.nr[LRU_INACTIVE_FILE] = static_cast<std::uint64_t>(inactive);
        b.k.node(0).zone.nrIsolatedFile = static_cast<std::uint64_t>(isolated);
        QCOMPARE(too_many_isolated(b.k.node(0), true), throttled);
    }

    // blk_queue_congestion_threshold(): on = nr - nr/8 + 1 (at most nr), off = nr - nr/8 - nr/16 - 1 (at least 1).
    void congestionThresholdsClosedForm_data()
    {
        QTest::addColumn<int>("nr");
        QTest::addColumn<int>("on");
        QTest::addColumn<int>("off");
        QTest::addRow("nr_requests 128") << 128 << 113 << 103;
        QTest::addRow("nr_requests 1024") << 1024 << 897 << 831;
        QTest::addRow("nr_requests 64") << 64 << 57 << 51;
        QTest::addRow("nr_requests 16") << 16 << 15 << 12;
        QTest::addRow("nr_requests 4") << 4 << 4 << 3;
        QTest::addRow("nr_requests 1") << 1 << 1 << 1;
    }
    void congestionThresholdsClosedForm()
    {
        QFETCH(int, nr);
        QFETCH(int, on);
        QFETCH(int, off);
        QCOMPARE(BlockDevice::congestionOnThreshold(nr), on);
        QCOMPARE(BlockDevice::congestionOffThreshold(nr), off);
    }

    // congestion_wait(BLK_RW_ASYNC) ends when a freed write request leaves its queue's async count below the off
    // threshold (__freed_request -> clear_bdi_congested), or at its timeout; a write freed on a queue still at or
    // above the threshold, or a read, wakes no one. The sleeper runs again before the next completion (10 us
    // later), so the count it reads is the one the waking completion left.
    void congestionWaitWakesBelowTheOffThreshold_data()
    {
        QTest::addColumn<int>("nr");
        QTest::addColumn<int>("writes");
        QTest::addColumn<int>("reads");
        QTest::addColumn<int>("timeoutUs");
        QTest::addColumn<bool>("congested"); // after the submissions: writes >= on threshold
        QTest::addColumn<int>("wokenAtUs"); // after T0: the k-th completion (10k + 50) or the timeout
        QTest::addColumn<int>("left"); // async requests when the sleeper runs again
        // 120 writes of 128: completions 1..17 leave 119..103, the 18th leaves 102 < 103.
        QTest::addRow("128 deep, 120 writes: the 18th completion") << 128 << 120 << 0 << 100'000 << true << 230 << 102;
        QTest::addRow("128 deep, 104 writes: the 2nd completion") << 128 << 104 << 0 << 100'000 << false << 70 << 102;
        QTest::addRow("128 deep, 103 writes: the 1st completion") << 128 << 103 << 0 << 100'000 << false << 60 << 102;
        QTest::addRow("128 deep, 113 writes: congested, the 11th") << 128 << 113 << 0 << 100'000 << true << 160 << 102;
        QTest::addRow("128 deep, 10 writes: the 1st completion") << 128 << 10 << 0 << 100'000 << false << 60 << 9;
        QTest::addRow("4 deep, 4 writes: off threshold 3, the 2nd") << 4 << 4 << 0 << 100'000 << true << 70 << 2;
        QTest::addRow("1 deep, 1 write: off threshold 1, the 1st") << 1 << 1 << 0 << 100'000 << true << 60 << 0;
        // Completions at 60, 70, ..., 200 us leave 105 at the 205 us timeout; the 18th (230 us) comes too late.
        QTest::addRow("128 deep, 120 writes, 205 us: the timeout") << 128 << 120 << 0 << 205 << true << 205 << 105;
        QTest::addRow("reads only: the timeout") << 128 << 0 << 10 << 500 << false << 500 << 0;
    }
    void congestionWaitWakesBelowTheOffThreshold()
    {
        QFETCH(int, nr);
        QFETCH(int, writes);
        QFETCH(int, reads);
        QFETCH(int, timeoutUs);
        QFETCH(bool, congested);
        QFETCH(int, wokenAtUs);
        QFETCH(int, left);
        QueueBox b(nr);
        Task& t = b.s.spawn("reclaimer", 1, false, nullptr, 1);
        Time t0 = 0, back = 0;
        int asyncLeft = -1;
        bool wasCongested = false;
        b.s.start(t, submitAndWait(b.k, t, writes, reads, ns(timeoutUs * 1000.0), t0, back, asyncLeft, wasCongested));
        QVERIFY(b.sim.run());
        QCOMPARE(wasCongested, congested);
        QCOMPARE(asyncLeft, left);
        const double wokenNs = toNs(back - t0);
        QVERIFY2(wokenNs >= wokenAtUs * 1000.0 && wokenNs < wokenAtUs * 1000.0 + 10'000,
            qPrintable(QString("woken %1 ns after T0, expected %2 us").arg(wokenNs).arg(wokenAtUs)));
        QCOMPARE(b.k.swap[0]->dev->asyncRequests(), 0);
        QCOMPARE(b.k.swap[0]->dev->asyncCongested(), false);
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

    // On zram a swap-out completes in the reclaimer, so nothing waits on the inactive list under writeback and the
    // list lives only by what shrink_lruvec() moves to it: a batch of the active list beside each batch it reclaims
    // and a second one after, while inactive_anon_is_low(). The list then keeps well above the eighth of itself that
    // twelve reclaimers' isolated batches would pass, and few passes are throttled.
    void inactiveAnonListKeepsUpWithSynchronousSwap()
    {
        ResultSet rs = runWith("madv-free-swapin", "dontneed",
            { { "machine.swap", R"([{"size": "8GiB", "device": "zram"}])" } }, scaleFor(0.05, 0.02));
        const RunResult& r = rs.results.at(0);
        const double deactivated = r.metrics.at("vm.pgdeactivate");
        const double stolen = r.metrics.at("vm.pgsteal");
        const double passes = r.metrics.at("vm.pgscan_direct") / SWAP_CLUSTER_MAX;
        QVERIFY2(stolen > 0 && deactivated > 1.5 * stolen, qPrintable(QString("%1 / %2").arg(deactivated).arg(stolen)));
        QVERIFY2(r.metrics.at("vm.too_many_isolated_waits") < 0.2 * passes,
            qPrintable(QString("%1 of %2").arg(r.metrics.at("vm.too_many_isolated_waits")).arg(passes)));
    }

    // inactive_anon_is_low() is false with no swap device: a reclaim pass over a zone whose anonymous pages are all
    // active leaves them active, where with swap it deactivates a batch before and one after its inactive batch.
    void noSwapNoAnonDeactivation_data()
    {
        QTest::addColumn<bool>("withSwap");
        QTest::addColumn<std::uint64_t>("deactivated");
        QTest::addRow("8 GiB swap") << true << std::uint64_t(2 * SWAP_CLUSTER_MAX);
        QTest::addRow("no swap") << false << std::uint64_t(0);
    }
    void noSwapNoAnonDeactivation()
    {
        QFETCH(bool, withSwap);
        QFETCH(std::uint64_t, deactivated);
        MachineSpec m = Box::spec(64ull << 20);
        if (!withSwap)
            m.swap.clear();
        Box b(m);
        QCOMPARE(b.k.swap.empty(), !withSwap);
        Kernel& k = b.k;
        for (int i = 0; i < 256; ++i) {
            const Pfn p = alloc_page_setup(k);
            QVERIFY(p != kNoPage);
            k.pages.setFlags(p, PG_anon | PG_swapbacked | PG_active);
            k.add_page_to_lru_list(p, LRU_ACTIVE_ANON);
        }
        Task& t = b.s.spawn("reclaimer", 0, false, nullptr, 1);
        auto reclaim = [&](Task& t) -> Co<> { co_await shrink_zone(k, t, k.node(0), false); };
        b.s.start(t, reclaim(t));
        QVERIFY(b.sim.run());
        QCOMPARE(k.vm.get(Vm::PgDeactivate), deactivated);
        QCOMPARE(k.node(0).lruvec.nr[LRU_ACTIVE_ANON], std::uint64_t(256) - deactivated);
    }

    // wait_iff_congested() sleeps like congestion_wait() only when a device is congested and the zone is
    // ZONE_CONGESTED; otherwise it returns at once (cond_resched with no one else to run).
    void waitIffCongestedNeedsBothFlags_data()
    {
        QTest::addColumn<int>("writes");
        QTest::addColumn<bool>("zoneCongested");
        QTest::addColumn<int>("wokenAtUs");
        // 120 writes of 128: the device is congested and the 18th completion (230 us) leaves it below 103.
        QTest::addRow("device and zone congested: the 18th completion") << 120 << true << 230;
        QTest::addRow("device congested, zone not: no sleep") << 120 << false << 0;
        QTest::addRow("zone congested, device not: no sleep") << 10 << true << 0;
    }
    void waitIffCongestedNeedsBothFlags()
    {
        QFETCH(int, writes);
        QFETCH(bool, zoneCongested);
        QFETCH(int, wokenAtUs);
        QueueBox b(128);
        b.k.node(0).zone.congested = zoneCongested;
        Task& t = b.s.spawn("reclaimer", 1, false, nullptr, 1);
        Time t0 = 0, back = 0;
        b.s.start(t, submitAndWaitIffCongested(b.k, t, writes, ms(100), t0, back));
        QVERIFY(b.sim.run());
        const double wokenNs = toNs(back - t0);
        QVERIFY2(wokenNs >= wokenAtUs * 1000.0 && wokenNs < wokenAtUs * 1000.0 + 10'000,
            qPrintable(QString("woken %1 ns after T0, expected %2 us").arg(wokenNs).arg(wokenAtUs)));
    }

    // free_swap_and_cache() looks the page up with a reference (find_get_page) that it holds until its last put:
    // while it waits for lru_lock with the page out of the swap cache, unmapped and owned by no one, the reclaimer
    // that holds the page isolated sees it referenced and keeps it, and the page is freed once -- by whichever of
    // the two puts last (here the reclaimer, which finds the page orphaned when it puts it back after the
    // zapper's put).
    void freeSwapAndCachePinsThePageAgainstReclaim()
    {
        QueueBox b(128);
        Kernel& k = b.k;
        SwapInfo& si = *k.swap[0];
        const std::uint32_t off = 1;
        const std::uint32_t entry = pte::swpEntry(0, off);
        const Pfn p = alloc_page_setup(k);
        QVERIFY(p != kNoPage);
        // An anonymous page reclaim isolated after try_to_unmap() left one swap PTE to it: in the swap cache, no
        // mapping, no owner.
        k.pages.setFlags(p, PG_anon | PG_swapbacked | PG_swapcache | PG_isolated);
        k.pages.setPriv(p, entry);
        si.slot[off].setCache(p);
        si.slot[off].swapMap = 1;
        si.inuse = 1;
        k.node(0).zone.nrIsolatedAnon = 1;
        const std::uint64_t freesBefore = k.vm.get(Vm::PgFree);

        Task& holder = b.s.spawn("holder", 0, false, nullptr, 1);
        Task& zapper = b.s.spawn("zapper", 1, false, nullptr, 2);
        Task& reclaimer = b.s.spawn("reclaimer", 2, false, nullptr, 3);
        ReclaimSeen seen;
        b.s.start(holder, holdLruLock(k, holder, 100'000.0));
        b.s.start(zapper, zapSwapEntry(k, zapper, entry));
        b.s.start(reclaimer, reclaimIsolated(k, reclaimer, p, seen));
        QVERIFY(b.sim.run());

        // Freed exactly once, and nothing left referring to it.
        QCOMPARE(k.vm.get(Vm::PgFree) - freesBefore, std::uint64_t(1));
        std::size_t onPcp = 0;
        for (const std::vector<Pfn>& pcp : k.node(0).zone.pcp)
            onPcp += static_cast<std::size_t>(std::count(pcp.begin(), pcp.end(), p));
        QCOMPARE(onPcp, std::size_t(1));
        QVERIFY(k.pages.test(p, PG_buddy));
        QVERIFY(!k.isPinned(p));
        QCOMPARE(si.slot[off].cache(), kNoPage);
        QCOMPARE(si.slot[off].swapMap, std::uint8_t(0));
        QCOMPARE(k.node(0).zone.nrIsolatedAnon, std::uint64_t(0));
        // The reclaimer came in the window: the page already out of the swap cache, held only by the zapper's pin.
        QVERIFY(!seen.inSwapCache);
        QVERIFY(seen.pinned);
        QVERIFY(!seen.orphan);
        QCOMPARE(seen.freed, std::uint64_t(0));
        QCOMPARE(seen.kept, std::size_t(1));
    }

    // shrink_page_list() finds a swap-cache page's PTE young and puts it back on the active list (activate_locked).
    // From 2.6.28 (68a22394c286) the page gives its slot up there while less than half of the swap space is free
    // (vm_swap_full()): it is dirty again, its only copy in memory; before, or with swap to spare, it keeps the slot.
    void activationFreesTheSlotWhenSwapIsFull_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("used"); // slots other PTEs hold, of 16383
        QTest::addColumn<bool>("freed");
        QTest::addRow("2.6.28, swap more than half used") << "2.6.28" << 8192 << true;
        QTest::addRow("2.6.28, half of it free") << "2.6.28" << 8190 << false;
        QTest::addRow("2.6.27, swap more than half used") << "2.6.27" << 8192 << false;
    }
    void activationFreesTheSlotWhenSwapIsFull()
    {
        QFETCH(QString, kernel);
        QFETCH(int, used);
        QFETCH(bool, freed);
        Box b(QueueBox::spec(128), Toggles::forKernel(*KernelVersion::parse(kernel.toStdString())));
        Kernel& k = b.k;
        SwapInfo& si = *k.swap[0];
        QCOMPARE(si.nrSlots(), 16384u); // 64 MiB, slot 0 the header: 16383 to use
        for (int off = 1; off <= used; ++off)
            si.slot[static_cast<std::uint32_t>(off)].swapMap = 1;
        si.inuse = static_cast<std::uint32_t>(used);
        // A page mapped young at vpn 0 of a process, in the swap cache at the next slot, isolated by reclaim.
        MmStruct& mm = k.mm_alloc();
        mm.pte.resize(1);
        mm.ptl.push_back(std::make_unique<SpinLock>("ptl"));
        const Pfn p = alloc_page_setup(k);
        const std::uint32_t off = static_cast<std::uint32_t>(used) + 1;
        k.pages.setFlags(p, PG_anon | PG_swapbacked | PG_swapcache | PG_isolated);
        k.pages.setPriv(p, pte::swpEntry(0, off));
        k.pages.setOwner(p, static_cast<std::uint16_t>(mm.id + 1));
        k.pages.setIndex(p, 0);
        k.pages.setMapcount(p, 1);
        mm.pte[0] = pte::mkPresent(p, false, true);
        ++mm.rss;
        si.slot[off].setCache(p);
        ++si.inuse;
        k.node(0).zone.nrIsolatedAnon = 1;

        Task& reclaimer = b.s.spawn("reclaimer", 0, false, nullptr, 1);
        std::size_t kept = 0;
        b.s.start(reclaimer, [](Kernel& k, Task& t, Pfn p, std::size_t& kept) -> Co<> {
            std::vector<Pfn> list { p };
            co_await shrink_page_list(k, t, list);
            kept = list.size();
            co_await putbackIsolated(k, t, k.node(0), k.node(0).lruvec, list, 1, false);
        }(k, reclaimer, p, kept));
        QVERIFY(b.sim.run());

        QCOMPARE(kept, std::size_t(1));
        QVERIFY(k.pages.test(p, PG_active));
        QCOMPARE(k.pages.test(p, PG_swapcache), !freed);
        QCOMPARE(k.pages.test(p, PG_dirty), freed);
        QCOMPARE(si.slot[off].cache(), freed ? kNoPage : p);
        QCOMPARE(si.inuse, static_cast<std::uint32_t>(used + (freed ? 0 : 1)));
    }

    // A round of direct reclaim over 2048 anonymous pages no swap can take (each is scanned and activated), with every
    // free page allocated: it scans on down to priority 0. Before 2.6.37 each pass below DEF_PRIORITY - 2 that
    // scanned pages ends in congestion_wait(HZ/10), the whole 100 ms with no swap write to end it: passes 9 to 1 (the
    // inactive list runs out in pass 1, pass 0 scans nothing), 900 ms. wait_iff_congested() (2.6.37-3.10) finds no
    // congested device and shrink_inactive_list()'s wait (3.11+) no congested zone: neither sleeps.
    void directReclaimNaps_data()
    {
        QTest::addColumn<QString>("nap");
        QTest::addColumn<double>("sleptMs");
        QTest::addRow("congestion_wait (before 2.6.37)") << "congestion_wait" << 900.0;
        QTest::addRow("wait_iff_congested (2.6.37-3.10)") << "wait_iff_congested" << 0.0;
        QTest::addRow("shrink_list (3.11+)") << "shrink_list" << 0.0;
    }
    void directReclaimNaps()
    {
        QFETCH(QString, nap);
        QFETCH(double, sleptMs);
        MachineSpec m = Box::spec(64ull << 20);
        m.swap.clear();
        Box b(m, togglesWith("vmscan.nap", nap.toStdString()));
        Kernel& k = b.k;
        // A process's anonymous pages, unmapped (page_referenced() finds no young PTE) and with no swap to go to.
        MmStruct& mm = k.mm_alloc();
        constexpr int kPages = 2048;
        int n = 0;
        for (Pfn p = alloc_page_setup(k); p != kNoPage; p = alloc_page_setup(k))
            if (n++ < kPages) {
                k.pages.set(p, PG_anon | PG_swapbacked);
                k.pages.setOwner(p, static_cast<std::uint16_t>(mm.id + 1));
                k.add_page_to_lru_list(p, LRU_INACTIVE_ANON);
            }
        QCOMPARE(k.node(0).zone.nrFree(), std::uint64_t(0));
        Time back = -1;
        std::uint64_t got = 1;
        Task& r = b.s.spawn("reclaimer", 0, false, nullptr, 1);
        b.s.start(r, [](Kernel& k, Task& t, Time& back, std::uint64_t& got) -> Co<> {
            got = co_await try_to_free_pages(k, t);
            back = k.s.sim().now() + t.debt;
        }(k, r, back, got));
        QVERIFY(b.sim.run());
        QCOMPARE(got, std::uint64_t(0));
        QCOMPARE(k.vm.get(Vm::PgScanDirect), std::uint64_t(kPages));
        const double computeMs = toNs(r.sysTime) / 1e6;
        QVERIFY2(computeMs < 5.0, qPrintable(QString::number(computeMs) + " ms of system time"));
        const double sleptNs = toNs(back - r.sysTime);
        QVERIFY2(sleptNs >= sleptMs * 1e6 && sleptNs < sleptMs * 1e6 + 1e3,
            qPrintable(QString::number(sleptNs) + " ns"));
    }

    // kswapd on a node short of free pages whose LRU holds only pages it cannot take (each locked: trylock_page()
    // fails and the page is kept), while a user task runs for a second. Before 2.6.33 (`priority`) balance_pgdat()
    // naps HZ/10 after each pass below priority 10, never reclaiming a batch to start over: 3 passes, then 10
    // passes and 10 naps a second, 13 batches. From 2.6.33 not while the zone is under its min watermark, where it
    // passes on without a pause; from 3.9 (`none`) never. The model's `batch` (its default from 3.9) naps after
    // every batch that freed nothing: 10 batches.
    void kswapdNapsByEra_data()
    {
        QTest::addColumn<QString>("nap");
        QTest::addColumn<bool>("underMin");
        QTest::addColumn<int>("minBatches");
        QTest::addColumn<int>("maxBatches");
        QTest::addRow("priority (before 2.6.33)") << "priority" << true << 13 << 14;
        QTest::addRow("priority_unless_min, under min") << "priority_unless_min" << true << 1000 << (1 << 30);
        QTest::addRow("priority_unless_min, above min") << "priority_unless_min" << false << 13 << 14;
        QTest::addRow("none (3.9)") << "none" << true << 1000 << (1 << 30);
        QTest::addRow("batch (the model's, from 3.9)") << "batch" << true << 10 << 11;
    }
    void kswapdNapsByEra()
    {
        QFETCH(QString, nap);
        QFETCH(bool, underMin);
        QFETCH(int, minBatches);
        QFETCH(int, maxBatches);
        Box b(64ull << 20, togglesWith("vmscan.kswapd_nap", nap.toStdString()));
        Kernel& k = b.k;
        Zone& z = k.node(0).zone;
        QVERIFY(!k.swap.empty());
        MmStruct& mm = k.mm_alloc();
        const std::uint64_t keep = underMin ? 0 : (z.watermarkMin + z.watermarkHigh) / 2;
        int n = 0;
        for (Pfn p = kNoPage; z.nrFree() > keep && (p = alloc_page_setup(k)) != kNoPage;)
            if (n++ < 256) {
                k.pages.set(p, PG_anon | PG_swapbacked | PG_locked);
                k.pages.setOwner(p, static_cast<std::uint16_t>(mm.id + 1));
                k.add_page_to_lru_list(p, LRU_INACTIVE_ANON);
            }
        QCOMPARE(z.nrFree() < z.watermarkMin, underMin);
        k.startKswapd();
        k.wakeup_kswapd(k.node(0));
        Task& user = b.s.spawn("user", 1, false, nullptr, 1);
        b.s.start(user, [](Sched& s, Task& t) -> Co<> { co_await s.sleepFor(t, ms(1000)); }(b.s, user));
        QVERIFY(b.sim.run());
        const std::uint64_t batches = k.vm.get(Vm::PgScanKswapd) / SWAP_CLUSTER_MAX;
        qInfo("%s: %llu batches in a second", qPrintable(nap), static_cast<unsigned long long>(batches));
        QVERIFY2(batches >= static_cast<std::uint64_t>(minBatches) && batches <= static_cast<std::uint64_t>(maxBatches),
            qPrintable(QString::number(batches) + " batches"));
        QCOMPARE(k.vm.get(Vm::PgSteal), std::uint64_t(0));
    }

    // drain_all_pages() after a direct reclaim whose allocation still failed: every CPU's per-cpu list is empty
    // afterwards and its pages are in the buddy lists. Before 4.11 two reclaimers draining at once both interrupt
    // every other CPU that had pages when they looked; from 4.11 the second finds pcpu_drain_mutex taken and returns
    // at once, and the first's work item wakes the kworker of each remote CPU with pages (a reschedule IPI). Before
    // 2.6.36 there is no drain: the lists keep their pages.
    // A direct reclaimer that finds too_many_isolated() (here: 64 pages isolated, an empty inactive list) while
    // another task puts the isolated pages back 250 ms in. Before 2.6.32 (35cd78156c49) it does not wait. Up to
    // 5.15 (congestion_wait) it sleeps HZ/10 at a time and checks again: it leaves shrink_zone() at the first check
    // after 250 ms, 300 ms. From 5.16 (reclaim_throttle, d818fca1cac3) it sleeps once, HZ/50 at most, and returns
    // with nothing reclaimed.
    void isolatedThrottleSleeps_data()
    {
        QTest::addColumn<QString>("throttle");
        QTest::addColumn<double>("backMs");
        QTest::addRow("none (before 2.6.32)") << "none" << 0.0;
        QTest::addRow("congestion_wait (2.6.32-5.15)") << "congestion_wait" << 300.0;
        QTest::addRow("reclaim_throttle (5.16+)") << "reclaim_throttle" << 20.0;
    }
    void isolatedThrottleSleeps()
    {
        QFETCH(QString, throttle);
        QFETCH(double, backMs);
        Box b(64ull << 20, togglesWith("vmscan.isolated_throttle", throttle.toStdString()));
        Sched& s = b.s;
        Kernel& k = b.k;
        PgData& d = k.node(0);
        d.zone.nrIsolatedAnon = 64;
        QVERIFY(too_many_isolated(d, false));
        Time back = -1;
        auto reclaim = [&](Task& t) -> Co<> {
            co_await shrink_zone(k, t, d, false);
            back = s.sim().now();
        };
        auto putBack = [&](Task& t) -> Co<> {
            co_await s.sleepFor(t, ms(250));
            d.zone.nrIsolatedAnon = 0;
        };
        Task& r = s.spawn("reclaimer", 0, false, nullptr, 1);
        Task& p = s.spawn("putback", 1, false, nullptr, 2);
        s.start(r, reclaim(r));
        s.start(p, putBack(p));
        QVERIFY(b.sim.run());
        QVERIFY2(back >= ms(backMs) && back < ms(backMs + 1), qPrintable(QString::number(toNs(back) / 1e6) + " ms"));
        const std::uint64_t sleeps = throttle == "none" ? 0 : throttle == "congestion_wait" ? 3 : 1;
        QCOMPARE(k.vm.get(Vm::IsolateThrottle), sleeps);
    }

    void drainAllPagesEmptiesEveryList_data()
    {
        QTest::addColumn<QString>("drain");
        QTest::addColumn<std::uint64_t>("ipisToCpu2");
        QTest::addColumn<bool>("secondSkips");
        QTest::addRow("none (before 2.6.36)") << "none" << std::uint64_t(0) << true;
        QTest::addRow("ipi (before 4.11)") << "ipi" << std::uint64_t(2) << false;
        QTest::addRow("workqueue (4.11+)") << "workqueue" << std::uint64_t(1) << true;
    }
    void drainAllPagesEmptiesEveryList()
    {
        QFETCH(QString, drain);
        QFETCH(std::uint64_t, ipisToCpu2);
        QFETCH(bool, secondSkips);
        Box box(64ull << 20, togglesWith("page_alloc.drain", drain.toStdString()));
        Simulator& sim = box.sim;
        Sched& s = box.s;
        Kernel& k = box.k;
        const std::uint64_t free0 = k.node(0).zone.nrFree();
        const std::vector<std::vector<Pfn>>& pcp = k.node(0).zone.pcp;
        // CPUs 0, 1 and 2 each take a page (a batch comes onto their lists) and give it back.
        auto cycle = [&](Task& t) -> Co<> {
            Pfn p = co_await alloc_page(k, t);
            co_await free_hot_cold_page(k, t, p);
        };
        for (int c = 0; c < 3; ++c) {
            Task& t = s.spawn("cycle" + std::to_string(c), c, false, nullptr, 1u + static_cast<unsigned>(c));
            s.start(t, cycle(t));
        }
        QVERIFY(sim.run());
        const std::size_t parked = pcp[0].size() + pcp[1].size() + pcp[2].size();
        QVERIFY(parked >= 3);
        QCOMPARE(k.node(0).zone.nrFree() + parked, free0);
        // Two reclaimers drain at the same moment, on CPUs 0 and 3 (whose list is empty).
        Time firstDone = 0, secondDone = 0;
        auto drainer = [&](Task& t, Time& done) -> Co<> {
            co_await drain_all_pages(k, t);
            co_await s.flush(t);
            done = sim.now();
        };
        const Time start = sim.now();
        const std::uint64_t ipis0 = s.cpu(2).ipisReceived;
        Task& a = s.spawn("a", 0, false, nullptr, 10);
        Task& b = s.spawn("b", 3, false, nullptr, 11);
        s.start(a, drainer(a, firstDone));
        s.start(b, drainer(b, secondDone));
        QVERIFY(sim.run());
        const bool drains = drain != "none";
        for (std::size_t c = 0; c < pcp.size(); ++c)
            QCOMPARE(pcp[c].empty(), drains || c >= 3); // CPUs 0-2 had pages
        QCOMPARE(k.node(0).zone.nrFree(), drains ? free0 : free0 - parked);
        QCOMPARE(s.cpu(2).ipisReceived - ipis0, ipisToCpu2);
        // Both switched in after one context switch; the one that skips is done then, and so is a drain of nothing.
        const Time switchedIn = start + ns(box.m.cost.contextSwitchNs);
        QCOMPARE(secondDone == switchedIn, secondSkips);
        QCOMPARE(firstDone > switchedIn, drains);
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
