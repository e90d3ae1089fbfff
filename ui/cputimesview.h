#pragma once
// What time(1) and /proc/stat say about the shown run: its user, system and elapsed time (and the kernel threads'
// system time, which time(1) leaves out) on the title row, and one column per CPU stacked from the bottom with its
// user, system and idle time over the whole run (each column is the run's simulated time).

#include "run/result.h"

#include <QWidget>

namespace mms {

class CpuTimesView : public QWidget {
    Q_OBJECT
public:
    explicit CpuTimesView(QWidget* parent = nullptr);

    void setRun(const RunResult& r, const QString& title);
    void clear();
    const std::vector<CpuStat>& cpus() const { return m_cpus; }
    // The title row's figures, as drawn ("user 0.16 s · sys 1.02 s · elapsed 1.15 s · kthreads 0.9 ms").
    QString summary() const;
    // Where CPU `cpu`'s column is drawn (user at the bottom, then system, then a guest's steal, then idle); empty if
    // there is none.
    QRect columnRect(int cpu) const;

    static QColor userColour() { return QColor(0x3a, 0x7b, 0xd5); }
    static QColor sysColour() { return QColor(0xe0, 0x5a, 0x2b); }
    static QColor stealColour() { return QColor(0x8c, 0x8c, 0x8c); }

    QSize sizeHint() const override { return { 480, 150 }; }
    QSize minimumSizeHint() const override { return { 200, 90 }; }

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent*) override;

private:
    QRect plotArea() const;
    int cpuAt(const QPoint& pos) const;

    bool m_has = false;
    QString m_title;
    Metrics m_metrics;
    std::vector<CpuStat> m_cpus;
};

} // namespace mms
