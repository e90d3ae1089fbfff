#include "cpulockmapview.h"

#include "lockheatmapview.h"
#include "recordingview.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace mms {

namespace {
    // the colour scale's row: its labels' line and a margin
    int scaleHeight(const QWidget* w) { return std::max(18, w->fontMetrics().height() + 4); }
} // namespace

CpuLockMapView::CpuLockMapView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

void CpuLockMapView::setRecording(std::shared_ptr<const Recording> rec, const QString& title)
{
    m_rec = std::move(rec);
    m_title = title;
    rebuild();
    setTime(m_time);
}

void CpuLockMapView::setTime(Time t)
{
    m_time = t;
    m_frame = m_rec && m_rec->frameCount() ? frameAt(*m_rec, t) : 0;
    updatePeak();
    update();
}

void CpuLockMapView::rebuild()
{
    m_columns.clear();
    m_prefix.clear();
    if (!m_rec || m_rec->frameCount() == 0)
        return;
    const std::size_t frames = m_rec->frameCount();
    const int cpus = m_rec->cpuCount();
    for (std::size_t l = 0; l < m_rec->lockNames().size(); ++l) {
        std::vector<Time> prefix(frames * std::size_t(cpus), 0);
        bool any = false;
        for (std::size_t f = 0; f < frames; ++f)
            for (int c = 0; c < cpus; ++c) {
                Time w = m_rec->lockCpuWait(l, c, f);
                any = any || w > 0;
                prefix[f * std::size_t(cpus) + std::size_t(c)] = w + (f ? prefix[(f - 1) * std::size_t(cpus) + std::size_t(c)] : 0);
            }
        if (any) {
            m_columns.push_back(l);
            m_prefix.push_back(std::move(prefix));
        }
    }
}

Time CpuLockMapView::waitUpTo(int cpu, std::size_t column) const
{
    if (!m_rec || column >= m_prefix.size() || cpu < 0 || cpu >= m_rec->cpuCount())
        return 0;
    return m_prefix[column][m_frame * std::size_t(m_rec->cpuCount()) + std::size_t(cpu)];
}

double CpuLockMapView::waitShare(int cpu, std::size_t column) const
{
    if (!m_rec || m_rec->frameCount() == 0)
        return 0;
    Time elapsed = m_rec->frameTime(m_frame) - m_rec->frameTime(0);
    if (elapsed <= 0)
        return 0;
    return double(waitUpTo(cpu, column)) / double(elapsed); // may pass 1 for a sleeping lock (see the header)
}

void CpuLockMapView::updatePeak()
{
    m_peak = 0;
    if (!m_rec)
        return;
    for (std::size_t col = 0; col < m_columns.size(); ++col)
        for (int c = 0; c < m_rec->cpuCount(); ++c)
            m_peak = std::max(m_peak, waitShare(c, col));
}

int CpuLockMapView::cpuLabelWidth() const { return fontMetrics().horizontalAdvance(QStringLiteral("CPU 000")) + 8; }

int CpuLockMapView::lockLabelHeight() const
{
    int h = 40;
    if (m_rec)
        for (std::size_t l : m_columns)
            h = std::max(h, fontMetrics().horizontalAdvance(QString::fromStdString(m_rec->lockNames()[l])) + 8);
    return std::min(h, height() * 42 / 100);
}

QRect CpuLockMapView::plotArea() const
{
    const int top = titleHeight(this) + scaleHeight(this);
    return QRect(cpuLabelWidth(), top, std::max(1, width() - cpuLabelWidth() - 6), std::max(1, height() - top - lockLabelHeight()));
}

QPoint CpuLockMapView::cellCentre(int cpu, std::size_t column) const
{
    if (!m_rec || m_columns.empty() || column >= m_columns.size() || cpu < 0 || cpu >= m_rec->cpuCount())
        return {};
    return gridCellCentre(plotArea(), column, std::size_t(cpu), m_columns.size(), std::size_t(m_rec->cpuCount()));
}

void CpuLockMapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    if (!beginViewPaint(p, this, m_rec != nullptr))
        return;
    const QFontMetrics fm(font());
    const QString upTo = formatTime(m_rec->frameCount() ? m_rec->frameTime(m_frame) : 0);
    drawViewTitle(p, this,
                  { tr("%1 — CPUs × locks: time each CPU's tasks waited (spinning or asleep) / time, 0 → %2").arg(m_title, upTo),
                    tr("%1 — CPUs × locks: share of each CPU's time waiting, 0 → %2").arg(m_title, upTo),
                    tr("%1 — CPUs × locks: wait share, 0 → %2").arg(m_title, upTo), tr("%1 — CPUs × locks").arg(m_title),
                    tr("CPUs × locks") });
    if (m_columns.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("no lock was contended"));
        return;
    }
    QRect a = plotArea();
    const int cpus = m_rec->cpuCount();
    const auto cols = int(m_columns.size());
    const double colW = double(a.width()) / cols, rowH = double(a.height()) / std::max(1, cpus);
    for (int c = 0; c < cpus; ++c)
        for (int col = 0; col < cols; ++col) {
            QRectF cell(a.left() + col * colW, a.top() + c * rowH, colW, rowH);
            p.fillRect(cell, QColor(heatColour(heatLevel(waitShare(c, std::size_t(col)), m_peak))));
        }
    p.setPen(palette().color(QPalette::Mid));
    if (colW >= 6)
        for (int col = 1; col < cols; ++col)
            p.drawLine(QPointF(a.left() + col * colW, a.top()), QPointF(a.left() + col * colW, a.bottom()));
    p.drawRect(a.adjusted(0, 0, -1, -1));
    drawCpuGroupLines(p, this, *m_rec, a.top(), rowH, a.left() - 2);
    // CPU labels (thinned when rows are short)
    p.setPen(palette().color(QPalette::Text));
    const int every = std::max(1, int(std::ceil(fm.height() / std::max(0.1, rowH))));
    for (int c = 0; c < cpus; c += every)
        p.drawText(QRectF(2, a.top() + c * rowH + rowH / 2 - fm.height() / 2.0, cpuLabelWidth() - 6, fm.height()),
                   Qt::AlignVCenter | Qt::AlignRight, tr("CPU %1").arg(c));
    // Lock labels, rotated, under their columns.
    const int labelH = lockLabelHeight();
    const int colEvery = std::max(1, int(std::ceil(fm.height() / std::max(0.1, colW))));
    for (int col = 0; col < cols; col += colEvery) {
        p.save();
        p.translate(a.left() + col * colW + colW / 2 + fm.ascent() / 2.0 - 2, a.bottom() + 4);
        p.rotate(90);
        p.drawText(QRect(0, 0, labelH - 6, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   elideLockName(fm, m_rec->lockNames()[m_columns[std::size_t(col)]], labelH - 6));
        p.restore();
    }
    // Colour scale: none .. peak share.
    const QString none = tr("none"), peak = tr("peak %1%").arg(m_peak * 100, 0, 'f', 2);
    const int left = std::min(a.left(), 4 + fm.horizontalAdvance(tr("scale:")) + 4);
    const int rampW = std::clamp(width() - left - fm.horizontalAdvance(none) - fm.horizontalAdvance(peak) - 24, 20, 140);
    QRect scale(left + fm.horizontalAdvance(none) + 6, titleHeight(this) + 4, rampW, 8);
    p.drawText(QRect(left, titleHeight(this), fm.horizontalAdvance(none) + 2, scaleHeight(this)), Qt::AlignLeft | Qt::AlignVCenter, none);
    drawHeatRamp(p, scale);
    p.drawText(QRect(scale.right() + 6, titleHeight(this), fm.horizontalAdvance(peak) + 4, scaleHeight(this)), Qt::AlignLeft | Qt::AlignVCenter, peak);
}

bool CpuLockMapView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && m_rec && !m_columns.empty()) {
        auto* help = static_cast<QHelpEvent*>(e);
        QRect a = plotArea();
        if (!a.contains(help->pos())) {
            QToolTip::hideText();
            return true;
        }
        const auto [col, row] = gridCellAt(a, help->pos(), m_columns.size(), std::size_t(m_rec->cpuCount()));
        const int cpu = int(row);
        const std::size_t lock = m_columns[col];
        QToolTip::showText(help->globalPos(),
                           tr("%1 waiting for %2 (spinning, or asleep on a sleeping lock)\nfrom the start to %3: %4 (%5% of the "
                              "CPU's time; over 100 % when several of its tasks slept on the lock at once)\nin this frame: %6")
                               .arg(cpuWithPlace(*m_rec, cpu))
                               .arg(QString::fromStdString(m_rec->lockNames()[lock]), formatTime(m_rec->frameTime(m_frame)),
                                    formatTime(waitUpTo(cpu, col)))
                               .arg(waitShare(cpu, col) * 100, 0, 'f', 3)
                               .arg(formatTime(m_rec->lockCpuWait(lock, cpu, m_frame))),
                           this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace mms
