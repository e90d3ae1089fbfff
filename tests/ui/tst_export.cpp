// Export: every chart writes a valid PNG, PDF and SVG; tables and the report carry the results; an unwritable
// folder is reported, not crashed on; the item models pass QAbstractItemModelTester.
#include "comparepanel.h"
#include "counterplot.h"
#include "cpulockmapview.h"
#include "cputimelineview.h"
#include "export.h"
#include "lockheatmapview.h"
#include "pagemapview.h"
#include "report.h"
#include "resultschart.h"
#include "resultsmodel.h"

#include "run/recording.h"
#include "run/runner.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace mms;

class TestExport : public QObject {
    Q_OBJECT
    std::shared_ptr<const Scenario> m_sc;
    std::shared_ptr<const ResultSet> m_rs;
    QTemporaryDir m_dir;

    static QByteArray head(const QString& path, int n)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
    }
    static void verifyFile(const QString& path)
    {
        const QString kind = exportKind(path);
        if (kind == QLatin1String("png"))
            QCOMPARE(head(path, 8), QByteArray("\x89PNG\r\n\x1a\n", 8));
        else if (kind == QLatin1String("pdf"))
            QCOMPARE(head(path, 5), QByteArray("%PDF-"));
        else {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QXmlStreamReader xml(&f);
            bool sawSvg = false;
            while (!xml.atEnd())
                if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg"))
                    sawSvg = true;
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QVERIFY(sawSvg);
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_sc = std::make_shared<const Scenario>(loadScenario("madv-free-swapin"));
        RunnerOptions opts;
        opts.scale = 0.01;
        opts.threads = 2;
        opts.recording.enabled = true;
        m_rs = std::make_shared<const ResultSet>(runScenario(*m_sc, opts));
        QCOMPARE(m_rs->results.size(), std::size_t(3));
    }

    void chartsExport_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<QString>("ext");
        for (const char* chart : { "results", "counters", "pagemap", "heatmap", "cpulocks", "timeline", "compare" })
            for (const char* ext : { "png", "pdf", "svg" })
                QTest::addRow("%s.%s", chart, ext) << QString::fromLatin1(chart) << QString::fromLatin1(ext);
    }
    void chartsExport()
    {
        QFETCH(QString, chart);
        QFETCH(QString, ext);
        const QString path = m_dir.filePath(chart + QLatin1Char('.') + ext);
        QString error;
        bool ok = false;
        if (chart == QLatin1String("results")) {
            ResultsChart c;
            c.resize(700, 400);
            c.setResults(m_sc, m_rs);
            QCOMPARE(c.seriesCount(), 2); // simulated and published bars
            ok = c.exportTo(path, &error);
        } else if (chart == QLatin1String("counters")) {
            CounterPlot c;
            c.resize(700, 400);
            c.setSeries({ { QStringLiteral("madvfree"), m_rs->results[1].recording } });
            ok = c.exportTo(path, &error);
        } else if (chart == QLatin1String("compare")) {
            ComparePanel c;
            c.resize(900, 400);
            c.setResults(m_sc, m_rs);
            c.setTime(midRun());
            ok = exportWidget(&c, path, &error);
        } else {
            // The views that paint themselves, each at a third of the madvfree run.
            std::unique_ptr<QWidget> w;
            auto show = [&](auto* v) {
                v->setRecording(m_rs->results[1].recording, QStringLiteral("madvfree"));
                v->setTime(midRun());
                w.reset(v);
            };
            if (chart == QLatin1String("pagemap"))
                show(new PageMapView);
            else if (chart == QLatin1String("heatmap"))
                show(new LockHeatmapView);
            else if (chart == QLatin1String("cpulocks"))
                show(new CpuLockMapView);
            else
                show(new CpuTimelineView);
            w->resize(500, 400);
            ok = exportWidget(w.get(), path, &error);
        }
        QVERIFY2(ok, qPrintable(error));
        verifyFile(path);
    }

    Time midRun() const { return m_rs->results[1].recording->frameTime(m_rs->results[1].recording->frameCount() / 3); }

    void unwritableFolderIsReported()
    {
        ResultsChart c;
        c.setResults(m_sc, m_rs);
        QString error;
        QVERIFY(!c.exportTo(QStringLiteral("/proc/no-such-dir/chart.png"), &error));
        QVERIFY2(error.contains(QLatin1String("/proc/no-such-dir")), qPrintable(error));
        std::string err;
        QVERIFY(!writeReport(*m_sc, *m_rs, "/proc/no-such-dir/report.html", err));
        QVERIFY2(err.find("/proc/no-such-dir") != std::string::npos, err.c_str());
        QVERIFY(!writeReport(*m_sc, *m_rs, m_dir.filePath(QStringLiteral("report.doc")).toStdString(), err));
    }

    void htmlReportHasTablesAndCharts()
    {
        const QString path = m_dir.filePath(QStringLiteral("report.html"));
        std::string error;
        QVERIFY2(writeReport(*m_sc, *m_rs, path.toStdString(), error), error.c_str());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(f.readAll());
        QVERIFY(html.contains(QLatin1String("<table")));
        for (const char* v : { "dontneed", "madvfree", "madvfree-patched", "swapins", "elapsed_s" })
            QVERIFY2(html.contains(QLatin1String(v)), v);
        QVERIFY(html.contains(QLatin1String("data:image/png;base64,")));
        // The ratio table and a ratio chart per metric (one value axis: simulated and post ratios side by side).
        QVERIFY(html.contains(QStringLiteral("<th>elapsed_s<br>÷ dontneed</th><th><br>post</th><th><br>Δ vs post</th>")));
        for (const std::string& m : m_sc->metrics())
            QVERIFY2(html.contains(QStringLiteral("alt=\"%1 ÷ dontneed per variant, simulated beside the post\"").arg(QString::fromStdString(m))), m.c_str());
        QVERIFY(html.contains(QString::fromStdString(m_sc->json()["source"]["seed"].get<std::string>())));
        // Both lock views per variant: locks x time and CPUs x locks, as images.
        for (const char* v : { "dontneed", "madvfree", "madvfree-patched" }) {
            QVERIFY2(html.contains(QStringLiteral("CPUs × locks, %1:").arg(QLatin1String(v))), v);
            QVERIFY2(html.contains(QStringLiteral("Locks × time, %1:").arg(QLatin1String(v))), v);
        }
        // 3 results charts (one per metric), the counter charts, 2 lock charts per variant: each an image.
        QVERIFY(html.count(QLatin1String("<img src=\"data:image/png;base64,")) >= int(m_sc->metrics().size()) + 6);
        // Every image is laid out at its logical width (at most the page's 980 px), its caption intact.
        static const QRegularExpression img(QStringLiteral("<img src=\"data:image/png;base64,[^\"]*\" width=\"(\\d+)\" alt=\"([^\"]*)\">"));
        int images = 0;
        for (auto it = img.globalMatch(html); it.hasNext(); ++images) {
            const auto m = it.next();
            QVERIFY2(m.captured(1).toInt() <= 980, qPrintable(m.captured(2)));
            QVERIFY(!m.captured(2).isEmpty());
        }
        QCOMPARE(images, int(html.count(QLatin1String("<img "))));
    }

    void pdfReport()
    {
        const QString path = m_dir.filePath(QStringLiteral("report.pdf"));
        std::string error;
        QVERIFY2(writeReport(*m_sc, *m_rs, path.toStdString(), error), error.c_str());
        QCOMPARE(head(path, 5), QByteArray("%PDF-"));
        QVERIFY(QFileInfo(path).size() > 20000); // the charts are in it
    }

    void tablesAsText()
    {
        ResultsModel m;
        m.setResults(m_sc, m_rs);
        QCOMPARE(m.rowCount(), 3);
        const QString csv = modelToCsv(m);
        // The headline metric first: the ratio to the baseline, the post's ratio, their distance, the scaled figure.
        QVERIFY2(csv.startsWith(QStringLiteral("variant,elapsed_s ÷ dontneed,elapsed_s post ÷ dontneed,elapsed_s ratio vs post,elapsed_s at scale 0.01")),
                 qPrintable(csv.left(200)));
        const QString md = modelToMarkdown(m);
        QVERIFY(md.contains(QLatin1String("| madvfree-patched |")));
    }

    void modelsPassTheTester()
    {
        ResultsModel results;
        QAbstractItemModelTester t1(&results, QAbstractItemModelTester::FailureReportingMode::QtTest);
        results.setResults(m_sc, m_rs);
        results.setResults(nullptr, nullptr);
        results.setResults(m_sc, m_rs);
        LockStatModel locks;
        QAbstractItemModelTester t2(&locks, QAbstractItemModelTester::FailureReportingMode::QtTest);
        locks.setLocks(m_rs->results[1].locks);
        QVERIFY(locks.rowCount() > 0);
    }
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
