#include "lockheatmapview.h"

#include "recordingview.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace mms {

namespace {
    // the colour scale's row: its labels' line and a margin
    int scaleHeight(const QWidget* w) { return std::max(26, w->fontMetrics().height() + 12); }
} // namespace

QRgb heatColour(double x)
{
    x = std::clamp(x, 0.0, 1.0);
    if (x <= 0)
        return qRgb(0xf4, 0xf4, 0xf0);
    // light yellow -> orange -> red -> dark red
    struct Stop {
        double at;
        int r, g, b;
    };
    static const Stop stops[] = { { 0.0, 0xff, 0xf5, 0xb0 }, { 0.35, 0xfd, 0xa0, 0x3a }, { 0.7, 0xdd, 0x2a, 0x1e }, { 1.0, 0x5a, 0x00, 0x10 } };
    for (int i = 1; i < 4; ++i)
        if (x <= stops[i].at) {
            double t = (x - stops[i - 1].at) / (stops[i].at - stops[i - 1].at);
            auto mix = [t](int a, int b) { return int(a + (b - a) * t); };
            return qRgb(mix(stops[i - 1].r, stops[i].r), mix(stops[i - 1].g, stops[i].g), mix(stops[i - 1].b, stops[i].b));
        }
    return qRgb(0x5a, 0, 0x10);
}

double heatLevel(double share, double peak) { return peak > 0 && share > 0 ? std::max(0.04, std::sqrt(share / peak)) : 0.0; }

void drawHeatRamp(QPainter& p, const QRect& r)
{
    for (int i = 0; i < r.width(); ++i)
        p.fillRect(QRect(r.left() + i, r.top(), 1, r.height()), QColor(heatColour(double(i) / r.width())));
}

LockHeatmapView::LockHeatmapView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

void LockHeatmapView::setRecording(std::shared_ptr<const Recording> rec, const QString& title)
{
    m_rec = std::move(rec);
    m_title = title;
    rebuild();
    update();
}

void LockHeatmapView::setTime(Time t)
{
    m_time = t;
    update();
}

double LockHeatmapView::waitShare(std::size_t lock, std::size_t frame) const
{
    if (!m_rec || frame >= m_rec->frameCount())
        return 0;
    Time span = frame > 0 ? m_rec->frameTime(frame) - m_rec->frameTime(frame - 1) : m_rec->interval();
    if (span <= 0)
        return 0;
    double cap = double(span) * std::max(1, m_rec->cpuCount());
    return std::min(1.0, double(m_rec->lockFrame(lock, frame).wait) / cap);
}

void LockHeatmapView::rebuild()
{
    m_image = QImage();
    m_maxShare = 0;
    if (!m_rec || m_rec->frameCount() == 0 || m_rec->lockNames().empty())
        return;
    const std::size_t locks = m_rec->lockNames().size(), frames = m_rec->frameCount();
    for (std::size_t l = 0; l < locks; ++l)
        for (std::size_t f = 0; f < frames; ++f)
            m_maxShare = std::max(m_maxShare, waitShare(l, f));
    m_image = QImage(int(frames), int(locks), QImage::Format_RGB32);
    for (std::size_t l = 0; l < locks; ++l) {
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(int(l)));
        for (std::size_t f = 0; f < frames; ++f)
            line[f] = heatColour(heatLevel(waitShare(l, f), m_maxShare));
    }
}

int LockHeatmapView::labelWidth() const
{
    int w = 60;
    if (m_rec)
        for (auto& n : m_rec->lockNames())
            w = std::max(w, fontMetrics().horizontalAdvance(QString::fromStdString(n)) + 10);
    return std::min(w, width() * 42 / 100); // lock names are what the row means: let them have room
}

QRect LockHeatmapView::plotArea() const
{
    return QRect(labelWidth(), titleHeight(this), width() - labelWidth() - 6, height() - titleHeight(this) - scaleHeight(this));
}

QPoint LockHeatmapView::cellCentre(std::size_t lock, std::size_t frame) const
{
    if (m_image.isNull())
        return {};
    return gridCellCentre(plotArea(), frame, lock, std::size_t(m_image.width()), std::size_t(m_image.height()));
}

void LockHeatmapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    if (!beginViewPaint(p, this, m_rec != nullptr))
        return;
    const QFontMetrics fm(font());
    const QString peakPct = QString::number(m_maxShare * 100, 'f', 2);
    drawViewTitle(p, this,
                  { tr("%1 — lock wait share of all CPUs per frame (peak %2%)").arg(m_title, peakPct),
                    tr("%1 — locks × time (peak %2%)").arg(m_title, peakPct), tr("%1 — locks × time").arg(m_title),
                    tr("locks × time") });
    if (m_image.isNull()) {
        p.drawText(rect(), Qt::AlignCenter, tr("no locks recorded"));
        return;
    }
    QRect a = plotArea();
    p.drawImage(a, m_image);
    const int locks = m_image.height();
    const double rowH = double(a.height()) / locks;
    for (int l = 0; l < locks; ++l) {
        QRectF r(2, a.top() + l * rowH, labelWidth() - 6, rowH);
        if (rowH >= fm.height() * 0.8 || l % std::max(1, int(fm.height() / rowH)) == 0)
            p.drawText(r, Qt::AlignVCenter | Qt::AlignRight,
                       elideLockName(fm, m_rec->lockNames()[std::size_t(l)], labelWidth() - 6));
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(a.adjusted(0, 0, -1, -1));
    // Time axis ends and the cursor.
    Time end = recordingEnd(*m_rec);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(a.left(), a.bottom() + 2, 120, scaleHeight(this) - 4), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("0"));
    p.drawText(QRect(a.right() - 120, a.bottom() + 2, 120, scaleHeight(this) - 4), Qt::AlignRight | Qt::AlignTop, formatTime(end));
    // colour scale, between the axis' end labels when it fits
    const int none = fm.horizontalAdvance(tr("none")), peak = fm.horizontalAdvance(tr("peak"));
    const int room = a.width() - fm.horizontalAdvance(QStringLiteral("0")) - fm.horizontalAdvance(formatTime(end)) - none - peak - 40;
    if (room > 30) {
        const int rampW = std::min(120, room);
        QRect scale(a.left() + fm.horizontalAdvance(QStringLiteral("0")) + none + 16, a.bottom() + 6, rampW, 8);
        drawHeatRamp(p, scale);
        p.drawText(QRect(scale.left() - none - 4, a.bottom() + 2, none, scaleHeight(this) - 4), Qt::AlignRight | Qt::AlignTop, tr("none"));
        p.drawText(QRect(scale.right() + 4, a.bottom() + 2, peak + 2, scaleHeight(this) - 4), Qt::AlignLeft | Qt::AlignTop, tr("peak"));
    }
    if (end > 0) {
        double x = a.left() + double(std::clamp<Time>(m_time, 0, end)) / double(end) * a.width();
        p.setPen(QPen(QColor(0x20, 0x60, 0xff), 2));
        p.drawLine(QPointF(x, a.top()), QPointF(x, a.bottom()));
    }
}

bool LockHeatmapView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && !m_image.isNull()) {
        auto* help = static_cast<QHelpEvent*>(e);
        QRect a = plotArea();
        if (!a.contains(help->pos())) {
            QToolTip::hideText();
            return true;
        }
        const auto [f, l] = gridCellAt(a, help->pos(), std::size_t(m_image.width()), std::size_t(m_image.height()));
        const LockFrame& lf = m_rec->lockFrame(l, f);
        QToolTip::showText(help->globalPos(),
                           tr("%1 at %2\nacquisitions %3, contentions %4\nwait %5, hold %6\nwait share %7%")
                               .arg(QString::fromStdString(m_rec->lockNames()[l]), formatTime(m_rec->frameTime(f)))
                               .arg(lf.acquisitions)
                               .arg(lf.contentions)
                               .arg(formatTime(lf.wait), formatTime(lf.hold))
                               .arg(waitShare(l, f) * 100, 0, 'f', 3),
                           this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace mms
