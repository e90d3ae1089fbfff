#pragma once
// The sweep chart (metric vs the sweep axis, one line per variant, the post's figures as hollow markers on dashed
// lines); without a sweep, grouped bars per variant: simulated beside published.

#include "plotwidget.h"
#include "run/result.h"

#include <memory>

class QComboBox;

namespace mms {

class ResultsChart : public PlotWidget {
    Q_OBJECT
public:
    explicit ResultsChart(QWidget* parent = nullptr);

    void setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs);
    void setMetric(const QString& metric);
    QString metric() const;
    // Number of plotted series (graphs or bar sets), for tests.
    int seriesCount() const;

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void fitAxisLabel();
    QString m_yLabel; // the value axis' full label
    void rebuild();
    void buildSweep(const std::string& metric);
    void buildBars(const std::string& metric);

    QComboBox* m_metric;
    std::shared_ptr<const Scenario> m_sc;
    std::shared_ptr<const ResultSet> m_rs;
};

} // namespace mms
