// Result formats against golden files. The results are built by hand (no simulation), so the goldens only change
// when a format does. On a mismatch the test writes <golden>.actual beside it and prints the diff command;
// MMSCOPE_UPDATE_GOLDEN=1 rewrites the goldens.
#include "run/json.h"
#include "run/ratio.h"
#include "run/render.h"
#include "run/table.h"

#include "../golden.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace mms;

namespace {
Scenario tableScenario()
{
    return Scenario::fromText(R"({"id": "golden-rows", "title": "Rows like seed 000",
        "source": {"seed": "000_7eca900eef2168ee.txt", "measured": "swapins and time"},
        "machine": {"preset": "generic-12cpu-2015"},
        "workload": {"kind": "memset-madvise"},
        "variants": {"dontneed": {"madvise.advice": "dontneed"}, "madvfree": {"madvise.advice": "free"}},
        "metrics": ["swapins", "elapsed_s"],
        "published": {"rows": [{"variant": "dontneed", "swapins": 1612, "elapsed_s": 50.44},
                               {"variant": "madvfree", "swapins": 879585, "elapsed_s": 90.67}]}})",
        "golden-rows");
}

Scenario sweepScenario()
{
    return Scenario::fromText(R"({"id": "golden-sweep", "title": "A sweep like seed 004",
        "machine": {"preset": "generic-12cpu-2015"},
        "workload": {"kind": "memset-madvise"},
        "variants": {"baseline": {}, "skip-unmapped": {"migrate.skip_unmapped": true}},
        "sweep": {"processes": [61, 121]},
        "metrics": ["jobs_per_min"],
        "table": {"mmtests_op": "new_fserver"},
        "reps": 2,
        "faithful_scale": 0.25,
        "published": {"metric": "jobs_per_min", "processes": [61, 121],
                      "columns": {"baseline": [21456.59, 22335.16], "skip-unmapped": [35875.59, 38037.28]}}})",
        "golden-sweep");
}

RunResult result(const std::string& v, OJson point, int rep, Metrics m)
{
    RunResult r;
    r.variant = v;
    r.point = std::move(point);
    r.rep = rep;
    r.metrics = std::move(m);
    r.events = 1000;
    LockSummary l;
    l.name = "swap_info[0].lock";
    l.kind = "spinlock";
    l.instances = 1;
    l.acquisitions = 100;
    l.contentions = 10;
    l.waitTotal = us(5);
    l.holdTotal = us(20);
    r.locks.push_back(l);
    return r;
}

ResultSet rowsResults()
{
    ResultSet rs;
    rs.scenario = "golden-rows";
    rs.engineVersion = "test";
    rs.seed = 1;
    rs.scale = 1.0;
    rs.results.push_back(result("dontneed", OJson::object(), 0, { { "swapins", 1500 }, { "elapsed_s", 48.25 } }));
    rs.results.push_back(result("madvfree", OJson::object(), 0, { { "swapins", 900000 }, { "elapsed_s", 95.5 } }));
    rs.wallSeconds = 1.5;
    rs.threads = 2;
    return rs;
}

ResultSet sweepResults()
{
    ResultSet rs;
    rs.scenario = "golden-sweep";
    rs.engineVersion = "test";
    rs.seed = 7;
    rs.scale = 0.5;
    double base[] = { 20000, 21000 }, gain[] = { 1.6, 1.7 };
    int users[] = { 61, 121 };
    for (int i = 0; i < 2; ++i)
        for (int rep = 0; rep < 2; ++rep) {
            rs.results.push_back(result("baseline", OJson { { "processes", users[i] } }, rep, { { "jobs_per_min", base[i] + rep * 100 } }));
            rs.results.push_back(result("skip-unmapped", OJson { { "processes", users[i] } }, rep, { { "jobs_per_min", base[i] * gain[i] + rep * 100 } }));
        }
    return rs;
}

using mms::test::compareGolden;
} // namespace

class TestFormats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void golden_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("format");
        for (const char* sc : { "rows", "sweep" })
            for (const char* f : { "text", "markdown", "csv", "json", "mmtests" })
                QTest::addRow("%s-%s", sc, f) << sc << f;
    }
    void golden()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, format);
        bool rows = scenario == "rows";
        Scenario sc = rows ? tableScenario() : sweepScenario();
        ResultSet rs = rows ? rowsResults() : sweepResults();
        std::string out = formatResults(rs, sc, *parseFormat(format.toStdString()));
        std::string ext = format == "markdown" ? "md" : format == "mmtests" ? "mmtests" : format.toStdString();
        compareGolden(scenario.toStdString() + "." + ext, out);
    }

    void mmtestsRowsLikeThePost()
    {
        // new_fserver-61 with the baseline at (0.00%) and the other column as pdiff, higher is better.
        std::string out = formatResults(sweepResults(), sweepScenario(), Format::Mmtests);
        QVERIFY2(out.find("Amean  new_fserver-61            20050.00 (  0.00%)") != std::string::npos, out.c_str());
        QVERIFY2(out.find("32050.00 ( 59.85%)") != std::string::npos, out.c_str());
    }

    void jsonRoundTrip()
    {
        ResultSet rs = sweepResults();
        OJson j = resultsToJson(rs);
        ResultSet back = resultsFromJson(j, "roundtrip");
        QCOMPARE(resultsToJson(back).dump(), j.dump());
        QCOMPARE(j["host"]["threads"].get<int>(), rs.threads);
    }

    void ratiosInMarkdown()
    {
        // madvfree / dontneed: swapins 900000 / 1500 = 600 against the post's 879585 / 1612 = 545.6 (+10.0 %);
        // elapsed 95.5 / 48.25 = 1.979 against 90.67 / 50.44 = 1.798 (+10.1 %).
        std::string md = formatResults(rowsResults(), tableScenario(), Format::Markdown);
        QVERIFY2(md.find("ratio to dontneed (variant / dontneed)") != std::string::npos, md.c_str());
        QVERIFY2(md.find("| variant | swapins ratio | post | vs post | elapsed_s ratio | post | vs post |") != std::string::npos, md.c_str());
        QVERIFY2(md.find("| madvfree | 600.0 | 545.6 | +10.0% | 1.979 | 1.798 | +10.1% |") != std::string::npos, md.c_str());
        // The sweep: each point's ratio to its own baseline, 32050 / 20050 = 1.599 against 35875.59 / 21456.59.
        std::string sw = formatResults(sweepResults(), sweepScenario(), Format::Markdown);
        QVERIFY2(sw.find("| processes | skip-unmapped | post | vs post |") != std::string::npos, sw.c_str());
        QVERIFY2(sw.find("| 61 | 1.599 | 1.672 | -4.4% |") != std::string::npos, sw.c_str());
        QVERIFY2(sw.find("| 121 | 1.698 | 1.703 | -0.3% |") != std::string::npos, sw.c_str());
    }

    void ratiosInJson()
    {
        OJson j = OJson::parse(formatResults(sweepResults(), sweepScenario(), Format::Json));
        QCOMPARE(j["baseline"].get<std::string>(), std::string("baseline"));
        for (const OJson& r : j["results"]) {
            QVERIFY(r.contains("ratio"));
            // Every run over the baseline's mean at its own point.
            int users = r["point"]["processes"];
            double base = users == 61 ? 20050.0 : 21050.0;
            QVERIFY(std::fabs(r["ratio"]["jobs_per_min"].get<double>() - r["metrics"]["jobs_per_min"].get<double>() / base) < 1e-12);
        }
        QCOMPARE(j["results"][1]["variant"].get<std::string>(), std::string("skip-unmapped"));
        QVERIFY(std::fabs(j["results"][1]["ratio"]["jobs_per_min"].get<double>() - 32000.0 / 20050.0) < 1e-12);
        // Ratios are derived: reading the results back and writing them again gives the same document.
        ResultSet back = resultsFromJson(j, "roundtrip");
        QCOMPARE(resultsToJson(back, "baseline").dump(), j.dump());
        // Without a baseline (shards), no ratios.
        QVERIFY(!resultsToJson(sweepResults()).contains("baseline"));
        QVERIFY(!resultsToJson(sweepResults())["results"][0].contains("ratio"));
    }

    void tableRatioAgainstThePost()
    {
        Ratio r = tableRatio(rowsResults(), tableScenario(), "madvfree", OJson::object(), "elapsed_s");
        QCOMPARE(r.baseline, std::string("dontneed"));
        QVERIFY(std::fabs(*r.sim - 95.5 / 48.25) < 1e-12);
        QVERIFY(std::fabs(*r.post - 90.67 / 50.44) < 1e-12);
        QVERIFY(std::fabs(*r.distancePercent - ((95.5 / 48.25) / (90.67 / 50.44) - 1) * 100) < 1e-9);
        Ratio self = tableRatio(rowsResults(), tableScenario(), "dontneed", OJson::object(), "elapsed_s");
        QCOMPARE(*self.sim, 1.0);
        QCOMPARE(*self.distancePercent, 0.0);
        Ratio none = tableRatio(rowsResults(), tableScenario(), "madvfree", OJson::object(), "no_such_metric");
        QVERIFY(!none.sim && !none.post && !none.distancePercent);
    }

    void scaledFiguresAreLabelledAndNotComparedWithThePost()
    {
        // At scale 0.5 the counts and total times are scaled: labelled, and no absolute "vs post" for them; the
        // ratios stay. At scale 1 (the rows golden) every figure has its "vs post".
        ResultSet rs = rowsResults();
        rs.scale = 0.5;
        std::string md = formatResults(rs, tableScenario(), Format::Markdown);
        QVERIFY2(md.find("| variant | swapins (scaled) | post | elapsed_s (scaled) | post |") != std::string::npos, md.c_str());
        QVERIFY2(md.find("| madvfree | 600.0 | 545.6 | +10.0% |") != std::string::npos, md.c_str());
        QCOMPARE(distanceToPost(rs, tableScenario()).cells, 0);
        QCOMPARE(distanceToPost(rowsResults(), tableScenario()).cells, 4);
        PostDistance rd = ratioDistanceToPost(rs, tableScenario());
        QCOMPARE(rd.cells, 2);
        QCOMPARE(rd.worst, std::string("madvfree elapsed_s"));
        // A scale-free metric keeps its "vs post" at any scale (the sweep golden, jobs_per_min at scale 0.5).
        std::string sw = formatResults(sweepResults(), sweepScenario(), Format::Text);
        QVERIFY2(sw.find("jobs_per_min:\n") != std::string::npos, sw.c_str());
        QVERIFY2(sw.find("jobs_per_min (scaled)") == std::string::npos, sw.c_str());
        // Below the scenario's faithful scale (1 when it declares none) the text says so; at or above it, which
        // it is.
        std::string text = formatResults(rs, tableScenario(), Format::Text);
        QVERIFY2(text.find("warning: below this scenario's faithful scale 1:") != std::string::npos, text.c_str());
        QVERIFY2(sw.find("scale 0.5 (faithful from 0.25), seed 7") != std::string::npos, sw.c_str());
        QVERIFY2(sw.find("warning") == std::string::npos, sw.c_str());
    }

    void driftOfThePostsRatiosBetweenScales()
    {
        // The ratios the post is about: madvfree's swapins and elapsed_s (both published); every other variant at
        // every point of the sweep for its published metric.
        std::vector<RatioKey> rows = postRatios(tableScenario());
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[1].variant + " " + rows[1].metric, std::string("madvfree elapsed_s"));
        QCOMPARE(postRatios(sweepScenario()).size(), std::size_t(2));
        // madvfree's elapsed ratio 1.979 at "scale 1"; at the smaller scale 95.5 / 60 = 1.592 (-19.6 %) and the
        // swapins ratio 900000 / 1500 = 600 unchanged.
        ResultSet full = rowsResults(), small = rowsResults();
        small.results[0].metrics["elapsed_s"] = 60.0;
        RatioDrift d = ratioDrift(small, full, tableScenario());
        QCOMPARE(d.ratios, 2);
        QVERIFY(std::fabs(d.maxAbsPercent - (1.0 - (95.5 / 60.0) / (95.5 / 48.25)) * 100.0) < 1e-9);
        QCOMPARE(d.worst, std::string("madvfree elapsed_s"));
        QCOMPARE(d.changedSides, 0);
        QVERIFY(!d.faithful());
        // A variant that was slower at scale 1 is faster at the smaller one: changed sides.
        small.results[0].metrics["elapsed_s"] = 100.0;
        d = ratioDrift(small, full, tableScenario());
        QCOMPARE(d.changedSides, 1);
        QVERIFY(ratioDrift(full, full, tableScenario()).faithful());
    }

    void scaleFreeMetrics_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<bool>("free");
        for (const char* m : { "throughput", "throughput_mbps", "records_per_s", "jobs_per_min", "free_entries_call_us", "free_entry_us",
                 "ns_per_page", "lru_lock_hold_ns_per_page", "i_mmap_wait_us_per_test", "lru_lock_busy", "unmapped_rmap_share",
                 "cpu_busy_max", "cpu_busy_mean" })
            QTest::addRow("%s", m) << m << true;
        for (const char* m : { "swapins", "swapouts", "transactions", "elapsed_s", "user_s", "sys_s", "kthread_sys_s", "idle_s", "free_time_s",
                 "free_time_max_s", "free_entries_calls", "vm.pgmajfault", "vm.rmap_unmap" })
            QTest::addRow("%s", m) << m << false;
    }
    void scaleFreeMetrics()
    {
        QFETCH(QString, metric);
        QFETCH(bool, free);
        QCOMPARE(scaleFree(metric.toStdString()), free);
        QVERIFY(comparableToPost(metric.toStdString(), 1.0));
        QCOMPARE(comparableToPost(metric.toStdString(), 0.1), free);
    }

    void tableCellsMeanStddevAndPost()
    {
        Cell c = tableCell(sweepResults(), sweepScenario(), "baseline", OJson { { "processes", 61 } }, "jobs_per_min");
        QCOMPARE(c.n, 2);
        QCOMPARE(c.mean, 20050.0);
        QVERIFY(std::fabs(c.stddev - 70.7107) < 1e-3);
        QCOMPARE(c.published.value(), 21456.59);
    }
};

QTEST_GUILESS_MAIN(TestFormats)
#include "tst_formats.moc"
