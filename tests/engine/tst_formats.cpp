// Result formats against golden files. The results are built by hand (no simulation), so the goldens only change
// when a format does. On a mismatch the test writes <golden>.actual beside it and prints the diff command;
// MMSCOPE_UPDATE_GOLDEN=1 rewrites the goldens.
#include "run/format.h"

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

void compareGolden(const std::string& name, const std::string& actual)
{
    std::string path = std::string(MMSCOPE_TEST_DATA) + "/golden/" + name;
    if (qEnvironmentVariableIsSet("MMSCOPE_UPDATE_GOLDEN")) {
        std::ofstream(path, std::ios::binary) << actual;
        return;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream expected;
    expected << in.rdbuf();
    if (expected.str() != actual) {
        std::ofstream(path + ".actual", std::ios::binary) << actual;
        QFAIL(qPrintable(QString::fromStdString("golden mismatch: diff -u " + path + " " + path + ".actual")));
    }
}
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
