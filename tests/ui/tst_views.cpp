// Views that look at pixels: the page map shows the engine's page states, stepping back and forth gives the same
// image, the lock heatmap is hot where lockstat has contention.
#include "cputimelineview.h"
#include "lockheatmapview.h"
#include "pagemapview.h"
#include "recordingview.h"

#include "viewrecordings.h"

#include <algorithm>

#include <QTest>

using namespace mms;

using test::colourDistance;
using test::migrationRecording;

class TestViews : public QObject {
    Q_OBJECT
    std::shared_ptr<const Recording> m_rec;

private Q_SLOTS:
    void initTestCase()
    {
        m_rec = test::madvfreeRecording("madvfree");
        QVERIFY(m_rec && m_rec->frameCount() > 10);
        QVERIFY2(QFontMetrics(QFont()).inFont(QChar('A')), "no usable font: install fonts-dejavu-core");
    }

    void pageMapMatchesEngineStates_data()
    {
        QTest::addColumn<double>("fraction");
        QTest::addRow("start") << 0.0;
        QTest::addRow("quarter") << 0.25;
        QTest::addRow("middle") << 0.5;
        QTest::addRow("end") << 1.0;
    }
    void pageMapMatchesEngineStates()
    {
        QFETCH(double, fraction);
        PageMapView v;
        v.resize(420, 320);
        v.setRecording(m_rec, QStringLiteral("madvfree"));
        const std::size_t f = std::min(m_rec->frameCount() - 1, std::size_t(fraction * double(m_rec->frameCount())));
        v.setTime(m_rec->frameTime(f));
        QCOMPARE(v.frame(), f);
        const QImage shot = v.grab().toImage();
        const std::vector<std::uint8_t> states = m_rec->pageMap(f);
        const auto& pal = pageStatePalette();
        int checked = 0;
        for (std::size_t pfn = 0; pfn < states.size(); pfn += states.size() / 97 + 1) {
            const QPoint p = v.cellCentre(quint32(pfn));
            QCOMPARE(v.pfnAt(p), qint64(pfn));
            const QRgb got = shot.pixel(p * shot.devicePixelRatio()) & 0xffffff;
            QCOMPARE(got, pal[states[pfn]] & 0xffffff);
            ++checked;
        }
        QVERIFY(checked > 50);
    }

    void framesDifferAndStepBackIsExact()
    {
        PageMapView v;
        v.resize(420, 320);
        v.setRecording(m_rec, QStringLiteral("madvfree"));
        const std::size_t n = m_rec->frameCount();
        v.setTime(m_rec->frameTime(n / 4));
        const QImage a = v.frameImage().copy();
        v.setTime(m_rec->frameTime(n / 2));
        const QImage b = v.frameImage().copy();
        QVERIFY(a != b);
        // step back one frame at a time, then forward again
        const std::size_t at = n / 2 + 3;
        v.setTime(m_rec->frameTime(at));
        const QImage before = v.grab().toImage();
        for (std::size_t f = at; f-- > at - 20;)
            v.setTime(m_rec->frameTime(f));
        for (std::size_t f = at - 20; f <= at; ++f)
            v.setTime(m_rec->frameTime(f));
        QCOMPARE(v.grab().toImage(), before);
    }

    void heatmapIsHotWhereLockstatHasContention()
    {
        LockHeatmapView v;
        v.resize(600, 300);
        v.setRecording(m_rec, QStringLiteral("madvfree"));
        const QImage shot = v.grab().toImage();
        // the (lock, frame) with the most wait, and a lock/frame with none
        std::size_t bestL = 0, bestF = 0, idleL = 0, idleF = 0;
        Time best = -1;
        bool haveIdle = false;
        for (std::size_t l = 0; l < m_rec->lockNames().size(); ++l)
            for (std::size_t f = 0; f < m_rec->frameCount(); ++f) {
                const LockFrame& lf = m_rec->lockFrame(l, f);
                if (lf.wait > best) {
                    best = lf.wait;
                    bestL = l;
                    bestF = f;
                }
                bool quiet = lf.wait == 0 && (f == 0 || m_rec->lockFrame(l, f - 1).wait == 0)
                    && (f + 1 >= m_rec->frameCount() || m_rec->lockFrame(l, f + 1).wait == 0);
                if (quiet && !haveIdle) {
                    haveIdle = true;
                    idleL = l;
                    idleF = f;
                }
            }
        QVERIFY2(best > 0, "the madvfree run has lock contention");
        const QRgb none = heatColour(0) & 0xffffff;
        const QPoint hot = v.cellCentre(bestL, bestF) * shot.devicePixelRatio();
        QVERIFY(qGray(shot.pixel(hot)) < qGray(none) - 40);
        if (haveIdle)
            QCOMPARE(shot.pixel(v.cellCentre(idleL, idleF) * shot.devicePixelRatio()) & 0xffffff, none);
    }

    void heatmapRowsFollowLockstat()
    {
        // Row by row against the run's lockstat (what `mmscope-cli run --format json` reports): a lock that lockstat
        // says was waited for has hot cells in its row; one that was never waited for is "none" all along.
        const RunResult run = test::madvfreeRun("madvfree");
        const Recording& rec = *run.recording;
        LockHeatmapView v;
        v.resize(700, 80 + 18 * int(rec.lockNames().size()));
        v.setRecording(run.recording, QStringLiteral("madvfree"));
        const QImage shot = v.grab().toImage();
        const QRgb none = heatColour(0) & 0xffffff;
        Time heaviest = 0;
        for (const LockSummary& s : run.locks)
            heaviest = std::max(heaviest, s.waitTotal);
        int hotRows = 0, quietRows = 0;
        for (const LockSummary& s : run.locks) {
            const auto it = std::find(rec.lockNames().begin(), rec.lockNames().end(), s.name);
            QVERIFY2(it != rec.lockNames().end(), s.name.c_str());
            const auto l = std::size_t(it - rec.lockNames().begin());
            Time recorded = 0;
            for (std::size_t f = 0; f < rec.frameCount(); ++f)
                recorded += rec.lockFrame(l, f).wait;
            QCOMPARE(recorded > 0, s.waitTotal > 0);
            int hot = 0;
            const int cursorX = v.cellCentre(l, 0).x(); // the time cursor's line is drawn at t = 0
            // The last frame's cell, a pixel or two wide with a few hundred frames, may lie under the plot's border.
            for (std::size_t f = 0; f + 1 < rec.frameCount(); ++f) {
                const QPoint c = v.cellCentre(l, f);
                if (c.x() > cursorX + 2 && (shot.pixel(c * shot.devicePixelRatio()) & 0xffffff) != none)
                    ++hot;
            }
            if (s.waitTotal == 0) {
                QVERIFY2(hot == 0, s.name.c_str());
                ++quietRows;
            } else if (s.waitTotal * 20 >= heaviest) { // a lock with a twentieth of the top wait shows colour
                QVERIFY2(hot > 0, s.name.c_str());
                ++hotRows;
            }
        }
        QVERIFY(hotRows >= 1);
        QVERIFY(quietRows >= 1);
    }

    // The timeline's bins lie where their time is on the axis: late in the run, a stretch where a CPU was busy is
    // drawn at that time in that bin's colour. (On migration-unmapped the recording's bins ended at 2.5 ms of a
    // 10 ms axis, the last frame being a tick long after the run.)
    void cpuTimelineBinsFollowTheAxis()
    {
        const auto rec = migrationRecording();
        QVERIFY(rec && rec->frameCount() > 1);
        CpuTimelineView v;
        v.resize(1000, 1100);
        v.setRecording(rec, QStringLiteral("baseline"));
        const QImage shot = v.grab().toImage();
        const QRect a = v.plotArea();
        const Time end = recordingEnd(*rec), w = rec->binWidth();
        const std::size_t from = rec->binCount() * 9 / 10, stretch = 12;
        int checked = 0;
        for (int c = 0; c < rec->cpuCount(); ++c) {
            const auto& bins = rec->cpuBins(c);
            for (std::size_t b = from; b + stretch <= bins.size(); ++b) {
                bool busy = true;
                for (std::size_t i = b; i < b + stretch && busy; ++i)
                    busy = bins[i].run >= 0.95f && bins[i].topFn == bins[b].topFn;
                if (!busy)
                    continue;
                const Time mid = Time(b + stretch / 2) * w;
                const int x = a.left() + int(double(mid) / double(end) * a.width());
                // the CPU's middle main row: each CPU has 3 rows of colour and a lock-hold strip
                const int y = a.top() + int((c * 4 + 1.5) * a.height() / (rec->cpuCount() * 4));
                const QRgb px = shot.pixel(x, y);
                int best = 1000;
                for (std::size_t i = b; i < b + stretch; ++i)
                    best = std::min(best, colourDistance(px, CpuTimelineView::binColour(bins[i], rec->functionNames())));
                QVERIFY2(best < 12, qPrintable(QStringLiteral("cpu %1 bin %2: pixel %3").arg(c).arg(b).arg(px, 0, 16)));
                QVERIFY(std::size_t(v.timeAt(a, x) / w) + 3 >= b && std::size_t(v.timeAt(a, x) / w) <= b + stretch + 3);
                ++checked;
                break;
            }
        }
        QVERIFY2(checked > 0, "no CPU was busy in the last tenth of the run");
    }

    // A task asleep on a mutex or rwsem is not its CPU's time: a bin where the CPU did nothing else is drawn in the
    // lock-sleep colour, far from the lock-spin red; where another task ran, that task's function shows. On the
    // recorded sleeping-mutex run, CPU 1 is drawn running c's user code, then free (it was drawn red throughout).
    void cpuTimelineDrawsALockSleepAsAFreeCpu()
    {
        const std::vector<std::string> names { "idle", "user", "m" };
        CpuBin asleep, spinning, other;
        asleep.lockSleep = 1;
        asleep.sleepFn = 2;
        spinning.run = spinning.lockWait = 1;
        spinning.topFn = 2;
        other.run = other.lockSleep = 1;
        other.topFn = 1;
        other.sleepFn = 2;
        const QRgb sleepColour = CpuTimelineView::binColour(asleep, names);
        const QRgb spinColour = CpuTimelineView::binColour(spinning, names);
        QVERIFY(colourDistance(sleepColour, spinColour) > 150);
        QVERIFY(colourDistance(sleepColour, CpuTimelineView::binColour(CpuBin {}, names)) > 60);
        QCOMPARE(CpuTimelineView::binColour(other, names), CpuTimelineView::functionColour("user").rgb());

        const test::SleepingMutexRun run = test::sleepingMutexRecording();
        const Recording& rec = *run.recording;
        CpuTimelineView v;
        v.resize(800, 300);
        v.setRecording(run.recording, QStringLiteral("sleeping mutex"));
        const QImage shot = v.grab().toImage();
        const QRect a = v.plotArea();
        const Time end = recordingEnd(rec);
        auto pixelAt = [&](int cpu, Time t) {
            const int x = a.left() + int(double(t) / double(end) * a.width());
            const int y = a.top() + int((cpu * 4 + 1.5) * a.height() / (rec.cpuCount() * 4));
            return shot.pixel(x, y);
        };
        const QRgb user = CpuTimelineView::functionColour("user").rgb();
        const Time cRuns = (2 * run.contextSwitch + run.cFinished) / 2, free = (run.cFinished + run.release) / 2;
        QVERIFY2(colourDistance(pixelAt(1, cRuns), user) < 12, qPrintable(QString::number(pixelAt(1, cRuns), 16)));
        QVERIFY2(colourDistance(pixelAt(1, free), sleepColour) < 12, qPrintable(QString::number(pixelAt(1, free), 16)));
        QVERIFY(colourDistance(pixelAt(1, free), spinColour) > 150);
    }

    void cpuTimelineIsNotBlank()
    {
        CpuTimelineView v;
        v.resize(600, 300);
        v.setRecording(m_rec, QStringLiteral("madvfree"));
        const QImage shot = v.grab().toImage();
        QSet<QRgb> colours;
        for (int y = 30; y < shot.height() / 2; y += 3)
            for (int x = 60; x < shot.width() - 10; x += 3)
                colours.insert(shot.pixel(x, y));
        QVERIFY2(colours.size() > 10, qPrintable(QString::number(colours.size())));
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
