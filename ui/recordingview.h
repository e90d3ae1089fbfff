#pragma once
// Helpers shared by the views that play a Recording: the frame at a simulated time, and the state colours.

#include "run/recording.h"

#include <QColor>
#include <QString>
#include <QVector>

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

} // namespace mms
