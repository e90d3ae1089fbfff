// A machine of two NUMA nodes in the views: the page map lays each node's pages out as a block of its own (first
// cell at the node's first PFN, blank rows between the blocks, a label beside each, the node in the tooltip), one
// node's map is one block as it always was, and the lock views keep a lock's node when they elide its name.
#include "pagemapview.h"
#include "recordingview.h"

#include "viewrecordings.h"

#include <QTest>

#include <algorithm>

using namespace mms;

namespace {
// Pixels of the shot in rect (widget coordinates) that are not the background colour.
int inkIn(const QImage& shot, const QRect& rect, QRgb background)
{
    int ink = 0;
    const qreal dpr = shot.devicePixelRatio();
    const QRect device((QPointF(rect.topLeft()) * dpr).toPoint(), (QPointF(rect.bottomRight()) * dpr).toPoint());
    const QRect r = device.intersected(shot.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            ink += (shot.pixel(x, y) & 0xffffff) != (background & 0xffffff);
    return ink;
}
} // namespace

class TestNumaViews : public QObject {
    Q_OBJECT
    std::shared_ptr<const Recording> m_two;
    std::shared_ptr<const Recording> m_one;

private Q_SLOTS:
    void initTestCase()
    {
        m_two = test::twoNodeRecording();
        QVERIFY(m_two && m_two->frameCount() > 10);
        QCOMPARE(m_two->nodeCount(), 2);
        m_one = test::madvfreeRecording("madvfree");
        QVERIFY(m_one && m_one->frameCount() > 10);
        QCOMPARE(m_one->nodeCount(), 1);
        QVERIFY2(QFontMetrics(QFont()).inFont(QChar('A')), "no usable font: install fonts-dejavu-core");
    }

    void pageMapGroupsPagesByNode_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addRow("landscape") << QSize(520, 320);
        QTest::addRow("wide") << QSize(900, 260);
        QTest::addRow("portrait") << QSize(300, 620);
    }
    void pageMapGroupsPagesByNode()
    {
        QFETCH(QSize, size);
        PageMapView v;
        v.resize(size);
        v.setRecording(m_two, QStringLiteral("two nodes"));
        const std::size_t f = m_two->frameCount() / 2;
        v.setTime(m_two->frameTime(f));
        const QImage shot = v.grab().toImage();
        const qreal dpr = shot.devicePixelRatio();
        const QRgb background = v.palette().color(QPalette::Window).rgb();
        const std::vector<std::uint8_t> states = m_two->pageMap(f);
        const auto& pal = pageStatePalette();
        const std::uint32_t second = m_two->nodeStarts()[1];
        QVERIFY(second > 0 && second < m_two->pageCount());

        // Each block's first cell is its node's first page, in the map's first column.
        const int cols = v.columns();
        for (int nid = 0; nid < 2; ++nid) {
            const std::uint32_t start = m_two->nodeStarts()[std::size_t(nid)];
            const QPoint first = v.cellCentre(start);
            QCOMPARE(v.pfnAt(first), qint64(start));
            QCOMPARE(first.x(), v.cellCentre(0).x());
            QCOMPARE(v.frameImage().pixelIndex(0, v.nodeRow(nid)), int(states[start]));
        }
        // Node 1 starts on a row of its own, below node 0's last row and the blank rows after it.
        const int lastRow0 = int((second - 1) / std::uint32_t(cols));
        QVERIFY(v.nodeRow(1) > lastRow0 + 1);

        // Between the blocks: the background, no page, across the whole width.
        const QPoint above = v.cellCentre(second - 1 - (second - 1) % std::uint32_t(cols)); // node 0's last row
        const QPoint below = v.cellCentre(second);
        const int gapY = (above.y() + below.y()) / 2;
        QVERIFY(below.y() - above.y() >= 3);
        int checked = 0;
        for (int c = 0; c < cols; c += std::max(1, cols / 37)) {
            const QPoint p(v.cellCentre(std::uint32_t(c)).x(), gapY);
            QCOMPARE(v.pfnAt(p), qint64(-1));
            QCOMPARE(shot.pixel(p * dpr) & 0xffffff, background & 0xffffff);
            ++checked;
        }
        QVERIFY(checked > 10);

        // Every page is where the view says, in its state's colour, on either node.
        checked = 0;
        for (std::size_t pfn = 0; pfn < states.size(); pfn += states.size() / 211 + 1) {
            const QPoint p = v.cellCentre(quint32(pfn));
            QCOMPARE(v.pfnAt(p), qint64(pfn));
            QCOMPARE(shot.pixel(p * dpr) & 0xffffff, pal[states[pfn]] & 0xffffff);
            ++checked;
        }
        for (const std::uint32_t pfn : { second - 1, second, m_two->pageCount() - 1 }) {
            QCOMPARE(v.pfnAt(v.cellCentre(pfn)), qint64(pfn));
            QCOMPARE(shot.pixel(v.cellCentre(pfn) * dpr) & 0xffffff, pal[states[pfn]] & 0xffffff);
        }
        QVERIFY(checked > 150);

        // A label left of each block, level with its first row; nothing left of the blank rows.
        const int gutter = v.cellCentre(0).x() - 1;
        const int lineH = v.fontMetrics().height();
        for (int nid = 0; nid < 2; ++nid) {
            const int top = v.cellCentre(m_two->nodeStarts()[std::size_t(nid)]).y() - 1;
            QVERIFY2(inkIn(shot, QRect(QPoint(0, top), QPoint(gutter / 2, top + lineH)), background) > 10,
                     qPrintable(QStringLiteral("no label at node %1").arg(nid)));
        }
        QCOMPARE(inkIn(shot, QRect(QPoint(0, gapY), QPoint(gutter, gapY)), background), 0);
    }

    void pageMapTooltipNamesTheNode()
    {
        PageMapView v;
        v.resize(520, 320);
        v.setRecording(m_two, QStringLiteral("two nodes"));
        v.setTime(m_two->frameTime(m_two->frameCount() / 2));
        const std::uint32_t second = m_two->nodeStarts()[1];
        QVERIFY(v.tooltipText(0).startsWith(QStringLiteral("pfn 0 (0x0), node 0\n")));
        QVERIFY(v.tooltipText(second - 1).contains(QStringLiteral(", node 0\n")));
        QVERIFY(v.tooltipText(second).startsWith(QStringLiteral("pfn %1 (0x%2), node 1\n").arg(second).arg(second, 0, 16)));
        QVERIFY(v.tooltipText(m_two->pageCount() - 1).contains(QStringLiteral(", node 1\n")));
    }

    // One node: one block from the first row, every row full but the last, no gutter, no node in the tooltip.
    void oneNodeIsOneBlock()
    {
        PageMapView v;
        v.resize(420, 320);
        v.setRecording(m_one, QStringLiteral("madvfree"));
        const std::size_t f = m_one->frameCount() / 2;
        v.setTime(m_one->frameTime(f));
        const std::vector<std::uint8_t> states = m_one->pageMap(f);
        const int cols = v.columns();
        const QImage& img = v.frameImage();
        QCOMPARE(img.width(), cols);
        QCOMPARE(img.height(), int((states.size() + std::size_t(cols) - 1) / std::size_t(cols)));
        for (int y = 0; y < img.height(); y += std::max(1, img.height() / 29)) {
            const std::size_t from = std::size_t(y) * std::size_t(cols);
            const std::size_t len = std::min<std::size_t>(std::size_t(cols), states.size() - from);
            QVERIFY(std::equal(states.begin() + std::ptrdiff_t(from), states.begin() + std::ptrdiff_t(from + len), img.constScanLine(y)));
        }
        // Centred in the whole width: the same margin left and right.
        const double cell = double(v.cellCentre(1).x() - v.cellCentre(0).x());
        const double left = v.cellCentre(0).x() - cell / 2, right = v.width() - (v.cellCentre(quint32(cols - 1)).x() + cell / 2);
        QVERIFY2(std::abs(left - right) <= 2, qPrintable(QStringLiteral("%1 vs %2").arg(left).arg(right)));
        QVERIFY(!v.tooltipText(0).contains(QStringLiteral("node")));
    }

    // A node's lock keeps its node however narrow the label; a lock of no node is elided in the middle.
    void lockNamesKeepTheirNode_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("keeps");
        QTest::addRow("node 0") << "node0 zone->lru_lock" << "node0 ";
        QTest::addRow("node 1") << "node1 zone->lru_lock" << "node1 ";
        QTest::addRow("no node") << "swap_info_struct->lock" << "swap";
    }
    void lockNamesKeepTheirNode()
    {
        QFETCH(QString, name);
        QFETCH(QString, keeps);
        const QFontMetrics fm { QFont() };
        QCOMPARE(elideLockName(fm, name.toStdString(), fm.horizontalAdvance(name) + 2), name);
        for (const int w : { fm.horizontalAdvance(name) * 3 / 4, fm.horizontalAdvance(name) / 2 + 4 }) {
            const QString e = elideLockName(fm, name.toStdString(), w);
            QVERIFY2(e.startsWith(keeps) && e.contains(QChar(0x2026)), qPrintable(e));
            QVERIFY2(fm.horizontalAdvance(e) <= w, qPrintable(e));
        }
    }

    // The recording names each node's lru_lock, as the lock views show it.
    void lockViewsGetEachNodesLock()
    {
        const auto& names = m_two->lockNames();
        for (const char* n : { "node0 zone->lru_lock", "node1 zone->lru_lock" })
            QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n);
        QVERIFY(std::none_of(names.begin(), names.end(), [](const std::string& n) { return n == "zone->lru_lock"; }));
    }
};

QTEST_MAIN(TestNumaViews)
#include "tst_numaviews.moc"
