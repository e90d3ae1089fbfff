// The era rules (mm/toggles.h: kernelRules): the table is consistent (releases in order, each toggle's rules
// chained, every value one the toggle takes), forKernel() follows it, and each rule added with the survey moves the
// metric its changelog names, in the direction it states, on a small run of a built-in scenario.
#include "mm/toggles.h"
#include "scenario/kernels.h"
#include "ruletest.h"
#include "testutil.h"

#include <QtTest>

#include <map>
#include <regex>

using namespace mms;
using namespace mms::test;

namespace {
KernelVersion version(const char* v) { return *KernelVersion::parse(v); }
} // namespace

class TestKernels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tableIsConsistent()
    {
        const std::regex commit("[0-9a-f]{9,12}|not verified|out of tree");
        std::map<std::string, std::string> last; // toggle -> its value after the latest rule so far
        KernelVersion prev = kFirstKernel;
        int modelled = 0;
        for (const KernelRule& r : kernelRules()) {
            const QString where = QString("%1 %2").arg(r.version, r.subject);
            auto v = KernelVersion::parse(r.version);
            QVERIFY2(v, qPrintable(where));
            QVERIFY2(!(*v < prev), qPrintable(where + ": before the rule above it"));
            const bool inRange
                = !(*v < kFirstKernel) && *v < KernelVersion { kLastKernel.major, kLastKernel.minor + 1, 0 };
            QVERIFY2(inRange, qPrintable(where + ": outside 2.6.20 .. 6.12"));
            QVERIFY2(isKernelRelease(r.version), qPrintable(where));
            prev = *v;
            QVERIFY2(std::regex_match(std::string(r.commit), commit), qPrintable(where + ": commit " + r.commit));
            QVERIFY2(std::string(r.subject).size() > 8 && std::string(r.note).size() > 20, qPrintable(where));
            if (!r.modelled()) {
                QVERIFY2(std::string(r.note).rfind("not modelled", 0) == 0, qPrintable(where + ": no reason"));
                QVERIFY2(!*r.from && !*r.to, qPrintable(where));
                continue;
            }
            ++modelled;
            QVERIFY2(Toggles::isToggle(r.toggle), qPrintable(where + ": " + r.toggle));
            QVERIFY2(std::string(r.from) != r.to, qPrintable(where + ": moves nothing"));
            Toggles t;
            QVERIFY2(t.set(r.toggle, r.from).empty() && t.set(r.toggle, r.to).empty(), qPrintable(where));
            // No rule before its predecessor: each starts from the value the previous rule of its toggle left.
            if (auto it = last.find(r.toggle); it != last.end())
                QVERIFY2(it->second == r.from,
                    qPrintable(where + ": starts at " + r.from + ", the rule before left " + it->second.c_str()));
            last[r.toggle] = r.to;
        }
        QVERIFY(modelled > 0);
    }

    // A release as its git tag and its candidates are written ("v5.6", "5.6-rc4": seed 002's kernel) is that
    // release, with its rules; other spellings are refused.
    void versionForms()
    {
        QCOMPARE(version("v5.6"), (KernelVersion { 5, 6, 0 }));
        QCOMPARE(version("5.6-rc4"), (KernelVersion { 5, 6, 0 }));
        QCOMPARE(version("v2.6.20-rc1"), (KernelVersion { 2, 6, 20 }));
        for (const char* bad : { "5.6rc4", "5.6-rc", "V5.6", "5.6-rc123", "v", "5", "5.6.", "-rc4" })
            QVERIFY2(!KernelVersion::parse(bad), bad);
        QVERIFY(isKernelRelease("v5.6-rc4"));
        QVERIFY(Toggles::forKernel(version("5.6-rc4")).lruBarrier == Toggles::forKernel(version("5.6")).lruBarrier);
        QVERIFY(Toggles::forKernel(version("5.6-rc4")).lruBarrier != Toggles::forKernel(version("5.5")).lruBarrier);
    }

    void forKernelFollowsTheTable()
    {
        // Each release gets exactly the values the table says: the first rule's `from` before it, the last `to`
        // at or after it.
        for (const std::string& rel : kernelReleases()) {
            const KernelVersion v = version(rel.c_str());
            const nlohmann::json got = Toggles::forKernel(v).toJson();
            std::map<std::string, std::string> want;
            for (const KernelRule& r : kernelRules()) {
                if (!r.modelled())
                    continue;
                if (!want.count(r.toggle))
                    want[r.toggle] = r.from;
                if (!(v < version(r.version)))
                    want[r.toggle] = r.to;
            }
            for (auto& [toggle, value] : want) {
                const nlohmann::json& g = got.at(toggle);
                const std::string gs = g.is_string() ? g.get<std::string>() : g.dump();
                QVERIFY2(
                    gs == value, qPrintable(QString::fromStdString(rel + " " + toggle + ": " + gs + " != " + value)));
            }
        }
        // The scenarios' own kernels, spelled out: what each did before the table.
        const Toggles t2620 = Toggles::forKernel(version("2.6.20"));
        QCOMPARE(t2620.rwsemImpl, RwsemImplToggle::Spinlock);
        QCOMPARE(t2620.madviseMmapSem, MmapSemMode::Write);
        QCOMPARE(t2620.madviseEra, std::string("2007"));
        QCOMPARE(t2620.spinlock, SpinlockImpl::Byte);
        QVERIFY(t2620.o1Scheduler);
        const Toggles t411 = Toggles::forKernel(version("4.11"));
        QCOMPARE(t411.slotsCache, SlotsCache::PerCpu);
        QVERIFY(!t411.sortBeforeFree);
        QCOMPARE(t411.pcpDrain, PcpDrain::Workqueue);
        QCOMPARE(t411.zram.maxCompStreams, 1);
        const Toggles t56 = Toggles::forKernel(version("5.6"));
        QCOMPARE(t56.pagevecSize, 15);
        QCOMPARE(t56.pageEvictable, EvictableCall::OutOfLine);
        QCOMPARE(t56.lruLock, LruLockPlacement::Node);
        QVERIFY(!t56.anonNewInactive && !t56.pcpFreeScale && t56.reclaimTlbBatch);
        QCOMPARE(Toggles::forKernel(version("6.12")).pagevecSize, 31);
    }

    void releasesAndDifferences()
    {
        const auto all = kernelReleases();
        QCOMPARE(all.front(), std::string("2.6.20"));
        QCOMPARE(all.back(), std::string("6.12"));
        QVERIFY(isKernelRelease("4.19.3") && isKernelRelease("2.6.22"));
        QVERIFY(!isKernelRelease("2.6.19") && !isKernelRelease("6.13") && !isKernelRelease("3.20")
            && !isKernelRelease("x"));
        // 5.6 -> 6.1: the rules of 5.7 .. 6.1 and no other, the same either way round.
        const auto up = kernelRulesBetween("5.6", "6.1"), down = kernelRulesBetween("6.1", "5.6");
        QCOMPARE(up.size(), down.size());
        QVERIFY(!up.empty());
        for (const KernelRuleInfo& r : up)
            QVERIFY2(kernelHasRule("6.1", r.version) && !kernelHasRule("5.6", r.version),
                qPrintable(QString::fromStdString(r.version)));
        QVERIFY(kernelRulesBetween("4.11", "4.11").empty());
    }

    // eb709b0d062e (3.0): activate_page() through a pagevec, "to reduce lock contention": fewer lru_lock round
    // trips and less time waiting for it, so the readers of readtwice (every page activated once) read faster.
    void activateBatchCutsLruLockTrips()
    {
        const double scale = 0.02;
        ResultSet off = runWith("lru-file-readtwice", "mainline", { { "lru.activate_batch", "false" } }, scale);
        ResultSet on = runWith("lru-file-readtwice", "mainline", { { "lru.activate_batch", "true" } }, scale);
        const LockSummary a = lockOf(off, "mainline", "zone->lru_lock"), b = lockOf(on, "mainline", "zone->lru_lock");
        QVERIFY2(a.acquisitions > b.acquisitions * 1.3, qPrintable(num(a.acquisitions) + " vs " + num(b.acquisitions)));
        const double tOff = metric(off, "mainline", "throughput_mbps"), tOn = metric(on, "mainline", "throughput_mbps");
        QVERIFY2(tOn > tOff, qPrintable(num(tOff) + " -> " + num(tOn)));
    }

    // 4fc3f1d66b1e (3.8): the anon rmap walks "more scalable" -- reclaimers walking one process's pages share its
    // anon_vma lock instead of queueing on it.
    void anonVmaReadSharesTheWalks()
    {
        const double scale = 0.05;
        const std::vector<std::pair<std::string, std::string>> base = { { "kernel", "4.0" } };
        auto with = [&](const char* v) {
            auto s = base;
            s.emplace_back("rmap.anon_vma_read", v);
            return runWith("madv-free-swapin", "dontneed", s, scale);
        };
        ResultSet excl = with("false"), shared = with("true");
        const LockSummary a = lockOf(excl, "dontneed", "anon_vma->rwsem"),
                          b = lockOf(shared, "dontneed", "anon_vma->rwsem");
        QVERIFY2(a.acquisitions > 0, "no anon rmap walk");
        QVERIFY2(a.waitTotal > b.waitTotal, qPrintable(num(a.waitTotal) + " vs " + num(b.waitTotal)));
    }

    // ec8acf20afb8 (3.9): a lock per swap device, because "swap_lock is heavily contended" when swapping to several
    // fast devices: with one swap_lock for all, the allocations and frees on different devices queue on each other.
    void perDeviceSwapLock()
    {
        const double scale = 0.05;
        auto with = [&](const char* v) {
            return runWith("madv-free-swapin", "dontneed",
                { { "kernel", "3.8" },
                    { "machine.swap",
                        R"([{"size": "400MiB", "device": "ssd-2015"}, {"size": "400MiB", "device": "ssd-2015"}])" },
                    { "swap.lock", v } },
                scale);
        };
        ResultSet global = with("global"), device = with("device");
        auto swapWait = [](const ResultSet& rs) {
            Time w = 0;
            for (const LockSummary& l : rs.results.front().locks)
                if (l.name == "swap_lock" || l.name.rfind("swap_info[", 0) == 0)
                    w += l.waitTotal;
            return static_cast<double>(w);
        };
        QVERIFY2(lockOf(global, "dontneed", "swap_lock").acquisitions > 0, "swap_lock never taken");
        QCOMPARE(lockOf(device, "dontneed", "swap_lock").acquisitions, std::uint64_t(0));
        QVERIFY2(
            swapWait(device) < swapWait(global), qPrintable(num(swapWait(global)) + " -> " + num(swapWait(device))));
    }

    // 72b252aed506 (4.3): "send one IPI per CPU to TLB flush all entries after unmapping pages" -- reclaim of
    // mapped page cache sends one flush round per batch instead of one per page.
    void reclaimBatchesTlbFlushes()
    {
        const double scale = 0.01;
        ResultSet off = runWith("lru-file-mmap-read", "mainline", { { "tlb.reclaim_batch", "false" } }, scale);
        ResultSet on = runWith("lru-file-mmap-read", "mainline", { { "tlb.reclaim_batch", "true" } }, scale);
        const std::string ipi = "flush_tlb_others (IPI ack wait)";
        const LockSummary a = lockOf(off, "mainline", ipi), b = lockOf(on, "mainline", ipi);
        QVERIFY2(a.acquisitions > 2 * b.acquisitions, qPrintable(num(a.acquisitions) + " vs " + num(b.acquisitions)));
    }

    // b518154e59aa (5.9): new anonymous pages start inactive, so the active list no longer grows with every fault
    // and reclaim demotes fewer pages from it.
    void anonNewInactiveDemotesLess()
    {
        const double scale = 0.05;
        auto with = [&](const char* v) {
            return runWith(
                "madv-free-swapin", "dontneed", { { "kernel", "5.9" }, { "lru.anon_new_inactive", v } }, scale);
        };
        ResultSet active = with("false"), inactive = with("true");
        const double a = metric(active, "dontneed", "vm.pgdeactivate"),
                     b = metric(inactive, "dontneed", "vm.pgdeactivate");
        QVERIFY2(a > 0 && b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 6168d0da2b47 (5.11): a lru_lock per lruvec. Readers in 4 memcgs queue on 4 locks instead of their node's one,
    // and read faster. At 0.05, where the node's lock is saturated (0.92 busy; at 0.02 it is half busy and the
    // split gains 3 %).
    void lruvecLockSplitsTheNodeLock()
    {
        const double scale = 0.05;
        auto with = [&](const char* v) {
            return runWith("lru-file-readtwice", "mainline", { { "lru.lruvecs", "4" }, { "lru.lock", v } }, scale);
        };
        ResultSet node = with("node"), lruvec = with("lruvec");
        int locks = 0;
        for (const LockSummary& l : node.results.front().locks)
            if (l.name.find("lru_lock") != std::string::npos)
                ++locks;
        QCOMPARE(locks, 1); // the memcgs' lruvecs under the node's lock
        const double tn = metric(node, "mainline", "throughput_mbps"),
                     tl = metric(lruvec, "mainline", "throughput_mbps");
        QVERIFY2(tl > 1.1 * tn, qPrintable(num(tn) + " -> " + num(tl)));
    }

    // 3b12e7e97938 (5.14): "scale the number of pages that are batch freed" -- a CPU freeing many pages in a row
    // gives them back to the buddy lists in growing batches, with fewer zone->lock round trips.
    void pcpFreeScaleCutsZoneLockTrips()
    {
        const double scale = 0.05;
        auto with = [&](const char* v) {
            return runWith("madv-free-swapin", "dontneed", { { "page_alloc.pcp_free_scale", v } }, scale);
        };
        ResultSet off = with("false"), on = with("true");
        const LockSummary a = lockOf(off, "dontneed", "zone->lock"), b = lockOf(on, "dontneed", "zone->lock");
        QVERIFY2(b.acquisitions < a.acquisitions, qPrintable(num(a.acquisitions) + " -> " + num(b.acquisitions)));
    }
};

QTEST_GUILESS_MAIN(TestKernels)
#include "tst_kernels.moc"
