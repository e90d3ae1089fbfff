#pragma once
// Lock-contention heatmap: one row per lock, one column per frame, colour = the share of the machine's CPU time
// spent waiting for that lock in the frame (wait / (interval x CPUs)). A vertical line marks the time cursor.

#include "run/recording.h"

#include <QImage>
#include <QWidget>

#include <memory>

class QPainter;

namespace mms {

class LockHeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit LockHeatmapView(QWidget* parent = nullptr);

    void setRecording(std::shared_ptr<const Recording> rec, const QString& title);
    void setTime(Time t);
    // The wait share of a lock in a frame (0..1).
    double waitShare(std::size_t lock, std::size_t frame) const;
    // Where the cell of (lock, frame) is drawn, for tests; an invalid point if it is off screen.
    QPoint cellCentre(std::size_t lock, std::size_t frame) const;

    QSize sizeHint() const override { return { 480, 220 }; }
    QSize minimumSizeHint() const override { return { 200, 80 }; }

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent*) override;

private:
    void rebuild();
    QRect plotArea() const;
    int labelWidth() const;

    std::shared_ptr<const Recording> m_rec;
    QString m_title;
    Time m_time = 0;
    QImage m_image; // frames x locks
    double m_maxShare = 0;
};

// The heat colour of a share in [0, 1] of the maximum (white-yellow-red-black ramp).
QRgb heatColour(double x);
// Where a share sits on the ramp given the largest share shown: the square root lifts light contention into view
// next to a saturated lock, and any wait at all is at least faintly coloured.
double heatLevel(double share, double peak);
// The colour scale: the ramp from none to the peak, left to right, filling r.
void drawHeatRamp(QPainter& p, const QRect& r);

} // namespace mms
