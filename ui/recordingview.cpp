#include "recordingview.h"

#include <QPainter>

namespace mms {

const QVector<QRgb>& pageStatePalette()
{
    static const QVector<QRgb> palette = [] {
        QVector<QRgb> p(256, qRgb(255, 0, 255));
        p[int(PageMapState::Free)] = qRgb(0x30, 0x34, 0x3a);
        p[int(PageMapState::AnonActive)] = qRgb(0xd6, 0x27, 0x28);
        p[int(PageMapState::AnonInactive)] = qRgb(0xf5, 0x8f, 0x84);
        p[int(PageMapState::FileActive)] = qRgb(0x1f, 0x77, 0xb4);
        p[int(PageMapState::FileInactive)] = qRgb(0x8e, 0xc1, 0xe8);
        p[int(PageMapState::Lazyfree)] = qRgb(0xe6, 0xd2, 0x2e);
        p[int(PageMapState::SwapCache)] = qRgb(0x94, 0x67, 0xbd);
        p[int(PageMapState::UnderIo)] = qRgb(0xff, 0x7f, 0x0e);
        p[int(PageMapState::Isolated)] = qRgb(0x17, 0xbe, 0xcf);
        p[int(PageMapState::Pagevec)] = qRgb(0x2c, 0xa0, 0x2c);
        p[int(PageMapState::Unevictable)] = qRgb(0x8c, 0x56, 0x4b);
        p[int(PageMapState::Kernel)] = qRgb(0x9a, 0x9a, 0x9a);
        return p;
    }();
    return palette;
}

QString fitTitle(const QFontMetrics& fm, int width, const QStringList& candidates)
{
    for (const QString& c : candidates)
        if (fm.horizontalAdvance(c) <= width)
            return c;
    return candidates.isEmpty() ? QString() : fm.elidedText(candidates.back(), Qt::ElideRight, width);
}

bool beginViewPaint(QPainter& p, const QWidget* w, bool hasRecording)
{
    p.fillRect(w->rect(), w->palette().color(QPalette::Base));
    p.setPen(w->palette().color(QPalette::Text));
    if (!hasRecording)
        p.drawText(w->rect(), Qt::AlignCenter, QWidget::tr("no recording yet"));
    return hasRecording;
}

void drawViewTitle(QPainter& p, const QWidget* w, const QStringList& candidates)
{
    p.drawText(QRect(4, 0, w->width() - 8, titleHeight(w)), Qt::AlignVCenter | Qt::AlignLeft,
        fitTitle(w->fontMetrics(), w->width() - 8, candidates));
}

QPoint gridCellCentre(const QRect& area, std::size_t column, std::size_t row, std::size_t columns, std::size_t rows)
{
    return QPointF(area.left() + (double(column) + 0.5) * area.width() / double(std::max<std::size_t>(columns, 1)),
        area.top() + (double(row) + 0.5) * area.height() / double(std::max<std::size_t>(rows, 1)))
        .toPoint();
}

std::pair<std::size_t, std::size_t> gridCellAt(
    const QRect& area, const QPoint& pos, std::size_t columns, std::size_t rows)
{
    auto cell = [](int offset, int extent, std::size_t count) {
        const auto i = std::size_t(std::max(0, offset)) * count / std::size_t(std::max(1, extent));
        return std::min(i, count ? count - 1 : 0);
    };
    return { cell(pos.x() - area.left(), area.width(), columns), cell(pos.y() - area.top(), area.height(), rows) };
}

QString elideLockName(const QFontMetrics& fm, const std::string& name, int width)
{
    const QString full = QString::fromStdString(name);
    if (fm.horizontalAdvance(full) <= width)
        return full;
    const QString node = QString::fromStdString(std::string(lockNodePrefix(name)));
    const int nodeW = fm.horizontalAdvance(node);
    if (node.isEmpty() || nodeW > width * 2 / 3)
        return fm.elidedText(full, Qt::ElideMiddle, width);
    return node + fm.elidedText(full.mid(node.size()), Qt::ElideMiddle, width - nodeW);
}

void drawCpuGroupLines(QPainter& p, const QWidget* w, const Recording& r, double top, double rowH, double right)
{
    for (int c = 1; c < r.cpuCount(); ++c) {
        const Recording::CpuPlace here = r.cpuPlace(c), above = r.cpuPlace(c - 1);
        if (here.llc == above.llc)
            continue;
        p.setPen(QPen(w->palette().color(QPalette::Text), here.socket == above.socket ? 1 : 2));
        p.drawLine(QPointF(2, top + c * rowH), QPointF(right, top + c * rowH));
    }
}

QString cpuWithPlace(const Recording& r, int cpu)
{
    const Recording::CpuPlace place = r.cpuPlace(cpu);
    return QObject::tr("CPU %1 (socket %2, last-level cache %3)").arg(cpu).arg(place.socket).arg(place.llc);
}

QString wrapFlags(const QString& flags, int columns)
{
    QString out, line;
    for (const QString& f : flags.split(QLatin1Char('|'))) {
        if (!line.isEmpty() && line.size() + 1 + f.size() > columns) {
            out += line + QLatin1String("|\n       "); // under "flags: ", like the kernel's %pGp with '|'
            line.clear();
        } else if (!line.isEmpty())
            line += QLatin1Char('|');
        line += f;
    }
    return out + line;
}

QString pageStateLabel(PageMapState s) { return QString::fromLatin1(pageMapStateName(s)); }

QString formatTime(Time t)
{
    double s = toSec(t);
    if (s >= 1.0)
        return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
    if (s >= 1e-3)
        return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 2);
    return QStringLiteral("%1 µs").arg(s * 1e6, 0, 'f', 1);
}

} // namespace mms
