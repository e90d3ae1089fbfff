#pragma once
// The results chart: a metric against the sweep axis, one line per variant with the post's figures as hollow
// markers on dashed lines; without a sweep, grouped bars per variant, simulated beside the post.
// It plots either each variant's ratio to the baseline variant (the comparison that holds at any scale) or the
// absolute figures. Simulated and post share one value axis whenever their units agree (ratios, a scale-free
// metric, or scale 1); only an absolute figure simulated at a reduced scale gets the post on a second axis, and
// both axes then name their ranges. A sweep of powers of two (threads, devices) is drawn on a log2 axis with a
// tick at each swept value.

#include "plotwidget.h"
#include "run/result.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;

namespace mms {

class ResultsChart : public PlotWidget {
    Q_OBJECT
public:
    enum class Values { Ratio, Absolute };
    explicit ResultsChart(QWidget* parent = nullptr);

    void setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs);
    void setMetric(const QString& metric);
    QString metric() const;
    // What to plot; until it is set, the absolute figures when they compare with the post's, else the ratios.
    void setValues(Values v);
    Values values() const { return m_plotted; }
    static Values defaultValues(const std::string& metric, double scale);

    // What the chart shows, for tests and reports.
    int seriesCount() const; // plotted graphs or bar sets
    bool xLog2() const;
    QStringList xTickLabels() const;
    bool secondValueAxis() const;
    QString valueAxisLabel(bool second = false) const;

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    struct Pair {
        std::optional<double> sim, post;
    };
    Pair valueAt(const std::string& variant, const OJson& point, const std::string& metric) const;
    void fitAxisLabel();
    void rebuild();
    // The lowest and highest value plotted on an axis, from 0 (the axes start at 0 or below).
    struct Extent {
        double lo = 0, hi = 0;
        void add(double v)
        {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    };
    void buildSweep(const std::string& metric);
    void setSweepAxis(const std::string& axis, const std::vector<double>& swept);
    // A variant's simulated line and, where the post has figures, its dashed line; true when it has one.
    bool addSweepSeries(const std::string& metric, const std::string& axis, const std::vector<OJson>& points,
        const std::string& variant, const QColor& colour, Extent& sim, Extent& post);
    void buildBars(const std::string& metric);
    void setValueAxes(const std::string& metric, double simLo, double simHi, double postLo, double postHi, bool anyPost);

    QComboBox* m_metric;
    QComboBox* m_valuesPick;
    std::optional<Values> m_userValues;
    Values m_plotted = Values::Ratio;
    bool m_twoAxes = false;
    QString m_yLabel; // the value axis' full label
    std::shared_ptr<const Scenario> m_sc;
    std::shared_ptr<const ResultSet> m_rs;
};

} // namespace mms
