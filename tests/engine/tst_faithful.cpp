// The faithful scale each built-in scenario declares: at it, every ratio the post is about (run/ratio.h,
// postRatios) is within 10 % of its value at scale 1. The suite checks the scenarios whose full-scale runs take a
// few CPU-seconds; tests/bench/faithful-scale.sh runs it over all of them, with a ladder of scales, by setting
//   MMSCOPE_FAITHFUL_SCENARIOS  ids separated by spaces, or "all" (default: the cheap ones below)
//   MMSCOPE_FAITHFUL_LADDER     more scales to measure and print, separated by spaces (default: none)
// Each scenario prints one line per scale: the largest drift of its ratios from scale 1's and where.
#include "run/runner.h"

#include "run/ratio.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

using namespace mms;

namespace {
// Without the invariant checks of test::run: scale 1 of the larger scenarios is long enough already.
ResultSet runAt(const Scenario& sc, double scale)
{
    RunnerOptions o;
    o.scale = scale;
    return runScenario(sc, o);
}

std::vector<std::string> words(const char* env)
{
    std::vector<std::string> out;
    std::istringstream in(qEnvironmentVariable(env).toStdString());
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}
} // namespace

class TestFaithful : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ratiosAtTheFaithfulScale_data()
    {
        QTest::addColumn<QString>("id");
        // Cheap at scale 1: 1.5-2 CPU-s each on the CI host.
        std::vector<std::string> ids { "madv-free-tlb-batch", "ebizzy" };
        if (auto chosen = words("MMSCOPE_FAITHFUL_SCENARIOS"); !chosen.empty()) {
            ids = chosen;
            if (chosen.front() == "all") {
                ids.clear();
                for (const ScenarioInfo& s : builtinScenarios())
                    ids.push_back(s.id);
            }
        }
        for (const std::string& id : ids)
            QTest::addRow("%s", id.c_str()) << QString::fromStdString(id);
    }

    void ratiosAtTheFaithfulScale()
    {
        QFETCH(QString, id);
        Scenario sc = loadScenario(id.toStdString());
        double faithful = sc.faithfulScale();
        QVERIFY2(faithful > 0 && faithful <= 1.0, qPrintable(id));
        if (postRatios(sc).empty()) {
            // One variant: no ratio to drift, so the only faithful scale it can claim is 1.
            QCOMPARE(faithful, 1.0);
            QSKIP("one variant: no ratio to check, faithful scale 1");
        }
        ResultSet full = runAt(sc, 1.0);
        std::vector<double> scales { faithful };
        for (const std::string& w : words("MMSCOPE_FAITHFUL_LADDER"))
            if (double s = std::stod(w); std::find(scales.begin(), scales.end(), s) == scales.end())
                scales.push_back(s);
        std::vector<std::pair<double, bool>> drifts; // (scale, faithful)
        for (double s : scales) {
            RatioDrift d = ratioDrift(s == 1.0 ? full : runAt(sc, s), full, sc);
            drifts.emplace_back(s, d.faithful());
            char line[256];
            std::snprintf(line, sizeof line, "%s scale %g%s: %d ratios, largest drift from scale 1 %.1f %% (%s), %d changed sides",
                id.toUtf8().constData(), s, s == faithful ? " (declared faithful)" : "", d.ratios, d.maxAbsPercent, d.worst.c_str(),
                d.changedSides);
            qInfo("%s", line);
            if (s == faithful)
                QVERIFY2(d.faithful(), line);
        }
        if (scales.size() > 1) {
            // The smallest measured scale from which every larger measured scale stays within 10 %.
            std::sort(drifts.begin(), drifts.end());
            double smallest = 1.0;
            for (auto it = drifts.rbegin(); it != drifts.rend() && it->second; ++it)
                smallest = it->first;
            qInfo("%s: smallest measured scale within 10 %% of scale 1, no side changed: %g (declared %g)", id.toUtf8().constData(), smallest, faithful);
        }
    }
};

QTEST_GUILESS_MAIN(TestFaithful)
#include "tst_faithful.moc"
