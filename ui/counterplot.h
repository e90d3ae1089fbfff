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

    // A level at each frame, or a cumulative counter's rate (per second) over bins of whole frames, as plotted. A
    // bin spans enough frames for the counter to move kEventsPerBin times on average (a workload that counts a few
    // large steps, such as transactions, reads as a rate, not a comb of single events), and more when the plot is
    // narrower than the frames (maxBins, 0 for no limit); never fewer than kMinBins bins.
    static QVector<double> values(const Recording& r, const std::string& counter, QVector<double>* seconds, int maxBins = 0);
    static int framesPerBin(const Recording& r, const std::string& counter, int maxBins = 0);
    static constexpr double kEventsPerBin = 16;
    static constexpr std::size_t kMinBins = 24;
    static bool isLevel(const std::string& counter);

private:
    void rebuild();

    QComboBox* m_counter;
    QVector<Series> m_series;
    QCPItemStraightLine* m_cursor = nullptr;
};

} // namespace mms
