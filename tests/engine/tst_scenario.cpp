// Scenario files: sizes, validation messages (file, path, what was expected), --set, sweep points, --scale.
#include "scenario/runsetup.h"
#include "scenario/scenario.h"
#include "scenario/size.h"

#include <QtTest>

using namespace mms;

namespace {
OJson minimal()
{
    return OJson::parse(R"({"id": "t", "machine": {"preset": "generic-12cpu-2015", "memory": "256MiB"},
        "workload": {"kind": "memset-madvise", "processes": 2, "size": "16MiB", "loops": 1},
        "variants": {"a": {"madvise.advice": "dontneed"}, "b": {"madvise.advice": "free"}}})");
}

QString errorOf(const OJson& doc)
{
    try {
        Scenario::fromJson(doc, "test.json");
    } catch (const ScenarioError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}
} // namespace

class TestScenario : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("bytes");
        QTest::addRow("MiB") << "512MiB" << qulonglong(512ULL << 20);
        QTest::addRow("GiB") << "3GiB" << qulonglong(3ULL << 30);
        QTest::addRow("bytes") << "4096" << qulonglong(4096);
        QTest::addRow("GB") << "100GB" << qulonglong(100'000'000'000ULL);
        QTest::addRow("fraction") << "1.5GiB" << qulonglong(3ULL << 29);
    }
    void sizes()
    {
        QFETCH(QString, text);
        QFETCH(qulonglong, bytes);
        auto parsed = parseSize(text.toStdString());
        QVERIFY(parsed);
        QCOMPARE(qulonglong(*parsed), bytes);
        QCOMPARE(parseSize(formatSize(bytes)).value(), std::uint64_t(bytes));
    }
    void badSizes()
    {
        QVERIFY(!parseSize("12 parsecs"));
        QVERIFY(!parseSize("MiB"));
        QVERIFY(!parseSize("-5GiB"));
    }

    void builtinsAreValid()
    {
        auto all = builtinScenarios();
        QVERIFY(!all.empty());
        bool hasDefault = false;
        for (auto& info : all) {
            Scenario s = loadScenario(info.id);
            QCOMPARE(s.id(), info.id);
            QVERIFY(!s.variantNames().empty());
            hasDefault |= info.id == "madv-free-swapin";
            // show's output is itself a valid scenario that normalises to the same document
            Scenario again = Scenario::fromText(s.json().dump(2), "shown");
            QCOMPARE(again.json().dump(), s.json().dump());
        }
        QVERIFY(hasDefault);
    }

    void defaultsFilledIn()
    {
        Scenario s = Scenario::fromJson(minimal(), "test.json");
        QCOMPARE(s.json()["machine"]["cpus"].get<int>(), 12);
        QCOMPARE(s.json()["machine"]["swap"][0]["device"].get<std::string>(), std::string("ssd-2015"));
        QCOMPARE(s.json()["kernel"].get<std::string>(), std::string(kDefaultKernel));
        QCOMPARE(s.reps(), 1);
        QCOMPARE(s.seed(), std::uint64_t(1));
        QCOMPARE(s.points().size(), std::size_t(1));
        QCOMPARE(s.faithfulScale(), 1.0); // not measured: only scale 1 is known to be faithful
        QCOMPARE(s.baseline(), s.variantNames().front());
    }

    void builtinsDeclareTheirFaithfulScale()
    {
        // Every built-in scenario says from which scale its ratios can be trusted (tests/bench/faithful-scale.sh
        // measures it; tst_faithful checks the cheap ones), and `show` prints it.
        for (auto& info : builtinScenarios()) {
            Scenario s = loadScenario(info.id);
            QVERIFY2(s.json().contains("faithful_scale"), info.id.c_str());
            QVERIFY2(s.faithfulScale() > 0 && s.faithfulScale() <= 1.0, info.id.c_str());
        }
    }

    void baselineIsTheFirstVariant()
    {
        Scenario s = loadScenario("madv-free-swapin");
        QCOMPARE(s.baseline(), std::string("dontneed"));
        s.selectVariants({ "madvfree-patched", "madvfree" });
        QCOMPARE(s.baseline(), std::string("madvfree-patched"));
    }

    void badInputNamesFileFieldAndExpectation_data()
    {
        QTest::addColumn<QString>("path"); // JSON pointer to change
        QTest::addColumn<QString>("value"); // JSON value
        QTest::addColumn<QString>("expected"); // substring of the message
        QTest::addRow("unknown preset") << "/machine/preset" << R"("pdp-11")" << "test.json: machine.preset: expected one of";
        QTest::addRow("cpus not int") << "/machine/cpus" << R"("twelve")" << "machine.cpus: expected an integer in [1, 4096], got \"twelve\"";
        QTest::addRow("cpus zero") << "/machine/cpus" << "0" << "machine.cpus: expected an integer";
        QTest::addRow("bad memory") << "/machine/memory" << R"("lots")" << "machine.memory: expected a size";
        QTest::addRow("tiny memory") << "/machine/memory" << R"("1MiB")" << "machine.memory: expected a size between 16MiB";
        QTest::addRow("unknown workload") << "/workload/kind" << R"("fio")" << "workload.kind: expected one of memset-madvise";
        QTest::addRow("unknown param") << "/workload/threads" << "4" << "workload.threads: expected a parameter of memset-madvise";
        QTest::addRow("bad loops") << "/workload/loops" << "-1" << "workload.loops: expected an integer in [1, 1000]";
        QTest::addRow("bad fork gap") << "/workload/fork_gap_us" << "-1"
                                      << "workload.fork_gap_us: expected a number in [0.0, 1000000000.0], got -1";
        QTest::addRow("unknown toggle") << "/variants/a/madvise.frobnicate" << "true" << "variants.a.madvise.frobnicate: expected a toggle";
        QTest::addRow("bad toggle value") << "/variants/a/madvise.advice" << R"("maybe")" << "variants.a.madvise.advice: expected one of dontneed|free";
        QTest::addRow("bad bool") << "/variants/b/madvise.free_swap_entries" << "3" << "expected true or false";
        QTest::addRow("unknown field") << "/colour" << R"("blue")" << "test.json: colour: expected one of the fields";
        QTest::addRow("bad sweep axis") << "/sweep" << R"({"nonsense": [1]})" << "sweep.nonsense: expected an axis";
        QTest::addRow("empty sweep values") << "/sweep" << R"({"processes": []})" << "sweep.processes: expected a non-empty array";
        QTest::addRow("bad sweep value") << "/sweep" << R"({"processes": [2, 0]})" << "sweep.processes: the value 0 is not valid";
        QTest::addRow("reps") << "/reps" << "0" << "reps: expected an integer in [1, 1000]";
        QTest::addRow("bad id") << "/id" << R"("Not An Id")" << "id: expected a lower-case identifier";
        QTest::addRow("bad kernel") << "/kernel" << R"("linux-4")" << "test.json: kernel: expected a kernel version \"X.Y\" or \"X.Y.Z\"";
        QTest::addRow("kernel as number") << "/kernel" << "4.11" << "kernel: expected a kernel version";
        QTest::addRow("faithful scale zero") << "/faithful_scale" << "0" << "test.json: faithful_scale: expected a number in [0.001, 1]";
        QTest::addRow("faithful scale above 1") << "/faithful_scale" << "2" << "faithful_scale: expected a number in [0.001, 1]";
        QTest::addRow("faithful scale text") << "/faithful_scale" << R"("0.1")" << "faithful_scale: expected a number";
        QTest::addRow("published row not a row") << "/published" << R"({"rows": [3]})"
                                                 << "published.rows[0]: expected an object with a \"variant\"";
        QTest::addRow("published figure not a number") << "/published" << R"({"rows": [{"variant": "a", "x_s": "9"}]})"
                                                       << "published.rows[0].x_s: expected a number";
        QTest::addRow("published column not numbers") << "/published" << R"({"columns": {"a": [1, "x"]}})"
                                                      << "published.columns.a[1]: expected a number";
        QTest::addRow("published note not text") << "/published" << R"({"notes": 3})"
                                                 << "published.notes: expected a string, or an array";
        QTest::addRow("kernel too old") << "/kernel" << R"("2.4.37")" << "kernel: expected a kernel version \"X.Y\" or \"X.Y.Z\" from 2.6 on";
    }
    void badInputNamesFileFieldAndExpectation()
    {
        QFETCH(QString, path);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        OJson doc = minimal();
        doc[OJson::json_pointer(path.toStdString())] = OJson::parse(value.toStdString());
        QString err = errorOf(doc);
        QVERIFY2(err.contains(expected), qPrintable("message: " + err));
    }

    void notJson()
    {
        try {
            Scenario::fromText("{ \"id\": ", "broken.json");
            QFAIL("no error");
        } catch (const ScenarioError& e) {
            QVERIFY(QString(e.what()).startsWith("broken.json: not valid JSON"));
        }
    }

    void setOverrides()
    {
        Scenario s = Scenario::fromJson(minimal(), "test.json");
        s.set("machine.cpus", "16");
        QCOMPARE(s.json()["machine"]["cpus"].get<int>(), 16);
        s.set("madvise.free_swap_entries", "true"); // a toggle holds for every variant
        for (auto& v : s.variantNames())
            QCOMPARE(s.json()["variants"][v]["madvise.free_swap_entries"].get<bool>(), true);
        s.set("size", "32MiB"); // a workload parameter by its name
        QCOMPARE(s.json()["workload"]["size"].get<std::string>(), std::string("32MiB"));
        s.set("swap.devices", "4");
        QCOMPARE(s.json()["machine"]["swap"].size(), std::size_t(4));
        QCOMPARE(s.json()["machine"]["swap"][0]["size"].get<std::string>(), std::string("2GiB"));
        // a bad value leaves the scenario as it was and says what was expected
        std::string before = s.json().dump();
        try {
            s.set("machine.cpus", "many");
            QFAIL("no error");
        } catch (const ScenarioError& e) {
            QVERIFY2(QString(e.what()).contains("--set machine.cpus=many: machine.cpus: expected an integer"), e.what());
        }
        QCOMPARE(s.json().dump(), before);
        QVERIFY_THROWS_EXCEPTION(ScenarioError, s.set("no.such.thing", "1"));
    }

    void sweepAxisNarrowedBySet()
    {
        OJson doc = minimal();
        doc["sweep"] = OJson::parse(R"({"processes": [1, 2, 4], "loops": [1, 2]})");
        Scenario s = Scenario::fromJson(doc, "test.json");
        QCOMPARE(s.points().size(), std::size_t(6));
        QCOMPARE(s.points()[1].dump(), std::string(R"({"processes":1,"loops":2})"));
        s.set("processes", "4");
        QCOMPARE(s.points().size(), std::size_t(2));
        RunSetup r = s.resolve("a", s.points()[0], 1.0);
        QCOMPARE(r.params["processes"].get<int>(), 4);
    }

    void scaleKeepsCpusAndRatios()
    {
        Scenario s = loadScenario("madv-free-swapin");
        RunSetup full = s.resolve("dontneed", OJson::object(), 1.0);
        RunSetup small = s.resolve("dontneed", OJson::object(), 0.05);
        QCOMPARE(small.machine.cpus, full.machine.cpus);
        QCOMPARE(small.params["processes"], full.params["processes"]);
        double ramRatio = double(full.params["size"].get<std::uint64_t>()) / full.machine.memoryBytes;
        double smallRatio = double(small.params["size"].get<std::uint64_t>()) / small.machine.memoryBytes;
        QVERIFY(std::fabs(ramRatio - smallRatio) < 0.01 * ramRatio);
        QVERIFY(std::fabs(double(small.machine.swap[0].sizeBytes) / small.machine.memoryBytes
                    - double(full.machine.swap[0].sizeBytes) / full.machine.memoryBytes)
            < 0.01);
    }

    void selectVariants()
    {
        Scenario s = loadScenario("madv-free-swapin");
        s.selectVariants({ "madvfree-patched", "dontneed" });
        QCOMPARE(s.variantNames(), (std::vector<std::string> { "madvfree-patched", "dontneed" }));
        QVERIFY_THROWS_EXCEPTION(ScenarioError, s.selectVariants({ "nope" }));
    }
};

QTEST_GUILESS_MAIN(TestScenario)
#include "tst_scenario.moc"
