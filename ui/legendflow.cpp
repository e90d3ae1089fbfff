#include "legendflow.h"

#include <QPainter>
#include <QWidget>

namespace mms {

LegendFlow::LegendFlow(const QWidget* w, int top, int lineStep)
    : m_right(w->width() - 4)
    , m_lineStep(lineStep)
    , m_y(top)
{
}

QPoint LegendFlow::place(int width)
{
    if (m_x + width > m_right && m_x > 4) {
        m_x = 4;
        m_y += m_lineStep;
        ++m_lines;
    }
    const QPoint at(m_x, m_y);
    m_x += width;
    return at;
}

void drawLegendEntry(QPainter& p, const QWidget* w, const QFontMetrics& fm, QPoint at, int width, const QColor& swatch,
    const QString& label, const QColor& text)
{
    const QRect box(at.x(), at.y() + (fm.height() - 10) / 2, 10, 10);
    p.fillRect(box, swatch);
    p.setPen(w->palette().color(QPalette::Mid));
    p.drawRect(box);
    p.setPen(text);
    p.drawText(QRect(at.x() + 14, at.y(), width - 14, fm.height()), Qt::AlignVCenter | Qt::AlignLeft, label);
}

} // namespace mms
