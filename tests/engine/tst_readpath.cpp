// The host-side shortcuts of the buffered read path (dd-sparse-read's speed work) against the step-by-step code
// they stand for: Zone::rmqueueBulk() against rmqueueSmallest(0) one page at a time, and a spinlock taken inside
// SpinLock::Acquire::await_ready() (the attempt and the grant as the next two events) against the same run with
// every event through the queue. Each must leave exactly the same state: every page word, every time, every count.
#include "kernel/kernel.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {

using test::Box;

// Every word the buddy allocator keeps in the page array (flags, order or kNotBuddyHead, both links, the mapcount)
// and its counters, as one string to compare.
std::string zoneState(const Kernel& k)
{
    std::string out;
    const PageArray& pg = k.pages;
    for (Pfn p = 0; p < pg.size() + PageArray::kListHeads; ++p) {
        if (p < pg.size())
            out += std::to_string(pg.flags(p)) + "," + std::to_string(pg.index(p)) + ","
                + std::to_string(pg.mapcount(p)) + ",";
        out += std::to_string(pg.next(p)) + "," + std::to_string(pg.prev(p)) + ";";
    }
    out += "free " + std::to_string(k.node(0).zone.nrFree());
    for (int o = 0; o < MAX_ORDER; ++o)
        out += " " + std::to_string(k.node(0).zone.nrFreeArea(o));
    return out;
}

// The same fragmented free lists in `k` every time: blocks of order 0..3 taken, every third one given back.
void fragment(Kernel& k, Rng& rng)
{
    std::vector<std::pair<Pfn, int>> held;
    for (int i = 0; i < 200; ++i) {
        int order = static_cast<int>(rng.below(4));
        Pfn p = k.node(0).zone.rmqueueSmallest(k.pages, order);
        if (p == kNoPage)
            break;
        k.pages.setMapcount(p, static_cast<std::uint8_t>(rng.below(3))); // links must keep the mapcount byte
        held.emplace_back(p, order);
    }
    for (std::size_t i = 0; i < held.size(); i += 3)
        k.node(0).zone.freeOnePage(k.pages, held[i].first, held[i].second);
}

// A task that takes `lock` `rounds` times, each after some CPU time of its own and holding it for some more: the
// lock's every attempt comes with CPU time pending, which is what await_ready() may now take inline.
// `tryInline`: first SpinLock::tryLockInline() (readahead's i_pages), awaiting the lock only when it says no.
Co<> locker(Sched& s, Task& t, SpinLock& lock, int rounds, std::vector<std::pair<Time, std::uint32_t>>& log,
    bool tryInline = false)
{
    const Time rmw = ns(s.cost().lockedRmwNs);
    for (int i = 0; i < rounds; ++i) {
        Sched::burn(t, 20.0 + static_cast<double>(t.rng.below(400)));
        if (!tryInline || !lock.tryLockInline(s, t, rmw))
            co_await spin_lock(s, t, lock);
        log.emplace_back(s.sim().now(), t.id);
        Sched::burn(t, 10.0 + static_cast<double>(t.rng.below(60)));
        spin_unlock(s, t, lock);
    }
}

// The lock statistics of two runs that must agree event for event.
void compareLockStats(const LockStat& a, const LockStat& b)
{
    QCOMPARE(a.acquisitions, b.acquisitions);
    QCOMPARE(a.contentions, b.contentions);
    QCOMPARE(a.acqBounces, b.acqBounces);
    QCOMPARE(a.holdTotal, b.holdTotal);
    QCOMPARE(a.holdMin, b.holdMin);
    QCOMPARE(a.holdMax, b.holdMax);
    QCOMPARE(a.waitTotal, b.waitTotal);
}

} // namespace

class TestReadPath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rmqueueBulkLeavesWhatSingleAllocationsLeave()
    {
        // Two identical machines with the same fragmented free lists; one refills "per-CPU lists" with rmqueueBulk,
        // the other with rmqueueSmallest(0) page by page, batch after batch until memory runs out.
        Box a(8ull << 20), b(8ull << 20); // 2048 pages
        Rng ra(7), rb(7);
        fragment(a.k, ra);
        fragment(b.k, rb);
        QCOMPARE(zoneState(a.k), zoneState(b.k));
        Rng sizes(11);
        std::size_t total = 0;
        for (int round = 0; round < 400; ++round) {
            std::size_t n = 1 + sizes.below(PCP_BATCH);
            Pfn got[PCP_BATCH];
            // Every other round the pages get PG_buddy (rmqueue_bulk's per-CPU list), as if set after each single.
            auto flags = static_cast<std::uint16_t>(round % 2 ? PG_buddy : 0);
            std::size_t taken = a.k.node(0).zone.rmqueueBulk(a.k.pages, n, got, flags);
            std::size_t i = 0;
            for (; i < n; ++i) {
                Pfn p = b.k.node(0).zone.rmqueueSmallest(b.k.pages, 0);
                if (p == kNoPage)
                    break;
                b.k.pages.setFlags(p, flags);
                QVERIFY(i < taken);
                QCOMPARE(got[i], p);
            }
            QCOMPARE(taken, i);
            QVERIFY2(a.k.node(0).zone.check(a.k.pages).empty(), a.k.node(0).zone.check(a.k.pages).c_str());
            QCOMPARE(zoneState(a.k), zoneState(b.k));
            total += taken;
            if (taken < n)
                break; // out of memory: both stopped at the same page
        }
        QCOMPARE(a.k.node(0).zone.nrFree(), std::uint64_t(0));
        QVERIFY(total > 1000);
    }

    void spinlockTakenInlineMatchesTheQueue()
    {
        // Three tasks on two CPUs (two share one) contend for one lock. With the simulator's inline path off, every
        // attempt and grant is an event through the queue; on, uncontended attempts are taken in await_ready().
        // Grant times, order, event count and the lock's statistics must not change.
        auto runOnce = [](bool inlineOn, std::uint64_t& events, LockStat& stat, Time& end, bool tryInline = false) {
            Box box(64ull << 20);
            box.sim.setInline(inlineOn);
            SpinLock lock("test lock");
            std::vector<std::pair<Time, std::uint32_t>> log;
            for (int i = 0; i < 3; ++i) {
                Task& t = box.s.spawn(
                    "locker" + std::to_string(i), i % 2, false, nullptr, 100 + static_cast<std::uint64_t>(i));
                box.s.start(t, locker(box.s, t, lock, 2000, log, tryInline));
            }
            box.sim.run();
            events = box.sim.eventsProcessed();
            stat = lock.stat();
            end = box.sim.now();
            return log;
        };
        std::uint64_t evOn = 0, evOff = 0;
        LockStat on, off;
        Time endOn = 0, endOff = 0;
        auto logOn = runOnce(true, evOn, on, endOn);
        auto logOff = runOnce(false, evOff, off, endOff);
        QCOMPARE(logOn.size(), std::size_t(3 * 2000));
        QVERIFY(logOn == logOff);
        QCOMPARE(evOn, evOff);
        QCOMPARE(endOn, endOff);
        compareLockStats(on, off);
        QVERIFY(on.contentions > 0); // the contended path was exercised too
        QVERIFY(on.contentions < on.acquisitions); // ... and the uncontended one

        // SpinLock::tryLockInline() first (inline when the line is on this CPU, else await_ready()): the same again.
        std::uint64_t evTry = 0;
        LockStat tried;
        Time endTry = 0;
        auto logTry = runOnce(true, evTry, tried, endTry, true);
        QVERIFY(logTry == logOff);
        QCOMPARE(evTry, evOff);
        QCOMPARE(endTry, endOff);
        compareLockStats(tried, off);
    }
};

QTEST_GUILESS_MAIN(TestReadPath)
#include "tst_readpath.moc"
