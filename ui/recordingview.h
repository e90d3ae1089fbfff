#pragma once
// Helpers shared by the views that play a Recording: the frame at a simulated time, and the state colours.

#include "run/recording.h"

#include <QColor>
#include <QFontMetrics>
#include <QStringList>
#include <QString>
#include <QVector>
#include <QWidget>

#include <algorithm>

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

// One colour per PageState (index = the state's byte), as a colour table for QImage::Format_Indexed8.
const QVector<QRgb>& pageStatePalette();
QString pageStateLabel(PageState s);

// "1.234 s", "12.5 ms".
QString formatTime(Time t);

// Height of a view's title row: the font's line and a margin (fonts grow with the DPI setting, not only with
// QT_SCALE_FACTOR, so a fixed pixel height would clip them).
inline int titleHeight(const QWidget* w) { return std::max(20, w->fontMetrics().height() + 6); }

// A view's title: the first of the candidates (longest first) that fits the width, else the last one elided, so
// a narrow dock reads "madvfree — CPUs × locks" rather than "madvfree — CPUs × locks: sh…".
QString fitTitle(const QFontMetrics& fm, int width, const QStringList& candidates);

// PG_ flags as lines of at most about `columns` characters, for tooltips.
QString wrapFlags(const QString& flags, int columns = 40);

} // namespace mms
