// Comparisons a reader can trust: the results table leads with each variant's ratio to the baseline beside the
// post's ratio; the chart keeps simulated and post on one axis when their units agree and draws a sweep of powers of
// two on a log2 axis; the app opens at the point where the variants differ most and at the first event of interest;
// counter rates are binned so a counter that moves in a few steps reads as a rate.
#include "counterplot.h"
#include "enginecontroller.h"
#include "firstview.h"
#include "mainwindow.h"
#include "quietwindow.h"
#include "resultschart.h"
#include "resultsmodel.h"
#include "transportbar.h"

#include "run/ratio.h"
#include "run/recording.h"
#include "run/runner.h"

#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace mms;

namespace {
// Results made up for a scenario: one run per variant and point with the given metric values (no simulation).
std::shared_ptr<const ResultSet> madeUp(const Scenario& sc, double scale, const std::function<Metrics(const std::string&, const OJson&)>& metrics)
{
    auto rs = std::make_shared<ResultSet>();
    rs->scenario = sc.id();
    rs->scale = scale;
    std::vector<OJson> points = sc.points();
    if (points.empty())
        points.push_back(OJson::object());
    for (const std::string& v : sc.variantNames())
        for (const OJson& p : points)
            rs->results.push_back({ v, p, 0, metrics(v, p), {}, 0, nullptr, {} });
    return rs;
}
} // namespace

class TestComparisons : public QObject {
    Q_OBJECT
    std::shared_ptr<const Scenario> m_swapin;
    std::shared_ptr<const ResultSet> m_swapinRun; // recorded, scale 0.01

private Q_SLOTS:
    void initTestCase()
    {
        m_swapin = std::make_shared<const Scenario>(loadScenario("madv-free-swapin"));
        RunnerOptions opts;
        opts.scale = 0.01;
        opts.threads = 2;
        opts.recording.enabled = true;
        m_swapinRun = std::make_shared<const ResultSet>(runScenario(*m_swapin, opts));
        QCOMPARE(m_swapinRun->results.size(), std::size_t(3));
    }

    // The table's first metric group is the headline's, and its first column the ratio to the baseline, beside the
    // post's same ratio: both the quotients of the figures they stand for.
    void ratioColumnBesideThePost()
    {
        ResultsModel m;
        m.setResults(m_swapin, m_swapinRun);
        QCOMPARE(QString::fromStdString(headlineMetric(*m_swapin)), QStringLiteral("elapsed_s"));
        QCOMPARE(m.column(ResultsModel::Kind::Ratio, "elapsed_s"), 1);
        QCOMPARE(m.column(ResultsModel::Kind::PostRatio, "elapsed_s"), 2);
        QCOMPARE(m.column(ResultsModel::Kind::RatioDistance, "elapsed_s"), 3);
        QVERIFY(m.headerData(1, Qt::Horizontal).toString().contains(QStringLiteral("÷ dontneed")));
        const double dontneed = m_swapinRun->results[0].metrics.at("elapsed_s"), madvfree = m_swapinRun->results[1].metrics.at("elapsed_s");
        QCOMPARE(m.data(m.index(0, 1), Qt::UserRole).toDouble(), 1.0);
        QCOMPARE(m.data(m.index(1, 0)).toString(), QStringLiteral("madvfree"));
        QVERIFY(qFuzzyCompare(m.data(m.index(1, 1), Qt::UserRole).toDouble(), madvfree / dontneed));
        QVERIFY(qFuzzyCompare(m.data(m.index(1, 2), Qt::UserRole).toDouble(), 90.67 / 50.44)); // the post's table
        const double distance = 100.0 * ((madvfree / dontneed) / (90.67 / 50.44) - 1);
        QVERIFY(std::abs(m.data(m.index(1, 3), Qt::UserRole).toDouble() - distance) < 1e-9);
        QCOMPARE(m.data(m.index(1, 3)).toString(), QString::fromStdString(formatPercent(distance)));
        // At scale 0.01 an elapsed time is not set against the post's: no published or "vs post" % column for it,
        // and the simulated figure says its scale.
        QCOMPARE(m.column(ResultsModel::Kind::Published, "elapsed_s"), -1);
        QCOMPARE(m.column(ResultsModel::Kind::Delta, "elapsed_s"), -1);
        const int sim = m.column(ResultsModel::Kind::Simulated, "elapsed_s");
        QVERIFY(sim > 3);
        QVERIFY(m.headerData(sim, Qt::Horizontal).toString().contains(QStringLiteral("scale 0.01")));
    }

    // At scale 1, or for a scale-free metric, the absolute figure is set against the post's too.
    void absoluteVsPostOnlyWhereItCompares_data()
    {
        QTest::addColumn<double>("scale");
        QTest::addColumn<QString>("metric");
        QTest::addColumn<bool>("published");
        QTest::addRow("throughput at 0.1") << 0.1 << QStringLiteral("throughput") << true;
        QTest::addRow("user_s at 0.1") << 0.1 << QStringLiteral("user_s") << false;
        QTest::addRow("user_s at 1") << 1.0 << QStringLiteral("user_s") << true;
    }
    void absoluteVsPostOnlyWhereItCompares()
    {
        QFETCH(double, scale);
        QFETCH(QString, metric);
        QFETCH(bool, published);
        const auto sc = std::make_shared<const Scenario>(loadScenario("madv-free-tlb-batch"));
        const auto rs = madeUp(*sc, scale, [](const std::string&, const OJson& p) {
            return Metrics { { "throughput", 100.0 * p["threads"].get<double>() }, { "user_s", 1.0 } };
        });
        ResultsModel m;
        m.setResults(sc, rs);
        QCOMPARE(m.column(ResultsModel::Kind::Published, metric.toStdString()) >= 0, published);
        QCOMPARE(m.column(ResultsModel::Kind::Delta, metric.toStdString()) >= 0, published);
        QVERIFY(m.column(ResultsModel::Kind::Ratio, metric.toStdString()) >= 0);
    }

    // threads 1..16 on a log2 axis with a tick at each swept value; users 61..961 stay linear.
    void sweepOfPowersOfTwoIsLog2()
    {
        const auto sc = std::make_shared<const Scenario>(loadScenario("madv-free-tlb-batch"));
        const auto rs = madeUp(*sc, 0.1, [](const std::string&, const OJson& p) { return Metrics { { "throughput", 100.0 * p["threads"].get<double>() } }; });
        ResultsChart chart;
        chart.resize(700, 400);
        chart.setResults(sc, rs);
        QVERIFY(chart.xLog2());
        QCOMPARE(chart.xTickLabels(), QStringList({ "1", "2", "4", "8", "16" }));

        const auto mig = std::make_shared<const Scenario>(loadScenario("migration-unmapped"));
        const auto mrs = madeUp(*mig, 0.1, [](const std::string&, const OJson& p) { return Metrics { { "jobs_per_min", p["users"].get<double>() } }; });
        chart.setResults(mig, mrs);
        QVERIFY(!chart.xLog2());
    }

    // Simulated and post share the value axis when the units agree (ratios; a rate at any scale; anything at scale 1);
    // an absolute count at a reduced scale puts the post on a second axis, both axes naming their ranges.
    void oneAxisWhenTheUnitsAgree_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<double>("scale");
        QTest::addColumn<int>("values");
        QTest::addColumn<bool>("second");
        QTest::addRow("throughput 0.1 absolute") << QStringLiteral("throughput") << 0.1 << int(ResultsChart::Values::Absolute) << false;
        QTest::addRow("transactions 0.1 ratio") << QStringLiteral("transactions") << 0.1 << int(ResultsChart::Values::Ratio) << false;
        QTest::addRow("transactions 1 absolute") << QStringLiteral("transactions") << 1.0 << int(ResultsChart::Values::Absolute) << false;
        QTest::addRow("transactions 0.1 absolute") << QStringLiteral("transactions") << 0.1 << int(ResultsChart::Values::Absolute) << true;
    }
    void oneAxisWhenTheUnitsAgree()
    {
        QFETCH(QString, metric);
        QFETCH(double, scale);
        QFETCH(int, values);
        QFETCH(bool, second);
        // The post publishes throughput only; for a count, its throughput table stands in as the post's
        // transactions (any positive figures do).
        OJson doc = loadScenario("madv-free-tlb-batch").json();
        doc["published"]["metric"] = metric.toStdString();
        const auto sc = std::make_shared<const Scenario>(Scenario::fromJson(doc, "test"));
        const auto rs = madeUp(*sc, scale, [](const std::string& v, const OJson& p) {
            const double t = p["threads"].get<double>();
            return Metrics { { "throughput", 100.0 * t }, { "transactions", (v == "vanilla" ? 1000.0 : 1500.0) * t } };
        });
        ResultsChart chart;
        chart.resize(700, 400);
        chart.setResults(sc, rs);
        chart.setMetric(metric);
        chart.setValues(ResultsChart::Values(values));
        QCOMPARE(chart.secondValueAxis(), second);
        if (second) {
            // "transactions, simulated at scale 0.1: 0–24000" and "post (full scale): 0–2314"
            QVERIFY2(chart.valueAxisLabel().contains(QStringLiteral("scale 0.1: ")), qPrintable(chart.valueAxisLabel()));
            QVERIFY2(chart.valueAxisLabel(true).contains(QStringLiteral("post (full scale): ")), qPrintable(chart.valueAxisLabel(true)));
            QVERIFY2(chart.valueAxisLabel(true).contains(QStringLiteral("2314")), qPrintable(chart.valueAxisLabel(true)));
        }
    }

    // For a sweep: the point where the variants differ most, and there the variant farthest from the baseline.
    void firstViewAtThePointWhereVariantsDifferMost()
    {
        const auto sc = std::make_shared<const Scenario>(loadScenario("madv-free-tlb-batch"));
        const auto rs = madeUp(*sc, 0.1, [](const std::string& v, const OJson& p) {
            const int t = p["threads"].get<int>();
            double x = 1000;
            if (v == "glibc-madvfree-tlb")
                x = t == 4 ? 3000 : 1200; // 3x at 4 threads
            if (v == "glibc")
                x = t == 16 ? 2500 : 1000; // 2.5x at 16
            return Metrics { { "throughput", x } };
        });
        const FirstView fv = chooseFirstView(*sc, *rs);
        QVERIFY(fv.run >= 0);
        const RunResult& r = rs->results[std::size_t(fv.run)];
        QCOMPARE(QString::fromStdString(r.variant), QStringLiteral("glibc-madvfree-tlb"));
        QCOMPARE(r.point["threads"].get<int>(), 4);
        const RunResult& b = rs->results[std::size_t(fv.baselineRun)];
        QCOMPARE(QString::fromStdString(b.variant), QStringLiteral("vanilla"));
        QCOMPARE(b.point["threads"].get<int>(), 4);
    }

    // The moment: the shown run's most telling event of interest, where the page map has pages in use.
    void firstViewAtTheFirstEvent()
    {
        // dontneed and madvfree: the variant farthest from dontneed in elapsed time is the one that swaps in (the
        // post's story: swap-ins of freed pages). At this scale madvfree-patched, which swaps out the most, can be
        // farther still, and it swaps nothing in.
        Scenario two = *m_swapin;
        two.selectVariants({ "dontneed", "madvfree" });
        RunnerOptions opts;
        opts.scale = 0.01;
        opts.threads = 2;
        opts.recording.enabled = true;
        const ResultSet run = runScenario(two, opts);
        const FirstView fv = chooseFirstView(two, run);
        const RunResult& r = run.results[std::size_t(fv.run)];
        double farthest = 0;
        std::string expected;
        for (const RunResult& o : run.results) {
            const double d = std::abs(std::log(o.metrics.at("elapsed_s") / run.results[0].metrics.at("elapsed_s")));
            if (d > farthest) {
                farthest = d;
                expected = o.variant;
            }
        }
        QCOMPARE(QString::fromStdString(r.variant), QString::fromStdString(expected));
        // Its first swap-in, the post's story, though reclaim and contention start earlier.
        QVERIFY(r.recording);
        const auto& events = r.recording->events();
        const auto swapin = std::find_if(events.begin(), events.end(), [](const InterestingEvent& e) { return e.kind == "first-swapin"; });
        QVERIFY(swapin != events.end());
        QVERIFY(swapin != events.begin());
        QCOMPARE(fv.at, swapin->at);
        QCOMPARE(QString::fromStdString(fv.why), QStringLiteral("first swap-in"));
        QVERIFY(fv.at > 0);
        const std::size_t f = swapin->frame;
        const auto counts = r.recording->stateCounts(f);
        QVERIFY(counts[std::size_t(PageMapState::Free)] < r.recording->pageCount()); // the map is not empty there
    }

    // A rate's bins span enough frames for the counter to move kEventsPerBin times on average (or the plot's
    // width / the kMinBins floor decides), and the binned rates integrate to the counter's total.
    void counterRatesAreBinned()
    {
        const Recording& rec = *m_swapinRun->results[1].recording;
        for (const char* counter : { "pswpin", "pgfault", "ops" }) {
            const std::size_t idx = rec.counterIndex(counter);
            if (idx >= rec.counterNames().size())
                continue;
            const int k = CounterPlot::framesPerBin(rec, counter);
            const double moved = rec.counters(rec.frameCount() - 1)[idx] - rec.counters(0)[idx];
            const std::size_t intervals = rec.frameCount() - 1;
            QVERIFY(k >= 1);
            if (std::size_t(k) < intervals / CounterPlot::kMinBins && moved > 0)
                QVERIFY2(moved / double((intervals + std::size_t(k) - 1) / std::size_t(k)) >= CounterPlot::kEventsPerBin * 0.99, counter);
            QVector<double> t;
            const QVector<double> rate = CounterPlot::values(rec, counter, &t);
            QCOMPARE(rate.size(), int((intervals + std::size_t(k) - 1) / std::size_t(k)));
            double integral = 0;
            for (std::size_t from = 0, i = 0; from < intervals; from += std::size_t(k), ++i) {
                const std::size_t to = std::min(from + std::size_t(k), intervals);
                integral += rate[int(i)] * toSec(rec.frameTime(to) - rec.frameTime(from));
            }
            QVERIFY2(std::abs(integral - moved) <= 1e-6 * std::max(1.0, moved), counter);
        }
    }

    // Each scenario opens at its faithful scale; below it, the label by the scale control says so.
    void opensAtTheFaithfulScale()
    {
        MainWindow w(mms::test::quietWindow());
        for (const char* id : { "madv-free-tlb-batch", "lru-file-readtwice" }) {
            QVERIFY(w.loadScenario(QString::fromLatin1(id)));
            const double faithful = loadScenario(id).faithfulScale();
            QCOMPARE(w.scale(), faithful);
            auto* hint = w.findChild<QLabel*>(QStringLiteral("scaleHint"));
            QVERIFY(hint);
            QVERIFY2(!hint->text().contains(QStringLiteral("below")), qPrintable(hint->text()));
            w.findChild<QDoubleSpinBox*>()->setValue(faithful / 2);
            QVERIFY2(hint->text().contains(QStringLiteral("below faithful")), qPrintable(hint->text()));
        }
        // An explicit scale holds for every scenario opened after it.
        w.setScale(0.01);
        QVERIFY(w.loadScenario(QStringLiteral("ebizzy")));
        QCOMPARE(w.scale(), 0.01);
    }

    // The app opens on that run and moment, and at 1280x800 the headline's ratio column is on screen unscrolled.
    void appOpensOnTheStory()
    {
        MainWindow w(mms::test::quietWindow());
        w.resize(1280, 800);
        w.setScale(0.01);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const FirstView fv = chooseFirstView(*w.resultsScenario(), *w.results());
        QCOMPARE(w.transport()->time(), fv.at);
        QTest::qWait(50);
        auto* table = w.findChild<QTableView*>(QStringLiteral("resultsTable"));
        QVERIFY(table);
        const int ratio = w.resultsModel()->column(ResultsModel::Kind::Ratio, "elapsed_s");
        const int post = w.resultsModel()->column(ResultsModel::Kind::PostRatio, "elapsed_s");
        for (int c : { 0, ratio, post }) {
            const int right = table->horizontalHeader()->sectionViewportPosition(c) + table->horizontalHeader()->sectionSize(c);
            QVERIFY2(right <= table->viewport()->width(), qPrintable(QStringLiteral("column %1 ends at %2 of %3").arg(c).arg(right).arg(table->viewport()->width())));
        }
    }
};

QTEST_MAIN(TestComparisons)
#include "tst_comparisons.moc"
