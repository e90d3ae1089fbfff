#include "resultschart.h"

#include "qcp.h"
#include "run/format.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace mms {

ResultsChart::ResultsChart(QWidget* parent)
    : PlotWidget(parent)
    , m_metric(new QComboBox(this))
{
    setWindowTitle(tr("Results chart"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(new QLabel(tr("Metric:"), this));
    bar->addWidget(m_metric, 1);
    layout()->insertLayout(0, bar);
    connect(m_metric, &QComboBox::currentTextChanged, this, [this] { rebuild(); });
    plot()->legend->setVisible(true);
    plot()->legend->setFont(font());
    // The legend sits in its own row under the axes, so it never hides a bar or a label.
    auto* legendRow = new QCPLayoutGrid;
    plot()->plotLayout()->addElement(1, 0, legendRow);
    plot()->axisRect()->insetLayout()->take(plot()->legend);
    legendRow->addElement(0, 0, plot()->legend);
    legendRow->setMargins(QMargins(0, 0, 0, 4));
    plot()->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot()->plotLayout()->setRowStretchFactor(1, 0.001);
    connect(plot(), &QCustomPlot::afterReplot, this, &ResultsChart::fitAxisLabel);
    styleAxes();
}

void ResultsChart::setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs)
{
    m_sc = std::move(sc);
    m_rs = std::move(rs);
    const QString keep = m_metric->currentText();
    m_metric->blockSignals(true);
    m_metric->clear();
    if (m_sc)
        for (const std::string& m : m_sc->metrics())
            m_metric->addItem(QString::fromStdString(m));
    int i = m_metric->findText(keep);
    m_metric->setCurrentIndex(std::max(0, i));
    m_metric->blockSignals(false);
    rebuild();
}

void ResultsChart::setMetric(const QString& metric)
{
    int i = m_metric->findText(metric);
    if (i >= 0)
        m_metric->setCurrentIndex(i);
}

QString ResultsChart::metric() const { return m_metric->currentText(); }

int ResultsChart::seriesCount() const { return plot()->plottableCount(); }

void ResultsChart::resizeEvent(QResizeEvent* e)
{
    PlotWidget::resizeEvent(e);
    if (m_sc)
        rebuild(); // the variant names may need tilting, the labels spreading, the axis label shortening
}

void ResultsChart::fitAxisLabel()
{
    // The rotated axis label drops its "(↓ better)" when the axis rect is too short for it (1280x800). Checked
    // after a replot, when the layout has the rect's real height; a changed label replots once more.
    const int room = plot()->axisRect()->height();
    const QString label = QFontMetrics(plot()->yAxis->labelFont()).horizontalAdvance(m_yLabel) + 8 < room || !m_yLabel.contains(QLatin1Char('('))
        ? m_yLabel
        : m_yLabel.left(m_yLabel.indexOf(QLatin1String(" ("))); // the metric's name alone
    if (plot()->yAxis->label() != label) {
        plot()->yAxis->setLabel(label);
        requestReplot();
    }
}

void ResultsChart::rebuild()
{
    plot()->clearPlottables();
    plot()->clearItems();
    if (!m_sc || !m_rs || m_metric->currentText().isEmpty()) {
        requestReplot();
        return;
    }
    const std::string metric = m_metric->currentText().toStdString();
    if (m_sc->axes().empty())
        buildBars(metric);
    else
        buildSweep(metric);
    m_yLabel = m_metric->currentText() + (lowerIsBetter(metric) ? tr(" (↓ better)") : tr(" (↑ better)"));
    plot()->yAxis->setLabel(m_yLabel);
    styleAxes();
    requestReplot();
}

void ResultsChart::buildBars(const std::string& metric)
{
    const std::vector<std::string> variants = m_sc->variantNames();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    auto* group = new QCPBarsGroup(plot());
    group->setSpacing(2);
    // At a reduced --scale the simulated figures are ~scale x the post's: the post's bars get their own axis (right)
    // so the two sets compare by shape and ratio; at scale 1 both share the left axis.
    const bool ownAxis = m_rs->scale != 1.0;
    auto* sim = new QCPBars(plot()->xAxis, plot()->yAxis);
    auto* pub = new QCPBars(plot()->xAxis, ownAxis ? plot()->yAxis2 : plot()->yAxis);
    sim->setName(tr("simulated"));
    pub->setName(tr("published (post)"));
    sim->setPen(QPen(seriesColour(0).darker(130)));
    sim->setBrush(seriesColour(0));
    pub->setPen(QPen(QColor(0x80, 0x80, 0x80)));
    pub->setBrush(QColor(0xc8, 0xc8, 0xc8));
    for (auto* b : { sim, pub }) {
        b->setWidth(0.35);
        b->setBarsGroup(group);
    }
    double top = 0, pubTop = 0;
    bool anyPublished = false;
    // The two bars' centres are 0.36 x-units apart; in a narrow chart their value labels would run into each
    // other ("101761879585"): then each label leans away from the gap between the bars instead of centring.
    const double unitPx = double(std::max(1, plot()->axisRect()->width())) / double(variants.size() + 1);
    const QFontMetrics fm(font());
    for (std::size_t i = 0; i < variants.size(); ++i) {
        Cell c = tableCell(*m_rs, *m_sc, variants[i], OJson::object(), metric);
        const bool crowded = c.n > 0 && c.published
            && (fm.horizontalAdvance(QString::fromStdString(formatNumber(c.mean, metric)))
                   + fm.horizontalAdvance(QString::fromStdString(formatNumber(*c.published, metric))))
                    / 2.0 + 6 > 0.36 * unitPx;
        ticker->addTick(double(i + 1), QString::fromStdString(variants[i]));
        if (c.n > 0) {
            sim->addData(double(i + 1), c.mean);
            top = std::max(top, c.mean);
            auto* label = new QCPItemText(plot());
            label->position->setCoords(double(i + 1) - (crowded ? 0.02 : 0.18), c.mean);
            label->setPositionAlignment((crowded ? Qt::AlignRight : Qt::AlignHCenter) | Qt::AlignBottom);
            label->setText(QString::fromStdString(formatNumber(c.mean, metric)));
            label->setColor(palette().color(QPalette::Text));
            label->setFont(font());
        }
        if (c.published) {
            anyPublished = true;
            pub->addData(double(i + 1), *c.published);
            (ownAxis ? pubTop : top) = std::max(ownAxis ? pubTop : top, *c.published);
            auto* label = new QCPItemText(plot());
            label->position->setAxes(plot()->xAxis, pub->valueAxis());
            label->position->setCoords(double(i + 1) + (crowded ? 0.02 : 0.18), *c.published);
            label->setPositionAlignment((crowded ? Qt::AlignLeft : Qt::AlignHCenter) | Qt::AlignBottom);
            label->setText(QString::fromStdString(formatNumber(*c.published, metric)));
            label->setColor(QColor(0x70, 0x70, 0x70));
            label->setFont(font());
        }
    }
    if (!anyPublished)
        plot()->removePlottable(pub);
    plot()->yAxis2->setVisible(ownAxis && anyPublished);
    if (ownAxis && anyPublished) {
        plot()->yAxis2->setRange(0, pubTop > 0 ? pubTop * 1.15 : 1.0);
        plot()->yAxis2->setLabel(tr("post (full scale)"));
        sim->setName(tr("simulated (scale %1, left axis)").arg(m_rs->scale));
        pub->setName(tr("published (post, right axis)"));
    }
    plot()->xAxis->setTicker(ticker);
    // Tilt the variant names when they would run into each other.
    int widest = 0;
    for (const std::string& v : variants)
        widest = std::max(widest, QFontMetrics(plot()->xAxis->tickLabelFont()).horizontalAdvance(QString::fromStdString(v)));
    const int slot = (std::max(plot()->width(), 400) - 130) / std::max<int>(1, int(variants.size()));
    plot()->xAxis->setTickLabelRotation(widest + 8 > slot ? -20 : 0);
    plot()->xAxis->setSubTicks(false);
    plot()->xAxis->setTickLength(0, 4);
    plot()->xAxis->setLabel(QString());
    plot()->xAxis->setRange(0.4, double(variants.size()) + 0.6);
    plot()->yAxis->setRange(0, top > 0 ? top * 1.15 : 1.0);
}

void ResultsChart::buildSweep(const std::string& metric)
{
    const bool ownAxis = m_rs->scale != 1.0; // see buildBars
    plot()->yAxis2->setVisible(ownAxis);
    plot()->yAxis2->setLabel(tr("post (full scale)"));
    const std::string axis = m_sc->axes().front();
    const std::vector<OJson> points = m_sc->points();
    const std::vector<std::string> variants = m_sc->variantNames();
    bool anyPublished = false;
    plot()->legend->setWrap(4);
    plot()->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot()->xAxis->setTickLabelRotation(0);
    plot()->xAxis->setLabel(QString::fromStdString(axis));
    for (std::size_t v = 0; v < variants.size(); ++v) {
        QVector<double> x, y, px, py;
        for (const OJson& p : points) {
            const OJson& a = p.value(axis, OJson());
            if (!a.is_number())
                continue;
            Cell c = tableCell(*m_rs, *m_sc, variants[v], p, metric);
            if (c.n > 0) {
                x << a.get<double>();
                y << c.mean;
            }
            if (c.published) {
                px << a.get<double>();
                py << *c.published;
            }
        }
        const QColor colour = seriesColour(int(v));
        QCPGraph* g = plot()->addGraph();
        g->setName(QString::fromStdString(variants[v]));
        g->setPen(QPen(colour, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 7));
        g->setData(x, y);
        if (!px.isEmpty()) {
            QCPGraph* pg = plot()->addGraph(plot()->xAxis, ownAxis ? plot()->yAxis2 : plot()->yAxis);
            pg->setName(QString::fromStdString(variants[v]) + tr(" (post)"));
            pg->setPen(QPen(colour, 1.2, Qt::DashLine));
            pg->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 8));
            pg->setData(px, py);
            pg->removeFromLegend();
            anyPublished = true;
        }
    }
    if (anyPublished) {
        // one legend entry explains every hollow marker
        QCPGraph* key = plot()->addGraph(plot()->xAxis, plot()->yAxis);
        key->setName(ownAxis ? tr("the post (right axis)") : tr("the post"));
        key->setPen(QPen(QColor(0x80, 0x80, 0x80), 1.2, Qt::DashLine));
        key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(0x80, 0x80, 0x80), Qt::white, 8));
    }
    plot()->rescaleAxes();
    QCPRange xr = plot()->xAxis->range();
    double pad = std::max(xr.size() * 0.05, 0.5);
    plot()->xAxis->setRange(xr.lower - pad, xr.upper + pad);
    for (QCPAxis* ax : { plot()->yAxis, plot()->yAxis2 }) {
        QCPRange yr = ax->range();
        ax->setRange(std::min(0.0, yr.lower), yr.upper > 0 ? yr.upper * 1.1 : 1.0);
    }
}

} // namespace mms
