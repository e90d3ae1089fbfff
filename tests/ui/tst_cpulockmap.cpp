// The CPUs x locks map is hot where the recording's per-CPU lock wait is, cold where there is none, follows the
// cursor, marks where the CPUs change sockets; the page map's tooltip names the page's real flags and owner.
#include "cpulockmapview.h"
#include "lockheatmapview.h"
#include "pagemapview.h"
#include "recordingview.h"

#include "viewrecordings.h"

#include "sync/lockstat.h"

#include <QTest>

using namespace mms;

using test::colourDistance;
using test::migrationRecording;

class TestCpuLockMap : public QObject {
    Q_OBJECT
    std::shared_ptr<const Recording> m_rec;

private Q_SLOTS:
    void initTestCase()
    {
        m_rec = test::madvfreeRecording("madvfree");
        QVERIFY(m_rec && m_rec->frameCount() > 10);
    }

    void hotWhereTheRecordingWaits()
    {
        CpuLockMapView v;
        v.resize(480, 300);
        v.setRecording(m_rec, QStringLiteral("madvfree"));
        v.setTime(recordingEnd(*m_rec));
        QCOMPARE(v.frame(), m_rec->frameCount() - 1);
        QVERIFY(!v.lockColumns().empty());
        QVERIFY(v.peakShare() > 0);
        const QImage shot = v.grab().toImage();
        int hot = 0, cold = 0;
        for (std::size_t col = 0; col < v.lockColumns().size(); ++col)
            for (int c = 0; c < m_rec->cpuCount(); ++c) {
                Time total = 0;
                for (std::size_t f = 0; f < m_rec->frameCount(); ++f)
                    total += m_rec->lockCpuWait(v.lockColumns()[col], c, f);
                QCOMPARE(v.waitUpTo(c, col), total);
                const QPoint at = v.cellCentre(c, col);
                QVERIFY(!at.isNull());
                const QRgb px = shot.pixel(at);
                if (total == 0) {
                    QVERIFY2(colourDistance(px, heatColour(0)) < 12, qPrintable(QStringLiteral("cpu %1 col %2").arg(c).arg(col)));
                    ++cold;
                } else if (v.waitShare(c, col) >= v.peakShare() * 0.999) {
                    QVERIFY2(colourDistance(px, heatColour(1.0)) < 12, qPrintable(QStringLiteral("cpu %1 col %2").arg(c).arg(col)));
                    ++hot;
                }
            }
        QVERIFY(hot > 0);
        Q_UNUSED(cold);
    }

    // migration-unmapped (120 CPUs, a 3 ms run) at 80 % of the run: the i_mmap mutex, a sleeping lock, has hot
    // cells, and so do the spinlocks; each cell is the CPU's wait up to the cursor. (The recording had two frames,
    // 0 and 10 ms, so the cursor at 8 ms fell on frame 0 and every cell was empty: peak 0.00 %.)
    void sleepingAndSpinningWaitsAtTheCursor()
    {
        const auto rec = migrationRecording();
        QVERIFY(rec && rec->frameCount() > 1);
        CpuLockMapView v;
        v.resize(640, 1000); // 120 rows of about 5 px
        v.setRecording(rec, QStringLiteral("baseline"));
        const Time at = recordingEnd(*rec) * 8 / 10;
        v.setTime(at);
        QVERIFY(v.peakShare() > 0);
        QVERIFY(rec->frameTime(v.frame()) > at / 2);
        const QImage shot = v.grab().toImage();
        bool sawMutex = false, sawSpinlock = false;
        for (std::size_t col = 0; col < v.lockColumns().size(); ++col) {
            const std::string& name = rec->lockNames()[v.lockColumns()[col]];
            int hot = 0;
            for (int c = 0; c < rec->cpuCount(); ++c) {
                Time upTo = 0;
                for (std::size_t f = 0; f <= v.frame(); ++f)
                    upTo += rec->lockCpuWait(v.lockColumns()[col], c, f);
                QCOMPARE(v.waitUpTo(c, col), upTo);
                if (upTo > 0) { // any wait is drawn off the "none" colour
                    QVERIFY2(colourDistance(shot.pixel(v.cellCentre(c, col)), heatColour(0)) > 12, name.c_str());
                    ++hot;
                }
            }
            sawMutex = sawMutex || (name == "mapping->i_mmap_mutex" && hot > 0);
            sawSpinlock = sawSpinlock || (lockClass(name) == "zone->lock" && hot > 0); // node<n> zone->lock
        }
        QVERIFY(sawMutex);
        QVERIFY(sawSpinlock);
    }

    // The four sockets of migration-unmapped's 120 CPUs (each socket one cache) are marked beside the rows: a line in
    // the labels' margin exactly where two neighbouring rows' CPUs sit on different sockets, none elsewhere.
    void marksWhereTheSocketsChange()
    {
        const auto rec = migrationRecording();
        QVERIFY(rec && rec->cpuCount() > 1);
        CpuLockMapView v;
        v.resize(640, 1000);
        v.setRecording(rec, QStringLiteral("baseline"));
        v.setTime(recordingEnd(*rec));
        QVERIFY(!v.lockColumns().empty());
        const QImage shot = v.grab().toImage();
        const QRgb text = v.palette().color(QPalette::Text).rgb();
        int changes = 0;
        for (int c = 1; c < rec->cpuCount(); ++c) {
            const int y = (v.cellCentre(c - 1, 0).y() + v.cellCentre(c, 0).y()) / 2;
            bool line = false;
            for (int dy = -1; dy <= 1; ++dy)
                line = line || colourDistance(shot.pixel(3, y + dy), text) < 60;
            const bool change = rec->cpuPlace(c).socket != rec->cpuPlace(c - 1).socket;
            QVERIFY(rec->cpuPlace(c).llc != rec->cpuPlace(c - 1).llc || !change);
            QVERIFY2(line == change, qPrintable(QStringLiteral("between CPU %1 and CPU %2").arg(c - 1).arg(c)));
            changes += change;
        }
        QVERIFY(changes >= 3);
    }

    void followsTheCursor()
    {
        CpuLockMapView v;
        v.resize(480, 300);
        v.setRecording(m_rec, QStringLiteral("madvfree"));
        v.setTime(0);
        QCOMPARE(v.frame(), std::size_t(0));
        QCOMPARE(v.peakShare(), 0.0);
        const QImage start = v.grab().toImage();
        v.setTime(recordingEnd(*m_rec));
        const QImage end = v.grab().toImage();
        QVERIFY(start != end);
        v.setTime(0);
        QCOMPARE(v.grab().toImage(), start);
    }

    void pageTooltipHasFlagsAndOwner()
    {
        PageMapView v;
        v.resize(420, 320);
        v.setRecording(m_rec, QStringLiteral("madvfree"));
        const std::size_t last = m_rec->frameCount() - 1;
        v.setTime(recordingEnd(*m_rec));
        const auto map = m_rec->pageMap(last);
        qint64 freePfn = -1, anonPfn = -1;
        auto isAnon = [](std::uint8_t s) {
            return s == std::uint8_t(PageMapState::AnonActive) || s == std::uint8_t(PageMapState::AnonInactive);
        };
        for (std::uint32_t p = 0; p < map.size(); ++p) {
            if (freePfn < 0 && map[p] == std::uint8_t(PageMapState::Free))
                freePfn = p;
            if (anonPfn < 0 && isAnon(map[p]))
                anonPfn = p;
        }
        QVERIFY(freePfn >= 0);
        const QString free = v.tooltipText(quint32(freePfn));
        QVERIFY2(free.contains(QStringLiteral("PG_buddy")) && free.contains(QStringLiteral("owner: none"))
                     && free.contains(QStringLiteral("list: buddy")),
                 qPrintable(free));
        // A page's tooltip at an earlier frame comes from that frame, not the last.
        for (std::size_t f = 0; f < last && anonPfn < 0; ++f) {
            const auto m = m_rec->pageMap(f);
            for (std::uint32_t p = 0; p < m.size(); ++p)
                if (isAnon(m[p])) {
                    anonPfn = p;
                    v.setTime(m_rec->frameTime(f));
                    break;
                }
        }
        QVERIFY(anonPfn >= 0);
        const QString anon = v.tooltipText(quint32(anonPfn));
        QVERIFY2(anon.contains(QStringLiteral("PG_lru")) && anon.contains(QStringLiteral("PG_swapbacked"))
                     && anon.contains(QStringLiteral("_anon")) && !anon.contains(QStringLiteral("owner: none")),
                 qPrintable(anon));
    }
};

QTEST_MAIN(TestCpuLockMap)
#include "tst_cpulockmap.moc"
