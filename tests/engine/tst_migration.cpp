// Seed 004 (migration-unmapped): the buddy allocator's closed-form cases, compaction and migration keeping every
// page accounted for, the patch's mechanism (no i_mmap round-trips for unmapped pages), the i_mmap.lock toggle,
// the post's mmtests row layout, and byte-identical results at any thread count.
#include "mm/kernel.h"
#include "run/format.h"
#include "run/runner.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {
using test::run;
using test::withoutHost;

const RunResult& result(const ResultSet& rs, const std::string& variant)
{
    for (auto& r : rs.results)
        if (r.variant == variant)
            return r;
    throw std::runtime_error("no variant " + variant);
}

const LockSummary* lock(const RunResult& r, const std::string& name)
{
    for (auto& l : r.locks)
        if (l.name == name)
            return &l;
    return nullptr;
}

// Disk tests of 1 MiB keep memory under pressure, so reclaim runs and fork's high-order allocations compact.
Scenario small(int users)
{
    Scenario sc = loadScenario("migration-unmapped");
    sc.set("users", std::to_string(users));
    sc.set("io_size", "\"1MiB\"");
    // Memory full of page cache (2 % free): reclaim runs, and fork's order-1 stacks and order-3 slabs compact
    // (at this scale the heap is under 2 MiB: no THP).
    sc.set("free_fraction", "0.02");
    sc.set("runtime_s", "0.2");
    sc.set("machine.memory", "\"2GiB\"");
    sc.set("shared_file_size", "\"64MiB\"");
    // A child per 4 tests (the scenario's re-aim children live for the whole workfile): forks are what the fork and
    // exec assertions below count.
    sc.set("tests_per_child", "4");
    sc.set("heap_every", "4");
    return sc;
}
} // namespace

class TestMigration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void buddySplitsAndMerges()
    {
        Simulator sim;
        MachineSpec m = *machinePreset("generic-12cpu-2015");
        m.memoryBytes = 64ull << 20; // 16384 pages: 16 blocks of order 10
        Sched s(sim, m);
        Kernel k(s, Toggles {});
        QCOMPARE(k.zone.nrFree(), std::uint64_t(16384));
        QCOMPARE(k.zone.nrFreeArea(MAX_ORDER - 1), std::uint64_t(16));
        // An order-0 page splits one order-10 block into one free block of each order 0..9.
        Pfn p = k.zone.rmqueueSmallest(k.pages, 0);
        QCOMPARE(p, Pfn(0));
        for (int o = 0; o < MAX_ORDER - 1; ++o)
            QCOMPARE(k.zone.nrFreeArea(o), std::uint64_t(1));
        QCOMPARE(k.zone.nrFreeArea(MAX_ORDER - 1), std::uint64_t(15));
        Pfn q = k.zone.rmqueueSmallest(k.pages, 3);
        QCOMPARE(q % 8, Pfn(0));
        QVERIFY(k.zone.check(k.pages).empty());
        // Freeing both merges everything back into order-10 blocks.
        k.zone.freeOnePage(k.pages, q, 3);
        k.zone.freeOnePage(k.pages, p, 0);
        QCOMPARE(k.zone.nrFreeArea(MAX_ORDER - 1), std::uint64_t(16));
        QCOMPARE(k.zone.nrFree(), std::uint64_t(16384));
        QVERIFY2(k.checkInvariants().empty(), k.checkInvariants().c_str());
        // The watermark check for order 3 fails when only order-0 blocks are free.
        QVERIFY(zone_watermark_ok(k, 3, 16));
    }

    void buddyCheckCatchesADoubleFree()
    {
        Simulator sim;
        MachineSpec m = *machinePreset("generic-12cpu-2015");
        m.memoryBytes = 64ull << 20;
        Sched s(sim, m);
        Kernel k(s, Toggles {});
        QVERIFY(k.zone.check(k.pages).empty());
        // The free lists live in the pages themselves (LRU links, order in the head's index): a page inside a
        // free block that claims to be a block head is what freeing it a second time would leave behind.
        k.pages.setIndex(1, 0);
        QVERIFY(!k.zone.check(k.pages).empty());
        k.pages.setIndex(1, Zone::kNotBuddyHead);
        QVERIFY(k.zone.check(k.pages).empty());
        QCOMPARE(Zone::freeBlockOrder(k.pages, 0), MAX_ORDER - 1);
        QCOMPARE(Zone::freeBlockOrder(k.pages, 1), -1);
    }

    void thpFaultsCompact()
    {
        // Full-size heaps (2 MiB: one THP each) need scale 1: few users, a short run, 1 GiB with a quarter free
        // in scattered pages, so no order-9 block is free and every THP fault compacts. Two users: with more, the
        // concurrent async compactors meet on zone->lock and give up (compact_checklock_irqsave), or take each
        // other's blocks, and no THP fault succeeds in so short a run.
        Scenario sc = loadScenario("migration-unmapped");
        sc.set("users", "2");
        sc.set("machine.memory", "\"1GiB\"");
        sc.set("runtime_s", "0.004");
        sc.set("free_fraction", "0.25");
        ResultSet rs = run(sc, 1.0, 2);
        for (const char* v : { "baseline", "skip-unmapped" }) {
            const RunResult& r = result(rs, v);
            QVERIFY2(r.metrics.at("thp_fault_alloc_per_fork") > 0, v);
            QVERIFY2(r.metrics.at("migrated_per_fork") > 100, v); // a pageblock's worth, most of it page cache
        }
        // Without the patch each migrated page costs two i_mmap round-trips; with it, none (nothing maps them).
        const LockSummary* mb = lock(result(rs, "baseline"), "mapping->i_mmap_mutex");
        const LockSummary* ms = lock(result(rs, "skip-unmapped"), "mapping->i_mmap_mutex");
        QVERIFY(mb && ms);
        QVERIFY2(mb->acquisitions > 10 * ms->acquisitions,
            qPrintable(QString::number(mb->acquisitions) + " vs " + QString::number(ms->acquisitions)));
    }

    void compactionMigratesAndLosesNoPage()
    {
        // 61 users, 512 MiB: fork's high-order allocations compact; the runner checks the invariants after each run.
        ResultSet rs = run(small(61), 0.25, 2);
        for (const char* v : { "baseline", "skip-unmapped" }) {
            const RunResult& r = result(rs, v);
            QVERIFY2(r.metrics.at("vm.compact_stall") > 0, v);
            QVERIFY2(r.metrics.at("vm.pgmigrate_success") > 0, v);
            QVERIFY2(r.metrics.at("vm.pgsteal") > 0, v); // the page cache fills memory: reclaim runs
            QVERIFY2(r.metrics.at("tests") > 0, v);
        }
    }

    void skipUnmappedAvoidsTheRmapWalks()
    {
        ResultSet rs = run(small(61), 0.25, 2);
        const RunResult& base = result(rs, "baseline");
        const RunResult& skip = result(rs, "skip-unmapped");
        // fork (link), exec (unlink + link) and exit (unlink): 2 VMAs x 4 per shared file per forked child.
        double forkExit = 8.0 * 3;
        double b = base.metrics.at("i_mmap_acquisitions_per_fork");
        double s = skip.metrics.at("i_mmap_acquisitions_per_fork");
        // With the patch an unmapped page takes no i_mmap round-trip: only the fork/exec/exit ones remain (plus two
        // per mapped page migrated, which is rare).
        QVERIFY2(s < forkExit + 0.2, qPrintable(QString::number(s)));
        QVERIFY2(b > s, qPrintable(QString::number(b) + " vs " + QString::number(s)));
        // Without it, every migrated page of a shared file costs two.
        const LockSummary* mb = lock(base, "mapping->i_mmap_mutex");
        QVERIFY(mb != nullptr);
        QVERIFY(mb->contentions > 0);
        QVERIFY(lock(base, "mapping->i_mmap_rwsem") == nullptr); // the mutex era
    }

    void rwsemToggleTakesTheRwsem()
    {
        Scenario sc = small(61);
        sc.selectVariants({ "baseline" });
        sc.set("i_mmap.lock", "rwsem");
        ResultSet rs = run(sc, 0.1, 1);
        const RunResult& r = result(rs, "baseline");
        QVERIFY(lock(r, "mapping->i_mmap_mutex") == nullptr);
        const LockSummary* l = lock(r, "mapping->i_mmap_rwsem");
        QVERIFY(l != nullptr && l->acquisitions > 0);
    }

    void reaimChildrenLiveForTheWorkfile()
    {
        // The scenario's re-aim children run the whole workfile (580 tests) between fork and exit, and cycle their
        // work buffer every heap_every tests; with a child per 4 tests, the same run forks about 4x as often.
        auto testsPerFork = [](const RunResult& r) {
            return r.metrics.at("i_mmap_acquisitions_per_fork") / r.metrics.at("i_mmap_acquisitions_per_test");
        };
        Scenario shortLived = small(61);
        shortLived.selectVariants({ "skip-unmapped" });
        Scenario reaim = shortLived;
        reaim.set("tests_per_child", "580");
        ResultSet rsShort = run(shortLived, 0.25, 1);
        ResultSet rsReaim = run(reaim, 0.25, 1);
        double a = testsPerFork(result(rsShort, "skip-unmapped"));
        const RunResult& r = result(rsReaim, "skip-unmapped");
        double b = testsPerFork(r);
        QVERIFY2(a > 3.0 && a < 5.0, qPrintable(QString::number(a)));
        QVERIFY2(b > 2 * a, qPrintable(QString::number(b) + " vs " + QString::number(a)));
        // Every child still forks, execs and exits through the shared files' i_mmap trees: 8 acquisitions per file.
        QVERIFY2(std::fabs(r.metrics.at("i_mmap_acquisitions_per_fork") - 8.0 * 3) < 2.0,
            qPrintable(QString::number(r.metrics.at("i_mmap_acquisitions_per_fork"))));
    }

    void mmtestsRowsLikeThePost()
    {
        Scenario sc = loadScenario("migration-unmapped");
        sc.set("users", "121");
        sc.setReps(1);
        ResultSet rs;
        for (const char* v : { "baseline", "skip-unmapped" }) {
            RunResult r;
            r.variant = v;
            r.point = OJson { { "users", 121 } };
            r.metrics["jobs_per_min"] = std::string(v) == "baseline" ? 22335.16 : 38037.28;
            rs.results.push_back(r);
        }
        std::string out = formatResults(rs, sc, Format::Mmtests);
        QVERIFY2(out.find("\nnew_fserver-121    22335.16 (  0.00%)    38037.28 ( 70.30%)\n") != std::string::npos,
            out.c_str());
    }

    void deterministicAtAnyThreadCount()
    {
        Scenario sc = small(121);
        ResultSet one = run(sc, 0.1, 1);
        ResultSet two = run(sc, 0.1, 2);
        QCOMPARE(withoutHost(one), withoutHost(two));
    }
};

QTEST_GUILESS_MAIN(TestMigration)
#include "tst_migration.moc"
