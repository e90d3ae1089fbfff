#pragma once
// Per-CPU timeline: one row per CPU over the whole run, binned by the engine (kCpuBinsPerFrame bins per frame),
// each bin drawn where its time lies on the axis from 0 to the run's end.
// A bin's colour mixes its shares: the kernel function that ran longest (hashed hue), spinning for a lock (red), lock
// hold (amber), and where the CPU did not run: a task of it asleep on I/O (light blue) or on a mutex/rwsem (pale
// red: the lock wait is the task's, the CPU is free for others), else idle (pale grey), like Tracy's lock view.

#include "run/recording.h"

#include <QImage>
#include <QWidget>

#include <memory>

namespace mms {

class CpuTimelineView : public QWidget {
    Q_OBJECT
public:
    explicit CpuTimelineView(QWidget* parent = nullptr);

    void setRecording(std::shared_ptr<const Recording> rec, const QString& title);
    void setTime(Time t);

    static QColor functionColour(const std::string& name);
    static QRgb binColour(const CpuBin& bin, const std::vector<std::string>& fnNames);

    // Where the bins are drawn, and the time under x (tests look at the pixels there).
    QRect plotArea() const;
    Time timeAt(const QRect& plot, int x) const;

    QSize sizeHint() const override { return { 480, 260 }; }
    QSize minimumSizeHint() const override { return { 200, 100 }; }

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent*) override;

private:
    void rebuild();
    QRectF imageRect(const QRect& plot) const;
    // The legend's labels and swatches: the states a bin mixes, then the functions that ran longest.
    std::vector<std::pair<QString, QColor>> legendEntries() const;
    int legendHeight() const;
    int labelWidth() const;

    std::shared_ptr<const Recording> m_rec;
    QString m_title;
    Time m_time = 0;
    QImage m_image; // bins x cpus
    std::vector<std::pair<std::string, double>> m_topFunctions; // for the legend
};

} // namespace mms
