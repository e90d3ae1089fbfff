// The engine bridge: runs off the GUI thread, delivers snapshots, drops superseded runs, cancels.
#include "enginecontroller.h"

#include "run/recording.h"
#include "run/runner.h"

#include <QSignalSpy>

#include <algorithm>
#include <mutex>
#include <QTest>

using namespace mms;

class TestEngineController : public QObject {
    Q_OBJECT
    static EngineController::Request request(double scale)
    {
        EngineController::Request r;
        r.scenario = std::make_shared<const Scenario>(loadScenario("madv-free-swapin"));
        r.scale = scale;
        r.threads = 2;
        return r;
    }

private Q_SLOTS:
    void deliversResultsWithRecordings()
    {
        EngineController c;
        QSignalSpy started(&c, &EngineController::runStarted);
        QSignalSpy progress(&c, &EngineController::progressChanged);
        QSignalSpy finished(&c, &EngineController::runFinished);
        c.start(request(0.01));
        QCOMPARE(started.count(), 1);
        QVERIFY(c.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(!c.isRunning());
        auto rs = finished.at(0).at(0).value<std::shared_ptr<const ResultSet>>();
        QVERIFY(rs);
        QCOMPARE(rs->results.size(), std::size_t(3));
        for (const RunResult& r : rs->results) {
            QVERIFY(r.recording);
            QVERIFY(r.recording->frameCount() > 2);
        }
        QVERIFY(progress.count() >= 2);
        QCOMPARE(progress.last().at(0).toDouble(), 1.0);
        QCOMPARE(c.results(), rs);
    }

    // While it runs: the results of the runs done so far (one more each time, in the final order), and the watched
    // run's recording growing, all before the final results, which hold every run.
    void streamsWhileRunning()
    {
        EngineController c;
        QSignalSpy partial(&c, &EngineController::partialResults);
        QSignalSpy live(&c, &EngineController::liveRecording);
        QSignalSpy finished(&c, &EngineController::runFinished);
        EngineController::Request r = request(0.01);
        r.threads = 1;
        r.liveRun = 2;
        r.livePeriodSeconds = 0;
        c.start(r);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        auto rs = finished.at(0).at(0).value<std::shared_ptr<const ResultSet>>();
        QCOMPARE(partial.count(), 3);
        for (int i = 0; i < partial.count(); ++i) {
            auto p = partial.at(i).at(0).value<std::shared_ptr<const ResultSet>>();
            QCOMPARE(p->results.size(), std::size_t(i + 1));
            for (const RunResult& run : p->results)
                QVERIFY(std::any_of(rs->results.begin(), rs->results.end(), [&](const RunResult& f) { return f.variant == run.variant; }));
        }
        QVERIFY2(live.count() >= 2, qPrintable(QString::number(live.count())));
        std::size_t frames = 0;
        for (int i = 0; i < live.count(); ++i) {
            auto rec = live.at(i).at(0).value<std::shared_ptr<const Recording>>();
            QVERIFY(rec && rec->frameCount() > 0);
            frames = std::max(frames, rec->frameCount());
        }
        QVERIFY(frames > 2);
    }

    void supersededRunIsDropped()
    {
        EngineController c;
        QSignalSpy finished(&c, &EngineController::runFinished);
        QSignalSpy cancelled(&c, &EngineController::runCancelled);
        c.start(request(0.02));
        const quint64 second = c.start(request(0.01));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QTest::qWait(200); // a stale delivery would arrive in this window
        QCOMPARE(finished.count(), 1);
        QCOMPARE(c.generation(), second);
        QCOMPARE(finished.at(0).at(0).value<std::shared_ptr<const ResultSet>>()->scale, 0.01);
        QCOMPARE(cancelled.count(), 1);
    }

    void cancelLeavesControllerUsable()
    {
        EngineController c;
        QSignalSpy finished(&c, &EngineController::runFinished);
        QSignalSpy cancelled(&c, &EngineController::runCancelled);
        c.start(request(0.05));
        c.cancel();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!c.isRunning());
        QTest::qWait(300);
        QCOMPARE(finished.count(), 0);
        c.start(request(0.01));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    }

    static EngineController::Request oneRun(double scale)
    {
        EngineController::Request r = request(scale);
        OJson doc = r.scenario->json();
        const OJson madvfree = doc["variants"]["madvfree"];
        doc["variants"] = OJson::object({ { "madvfree", madvfree } });
        r.scenario = std::make_shared<const Scenario>(Scenario::fromJson(doc, "one run"));
        return r;
    }

    void runnerReportsProgressInsideARun()
    {
        // One run: per-run progress alone would jump from 0 to 1. The workload's own progress moves in between,
        // in steps of at least 0.1 %, never backwards, and ends at 1.
        auto sc = oneRun(0.03).scenario;
        std::mutex m;
        std::vector<double> seen;
        RunnerOptions opts;
        opts.scale = 0.03;
        opts.threads = 2;
        opts.progressFraction = [&](double f) {
            std::lock_guard<std::mutex> lock(m);
            seen.push_back(f);
        };
        const ResultSet rs = runScenario(*sc, opts);
        QCOMPARE(rs.results.size(), std::size_t(1));
        QVERIFY2(seen.size() >= 10, qPrintable(QString::number(seen.size())));
        QCOMPARE(seen.back(), 1.0);
        QVERIFY(std::count_if(seen.begin(), seen.end(), [](double f) { return f > 0.05 && f < 0.95; }) >= 5);
        for (std::size_t i = 1; i < seen.size(); ++i)
            QVERIFY(seen[i] >= seen[i - 1] + 0.001 - 1e-12); // single-threaded here: in order
    }

    void cancelInsideARun()
    {
        // The GUI's progress bar moves during the one run; cancelling then stops it mid-run, and the controller
        // takes the next run.
        EngineController c;
        QSignalSpy progress(&c, &EngineController::progressChanged);
        QSignalSpy finished(&c, &EngineController::runFinished);
        QSignalSpy cancelled(&c, &EngineController::runCancelled);
        c.start(oneRun(0.1));
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0 && progress.last().at(0).toDouble() >= 0.02, 60000);
        const double at = progress.last().at(0).toDouble();
        QVERIFY2(at < 1.0, "the run finished before it could be cancelled: raise the scale");
        c.cancel();
        QCOMPARE(cancelled.count(), 1);
        QTest::qWait(300);
        QCOMPARE(finished.count(), 0);
        for (int i = 1; i < progress.count(); ++i)
            QVERIFY(progress.at(i).at(0).toDouble() >= progress.at(i - 1).at(0).toDouble() || progress.at(i).at(0).toDouble() == 0.0);
        c.start(request(0.01));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    }

    void badScenarioFailsCleanly()
    {
        EngineController c;
        QSignalSpy failed(&c, &EngineController::runFailed);
        EngineController::Request r = request(0.01);
        OJson doc = r.scenario->json();
        doc["workload"]["kind"] = "no-such-workload";
        try {
            r.scenario = std::make_shared<const Scenario>(Scenario::fromJson(doc, "test"));
        } catch (const ScenarioError&) {
            QSKIP("the engine rejects the document up front (as it should); nothing reaches the runner");
        }
        c.start(r);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QVERIFY(!failed.at(0).at(0).toString().isEmpty());
    }
};

QTEST_MAIN(TestEngineController)
#include "tst_enginecontroller.moc"
