// A real kernel's lock capture (written by mmscope-cli import) beside a simulated run: its table under the run's
// lockstat, painted; the A/B compare picks it and sets the two sides' most contended locks side by side; a file that
// is not one gives a message naming it.
#include "comparepanel.h"
#include "enginecontroller.h"
#include "lockcaptureview.h"
#include "mainwindow.h"
#include "quietwindow.h"
#include "resultsmodel.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace mms;

class TestLockCapture : public QObject {
    Q_OBJECT
    static QString golden(const char* name)
    {
        return QStringLiteral(MMSCOPE_TEST_DATA "/golden/") + QLatin1String(name);
    }

private Q_SLOTS:
    void captureBesideARun()
    {
        MainWindow w(test::quietWindow());
        w.resize(1400, 900);
        w.setScale(0.01);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        QVERIFY(!w.captureView()->isVisible());
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY2(w.openCapture(golden("capture-lockstat.json")), qPrintable(w.lastError()));
        QTRY_VERIFY(w.captureView()->isVisible());
        QCOMPARE(w.captureView()->model()->rowCount(), 7);
        // Sorted by wait time like the run's table: &si->lock (41822.09 us) first.
        QCOMPARE(w.captureView()->model()->index(0, 0).data().toString(), QStringLiteral("&si->lock"));
        QCOMPARE(w.captureView()->model()->index(0, 3).data().toULongLong(), 3120ull);
        // Painted: the table shows text, not a blank area.
        const QImage img = w.captureView()->table()->viewport()->grab().toImage();
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2)
                colours.insert(img.pixel(x, y));
        QVERIFY2(colours.size() > 4, qPrintable(QString::number(colours.size())));

        // The compare: B is the capture, A a simulated run; both sides list their locks.
        ComparePanel* cmp = w.comparePanel();
        auto* pickB = cmp->findChildren<QComboBox*>().at(1);
        QCOMPARE(pickB->currentText(), QStringLiteral("real kernel: lockstat.txt"));
        const QString summary = cmp->summaryText();
        QVERIFY2(summary.contains("&amp;si-&gt;lock"), qPrintable(summary));
        QVERIFY2(summary.contains("swap_info[0].lock") || summary.contains("lru_lock") || summary.contains("ptl"),
            qPrintable(summary));
        QVERIFY2(summary.contains("41822.1"), qPrintable(summary)); // &si->lock's wait in us

        // A new run keeps the capture as B.
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
        QCOMPARE(pickB->currentText(), QStringLiteral("real kernel: lockstat.txt"));
    }

    void notACapture()
    {
        MainWindow w(test::quietWindow());
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"locks\": []}");
        f.close();
        QVERIFY(!w.openCapture(bad));
        QVERIFY2(w.lastError().contains(bad + ": results: expected an array of runs"), qPrintable(w.lastError()));
        QVERIFY(!w.openCapture(dir.filePath("none.json")));
        QVERIFY2(w.lastError().contains("none.json: cannot read"), qPrintable(w.lastError()));
        QVERIFY(!w.captureView()->isVisibleTo(&w));
    }
};

QTEST_MAIN(TestLockCapture)
#include "tst_lockcapture.moc"
