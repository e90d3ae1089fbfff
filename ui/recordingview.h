#pragma once
// Functions shared by the views that play a Recording: the frame at a simulated time, and the state colours.

#include "run/recording.h"

#include <QColor>
#include <QFontMetrics>
#include <QStringList>
#include <QString>
#include <QVector>
#include <QWidget>

#include <algorithm>
#include <string>
#include <utility>

class QPainter;

namespace mms {

// The last frame at or before time t (frame 0 before the first).
inline std::size_t frameAt(const Recording& r, Time t)
{
    std::size_t lo = 0, hi = r.frameCount();
    while (hi - lo > 1) {
        std::size_t mid = (lo + hi) / 2;
        if (r.frameTime(mid) <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

inline Time recordingEnd(const Recording& r) { return r.frameCount() ? r.frameTime(r.frameCount() - 1) : 0; }

// One colour per PageMapState (index = the state's byte), as a colour table for QImage::Format_Indexed8.
const QVector<QRgb>& pageStatePalette();
QString pageStateLabel(PageMapState s);

// "1.234 s", "12.5 ms".
QString formatTime(Time t);

// Height of a view's title row: the font's line and a margin (fonts grow with the DPI setting, not only with
// QT_SCALE_FACTOR, so a fixed pixel height would clip them).
inline int titleHeight(const QWidget* w) { return std::max(20, w->fontMetrics().height() + 6); }

// A view's title: the first of the candidates (longest first) that fits the width, else the last one elided, so
// a narrow dock reads "madvfree — CPUs × locks" rather than "madvfree — CPUs × locks: sh…".
QString fitTitle(const QFontMetrics& fm, int width, const QStringList& candidates);

// The grid views (lock heatmap, CPUs x locks) share how they start painting, their title row and how a cell of a
// columns x rows grid maps to pixels, so both read the same and their tests can aim at a cell the same way.

// Starts a view's paintEvent: the Base background and the Text pen. Without a recording it says "no recording
// yet" in the middle and returns false: nothing more to draw.
bool beginViewPaint(QPainter& p, const QWidget* w, bool hasRecording);
// The title row: the first candidate that fits (fitTitle), left-aligned.
void drawViewTitle(QPainter& p, const QWidget* w, const QStringList& candidates);
// The centre of cell (column, row) of a grid of columns x rows laid over area.
QPoint gridCellCentre(const QRect& area, std::size_t column, std::size_t row, std::size_t columns, std::size_t rows);
// The cell (column, row) under pos, clamped to the grid; pos must lie in area.
std::pair<std::size_t, std::size_t> gridCellAt(
    const QRect& area, const QPoint& pos, std::size_t columns, std::size_t rows);

// A lock's name elided to width: a node's lock keeps its node ("node1 zone->lr…_lock"), the class is elided in the
// middle, so the instances of one class on different nodes stay apart however narrow the label.
QString elideLockName(const QFontMetrics& fm, const std::string& name, int width);

// The machine's grouping beside rows of CPUs (one row a CPU, from `top`, `rowH` high): a line between CPUs of two
// last-level caches, a heavier one between two sockets, from x = 2 to `right` (the labels' margin, so that the rows
// stay whole).
void drawCpuGroupLines(QPainter& p, const QWidget* w, const Recording& r, double top, double rowH, double right);
// "CPU 3 (socket 0, last-level cache 1)", for tooltips.
QString cpuWithPlace(const Recording& r, int cpu);

// PG_ flags as lines of at most about `columns` characters, for tooltips.
QString wrapFlags(const QString& flags, int columns = 40);

} // namespace mms
