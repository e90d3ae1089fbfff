#pragma once
// The legend under the page map and the CPU timeline: entries (a 10 px swatch framed in the palette's Mid colour,
// then the label) laid left to right from x = 4 and wrapped before an entry that would pass the right edge less
// 4 px, so a legend measured for the layout and the one painted wrap at the same entries.

#include <QColor>
#include <QFontMetrics>
#include <QPoint>
#include <QString>

class QPainter;
class QWidget;

namespace mms {

class LegendFlow {
public:
    // Lines start at `top` on widget w; each further line is `lineStep` below the one before.
    LegendFlow(const QWidget* w, int top, int lineStep);
    // Where an entry `width` wide goes (on a new line when it would not fit); the next one goes after it.
    QPoint place(int width);
    int lines() const { return m_lines; }
    int lineStep() const { return m_lineStep; }

private:
    int m_right;
    int m_lineStep;
    int m_x = 4;
    int m_y;
    int m_lines = 1;
};

// One entry at `at`, `width` wide: the swatch, vertically centred on the label's line, and the label in `text`.
void drawLegendEntry(QPainter& p, const QWidget* w, const QFontMetrics& fm, QPoint at, int width, const QColor& swatch,
    const QString& label, const QColor& text);

} // namespace mms
