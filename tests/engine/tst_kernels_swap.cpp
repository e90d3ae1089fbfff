// The era rules of the swap, reclaim, LRU and page-cache paths (mm/toggles.h: kernelRules): each moves the metric
// its changelog names, in the direction it states, on a small run of a built-in scenario with the toggle off and on.
#include "mm/toggles.h"
#include "scenario/kernels.h"
#include "ruletest.h"
#include "testutil.h"

#include <QtTest>

#include <cmath>

using namespace mms;
using namespace mms::test;

class TestKernelsSwap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // 56e49d218890 (2.6.31): "evict use-once pages first" -- the active file list is aged only while it outgrows
    // the inactive one, so the pages readtwice reads a second time stay active and fewer are demoted.
    void evictUseOnceDemotesLess()
    {
        const double scale = 0.02;
        const Sets base = { { "kernel", "2.6.31" } };
        ResultSet before = runWith("lru-file-readtwice", "mainline", with(base, "lru.evict_use_once", "false"), scale);
        ResultSet after = runWith("lru-file-readtwice", "mainline", with(base, "lru.evict_use_once", "true"), scale);
        const double a = metric(before, "mainline", "vm.pgdeactivate"), b = metric(after, "mainline", "vm.pgdeactivate");
        QVERIFY2(a > 0 && b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // a528910e12ec (3.15): "thrash detection-based file cache sizing" -- a page-cache page read again soon after
    // its eviction (a refault within the active list's size) starts on the active list instead of the inactive one.
    void workingsetActivatesRefaults()
    {
        const double scale = 0.02;
        const Sets base = { { "kernel", "3.15" } };
        ResultSet off = runWith("lru-file-readtwice", "mainline", with(base, "lru.workingset", "false"), scale);
        ResultSet on = runWith("lru-file-readtwice", "mainline", with(base, "lru.workingset", "true"), scale);
        QCOMPARE(metric(off, "mainline", "vm.workingset_refault"), 0.0);
        const double refaults = metric(on, "mainline", "vm.workingset_refault"),
                     activated = metric(on, "mainline", "vm.workingset_activate");
        QVERIFY2(refaults > 0 && activated > 0, qPrintable(num(refaults) + " refaults, " + num(activated) + " activated"));
        const double a = metric(off, "mainline", "vm.pgactivate") + metric(off, "mainline", "vm.workingset_activate");
        const double b = metric(on, "mainline", "vm.pgactivate") + activated;
        QVERIFY2(b > a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 4b3ef9daa4fc (4.11): "split swap cache into 64MB trunks" to reduce the swap cache's lock contention: twelve
    // processes swapping out and in at once find the tree_lock of one of eight trunks held less often than the
    // device's one lock, per acquisition (how much the two runs swap follows their timing). How long a contended
    // acquisition waits is not what the split changes: with eight locks the contentions left are those of the
    // trunk a batch of slots works on.
    void swapCacheTrunksCutTreeLockWaits()
    {
        const double scale = 0.05;
        const Sets base = { { "kernel", "4.11" }, { "workload.fork_children", "false" } };
        ResultSet one = runWith("madv-free-swapin", "madvfree", with(base, "swap.cache_trunks", "false"), scale);
        ResultSet trunks = runWith("madv-free-swapin", "madvfree", with(base, "swap.cache_trunks", "true"), scale);
        const std::string tree = "swapper_spaces[0].tree_lock";
        const LockSummary a = lockOf(one, "madvfree", tree), b = lockOf(trunks, "madvfree", tree);
        QVERIFY2(a.acquisitions > 0 && b.acquisitions > 0, "no swap cache traffic");
        const double perA = static_cast<double>(a.contentions) / static_cast<double>(a.acquisitions),
                     perB = static_cast<double>(b.contentions) / static_cast<double>(b.acquisitions);
        QVERIFY2(perB < 0.95 * perA, qPrintable(num(perA) + " -> " + num(perB) + " contentions an acquisition"));
    }

    // 371a096edf43 (4.9): "don't use radix tree writeback tags for pages in swap cache" -- "The improvement comes
    // from the reduced contention on the swap cache radix tree lock": each page written out takes the swap cache's
    // tree_lock twice less where its writeback starts and ends in the reclaimer (zram's and pmem's rw_page), once
    // less on a queued device, whose completion clears the tags in its interrupt (charged, not waited for there);
    // the insertion and the deletion stay. Less of the reclaimers' time a page goes to waiting for it.
    void swapWritebackTagsLeaveTheTreeLock_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<double>("fewer");
        QTest::addRow("zram") << "zram" << 2.0;
        QTest::addRow("pmem-ram") << "pmem-ram" << 2.0;
        QTest::addRow("ssd-2015") << "ssd-2015" << 1.0;
    }
    void swapWritebackTagsLeaveTheTreeLock()
    {
        QFETCH(QString, device);
        QFETCH(double, fewer);
        const double scale = 0.05;
        const std::string swap = "[{\"size\": \"8GiB\", \"device\": \"" + device.toStdString() + "\"}]";
        const Sets base = { { "kernel", "4.9" }, { "machine.swap", swap } };
        ResultSet tags = runWith("madv-free-swapin", "dontneed", with(base, "swap.writeback_tags", "true"), scale);
        ResultSet none = runWith("madv-free-swapin", "dontneed", with(base, "swap.writeback_tags", "false"), scale);
        const std::string tree = "swapper_spaces[0].tree_lock";
        auto perPage = [&](const ResultSet& rs, auto field) {
            return static_cast<double>(lockOf(rs, "dontneed", tree).*field) / metric(rs, "dontneed", "vm.pswpout");
        };
        const double a = perPage(tags, &LockSummary::acquisitions), b = perPage(none, &LockSummary::acquisitions);
        QVERIFY2(metric(none, "dontneed", "vm.pswpout") > 0 && std::abs(a - b - fewer) < 0.1,
            qPrintable(num(a) + " -> " + num(b) + " tree_lock acquisitions per page written out"));
        const double wa = perPage(tags, &LockSummary::waitTotal), wb = perPage(none, &LockSummary::waitTotal);
        QVERIFY2(wb < wa, qPrintable(num(wa) + " -> " + num(wb) + " ps of tree_lock wait per page written out"));
    }

    // ec560175c0b6 (4.14): "VMA based swap readahead" -- when processes swap out at the same time their slots
    // interleave, so reading ahead the slots around a faulting one brings in other processes' pages; reading the
    // entries of the faulting process's neighbouring PTEs brings in pages it will fault on next: fewer of its faults
    // on swap entries need a read. Per such fault (a major fault, or a swap-cache hit on a page readahead read:
    // swap_ra_hit), not in total: how much the run swaps follows its timing.
    void vmaReadaheadFollowsThePtes()
    {
        const double scale = 0.05;
        const Sets base = { { "kernel", "4.14" }, { "workload.fork_children", "false" } };
        ResultSet slots = runWith("madv-free-swapin", "madvfree", with(base, "swap.readahead", "cluster"), scale);
        ResultSet vma = runWith("madv-free-swapin", "madvfree", with(base, "swap.readahead", "vma"), scale);
        auto majorShare = [](const ResultSet& rs) {
            const double major = metric(rs, "madvfree", "vm.pgmajfault");
            return major / (major + metric(rs, "madvfree", "vm.swap_ra_hit"));
        };
        const double a = majorShare(slots), b = majorShare(vma);
        QVERIFY2(metric(slots, "madvfree", "vm.swap_ra_hit") > 0 && b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 0bcac06f27d7 (4.15): "skip swapcache for swapin of synchronous device" -- a zram swap-in reads the page in the
    // fault without the swap cache: no tree_lock round trips for it, and less system time per page swapped in.
    // (The slot goes with the fault, so a page that is rewritten and reclaimed again is written out again: this
    // workload swaps more in all, which the changelog does not claim otherwise.) MADV_FREE's pages stay on the
    // anonymous lists (madvise.lazyfree_lru=anon, as before 4.12), so that what reclaim writes out comes back and
    // swap-ins carry the system time: on the file list most lazily freed pages are discarded instead, and the
    // swap-ins are too small a share of it for a figure per swap-in.
    void skipSwapcacheForZram()
    {
        const double scale = 0.05;
        const Sets base = { { "kernel", "4.15" }, { "machine.swap", R"([{"size": "8GiB", "device": "zram"}])" },
            { "madvise.lazyfree_lru", "anon" } };
        ResultSet cached = runWith("madv-free-swapin", "madvfree", with(base, "swap.skip_swapcache", "false"), scale);
        ResultSet direct = runWith("madv-free-swapin", "madvfree", with(base, "swap.skip_swapcache", "true"), scale);
        QCOMPARE(metric(cached, "madvfree", "vm.swapin_skip_swapcache"), 0.0);
        QVERIFY(metric(direct, "madvfree", "vm.swapin_skip_swapcache") > 0);
        const std::string tree = "swapper_spaces[0].tree_lock";
        // Per page written out (each comes back once here): the swap-out's own round trips stay, the swap-in's go.
        auto perPage = [&](const ResultSet& rs) {
            return static_cast<double>(lockOf(rs, "madvfree", tree).acquisitions) / metric(rs, "madvfree", "vm.pswpout");
        };
        const double ta = perPage(cached), tb = perPage(direct);
        QVERIFY2(tb < ta, qPrintable(num(ta) + " -> " + num(tb) + " tree_lock acquisitions per page swapped out"));
        const double sa = metric(cached, "madvfree", "sys_s") / metric(cached, "madvfree", "vm.pswpin"),
                     sb = metric(direct, "madvfree", "sys_s") / metric(direct, "madvfree", "vm.pswpin");
        QVERIFY2(sb < sa, qPrintable(num(sa * 1e6) + " -> " + num(sb * 1e6) + " us of system time per swap-in"));
    }

    // f7ad2a6cb9f7 (4.12): "mm: move MADV_FREE pages into LRU_INACTIVE_FILE list", so that reclaim, which takes the
    // file lists first, drops the lazily freed pages before it swaps anything out: with the post's patch in (no
    // stale swap entries), the MADV_FREE run discards more pages and writes fewer to swap; a page written since
    // MADV_FREE goes back to the anonymous lists instead of being discarded (pgactivate), and nothing is lost:
    // each loop's memset still faults in exactly the pages reclaim took (the invariants are checked after each run).
    void lazyfreePagesGoToTheFileList()
    {
        const double scale = 0.05;
        const Sets base = { { "kernel", "4.12" } };
        const std::string v = "madvfree-patched";
        ResultSet anon = runWith("madv-free-swapin", v, with(base, "madvise.lazyfree_lru", "anon"), scale);
        ResultSet file = runWith("madv-free-swapin", v, with(base, "madvise.lazyfree_lru", "file"), scale);
        const double outA = metric(anon, v, "vm.pswpout"), outF = metric(file, v, "vm.pswpout");
        const double freedA = metric(anon, v, "vm.pglazyfreed"), freedF = metric(file, v, "vm.pglazyfreed");
        QVERIFY2(outF < 0.9 * outA, qPrintable(num(outA) + " -> " + num(outF) + " pages swapped out"));
        QVERIFY2(freedF > freedA, qPrintable(num(freedA) + " -> " + num(freedF) + " lazily freed pages discarded"));
        QVERIFY(metric(file, v, "vm.pgactivate") > 0); // redirtied pages back to the anonymous active list
        QVERIFY(!file.results.front().metrics.count("vm.oom_kill"));
    }
};

QTEST_GUILESS_MAIN(TestKernelsSwap)
#include "tst_kernels_swap.moc"
