#pragma once
// Counters over simulated time, one line per variant: rates (per second) of the cumulative vmstat-like counters,
// levels for free_pages and swap_used. A vertical line follows the time cursor.

#include "plotwidget.h"
#include "run/recording.h"

#include <memory>

class QComboBox;
class QCPItemStraightLine;

namespace mms {

class CounterPlot : public PlotWidget {
    Q_OBJECT
public:
    struct Series {
        QString name;
        std::shared_ptr<const Recording> recording;
    };
    explicit CounterPlot(QWidget* parent = nullptr);

    void setSeries(const QVector<Series>& series);
    void setCounter(const QString& name);
    QString counter() const;
    void setTime(Time t);

    // Rate (per second) or level of a counter at each frame, as plotted.
    static QVector<double> values(const Recording& r, const std::string& counter, QVector<double>* seconds);
    static bool isLevel(const std::string& counter);

private:
    void rebuild();

    QComboBox* m_counter;
    QVector<Series> m_series;
    QCPItemStraightLine* m_cursor = nullptr;
};

} // namespace mms
