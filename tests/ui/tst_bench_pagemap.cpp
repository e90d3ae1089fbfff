// Speed, measured not asserted (docs/benchmarks.md has the figures): one page-map frame at 1 M and 16 M pages
// (aim: <= 16 ms and <= 50 ms), stepping one frame back, and the GUI event loop's longest stall while a run is in
// progress (aim: <= 50 ms). The machine is sized by memory (pages) with a tiny workload so the run itself is short.
// Run with -maxwarmuprepeat or -iterations N for steadier numbers; 16 M pages only with MMSCOPE_BENCH_BIG=1.
#include "enginecontroller.h"
#include "mainwindow.h"
#include "pagemapview.h"

#include "quietwindow.h"
#include "run/recording.h"
#include "run/run.h"

#include <QElapsedTimer>

#include <map>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace mms;

namespace {
std::shared_ptr<const Recording> bigRecording(const char* memory)
{
    // QBENCHMARK runs the test function again for each measurement: build each machine once.
    static std::map<std::string, std::shared_ptr<const Recording>> cache;
    auto& cached = cache[memory];
    if (cached)
        return cached;
    Scenario sc = loadScenario("madv-free-swapin");
    sc.set("machine.memory", memory);
    sc.set("workload.processes", "4");
    sc.set("workload.size", "\"64MiB\"");
    sc.set("workload.loops", "1");
    RunSpec spec;
    spec.scenario = &sc;
    spec.variant = "madvfree";
    spec.scale = 1.0;
    spec.seed = 1;
    spec.recording.enabled = true;
    spec.recording.interval = ms(2);
    cached = executeRun(spec).recording;
    return cached;
}
} // namespace

class BenchPageMap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void frame_data()
    {
        QTest::addColumn<QString>("memory");
        QTest::addRow("1M pages") << QStringLiteral("4GiB");
        if (qEnvironmentVariableIsSet("MMSCOPE_BENCH_BIG"))
            QTest::addRow("16M pages") << QStringLiteral("64GiB");
    }
    void frame()
    {
        QFETCH(QString, memory);
        auto rec = bigRecording(memory.toLatin1().constData());
        QVERIFY(rec && rec->frameCount() >= 4);
        qInfo("%s: %zu pages, %zu frames", qPrintable(memory), std::size_t(rec->pageCount()), rec->frameCount());
        PageMapView v;
        v.resize(1000, 700);
        v.setRecording(rec, QStringLiteral("bench"));
        QImage target(v.size(), QImage::Format_ARGB32_Premultiplied);
        std::size_t f = 1;
        QBENCHMARK {
            // a new frame: decode (keyframe + deltas), copy into the indexed image, paint
            f = f + 1 < rec->frameCount() ? f + 1 : 1;
            v.setTime(rec->frameTime(f));
            v.render(&target);
        }
    }
    void stepBack()
    {
        auto rec = bigRecording("4GiB");
        PageMapView v;
        v.resize(1000, 700);
        v.setRecording(rec, QStringLiteral("bench"));
        const std::size_t last = rec->frameCount() - 1;
        QImage target(v.size(), QImage::Format_ARGB32_Premultiplied);
        bool back = true;
        QBENCHMARK {
            v.setTime(rec->frameTime(back ? last - 1 : last));
            v.render(&target);
            back = !back;
        }
    }
    void eventLoopStallDuringRun()
    {
        EngineController c;
        QSignalSpy finished(&c, &EngineController::runFinished);
        EngineController::Request r;
        r.scenario = std::make_shared<const Scenario>(loadScenario("madv-free-swapin"));
        r.scale = 0.05;
        QElapsedTimer clock;
        qint64 last = 0, worst = 0;
        QTimer tick;
        tick.setInterval(5);
        QObject::connect(&tick, &QTimer::timeout, &tick, [&] {
            const qint64 now = clock.elapsed();
            worst = std::max(worst, now - last);
            last = now;
        });
        clock.start();
        tick.start();
        c.start(r);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        // Measured and printed, never asserted (docs/benchmarks.md): the machine may be loaded.
        qInfo("longest GUI event-loop stall while running: %lld ms (aim <= 50 ms)", worst);
    }
    void eventLoopStallMainWindow()
    {
        // The whole window, shown, with its progress bar moving inside each run: the longest gap between two 5 ms
        // ticks while the run goes, and separately the one that holds the delivery of the results (every view
        // rebuilt from the recordings at once).
        MainWindow w(mms::test::quietWindow());
        w.resize(1280, 800);
        w.setScale(0.05);
        QVERIFY(w.loadScenario(QStringLiteral("madv-free-swapin")));
        w.show();
        QTest::qWait(200);
        QElapsedTimer clock;
        std::vector<qint64> ticks;
        QTimer tick;
        tick.setInterval(5);
        QObject::connect(&tick, &QTimer::timeout, &tick, [&] { ticks.push_back(clock.elapsed()); });
        qint64 delivered = -1;
        int progressUpdates = 0;
        QObject::connect(w.controller(), &EngineController::progressChanged, &w, [&] { ++progressUpdates; });
        QObject::connect(w.controller(), &EngineController::runFinished, &w, [&] { delivered = clock.elapsed(); });
        clock.start();
        tick.start();
        ticks.push_back(0);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(delivered >= 0, 120000);
        QTest::qWait(100);
        qint64 running = 0, delivery = 0;
        for (std::size_t i = 1; i < ticks.size(); ++i) {
            const qint64 gap = ticks[i] - ticks[i - 1];
            if (ticks[i] < delivered)
                running = std::max(running, gap);
            else if (ticks[i - 1] <= delivered)
                delivery = std::max(delivery, gap);
        }
        qInfo("main window, %d progress updates: longest stall while running %lld ms (aim <= 50 ms); "
              "delivering the results to every view %lld ms; run %lld ms",
            progressUpdates, running, delivery, delivered);
    }
};

QTEST_MAIN(BenchPageMap)
#include "tst_bench_pagemap.moc"
