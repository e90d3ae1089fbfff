// The filesystem under the page cache (fs/fs.h): sync(2) writes dirty pages back and waits for them, a journal commit
// blocks the handles that start while it waits for the running ones, unlink and a punched hole free page cache, the
// metadata lives in the block device's own mapping, and direct compaction for an order-2 allocation migrates an
// unmapped metadata page -- taking that mapping's i_mmap lock twice before 2ebba6b7e1d9 and not at all after.
#include "kernel/syscalls.h" // first: moc cannot parse <concepts>, which sim/co.h reached first would bring in
#include "fs/fs.h"
#include "kernel/kernel.h"
#include "mm/page_alloc.h"
#include "mm/swap.h"
#include "run/runner.h"
#include "testutil.h"

#include <QtTest>

#include <algorithm>

using namespace mms;

namespace {

std::uint64_t dirtyPages(Kernel& k, AddressSpace& m)
{
    std::uint64_t n = 0;
    for (Pfn p : m.pages)
        n += p != kNoPage && k.pages.test(p, PG_dirty);
    return n;
}

} // namespace

class TestFs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A write leaves its pages dirty and its inode on the dirty list; sync(2) returns only once the flusher has
    // written every one of them to the ramdisk (and the journal has committed the write's metadata).
    void syncWritesBackDirtyPagesAndWaits()
    {
        test::Box b(256ull << 20);
        Kernel& k = b.k;
        sys::File f = sys::create_sparse(k, 1024);
        constexpr std::uint64_t kPages = 64;
        std::uint64_t dirtyAfterWrite = 0, dirtyAfterSync = 0;
        Time syncStart = 0, syncEnd = 0;
        Task& t = sys::spawn_process(k, "writer", 0, 1);
        sys::start(k, t, [](Kernel& k, Task& t, sys::File f, std::uint64_t& dirtyAfterWrite,
                             std::uint64_t& dirtyAfterSync, Time& syncStart, Time& syncEnd) -> Co<> {
            co_await sys::pwrite(k, t, f, 0, kPages, 16);
            dirtyAfterWrite = dirtyPages(k, *f.mapping());
            co_await sys::flush(k, t);
            syncStart = sys::now(k);
            co_await sys::sync(k, t);
            co_await sys::flush(k, t);
            syncEnd = sys::now(k);
            dirtyAfterSync = dirtyPages(k, *f.mapping());
        }(k, t, f, dirtyAfterWrite, dirtyAfterSync, syncStart, syncEnd));
        QVERIFY(b.sim.run());
        QCOMPARE(dirtyAfterWrite, kPages);
        QCOMPARE(dirtyAfterSync, std::uint64_t(0));
        const Vfs& fs = *k.vfsIfMounted();
        QCOMPARE(fs.wb.pagesWritten, kPages);
        QVERIFY(fs.wb.works >= 2); // wakeup_flusher_threads' and sync_inodes_sb's
        QCOMPARE(fs.journal.commits, std::uint64_t(1));
        QVERIFY(fs.journal.blocksLogged >= 1);
        // The caller slept while the flusher copied the pages: at least their copies' time.
        QVERIFY(fs.syncWait > 0);
        QVERIFY(syncEnd - syncStart >= ns(kPages * k.cost.copyPageNs * 0.5));
        // The metadata the commit journaled went home with the block device's writeback: nothing left dirty there.
        QCOMPARE(dirtyPages(k, *fs.bdev), std::uint64_t(0));
        QVERIFY(fs.wb.metadataWritten >= 3); // the allocation's bitmap, group descriptor and inode
        QCOMPARE(k.checkInvariants(), std::string());
    }

    // sync(2) with nothing dirty writes nothing, commits nothing, and its walk of the inodes is under the global
    // inode_sb_list_lock.
    void syncOfACleanFilesystem()
    {
        test::Box b(64ull << 20);
        Kernel& k = b.k;
        sys::File f = sys::create_sparse(k, 64);
        sys::fill_page_cache(k, { f }, 16, 0.5, true, 1);
        Task& t = sys::spawn_process(k, "sync", 0, 1);
        sys::start(k, t, [](Kernel& k, Task& t) -> Co<> { co_await sys::sync(k, t); }(k, t));
        QVERIFY(b.sim.run());
        const Vfs& fs = *k.vfsIfMounted();
        QCOMPARE(fs.wb.pagesWritten, std::uint64_t(0));
        QCOMPARE(fs.journal.commits, std::uint64_t(0));
        QVERIFY(fs.inode_sb_list_lock.stat().acquisitions >= 1);
    }

    // A handle that starts while the commit waits (T_LOCKED) for a running handle to stop sleeps until the commit
    // lets handles in again, and joins the next transaction.
    void journalCommitBlocksHandles()
    {
        test::Box b(64ull << 20);
        Kernel& k = b.k;
        Vfs& fs = k.vfs();
        struct Seen {
            Time secondStarted = 0, firstStopped = 0, committed = 0;
            std::uint64_t secondTid = 0, firstTid = 0;
        } seen;
        Task& h1 = sys::spawn_process(k, "h1", 0, 1);
        Task& c = sys::spawn_process(k, "sync", 1, 2);
        Task& h2 = sys::spawn_process(k, "h2", 2, 3);
        sys::start(k, h1, [](Kernel& k, Task& t, Vfs& fs, Seen& s) -> Co<> {
            co_await jbd2_journal_start(k, fs, t);
            co_await sb_getblk(k, fs, t, Ext4Layout::inodeBitmap(0));
            co_await jbd2_journal_dirty(k, fs, t, Ext4Layout::inodeBitmap(0));
            s.firstTid = fs.journal.running->tid;
            co_await sys::nanosleep(k, t, ms(1)); // the handle stays open for a millisecond
            co_await sys::flush(k, t);
            s.firstStopped = sys::now(k);
            jbd2_journal_stop(k, fs, t);
        }(k, h1, fs, seen));
        sys::start(k, c, [](Kernel& k, Task& t, Vfs& fs, Seen& s) -> Co<> {
            co_await sys::nanosleep(k, t, ms(0.1));
            co_await jbd2_journal_force_commit(k, fs, t);
            co_await sys::flush(k, t);
            s.committed = sys::now(k);
        }(k, c, fs, seen));
        sys::start(k, h2, [](Kernel& k, Task& t, Vfs& fs, Seen& s) -> Co<> {
            co_await sys::nanosleep(k, t, ms(0.2));
            co_await jbd2_journal_start(k, fs, t);
            co_await sys::flush(k, t);
            s.secondStarted = sys::now(k);
            s.secondTid = fs.journal.running->tid;
            jbd2_journal_stop(k, fs, t);
        }(k, h2, fs, seen));
        QVERIFY(b.sim.run());
        QVERIFY(seen.firstStopped >= ms(1));
        QVERIFY(seen.secondStarted >= seen.firstStopped); // blocked while the transaction was locked
        QVERIFY(fs.journalWait >= ms(0.7));
        QVERIFY(seen.secondTid > seen.firstTid); // it joined the next transaction
        QVERIFY(seen.committed >= seen.firstStopped);
        QCOMPARE(fs.journal.commits, std::uint64_t(1));
        QVERIFY(fs.journal.lockedTime >= ms(0.7));
    }

    // creat, link and unlink journal their metadata in the block device's mapping; the last unlink frees the inode
    // number for the next creat; a punched hole frees the file's page cache, dirty or not, and writeback then finds
    // nothing of it to write.
    void namesAndTruncateFreePageCache()
    {
        test::Box b(128ull << 20);
        Kernel& k = b.k;
        sys::File f = sys::create_sparse(k, 256);
        sys::Dir d = sys::create_dir(k);
        std::uint64_t cachedAfterWrite = 0, cachedAfterPunch = 0;
        Task& t = sys::spawn_process(k, "t", 0, 1);
        sys::start(k, t, [](Kernel& k, Task& t, sys::File f, sys::Dir d, std::uint64_t& cachedAfterWrite,
                             std::uint64_t& cachedAfterPunch) -> Co<> {
            co_await sys::creat(k, t, d);
            co_await sys::link(k, t, d);
            co_await sys::unlink(k, t, d, false);
            co_await sys::pwrite(k, t, f, 0, 32, 4);
            cachedAfterWrite = f.mapping()->nrpages;
            co_await sys::unlink(k, t, d);
            co_await sys::punch_hole(k, t, f, 0, 32);
            cachedAfterPunch = f.mapping()->nrpages;
            co_await sys::creat(k, t, d);
            co_await sys::sync(k, t);
        }(k, t, f, d, cachedAfterWrite, cachedAfterPunch));
        QVERIFY(b.sim.run());
        const Vfs& fs = *k.vfsIfMounted();
        QCOMPARE(cachedAfterWrite, std::uint64_t(32));
        QCOMPARE(cachedAfterPunch, std::uint64_t(0));
        QCOMPARE(fs.wb.pagesWritten, std::uint64_t(0));
        QVERIFY(fs.bdev->nrpages >= 5); // bitmaps, group descriptors, inode table, directory, superblock, log
        QVERIFY(fs.journal.handles >= 6);
        QVERIFY(fs.s_orphan_lock.stat().acquisitions >= 2); // ext4_orphan_add and _del of the last unlink
        // The second creat reuses the number the eviction freed: two names created, one evicted, one live.
        QCOMPARE(d.dir()->names.size(), std::size_t(1));
        QCOMPARE(k.checkInvariants(), std::string());
    }

    // An order-2 allocation finds no free block of that order: direct compaction migrates the unmapped metadata page
    // that keeps its block in use. Before the patch migration takes the block device's i_mmap mutex twice for it
    // (try_to_unmap, remove_migration_ptes), with migrate.skip_unmapped not at all.
    void orderTwoCompactionMigratesMetadataPage_data()
    {
        QTest::addColumn<bool>("skip");
        QTest::addColumn<std::uint64_t>("acquisitions");
        QTest::addRow("baseline") << false << std::uint64_t(2);
        QTest::addRow("skip-unmapped") << true << std::uint64_t(0);
    }
    void orderTwoCompactionMigratesMetadataPage()
    {
        QFETCH(bool, skip);
        QFETCH(std::uint64_t, acquisitions);
        test::Box b(64ull << 20);
        Kernel& k = b.k;
        k.tg.skipUnmapped = skip;
        Vfs& fs = k.vfs();
        const std::uint64_t block = Ext4Layout::inodeBitmap(0);
        struct Seen {
            Pfn before = kNoPage, after = kNoPage, got = kNoPage;
            std::uint64_t acq = 0, migrated = 0;
        } seen;
        Task& t = sys::spawn_process(k, "t", 0, 1);
        sys::start(k, t, [](Kernel& k, Task& t, Vfs& fs, std::uint64_t block, Seen& s) -> Co<> {
            Pfn& before = s.before;
            // A journaled (dirty) metadata block: kswapd, woken by the allocation, leaves it to writeback.
            co_await jbd2_journal_start(k, fs, t);
            before = co_await sb_getblk(k, fs, t, block);
            co_await jbd2_journal_dirty(k, fs, t, block);
            jbd2_journal_stop(k, fs, t);
            co_await lru_add_drain(k, t);
            co_await drain_local_pages(k, t);
            // Every free page taken; given back: one page in four (order 0), the three neighbours of the metadata page
            // in its order-2 block, some order-1 pairs, and just too few pages in blocks of order 2 and up for an
            // order-2 allocation to pass even the min watermark (__zone_watermark_ok: above min / 2 in blocks of
            // order 1 and up, above min / 4 in blocks of order 2 and up) -- one more block passes it, which is what
            // compaction has to make.
            Zone& z = k.node(0).zone;
            std::vector<Pfn> held;
            for (Pfn p; (p = z.rmqueueSmallest(k.pages, 0)) != kNoPage;)
                held.push_back(p);
            std::sort(held.begin(), held.end());
            const std::uint64_t order2Pages = 4 * (((z.watermarkMin >> 2) + 3) / 4);
            const std::uint64_t order1Pairs = (z.watermarkMin >> 1) / 2 + 1;
            const Pfn blocksFrom = z.start() + (z.end() - z.start()) / 2;
            const Pfn pairsFrom = blocksFrom + 4 * order2Pages;
            std::vector<Pfn> kept;
            for (Pfn p : held) {
                const bool order2 = p >= blocksFrom && p < blocksFrom + order2Pages;
                const bool order1 = p >= pairsFrom && p < pairsFrom + 4 * order1Pairs && p % 4 == 1;
                if (p % 4 == 0 || p / 4 == before / 4 || order2 || order1)
                    z.freeOnePage(k.pages, p, 0);
                else
                    kept.push_back(p);
            }
            const std::uint64_t acq0 = fs.bdev->i_mmap_mutex.stat().acquisitions;
            const std::uint64_t mig0 = k.vm.get(Vm::PgMigrateSuccess);
            s.got = co_await alloc_pages(k, t, 2);
            s.acq = fs.bdev->i_mmap_mutex.stat().acquisitions - acq0;
            s.migrated = k.vm.get(Vm::PgMigrateSuccess) - mig0;
            s.after = fs.bdev->lookup(block);
            if (s.got != kNoPage)
                co_await free_pages(k, t, s.got, 2);
            for (Pfn p : kept)
                z.freeOnePage(k.pages, p, 0);
        }(k, t, fs, block, seen));
        QVERIFY(b.sim.run());
        QVERIFY(seen.got != kNoPage);
        QCOMPARE(seen.migrated, std::uint64_t(1));
        QVERIFY(seen.after != kNoPage && seen.after != seen.before);
        QCOMPARE(seen.got / 4, seen.before / 4); // the block the migration emptied
        QCOMPARE(seen.acq, acquisitions);
        QVERIFY(k.vm.get(Vm::CompactStall) >= 1);
        QVERIFY(k.compactStallTime > 0);
        QCOMPARE(k.checkInvariants(), std::string());
    }

    // Seed 004 at a small scale: the disk tests' syncs go through the flusher and the journal, and the results say
    // where a job's time went.
    void fserverBreakdown()
    {
        Scenario sc = loadScenario("migration-unmapped");
        sc.set("users", "8");
        sc.selectVariants({ "baseline" });
        ResultSet rs = test::run(sc, 0.02);
        QCOMPARE(rs.results.size(), std::size_t(1));
        const auto& m = rs.results[0].metrics;
        QVERIFY(m.at("jobs_per_min") > 0);
        QVERIFY(m.at("sync_ms_per_test") > 0);
        QVERIFY(m.at("user_ms_per_test") > 0);
        QVERIFY(m.at("journal_commits_per_test") > 0);
        QVERIFY(m.at("writeback_pages_per_test") > 0);
        QVERIFY(m.at("sync_ms_per_test") >= m.at("sync_wait_ms_per_test"));
    }
};

QTEST_GUILESS_MAIN(TestFs)
#include "tst_fs.moc"
