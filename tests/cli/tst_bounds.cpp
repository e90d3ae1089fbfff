// Every run ends: each built-in scenario under every machine field and every workload parameter at the bounds the
// scenario loader accepts (ParamSpec's min and max; machine.cpus 1..4096, sockets 1..64, memory 16MiB..1TiB, swap
// none, tiny or 31 devices), at a small scale, through mmscope-cli as a user runs it. Each run must exit 0 (it ran)
// or 2 (refused, or stopped with a message: the OOM killer's last victim, the no-progress watchdog) within a wall
// limit; anything else -- a signal, a sanitizer report, exit 1, a hang -- fails, with the command to reproduce it.
//
// A case runs one variant and one sweep point (the variants in turn, each sweep axis narrowed to its first or last
// value in turn), so that every variant and both ends of every sweep are reached without running the whole table.
// CI runs it in the ci build and, under ASan+UBSan, in asan-engine (docs/reliability.md lists what each case ends
// with).
#include <QtTest>

#include <QProcess>

#include "scenario/scenario.h"
#include "workload/kind.h"

#include "../reduced.h"

#include <string>
#include <vector>

namespace {

struct Case {
    std::string scenario;
    std::string variant;
    std::vector<std::pair<std::string, std::string>> sets;
    QString label() const
    {
        QString s = QString::fromStdString(scenario + " --variant " + variant);
        for (auto& [k, v] : sets)
            s += QString::fromStdString(" --set '" + k + "=" + (v.size() > 80 ? v.substr(0, 60) + "...]" : v) + "'");
        return s;
    }
};

std::string number(double v)
{
    if (v == static_cast<double>(static_cast<long long>(v)))
        return std::to_string(static_cast<long long>(v));
    return nlohmann::json(v).dump();
}

// The machine-field and workload-parameter bounds of one scenario.
std::vector<std::vector<std::pair<std::string, std::string>>> boundsOf(const mms::Scenario& sc)
{
    std::vector<std::vector<std::pair<std::string, std::string>>> sets = {
        {},
        { { "machine.cpus", "1" }, { "machine.sockets", "1" } },
        { { "machine.cpus", "4096" }, { "machine.sockets", "64" } },
        { { "machine.memory", "16MiB" } },
        { { "machine.memory", "1TiB" } },
        { { "machine.swap", "[]" } },
        { { "machine.swap", "[]" }, { "machine.memory", "64MiB" } },
        { { "machine.swap", R"([{"size":"4MiB","device":"ssd-2015"}])" } },
    };
    std::string many = "[";
    for (int i = 0; i < 31; ++i)
        many += std::string(i ? "," : "") + R"({"size":"64MiB","device":"pmem-ram"})";
    sets.push_back({ { "machine.swap", many + "]" } });

    const mms::WorkloadKind* wk = mms::findWorkload(sc.json()["workload"]["kind"].get<std::string>());
    for (const mms::ParamSpec& p : wk->params) {
        switch (p.kind) {
        case mms::ParamKind::Int:
        case mms::ParamKind::Double:
        case mms::ParamKind::Size: // in bytes
            sets.push_back({ { "workload." + p.name, number(p.min) } });
            sets.push_back({ { "workload." + p.name, number(p.max) } });
            break;
        case mms::ParamKind::Bool:
            sets.push_back({ { "workload." + p.name, p.defaultValue.get<bool>() ? "false" : "true" } });
            break;
        case mms::ParamKind::String:
            break;
        }
    }
    return sets;
}

std::vector<Case> allCases()
{
    std::vector<Case> cases;
    for (const mms::ScenarioInfo& info : mms::builtinScenarios()) {
        mms::Scenario sc = mms::loadScenario(info.id);
        std::vector<std::string> variants = sc.variantNames();
        const mms::OJson& sweep = sc.json()["sweep"];
        std::size_t n = 0;
        for (auto& sets : boundsOf(sc)) {
            Case c { info.id, variants[n % variants.size()], sets };
            for (auto& item : sweep.items()) { // not a structured binding: clang 14 cannot capture one in a lambda
                const std::string& axis = item.key();
                const mms::OJson& values = item.value();
                bool given = std::any_of(sets.begin(), sets.end(), [&](auto& s) { return s.first == axis; });
                if (!given)
                    c.sets.emplace_back(axis, (n % 2 ? values.back() : values.front()).dump());
            }
            cases.push_back(std::move(c));
            ++n;
        }
    }
    return cases;
}

} // namespace

class TestBounds : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("MMSCOPE_CLI").isEmpty(), "MMSCOPE_CLI is set by CTest"); }

    void everyBoundEnds_data()
    {
        QTest::addColumn<int>("index");
        std::vector<Case> cases = allCases();
        for (std::size_t i = 0; i < cases.size(); ++i)
            QTest::newRow(cases[i].label().toUtf8().constData()) << static_cast<int>(i);
    }

    void everyBoundEnds()
    {
        QFETCH(int, index);
        static const std::vector<Case> cases = allCases();
        const Case& c = cases[static_cast<std::size_t>(index)];
        // Scale 0.01 and an event budget of 20 M (about a second of one host core; RunTooLong past it, exit 2) keep
        // each case within seconds; under a sanitizer the engine runs 3-7x slower, so the budget is 5 M there and
        // the wall limit wider.
        QStringList args { "run", QString::fromStdString(c.scenario), "--variant", QString::fromStdString(c.variant),
            "--scale", "0.01", "--reps", "1", "--threads", "1", "--format", "json", "--max-events",
            mms::test::kSanitized ? "5000000" : "20000000" };
        for (auto& [k, v] : c.sets)
            args << "--set" << QString::fromStdString(k + "=" + v);
        const int limitMs = mms::test::kSanitized ? 240'000 : 60'000;
        QElapsedTimer t;
        t.start();
        QProcess p;
        p.start(qEnvironmentVariable("MMSCOPE_CLI"), args);
        bool finished = p.waitForFinished(limitMs);
        if (!finished) {
            p.kill();
            p.waitForFinished();
        }
        QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        QString verdict = !finished ? "did not end within the limit"
            : p.exitStatus() == QProcess::CrashExit ? "crashed"
            : (p.exitCode() == 0 || p.exitCode() == 2) ? "" : QString("exit %1").arg(p.exitCode());
        qInfo("%5.1f s  exit %d  %s%s", static_cast<double>(t.elapsed()) / 1000, finished ? p.exitCode() : -1,
            qPrintable(c.label()), err.isEmpty() ? "" : qPrintable("\n        " + err.section('\n', 0, 0).left(160)));
        QVERIFY2(verdict.isEmpty(), qPrintable("mmscope-cli " + args.join(' ') + ": " + verdict + "\n" + err.right(4000)));
        if (p.exitCode() == 2)
            QVERIFY2(!err.isEmpty(), "exit 2 without a message");
    }
};

QTEST_GUILESS_MAIN(TestBounds)
#include "tst_bounds.moc"
