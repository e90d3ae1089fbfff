#include "pagemapview.h"

#include "legendflow.h"
#include "recordingview.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mms {

namespace {
    constexpr uchar kNoPageIndex = 255; // image cells past the last page
    constexpr int kStates = static_cast<int>(PageMapState::Count);

    // Wide enough for the state at 100.0 %, so no entry moves as the shares change during playback.
    int legendEntryWidth(const QFontMetrics& fm, PageMapState s)
    {
        return 14 + fm.horizontalAdvance(pageStateLabel(s) + QStringLiteral(" 100.0%")) + 12;
    }
} // namespace

PageMapView::PageMapView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void PageMapView::setRecording(std::shared_ptr<const Recording> rec, const QString& title)
{
    m_rec = std::move(rec);
    m_title = title;
    m_frame = 0;
    m_seen.assign(std::size_t(kStates), false);
    if (m_rec)
        for (std::size_t f = 0; f < m_rec->frameCount(); ++f) {
            const auto counts = m_rec->stateCounts(f);
            for (std::size_t s = 0; s < counts.size() && s < m_seen.size(); ++s)
                m_seen[s] = m_seen[s] || counts[s] > 0;
        }
    m_image = QImage();
    relayout();
    setTime(m_time);
}

void PageMapView::setTime(Time t)
{
    m_time = t;
    if (!m_rec || m_rec->frameCount() == 0) {
        update();
        return;
    }
    std::size_t f = frameAt(*m_rec, t);
    if (f != m_frame || m_image.isNull()) {
        m_frame = f;
        renderFrame();
    }
    update();
}

void PageMapView::relayout()
{
    const int n = m_rec ? static_cast<int>(m_rec->pageCount()) : 0;
    QRect area = mapArea();
    if (n <= 0 || area.width() <= 0 || area.height() <= 0) {
        m_image = QImage();
        return;
    }
    int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(double(n) * area.width() / area.height()))));
    cols = std::min(cols, n);
    // The nodes' separator: about 3 pixels high at zoom 1, one row or more.
    const double cellPx = std::sqrt(double(area.width()) * area.height() / n);
    const int separatorRows = std::clamp(static_cast<int>(std::ceil(3.0 / cellPx)), 1, 64);
    const int oldRows = m_rows;
    const std::vector<int> oldNodeRows = m_nodeRows;
    const bool colsChanged = cols != m_cols;
    m_cols = cols;
    layoutNodes(separatorRows);
    if (colsChanged || m_rows != oldRows || m_nodeRows != oldNodeRows || m_image.isNull()) {
        m_image = QImage();
        renderFrame();
    }
}

void PageMapView::layoutNodes(int separatorRows)
{
    const std::vector<std::uint32_t>& starts = m_rec->nodeStarts();
    m_separatorRows = starts.size() > 1 ? separatorRows : 0;
    m_nodeRows.assign(starts.size(), 0);
    int row = 0;
    for (std::size_t nid = 0; nid < starts.size(); ++nid) {
        if (nid > 0)
            row += m_separatorRows;
        m_nodeRows[nid] = row;
        const std::uint32_t end = nid + 1 < starts.size() ? starts[nid + 1] : m_rec->pageCount();
        row += static_cast<int>((end - starts[nid] + std::uint32_t(m_cols) - 1) / std::uint32_t(m_cols));
    }
    m_rows = std::max(1, row);
}

void PageMapView::renderFrame()
{
    if (!m_rec || m_rec->frameCount() == 0 || m_rec->pageCount() == 0)
        return;
    std::vector<std::uint8_t> map = m_rec->pageMap(m_frame);
    if (m_image.isNull() || m_image.width() != m_cols || m_image.height() != m_rows) {
        m_image = QImage(m_cols, m_rows, QImage::Format_Indexed8);
        QVector<QRgb> table = pageStatePalette();
        table[kNoPageIndex] = palette().color(QPalette::Window).rgb();
        m_image.setColorTable(table);
        m_image.fill(kNoPageIndex);
    }
    // Each node's pages from its first row on; the rows between the nodes stay blank.
    const std::vector<std::uint32_t>& starts = m_rec->nodeStarts();
    const auto cols = static_cast<std::size_t>(m_cols);
    for (std::size_t nid = 0; nid < starts.size(); ++nid) {
        const std::size_t end = nid + 1 < starts.size() ? starts[nid + 1] : map.size();
        for (int y = m_nodeRows[nid]; y < m_rows; ++y) {
            const std::size_t from = starts[nid] + static_cast<std::size_t>(y - m_nodeRows[nid]) * cols;
            if (from >= end)
                break;
            std::memcpy(m_image.scanLine(y), map.data() + from, std::min(cols, end - from));
        }
    }
    m_counts = m_rec->stateCounts(m_frame);
}

bool PageMapView::inLegend(int s) const
{
    // States no page is in at any frame of the run are left out (so the legend does not reflow during playback).
    return m_seen.empty() || (s < int(m_seen.size()) && m_seen[std::size_t(s)]);
}

int PageMapView::legendHeight() const
{
    if (!m_legend)
        return 0;
    const QFontMetrics fm(font());
    LegendFlow flow(this, 0, fm.height() + 4);
    for (int s = 0; s < kStates; ++s)
        if (inLegend(s))
            flow.place(legendEntryWidth(fm, PageMapState(s)));
    return flow.lines() * flow.lineStep() + 4;
}

int PageMapView::nodeLabelWidth() const
{
    if (!m_rec || m_rec->nodeCount() < 2)
        return 0;
    return fontMetrics().horizontalAdvance(tr("node %1").arg(m_rec->nodeCount() - 1)) + 10;
}

QRect PageMapView::mapArea() const
{
    const int gutter = nodeLabelWidth();
    return QRect(gutter, titleHeight(this), width() - gutter, height() - titleHeight(this) - legendHeight());
}

QRectF PageMapView::imageRect() const
{
    QRect area = mapArea();
    double s = std::min(double(area.width()) / m_cols, double(area.height()) / m_rows) * m_zoom;
    QSizeF size(m_cols * s, m_rows * s);
    QPointF topLeft(area.left() + (area.width() - m_cols * s * (1.0 / m_zoom)) / 2, area.top());
    return QRectF(topLeft + m_pan, size);
}

qint64 PageMapView::pfnAt(QPoint pos) const
{
    if (m_image.isNull() || !mapArea().contains(pos))
        return -1;
    QRectF r = imageRect();
    if (!r.contains(pos))
        return -1;
    int col = static_cast<int>((pos.x() - r.left()) / r.width() * m_cols);
    int row = static_cast<int>((pos.y() - r.top()) / r.height() * m_rows);
    // The node whose block holds the row: the last one starting at or above it.
    const auto nid = static_cast<std::size_t>(std::upper_bound(m_nodeRows.begin(), m_nodeRows.end(), row) - m_nodeRows.begin());
    if (nid == 0)
        return -1;
    const std::vector<std::uint32_t>& starts = m_rec->nodeStarts();
    const qint64 end = nid < starts.size() ? qint64(starts[nid]) : qint64(m_rec->pageCount());
    qint64 pfn = qint64(starts[nid - 1]) + qint64(row - m_nodeRows[nid - 1]) * m_cols + col;
    return pfn < end ? pfn : -1;
}

QPoint PageMapView::cellCentre(quint32 pfn) const
{
    if (!m_rec)
        return {};
    QRectF r = imageRect();
    const int nid = m_rec->nodeOf(pfn);
    const quint32 local = pfn - m_rec->nodeStarts()[std::size_t(nid)];
    int row = m_nodeRows[std::size_t(nid)] + int(local / quint32(m_cols)), col = int(local % quint32(m_cols));
    return QPointF(r.left() + (col + 0.5) * r.width() / m_cols, r.top() + (row + 0.5) * r.height() / m_rows).toPoint();
}

void PageMapView::setLegendVisible(bool on)
{
    m_legend = on;
    relayout();
    update();
}

void PageMapView::resetZoom()
{
    m_zoom = 1.0;
    m_pan = {};
    update();
}

void PageMapView::setEmptyText(const QString& text)
{
    m_emptyText = text;
    update();
}

void PageMapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Window));
    const QFontMetrics fm(font());
    if (!m_rec) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText.isEmpty() ? tr("no recording yet: run the scenario") : m_emptyText);
        return;
    }
    p.setPen(palette().color(QPalette::WindowText));
    QString head = QStringLiteral("%1   t = %2   frame %3/%4   %5 pages")
                       .arg(m_title, formatTime(m_rec->frameTime(m_frame)))
                       .arg(m_frame + 1)
                       .arg(m_rec->frameCount())
                       .arg(m_rec->pageCount());
    if (m_rec->nodeCount() > 1)
        head += tr(" on %1 nodes").arg(m_rec->nodeCount());
    p.drawText(QRect(4, 0, width() - 8, titleHeight(this)), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(head, Qt::ElideRight, width() - 8));

    QRect area = mapArea();
    p.save();
    p.setClipRect(area);
    if (!m_image.isNull())
        p.drawImage(imageRect(), m_image); // nearest-neighbour: no SmoothPixmapTransform
    p.restore();
    drawNodeLabels(p);

    // Legend with each state's share of memory.
    double total = 0;
    for (auto c : m_counts)
        total += double(c);
    LegendFlow flow(this, area.bottom() + 5, fm.height() + 4);
    for (int s = 0; s < kStates && m_legend; ++s) {
        if (!inLegend(s))
            continue;
        double share = total > 0 && s < int(m_counts.size()) ? 100.0 * double(m_counts[s]) / total : 0;
        QString label = pageStateLabel(PageMapState(s)) + QStringLiteral(" %1%").arg(share, 0, 'f', 1);
        const int w = legendEntryWidth(fm, PageMapState(s));
        drawLegendEntry(p, this, fm, flow.place(w), w, QColor(pageStatePalette()[s]), label,
            share > 0 ? palette().color(QPalette::WindowText) : palette().color(QPalette::PlaceholderText));
    }
}

void PageMapView::drawNodeLabels(QPainter& p) const
{
    if (nodeLabelWidth() == 0 || m_image.isNull())
        return;
    const QRect area = mapArea();
    const QRectF r = imageRect();
    const double rowH = r.height() / m_rows;
    const QFontMetrics fm(font());
    p.save();
    p.setClipRect(QRect(0, area.top(), area.left(), area.height()));
    p.setPen(palette().color(QPalette::WindowText));
    const auto nodes = m_nodeRows.size();
    for (std::size_t nid = 0; nid < nodes; ++nid) {
        const double top = r.top() + m_nodeRows[nid] * rowH;
        const double bottom = r.top() + (nid + 1 < nodes ? m_nodeRows[nid + 1] - m_separatorRows : m_rows) * rowH;
        // Level with the block's first row; while the block is panned past the top, at the top of the map.
        const double y = std::max(top, std::min<double>(area.top(), bottom - fm.height()));
        p.drawText(QRectF(4, y, area.left() - 6, fm.height()), Qt::AlignLeft | Qt::AlignTop, tr("node %1").arg(nid));
    }
    p.restore();
}

void PageMapView::resizeEvent(QResizeEvent*) { relayout(); }

void PageMapView::wheelEvent(QWheelEvent* e)
{
    const double steps = e->angleDelta().y() / 120.0;
    const double old = m_zoom;
    m_zoom = std::clamp(m_zoom * std::pow(1.25, steps), 1.0, 256.0);
    // Keep the point under the mouse where it is.
    QPointF pos = e->position();
    QRectF r = imageRect();
    QPointF rel = (pos - r.topLeft());
    m_pan += rel - rel * (m_zoom / old);
    if (m_zoom == 1.0)
        m_pan = {};
    update();
    e->accept();
}

void PageMapView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragFrom = e->position().toPoint();
        setCursor(Qt::ClosedHandCursor);
    }
}

void PageMapView::mouseMoveEvent(QMouseEvent* e)
{
    if (m_dragging) {
        QPoint p = e->position().toPoint();
        m_pan += p - m_dragFrom;
        m_dragFrom = p;
        update();
    }
}

void PageMapView::mouseReleaseEvent(QMouseEvent*)
{
    m_dragging = false;
    unsetCursor();
}

void PageMapView::mouseDoubleClickEvent(QMouseEvent*) { resetZoom(); }

QString PageMapView::tooltipText(quint32 pfn) const
{
    if (!m_rec || m_rec->frameCount() == 0 || pfn >= m_rec->pageCount())
        return {};
    // Flags and owner come from the recording (the keyframe plus a binary search per delta), not a decoded frame.
    const PageInfo info = m_rec->pageInfo(m_frame, pfn);
    const QString where = m_rec->nodeCount() > 1 ? tr(", node %1").arg(m_rec->nodeOf(pfn)) : QString();
    return tr("pfn %1 (0x%2)%7\nstate: %3\nflags: %4\nowner: %5\nlist: %6")
        .arg(pfn)
        .arg(pfn, 0, 16)
        .arg(pageStateLabel(info.state), wrapFlags(QString::fromStdString(info.flagNames())),
             QString::fromStdString(m_rec->ownerName(info.owner, info.flags)), QString::fromLatin1(info.listName()),
             where);
}

bool PageMapView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        qint64 pfn = pfnAt(help->pos());
        if (pfn < 0) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        QToolTip::showText(help->globalPos(), tooltipText(quint32(pfn)), this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace mms
