#pragma once
// CPUs x locks: one row per CPU, one column per lock that was ever contended, colour = the share of that CPU's time
// spent waiting for that lock from the start of the run up to the time cursor (cumulative, so the picture settles
// as the run goes on). The colour scale runs from none to the largest cell at the cursor.
//
// A wait counts whole, spinning or asleep, for the CPU the waiter took the lock on, as lock_stat's waittime-total
// does: a spinlock's or a spinning mutex's wait is that CPU's busy time, but a task asleep on a mutex or rwsem
// leaves its CPU to others, so a sleeping lock's cell is the time the tasks of that CPU spent blocked on it. With
// several tasks per CPU asleep at once it can pass 100 % (the tooltip says so); it is not clamped, so the scale's
// peak is the real one.

#include "run/recording.h"

#include <QWidget>

#include <memory>
#include <vector>

namespace mms {

class CpuLockMapView : public QWidget {
    Q_OBJECT
public:
    explicit CpuLockMapView(QWidget* parent = nullptr);

    void setRecording(std::shared_ptr<const Recording> rec, const QString& title);
    void setTime(Time t);
    std::size_t frame() const { return m_frame; }
    // The recording's lock indices shown as columns, left to right.
    const std::vector<std::size_t>& lockColumns() const { return m_columns; }
    // Wait of a CPU for the lock of a column from frame 0 through the cursor's frame, and its share of the time.
    Time waitUpTo(int cpu, std::size_t column) const;
    double waitShare(int cpu, std::size_t column) const;
    // The largest share at the cursor (the top of the colour scale).
    double peakShare() const { return m_peak; }
    // Where the cell of (cpu, column) is drawn, for tests; an invalid point if there is none.
    QPoint cellCentre(int cpu, std::size_t column) const;

    QSize sizeHint() const override { return { 480, 220 }; }
    QSize minimumSizeHint() const override { return { 200, 80 }; }

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent*) override;

private:
    void rebuild();
    void updatePeak();
    QRect plotArea() const;
    int cpuLabelWidth() const;
    int lockLabelHeight() const;

    std::shared_ptr<const Recording> m_rec;
    QString m_title;
    Time m_time = 0;
    std::size_t m_frame = 0;
    std::vector<std::size_t> m_columns;
    // per column: prefix sums of the wait over frames, [frame * cpus + cpu] = wait in frames 0..frame
    std::vector<std::vector<Time>> m_prefix;
    double m_peak = 0;
};

} // namespace mms
