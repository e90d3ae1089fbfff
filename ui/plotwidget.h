#pragma once
// Base of every QCustomPlot chart: owns the plot, styles it in one place (again on palette change), replots on a
// capped timer with rpQueuedReplot, and exports PNG/PDF/SVG (SVG through QSvgGenerator + QCPPainter).

#include "export.h"

#include <QWidget>

class QCustomPlot;
class QVBoxLayout;
class QTimer;

namespace mms {

class PlotWidget : public QWidget, public Exportable {
    Q_OBJECT
public:
    explicit PlotWidget(QWidget* parent = nullptr);
    ~PlotWidget() override;

    QCustomPlot* plot() const { return m_plot; }
    bool exportTo(const QString& path, QString* error) override;
    // Renders at a given size (for reports), whether or not the widget is shown.
    QImage renderImage(QSize size, double dpr = 2.0);
    // The variant colours shared by every chart.
    static QColor seriesColour(int i);

protected:
    void requestReplot();
    void styleAxes();
    void changeEvent(QEvent* e) override;
    QVBoxLayout* layout() const { return m_layout; }

private:
    QCustomPlot* m_plot;
    QVBoxLayout* m_layout;
    QTimer* m_replot;
};

} // namespace mms
