#include "cputimesview.h"

#include "recordingview.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace mms {

namespace {
    QString seconds(double s) { return s > 0 ? formatTime(ns(s * 1e9)) : QStringLiteral("0 s"); }

    double valueOf(const Metrics& m, const char* key)
    {
        const auto it = m.find(key);
        return it == m.end() ? 0.0 : it->second;
    }

    int legendHeight(const QWidget* w) { return w->fontMetrics().height() + 4; }
    int labelHeight(const QWidget* w) { return w->fontMetrics().height() + 2; }
} // namespace

CpuTimesView::CpuTimesView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

void CpuTimesView::setRun(const RunResult& r, const QString& title)
{
    m_has = true;
    m_title = title;
    m_metrics = r.metrics;
    m_cpus = r.cpus;
    update();
}

void CpuTimesView::clear()
{
    m_has = false;
    m_cpus.clear();
    m_metrics.clear();
    update();
}

QString CpuTimesView::summary() const
{
    if (!m_has)
        return {};
    return tr("user %1 · sys %2 · elapsed %3 · kthreads %4")
        .arg(seconds(valueOf(m_metrics, "user_s")), seconds(valueOf(m_metrics, "sys_s")),
             seconds(valueOf(m_metrics, "elapsed_s")), seconds(valueOf(m_metrics, "kthread_sys_s")));
}

QRect CpuTimesView::plotArea() const
{
    const int top = titleHeight(this) + legendHeight(this);
    return QRect(4, top, std::max(1, width() - 8), std::max(1, height() - top - labelHeight(this)));
}

QRect CpuTimesView::columnRect(int cpu) const
{
    if (cpu < 0 || cpu >= int(m_cpus.size()))
        return {};
    const QRect a = plotArea();
    const double w = double(a.width()) / double(m_cpus.size());
    const int left = a.left() + int(std::lround(cpu * w)), right = a.left() + int(std::lround((cpu + 1) * w));
    return QRect(left, a.top(), std::max(1, right - left), a.height());
}

int CpuTimesView::cpuAt(const QPoint& pos) const
{
    const QRect a = plotArea();
    if (m_cpus.empty() || !a.contains(pos))
        return -1;
    return std::clamp(int(double(pos.x() - a.left()) * double(m_cpus.size()) / double(a.width())), 0, int(m_cpus.size()) - 1);
}

void CpuTimesView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setPen(palette().color(QPalette::Text));
    if (!m_has) {
        p.drawText(rect(), Qt::AlignCenter, tr("no run yet"));
        return;
    }
    drawViewTitle(p, this,
                  { tr("%1 — time(1): %2").arg(m_title, summary()), tr("%1 — %2").arg(m_title, summary()), summary(),
                    tr("%1 — CPU time").arg(m_title) });
    const QFontMetrics fm(font());
    // The legend row: the colours and how busy the CPUs were.
    int x = 4;
    const int y = titleHeight(this), h = fm.height();
    const auto key = [&](const QColor& c, const QString& text) {
        p.fillRect(QRect(x, y + 2, h - 4, h - 4), c);
        x += h;
        p.drawText(QRect(x, y, fm.horizontalAdvance(text) + 2, h), Qt::AlignLeft | Qt::AlignVCenter, text);
        x += fm.horizontalAdvance(text) + 12;
    };
    key(userColour(), tr("user"));
    key(sysColour(), tr("system"));
    if (std::any_of(m_cpus.begin(), m_cpus.end(), [](const CpuStat& s) { return s.stealS > 0; }))
        key(stealColour(), tr("steal"));
    key(palette().color(QPalette::AlternateBase), tr("idle"));
    p.drawText(QRect(x, y, std::max(0, width() - x - 4), h), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(tr("/proc/stat per CPU; busy: max %1 %, mean %2 %")
                                 .arg(valueOf(m_metrics, "cpu_busy_max") * 100, 0, 'f', 1)
                                 .arg(valueOf(m_metrics, "cpu_busy_mean") * 100, 0, 'f', 1),
                             Qt::ElideRight, std::max(0, width() - x - 4)));
    if (m_cpus.empty())
        return;

    const QRect a = plotArea();
    p.fillRect(a, palette().color(QPalette::AlternateBase));
    for (int c = 0; c < int(m_cpus.size()); ++c) {
        const CpuStat& s = m_cpus[std::size_t(c)];
        const double all = s.userS + s.sysS + s.idleS + s.stealS;
        if (all <= 0)
            continue;
        const QRect col = columnRect(c);
        const int userH = int(std::lround(col.height() * s.userS / all));
        const int sysH = int(std::lround(col.height() * (s.userS + s.sysS) / all)) - userH;
        const int stealH = int(std::lround(col.height() * (s.userS + s.sysS + s.stealS) / all)) - userH - sysH;
        const int gap = col.width() >= 5 ? 1 : 0;
        p.fillRect(QRect(col.left() + gap, col.bottom() - userH + 1, col.width() - 2 * gap, userH), userColour());
        p.fillRect(QRect(col.left() + gap, col.bottom() - userH - sysH + 1, col.width() - 2 * gap, sysH), sysColour());
        p.fillRect(QRect(col.left() + gap, col.bottom() - userH - sysH - stealH + 1, col.width() - 2 * gap, stealH),
                   stealColour());
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(a.adjusted(0, 0, -1, -1));
    // CPU numbers under their columns, thinned to what fits.
    p.setPen(palette().color(QPalette::Text));
    const double colW = double(a.width()) / double(m_cpus.size());
    const int every = std::max(1, int(std::ceil((fm.horizontalAdvance(QStringLiteral("000")) + 4) / std::max(0.1, colW))));
    for (int c = 0; c < int(m_cpus.size()); c += every) {
        const QRect col = columnRect(c);
        p.drawText(QRect(col.center().x() - 20, a.bottom() + 1, 40, labelHeight(this)), Qt::AlignHCenter | Qt::AlignTop,
                   QString::number(c));
    }
}

bool CpuTimesView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int c = cpuAt(help->pos());
        if (c < 0) {
            QToolTip::hideText();
            return true;
        }
        const CpuStat& s = m_cpus[std::size_t(c)];
        const double all = s.userS + s.sysS + s.idleS + s.stealS;
        const QString steal = s.stealS > 0 ? tr(", steal %1").arg(seconds(s.stealS)) : QString();
        QToolTip::showText(help->globalPos(),
                           tr("CPU %1: user %2, system %3%4, idle %5 (busy %6 %)")
                               .arg(c)
                               .arg(seconds(s.userS), seconds(s.sysS), steal, seconds(s.idleS))
                               .arg(all > 0 ? (s.userS + s.sysS) / all * 100 : 0.0, 0, 'f', 1),
                           this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace mms
