// The engine bridge: runs off the GUI thread, delivers snapshots, drops superseded runs, cancels.
#include "enginecontroller.h"

#include "run/recording.h"
#include "run/runner.h"

#include <QSignalSpy>
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
