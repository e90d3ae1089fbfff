// The CPUs x locks map is hot where the recording's per-CPU lock wait is, cold where there is none, follows the
// cursor; the page map's tooltip names the page's real flags and owner.
#include "cpulockmapview.h"
#include "lockheatmapview.h"
#include "pagemapview.h"
#include "recordingview.h"

#include "run/recording.h"
#include "run/run.h"

#include <QTest>

using namespace mms;

namespace {
std::shared_ptr<const Recording> recordingOf(const std::string& variant)
{
    static Scenario sc = loadScenario("madv-free-swapin");
    RunSpec spec;
    spec.scenario = &sc;
    spec.variant = variant;
    spec.scale = 0.01;
    spec.seed = runSeed(sc.seed(), variant, spec.point, 0);
    spec.recording.enabled = true;
    return executeRun(spec).recording;
}

int colourDistance(QRgb a, QRgb b) { return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b)); }
} // namespace

class TestCpuLockMap : public QObject {
    Q_OBJECT
    std::shared_ptr<const Recording> m_rec;

private Q_SLOTS:
    void initTestCase()
    {
        m_rec = recordingOf("madvfree");
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
        for (std::uint32_t p = 0; p < map.size(); ++p) {
            if (freePfn < 0 && map[p] == std::uint8_t(PageState::Free))
                freePfn = p;
            if (anonPfn < 0 && (map[p] == std::uint8_t(PageState::AnonActive) || map[p] == std::uint8_t(PageState::AnonInactive)))
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
                if (m[p] == std::uint8_t(PageState::AnonActive) || m[p] == std::uint8_t(PageState::AnonInactive)) {
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
