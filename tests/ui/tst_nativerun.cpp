// The app's native run (the Native run dock) as a user runs it: the scenario as edited runs through mmscope-cli
// native, its table fills the dock, a host's refusal is shown as the CLI words it, and Cancel leaves nothing behind.
// Tiny scales: a few MiB per process.
#include "mainwindow.h"
#include "nativerunview.h"
#include "quietwindow.h"
#include "scenario/scenario.h"

#include <QtTest>

#include <QComboBox>
#include <QDir>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

namespace {
bool emptyDir(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty();
}

// A column of the view's table, top to bottom.
QStringList column(const QTableWidget* t, int c)
{
    QStringList out;
    for (int r = 0; r < t->rowCount(); ++r)
        out << (t->item(r, c) ? t->item(r, c)->text() : QString());
    return out;
}
} // namespace

class TestNativeRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!qEnvironmentVariable("MMSCOPE_CLI").isEmpty(), "MMSCOPE_CLI is set by CTest");
        // Everything the CLI makes goes under its TMPDIR: checked empty after each run.
        QVERIFY(m_tmp.isValid());
        qputenv("TMPDIR", m_tmp.path().toLocal8Bit());
    }

    // The edited scenario (loops=2, one variant) is what runs; the table holds its measured and simulated figures.
    void editedScenarioRunsAndFillsTheTable()
    {
        mms::Scenario sc = mms::loadScenario("madv-free-swapin");
        sc.set("loops", "2");
        mms::NativeRunView view;
        view.setScenario(sc, 0.01);
        auto* variant = view.findChild<QComboBox*>(QStringLiteral("nativeVariant"));
        QVERIFY(variant);
        QCOMPARE(variant->count(), 1 + int(sc.variantNames().size()));
        variant->setCurrentIndex(variant->findData(QStringLiteral("madvfree")));
        view.setNoPressure(true);
        QSignalSpy done(&view, &mms::NativeRunView::finished);
        QVERIFY2(view.start(), qPrintable(view.error()));
        QVERIFY(view.running());
        QVERIFY(done.wait(120'000));
        QVERIFY2(done.front().front().toBool(), qPrintable(view.error()));
        QVERIFY(view.arguments().contains(QStringLiteral("--no-pressure")));
        QCOMPARE(view.arguments().at(view.arguments().indexOf(QStringLiteral("--variant")) + 1), QStringLiteral("madvfree"));
        const QStringList metrics = column(view.table(), 1);
        QVERIFY2(metrics.contains(QStringLiteral("elapsed_s")) && metrics.contains(QStringLiteral("pgfault")), qPrintable(metrics.join(' ')));
        QCOMPARE(column(view.table(), 0).front(), QStringLiteral("madvfree"));
        QCOMPARE(column(view.table(), 0).count(QStringLiteral("dontneed")), 0);
        const int elapsed = int(metrics.indexOf(QStringLiteral("elapsed_s")));
        QVERIFY(view.table()->item(elapsed, 2)->text().toDouble() > 0);
        QVERIFY(view.table()->item(elapsed, 3)->text().toDouble() > 0);
        // loops=2 reached the program: 2 x 12 processes' memset faults, not the built-in 5 loops' worth.
        const int faults = int(metrics.indexOf(QStringLiteral("pgfault")));
        const double nativeFaults = view.table()->item(faults, 2)->text().toDouble();
        const double simulatedFaults = view.table()->item(faults, 3)->text().toDouble();
        QVERIFY2(nativeFaults > 0.5 * simulatedFaults && nativeFaults < 2 * simulatedFaults,
            qPrintable(QStringLiteral("%1 native, %2 simulated").arg(nativeFaults).arg(simulatedFaults)));
        QVERIFY2(emptyDir(m_tmp.path()), qPrintable(QDir(m_tmp.path()).entryList().join(' ')));
    }

    // With memory pressure the host either gives a cgroup with swap (and it runs) or the CLI's refusal is the error.
    void pressureRunsOrTheRefusalIsShown()
    {
        mms::Scenario sc = mms::loadScenario("madv-free-swapin");
        sc.set("loops", "1");
        mms::NativeRunView view;
        view.setScenario(sc, 0.01);
        QSignalSpy done(&view, &mms::NativeRunView::finished);
        QVERIFY(view.start());
        QVERIFY(done.wait(120'000));
        if (!done.front().front().toBool()) {
            QVERIFY2(view.error().contains(QStringLiteral("needs memory pressure")), qPrintable(view.error()));
            QVERIFY2(view.error().contains(QStringLiteral("--no-pressure")), qPrintable(view.error()));
            QVERIFY(!view.error().startsWith(QStringLiteral("mmscope-cli")));
            QCOMPARE(view.table()->rowCount(), 0);
        }
        QVERIFY(emptyDir(m_tmp.path()));
    }

    // Cancel while the processes run: the run ends as cancelled, and the CLI's directory and scenario file are gone.
    void cancelLeavesNothing()
    {
        mms::Scenario sc = mms::loadScenario("madv-free-swapin");
        sc.set("loops", "1000");
        mms::NativeRunView view;
        view.setScenario(sc, 0.01);
        view.setNoPressure(true);
        QSignalSpy done(&view, &mms::NativeRunView::finished);
        QVERIFY(view.start());
        auto* log = view.findChild<QPlainTextEdit*>();
        QVERIFY(log);
        QTRY_VERIFY_WITH_TIMEOUT(log->toPlainText().contains(QStringLiteral(": dontneed: ")), 30'000);
        QVERIFY(view.running());
        QVERIFY(!emptyDir(m_tmp.path()));
        view.cancel();
        QVERIFY(done.wait(30'000));
        QCOMPARE(done.front().front().toBool(), false);
        QCOMPARE(view.error(), QStringLiteral("cancelled"));
        QVERIFY2(emptyDir(m_tmp.path()), qPrintable(QDir(m_tmp.path()).entryList().join(' ')));
    }

    // The Run menu's action runs the scenario shown, at the app's scale, in the Native run dock.
    void mainWindowActionUsesTheShownScenario()
    {
        mms::MainWindow w(mms::test::quietWindow());
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.setScale(0.01);
        w.nativeRun()->setNoPressure(true);
        QSignalSpy done(w.nativeRun(), &mms::NativeRunView::finished);
        w.runNatively();
        QVERIFY(w.nativeRun()->running());
        const QStringList args = w.nativeRun()->arguments();
        QCOMPARE(args.at(args.indexOf(QStringLiteral("--scale")) + 1), QStringLiteral("0.01"));
        w.nativeRun()->cancel();
        QVERIFY(done.wait(30'000));
        QVERIFY(emptyDir(m_tmp.path()));
    }

private:
    QTemporaryDir m_tmp;
};

QTEST_MAIN(TestNativeRun)
#include "tst_nativerun.moc"
