// The whole window: a small run fills every view; bad input gives a message, not a crash; cancelling keeps it usable.
#include "enginecontroller.h"
#include "mainwindow.h"
#include "pagemapview.h"
#include "parametereditor.h"
#include "resultsmodel.h"
#include "transportbar.h"

#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mms;

class TestMainWindow : public QObject {
    Q_OBJECT
    static MainWindow::Options quiet()
    {
        MainWindow::Options o;
        o.restoreLayout = false;
        o.dialogs = false;
        return o;
    }
    static int distinctColours(const QImage& img, QRect r)
    {
        QSet<QRgb> c;
        for (int y = r.top(); y < r.bottom(); y += 2)
            for (int x = r.left(); x < r.right(); x += 2)
                c.insert(img.pixel(x, y));
        return int(c.size());
    }

private Q_SLOTS:
    void smallRunFillsTheWindow()
    {
        MainWindow w(quiet());
        w.resize(1400, 900);
        w.setScale(0.01);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(w.resultsModel()->rowCount(), 3);
        QVERIFY(w.selectVariant(QStringLiteral("madvfree")));
        w.goToFraction(0.3);
        QVERIFY(w.transport()->time() > 0);
        QTest::qWait(100);
        const QImage shot = w.grab().toImage();
        QVERIFY(distinctColours(shot, shot.rect()) > 40);
        const QImage map = w.pageMap()->grab().toImage();
        QVERIFY2(distinctColours(map, QRect(0, 30, map.width(), map.height() / 2)) >= 2, "the page map is blank");
        // keyboard: → steps one frame, Home goes to 0
        const Time t = w.transport()->time();
        QTest::keyClick(&w, Qt::Key_Right);
        QCOMPARE(w.transport()->time(), t + w.transport()->step());
        QTest::keyClick(&w, Qt::Key_Home);
        QCOMPARE(w.transport()->time(), Time(0));
    }

    void badScenarioFileIsNamed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"id\": \"x\", \"machine\": {\"cpus\": \"many\"}");
        f.close();
        MainWindow w(quiet());
        QVERIFY(!w.loadScenario(path));
        QVERIFY2(w.lastError().contains(QLatin1String("broken.json")), qPrintable(w.lastError()));
        QVERIFY(!w.loadScenario(QStringLiteral("no-such-scenario")));
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
    }

    void parameterEditorValidatesAsYouType_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("valid");
        QTest::addRow("cpus ok") << "machine.cpus" << "8" << true;
        QTest::addRow("cpus text") << "machine.cpus" << "many" << false;
        QTest::addRow("cpus zero") << "machine.cpus" << "0" << false;
        QTest::addRow("memory ok") << "machine.memory" << "2GiB" << true;
        QTest::addRow("memory junk") << "machine.memory" << "lots" << false;
        QTest::addRow("toggle ok") << "variants.madvfree.madvise.free_swap_entries" << "true" << true;
        QTest::addRow("toggle junk") << "variants.madvfree.madvise.advice" << "sometimes" << false;
    }
    void parameterEditorValidatesAsYouType()
    {
        QFETCH(QString, path);
        QFETCH(QString, value);
        QFETCH(bool, valid);
        ParameterEditor e;
        e.setScenario(loadScenario("madv-free-swapin"));
        QVERIFY2(e.field(path), qPrintable(path));
        const std::string before = e.scenario()->json().dump();
        QCOMPARE(e.edit(path, value), valid);
        if (valid) {
            QVERIFY(e.lastError().isEmpty());
            QVERIFY(e.scenario()->json().dump() != before || value == QLatin1String("true"));
        } else {
            QVERIFY(!e.lastError().isEmpty());
            QCOMPARE(e.scenario()->json().dump(), before); // the last valid scenario stays
        }
    }

    void cancelKeepsTheAppUsable()
    {
        MainWindow w(quiet());
        w.setScale(0.05);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        w.controller()->cancel();
        QVERIFY(!w.controller()->isRunning());
        w.setScale(0.01);
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(w.results()->scale, 0.01);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
