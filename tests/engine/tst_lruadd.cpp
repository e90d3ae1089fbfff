// Seed 002 (lru-file-readtwice, dd-sparse-read): the post's directions at reduced scale, the effect vanishing on a
// lightly loaded machine, the page-cache invariants after every run, and byte-identical results at any thread count.
#include "run/recording.h"
#include "run/run.h"
#include "run/runner.h"
#include "run/table.h"
#include "testutil.h"

#include <QtTest>

#include <cmath>

using namespace mms;
using namespace mms::test;

namespace {
double mean(const ResultSet& rs, const std::string& variant, const std::string& m)
{
    double sum = 0;
    int n = 0;
    for (auto& r : rs.results)
        if (r.variant == variant) {
            sum += r.metrics.at(m);
            ++n;
        }
    if (n == 0)
        throw std::runtime_error("no variant " + variant);
    return sum / n;
}

double gain(const ResultSet& rs, const std::string& variant, const std::string& m)
{
    return mean(rs, variant, m) / mean(rs, "mainline", m) - 1.0;
}

QString pct(double x) { return QString::number(x * 100.0, 'f', 2) + "%"; }
// The lock heatmap's lru_lock row: the share of each recorded frame (after the first quarter: the page cache fills
// before reclaim starts) that lru_lock was held, from the recording the heatmap draws.
std::vector<double> lruLockHeat(Scenario sc, double scale)
{
    RunSpec spec;
    spec.scenario = &sc;
    spec.variant = "mainline";
    spec.scale = scale;
    spec.seed = runSeed(sc.seed(), spec.variant, spec.point, 0);
    spec.bootSeed = bootSeed(sc.seed(), spec.point, 0);
    spec.recording.enabled = true;
    spec.recording.interval = us(500); // 100 frames over the 50 ms run at scale 0.05
    auto rec = executeRun(spec).recording;
    const auto& names = rec->lockNames();
    auto it = std::find(names.begin(), names.end(), "zone->lru_lock");
    if (it == names.end())
        return {};
    auto lock = static_cast<std::size_t>(it - names.begin());
    std::vector<double> heat;
    for (std::size_t f = rec->frameCount() / 4 + 1; f < rec->frameCount(); ++f) {
        double width = static_cast<double>(rec->frameTime(f) - rec->frameTime(f - 1));
        heat.push_back(width > 0 ? static_cast<double>(rec->lockFrame(lock, f).hold) / width : 0.0);
    }
    return heat;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}
} // namespace

class TestLruAdd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readtwiceDirections()
    {
        // 64 readers on 32 CPUs, 256 MiB, 0.25 simulated s: lru_lock saturated by add, activate and reclaim.
        // Reduced (sanitizers): 0.15, where lru_lock is saturated already and the gains keep their order and ranges
        // (inline +3.7 %, pre +14.7 %; at 0.12 and 0.1 the backport's gain is 20.4 % and 18.6 %, past the bound).
        ResultSet rs = run(loadScenario("lru-file-readtwice"), scaleFor(0.25, 0.15), 2);
        QVERIFY2(mean(rs, "mainline", "lru_lock_busy") > 0.9, "lru_lock is not saturated");
        double in = gain(rs, "inline", "throughput_mbps");
        double aa = gain(rs, "inline-after-atomic", "throughput_mbps");
        double pre = gain(rs, "pre-9c4e6b1a7027", "throughput_mbps");
        // The post: inline +2.67 %; the 9c4e6b1a7027 backport cost ~10 %. The inline gain's size follows the
        // preset's cost of an out-of-line call (10 cycles, docs/presets.md), not the post: +0.7 % at scale 1, inside
        // the run-to-run spread at this scale, where the hold per page below shows the mechanism.
        QVERIFY2(in > -0.01 && in < 0.06, qPrintable("inline " + pct(in)));
        QVERIFY2(pre > 0.04 && pre < 0.18, qPrintable("pre " + pct(pre)));
        QVERIFY2(in < aa && aa < pre, qPrintable(pct(in) + " " + pct(aa) + " " + pct(pre)));
        // The mechanism: the critical section per page is shorter, in the same order.
        QVERIFY(mean(rs, "inline", "lru_lock_hold_ns_per_page") < mean(rs, "mainline", "lru_lock_hold_ns_per_page"));
        QVERIFY(mean(rs, "pre-9c4e6b1a7027", "lru_lock_hold_ns_per_page")
            < mean(rs, "inline-after-atomic", "lru_lock_hold_ns_per_page"));
        // readtwice: most pages are read twice from the cache and activated by the second read.
        double read = mean(rs, "mainline", "pages_read");
        QVERIFY2(mean(rs, "mainline", "vm.pgalloc") < 0.7 * read, "the two readers of a file do not share its pages");
        QVERIFY(mean(rs, "mainline", "vm.pgactivate") > 0.3 * read);
        QVERIFY(mean(rs, "mainline", "vm.pgsteal") > 0); // continuous reclaim
    }

    void lightlyLoadedDifferenceIsSmall()
    {
        // One file, two readers: lru_lock mostly idle, so 10-20 ns per insertion is a fraction of a percent.
        Scenario sc = loadScenario("lru-file-readtwice");
        sc.set("files", "1");
        sc.selectVariants({ "mainline", "inline", "pre-9c4e6b1a7027" });
        ResultSet rs = run(sc, scaleFor(0.25, 0.1), 2);
        QVERIFY(mean(rs, "mainline", "lru_lock_busy") < 0.3);
        double in = gain(rs, "inline", "throughput_mbps");
        QVERIFY2(std::fabs(in) < 0.01, qPrintable("inline " + pct(in)));
        QVERIFY2(std::fabs(gain(rs, "pre-9c4e6b1a7027", "throughput_mbps")) < 0.03, "pre-9c4e6b1a7027 uncontended");
    }

    void ddSparseRead()
    {
        // 1 GiB of the 100 GiB file, no reclaim; the variants of one repetition boot the same machine (the same
        // draw of the memory noise), so their order is exact.
        Scenario sc = loadScenario("dd-sparse-read");
        sc.setReps(1);
        ResultSet rs = run(sc, 0.01, 2);
        double in = gain(rs, "inline", "elapsed_s");
        // the post: -0.95 %; here about -0.2 %, two calls of 10 cycles a page (docs/presets.md)
        QVERIFY2(in < -0.001 && in > -0.02, qPrintable("inline " + pct(in)));
        QVERIFY(mean(rs, "inline-after-atomic", "elapsed_s") < mean(rs, "inline", "elapsed_s"));
        QVERIFY(mean(rs, "pre-9c4e6b1a7027", "elapsed_s") < mean(rs, "inline-after-atomic", "elapsed_s"));
        // Time per page within 25 % of the post's 56.64 s per 100 GiB.
        double perPage = mean(rs, "mainline", "ns_per_page");
        QVERIFY2(
            std::fabs(perPage / (56.64143e9 / (100.0 * 262144)) - 1.0) < 0.25, qPrintable(QString::number(perPage)));
        QCOMPARE(mean(rs, "mainline", "vm.pgsteal"), 0.0);
        QCOMPARE(mean(rs, "mainline", "vm.pgactivate"), 0.0); // read once: PG_referenced only
    }

    void ddNoiseIsReported()
    {
        Scenario sc = loadScenario("dd-sparse-read");
        sc.selectVariants({ "mainline" });
        sc.setReps(4);
        ResultSet rs = run(sc, 0.005, 2);
        Cell c = tableCell(rs, sc, "mainline", OJson::object(), "elapsed_s");
        QCOMPARE(c.n, 4);
        QVERIFY(c.stddev > 0);
        QVERIFY2(c.stddev / c.mean < 0.02, qPrintable(QString::number(c.stddev / c.mean))); // post: 1.2 % and 0.4 %
        QVERIFY(c.publishedSd.has_value());
    }

    void lruvecsRelieveLruLock()
    {
        // The what-if of per-memcg lruvecs with their own lru_lock (5.11): tasks spread over 4 memcgs, each page on
        // its memcg's lruvec under that lruvec's lock. The same 64 readers then queue on 4 locks instead of one.
        Scenario one = loadScenario("lru-file-readtwice");
        one.selectVariants({ "mainline" });
        Scenario four = one;
        four.set("lru.lruvecs", "4");
        four.set("lru.lock", "lruvec");
        const double scale = scaleFor(0.1, 0.05);
        ResultSet r1 = run(one, scale, 2), r4 = run(four, scale, 2); // the runner checks the invariants of each
        // One lock nearly saturated, four well below it (each hold still folds the vmstat deltas into the node's
        // and zone's counters, whose lines all four locks' holders share: mm/zvc.h).
        QVERIFY2(mean(r1, "mainline", "lru_lock_busy") > 0.85, qPrintable(QString::number(mean(r1, "mainline", "lru_lock_busy"))));
        QVERIFY2(mean(r4, "mainline", "lru_lock_busy") < 0.8,
            qPrintable(QString::number(mean(r4, "mainline", "lru_lock_busy"))));
        double more = mean(r4, "mainline", "throughput_mbps") / mean(r1, "mainline", "throughput_mbps");
        qInfo("lru_lock busy %.3f -> %.3f, throughput x %.3f", mean(r1, "mainline", "lru_lock_busy"),
            mean(r4, "mainline", "lru_lock_busy"), more);
        QVERIFY2(more > 1.2, qPrintable(QString::number(more)));
        QVERIFY(mean(r4, "mainline", "lru_lock_wait_ns_per_page")
            < 0.5 * mean(r1, "mainline", "lru_lock_wait_ns_per_page"));
        // Every memcg's lock was used: the page cache really is spread over the four lruvecs.
        int used = 0;
        for (auto& l : r4.results.front().locks)
            if (l.name.find("lru_lock") != std::string::npos && l.acquisitions > 1000)
                ++used;
        QCOMPARE(used, 4);
    }

    void lockHeatmapShowsSaturation()
    {
        Scenario busy = loadScenario("lru-file-readtwice");
        // 0.05 under the sanitizers too: below it the page cache fills for a larger share of the run (at 0.03 the
        // lock is held 72 % of a frame).
        std::vector<double> heat = lruLockHeat(busy, 0.05);
        QVERIFY(heat.size() >= 10);
        QVERIFY2(median(heat) > 0.9, qPrintable(QString::number(median(heat)))); // held nearly all the time
        Scenario light = busy;
        light.set("files", "1");
        std::vector<double> cool = lruLockHeat(light, scaleFor(0.05, 0.03));
        QVERIFY2(median(cool) < 0.3, qPrintable(QString::number(median(cool))));
        qInfo("lru_lock held %.1f %% of each frame (median), %.1f %% with one file", 100 * median(heat),
            100 * median(cool));
    }

    void deterministicAtAnyThreadCount()
    {
        Scenario sc = loadScenario("lru-file-readtwice");
        sc.selectVariants({ "mainline", "inline" });
        sc.setReps(2);
        ResultSet one = run(sc, scaleFor(0.05, 0.02), 1);
        ResultSet two = run(sc, scaleFor(0.05, 0.02), 2);
        QCOMPARE(withoutHost(one), withoutHost(two));
    }
};

QTEST_GUILESS_MAIN(TestLruAdd)
#include "tst_lruadd.moc"
