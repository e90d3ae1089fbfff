// The whole window: a small run fills every view; bad input gives a message, not a crash; cancelling keeps it usable.
#include "cputimesview.h"
#include "enginecontroller.h"
#include "mainwindow.h"
#include "pagemapview.h"
#include "parametereditor.h"
#include "quietwindow.h"
#include "recordingview.h"
#include "resultsmodel.h"
#include "sourcepostview.h"
#include "transportbar.h"

#include "scenario/runsetup.h"
#include "scenario/scale.h"

#include <QFile>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace mms;

class TestMainWindow : public QObject {
    Q_OBJECT
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
        MainWindow w(test::quietWindow());
        w.resize(1400, 900);
        w.setScale(0.01);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(w.resultsModel()->rowCount(), 3);
        QVERIFY(w.selectVariant(QStringLiteral("madvfree")));
        // The counters' CPU times are the shown run's.
        for (const char* variant : { "dontneed", "madvfree" }) {
            QVERIFY(w.selectVariant(QString::fromLatin1(variant)));
            const auto shown = std::find_if(w.results()->results.begin(), w.results()->results.end(),
                                            [&](const RunResult& r) { return r.variant == variant; });
            QCOMPARE(w.cpuTimes()->cpus().size(), shown->cpus.size());
            QCOMPARE(w.cpuTimes()->cpus().back().sysS, shown->cpus.back().sysS);
            QVERIFY(w.cpuTimes()->summary().contains(formatTime(ns(shown->metrics.at("elapsed_s") * 1e9))));
        }
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
        MainWindow w(test::quietWindow());
        QVERIFY(!w.loadScenario(path));
        QVERIFY2(w.lastError().contains(QLatin1String("broken.json")), qPrintable(w.lastError()));
        QVERIFY(!w.loadScenario(QStringLiteral("no-such-scenario")));
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
    }

    void brokenFileGivesADialog_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("names"); // what the dialog must name besides the file
        QTest::addRow("truncated JSON") << QByteArray("{\"id\": \"x\", \"machine\": {\"cpus\": 4}") << QStringLiteral("parse");
        QTest::addRow("wrong type") << QByteArray(R"({"id": "x", "title": "t", "machine": {"preset": "generic-12cpu-2015", "cpus": "many"},
            "workload": {"kind": "memset-madvise"}, "variants": {"a": {}}, "metrics": ["elapsed_s"]})") << QStringLiteral("machine.cpus");
        QTest::addRow("unknown workload") << QByteArray(R"({"id": "x", "title": "t", "machine": {"preset": "generic-12cpu-2015"},
            "workload": {"kind": "fork-bomb"}, "variants": {"a": {}}, "metrics": ["elapsed_s"]})") << QStringLiteral("fork-bomb");
    }
    void brokenFileGivesADialog()
    {
        // With dialogs on, as the app runs: opening the file shows a message box naming the file and the problem,
        // and the window keeps its scenario.
        QFETCH(QByteArray, content);
        QFETCH(QString, names);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        MainWindow::Options o = test::quietWindow();
        o.dialogs = true;
        MainWindow w(o);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        QString shown;
        QTimer::singleShot(0, &w, [&] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) {
                    shown = box->text();
                    box->accept();
                }
        });
        QVERIFY(!w.loadScenario(path));
        QVERIFY2(shown.contains(QLatin1String("broken.json")), qPrintable(shown));
        QVERIFY2(shown.contains(names, Qt::CaseInsensitive), qPrintable(shown));
        QCOMPARE(w.parameters()->scenario()->id(), std::string("madv-free-swapin"));
    }

    void sourcePostIsOneClickAway()
    {
        MainWindow w(test::quietWindow());
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        auto* button = w.findChild<QPushButton*>(QStringLiteral("source-post-button"));
        QVERIFY(button);
        QVERIFY(button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        auto* post = w.findChild<SourcePostView*>(QStringLiteral("source-post"));
        QVERIFY(post);
        QTRY_VERIFY(post->isVisible());
        QVERIFY(post->text().contains(QLatin1String("madvise_free")));
        // At the table: the swapin counts and the /usr/bin/time lines of the post.
        QVERIFY2(post->highlightedText().contains(QLatin1String("879,585")), qPrintable(post->highlightedText()));
    }

    void sourcePostOfEveryScenario_data()
    {
        QTest::addColumn<QString>("id");
        for (const ScenarioInfo& s : builtinScenarios())
            QTest::addRow("%s", s.id.c_str()) << QString::fromStdString(s.id);
    }
    void sourcePostOfEveryScenario()
    {
        // Every built-in scenario's post is built in (a clean clone has no ../shared), reads as lines, and where
        // the scenario has published figures the viewer lands on a passage holding them.
        QFETCH(QString, id);
        const Scenario sc = loadScenario(id.toStdString());
        SourcePostView v;
        QVERIFY2(v.showScenario(sc), qPrintable(QString::fromStdString(sc.json()["source"].dump())));
        const QString text = v.text();
        QVERIFY(text.size() > 1000);
        // Where the archive collapsed the mail onto a few long lines, the reader breaks it up again: headers,
        // trailers and quoted lines start lines of their own.
        const std::string_view raw = sourcePost(sourceSeed(sc));
        const auto rawLines = std::count(raw.begin(), raw.end(), '\n') + 1;
        const QStringList lines = text.split(QLatin1Char('\n'));
        int longest = 0;
        for (const QString& line : lines)
            longest = std::max(longest, int(line.size()));
        if (longest > 1500 || rawLines < 10) {
            QVERIFY2(lines.size() >= 3 * rawLines, qPrintable(QStringLiteral("%1 -> %2 lines").arg(rawLines).arg(lines.size())));
            QVERIFY(std::any_of(lines.begin(), lines.end(), [](const QString& l) {
                return l.startsWith(QLatin1String("Subject: ")) || l.startsWith(QLatin1String("From: "));
            }));
        }
        // Figures from other mails of the post's thread ("messages") are not in the post to land on.
        if (!sc.published().is_object() || sc.published().empty() || sc.published().contains("messages"))
            return;
        const QString mark = v.highlightedText();
        QVERIFY2(!mark.isEmpty(), "no published figure found in the post");
        int figures = 0;
        static const QRegularExpression number(QStringLiteral("\\d[\\d,]*\\.?\\d*"));
        for (auto it = number.globalMatch(mark); it.hasNext(); it.next())
            ++figures;
        QVERIFY2(figures >= 2, qPrintable(mark));
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

    void failedRunKeepsTheEdits()
    {
        // A run that fails after Run was pressed (here: 1TiB doubled by --scale 2 is past what a PTE can address,
        // which resolve() refuses in the worker) says what failed, of which run; the parameter panel keeps every
        // edit, and correcting the one bad value runs the others.
        MainWindow w(test::quietWindow());
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        ParameterEditor* p = w.parameters();
        const QString memory = p->field(QStringLiteral("machine.memory"))->text();
        QVERIFY(p->edit(QStringLiteral("reps"), QStringLiteral("2")));
        QVERIFY(p->edit(QStringLiteral("machine.memory"), QStringLiteral("1TiB")));
        w.setScale(2);
        QSignalSpy failed(w.controller(), &EngineController::runFailed);
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QCOMPARE(finished.count(), 0);
        QVERIFY(!w.controller()->isRunning());
        const QString error = w.lastError();
        QVERIFY2(error.contains(QLatin1String("madv-free-swapin at scale 2")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("machine.memory")) && error.contains(QLatin1String("1TiB")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("parameters are kept")), qPrintable(error));
        QCOMPARE(p->field(QStringLiteral("machine.memory"))->text(), QStringLiteral("1TiB"));
        QCOMPARE(p->field(QStringLiteral("reps"))->text(), QStringLiteral("2"));
        QCOMPARE(p->scenario()->reps(), 2);
        QCOMPARE(p->scenario()->resolve("madvfree", OJson::object(), 1.0).machine.memoryBytes, std::uint64_t(1) << 40);

        QVERIFY(p->edit(QStringLiteral("machine.memory"), memory));
        w.setScale(0.01);
        w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(w.resultsScenario()->reps(), 2);
        QCOMPARE(w.results()->results.size(), std::size_t(3 * 2)); // 3 variants x the edited 2 repetitions
    }

    void invalidFieldIsNotRunInstead()
    {
        // A field the engine refused stays red with the user's text; Run must not quietly run the last valid value
        // in its place: it refuses, naming the field, and starts nothing. Once corrected, the edits run.
        MainWindow w(test::quietWindow());
        w.setScale(0.01);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        ParameterEditor* p = w.parameters();
        QVERIFY(p->edit(QStringLiteral("reps"), QStringLiteral("2")));
        QVERIFY(!p->edit(QStringLiteral("machine.cpus"), QStringLiteral("many")));
        QSignalSpy started(w.controller(), &EngineController::runStarted);
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        QCOMPARE(started.count(), 0);
        QVERIFY2(w.lastError().contains(QLatin1String("machine.cpus")), qPrintable(w.lastError()));
        QCOMPARE(p->field(QStringLiteral("machine.cpus"))->text(), QStringLiteral("many"));
        QCOMPARE(p->field(QStringLiteral("reps"))->text(), QStringLiteral("2"));
        QCOMPARE(p->invalidFields().size(), std::size_t(1));

        QVERIFY(p->edit(QStringLiteral("machine.cpus"), QStringLiteral("4")));
        QVERIFY(p->invalidFields().empty());
        w.startRun();
        QCOMPARE(started.count(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(w.resultsScenario()->json()["machine"]["cpus"].get<int>(), 4);
        QCOMPARE(w.results()->results.size(), std::size_t(3 * 2));
    }

    // The spin box takes the range mmscope-cli takes (scenario/scale.h), so a scale set in one runs in the other.
    void scaleSpinBoxTakesTheCliRange()
    {
        MainWindow w(test::quietWindow());
        auto* spin = w.findChild<QDoubleSpinBox*>();
        QVERIFY(spin);
        QCOMPARE(spin->minimum(), kMinScale);
        QCOMPARE(spin->maximum(), kMaxScale);
        w.setScale(kMinScale);
        QCOMPARE(w.scale(), kMinScale);
    }

    // While the run goes on the views play the watched run's recording so far, the time cursor at its latest frame
    // until the user moves it back, and the results table gains a row as each run ends; the final results then take
    // over every view.
    void viewsAnimateWhileRunning()
    {
        MainWindow w(test::quietWindow());
        w.resize(1400, 900);
        w.setScale(0.06);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        QSignalSpy live(w.controller(), &EngineController::liveRecording);
        QSignalSpy partial(w.controller(), &EngineController::partialResults);
        QSignalSpy finished(w.controller(), &EngineController::runFinished);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(live.count() >= 1, 30000);
        QVERIFY(finished.isEmpty());
        QVERIFY(w.transport()->end() > 0);
        QCOMPARE(w.transport()->time(), w.transport()->end());
        QVERIFY(w.resultsModel()->rowCount() < 3);
        // Moved back, the cursor stays where the user put it while frames arrive.
        w.transport()->setTime(0);
        const int seen = int(live.count());
        QTRY_VERIFY_WITH_TIMEOUT(live.count() > seen || finished.count() == 1, 30000);
        if (finished.isEmpty()) {
            QCOMPARE(w.transport()->time(), Time(0));
            QVERIFY(w.transport()->end() > 0);
        }
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(partial.count() >= 1);
        QCOMPARE(w.resultsModel()->rowCount(), 3);
        QVERIFY(w.results() && w.results()->results.size() == 3);
    }

    void cancelKeepsTheAppUsable()
    {
        MainWindow w(test::quietWindow());
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
