#include "resultschart.h"

#include "firstview.h"
#include "qcp.h"
#include "run/ratio.h"
#include "run/table.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mms {

ResultsChart::ResultsChart(QWidget* parent)
    : PlotWidget(parent)
    , m_metric(new QComboBox(this))
    , m_valuesPick(new QComboBox(this))
{
    setWindowTitle(tr("Results chart"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(new QLabel(tr("Metric:"), this));
    bar->addWidget(m_metric, 1);
    bar->addWidget(m_valuesPick);
    m_valuesPick->addItem(tr("ratio to baseline"), int(Values::Ratio));
    m_valuesPick->addItem(tr("absolute"), int(Values::Absolute));
    m_valuesPick->setToolTip(tr("Each variant's figure divided by the baseline variant's at the same point (holds at any scale), "
                                "or the figures themselves"));
    layout()->insertLayout(0, bar);
    connect(m_metric, &QComboBox::currentTextChanged, this, [this] { rebuild(); });
    connect(m_valuesPick, &QComboBox::activated, this, [this](int i) { setValues(Values(m_valuesPick->itemData(i).toInt())); });
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
    if (i < 0 && m_sc)
        i = m_metric->findText(QString::fromStdString(headlineMetric(*m_sc))); // a new scenario opens on its headline
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

void ResultsChart::setValues(Values v)
{
    m_userValues = v;
    rebuild();
}

ResultsChart::Values ResultsChart::defaultValues(const std::string& metric, double scale)
{
    return comparableToPost(metric, scale) ? Values::Absolute : Values::Ratio;
}

int ResultsChart::seriesCount() const { return plot()->plottableCount(); }

bool ResultsChart::xLog2() const { return plot()->xAxis->scaleType() == QCPAxis::stLogarithmic; }

QStringList ResultsChart::xTickLabels() const
{
    QStringList out;
    if (auto text = plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>())
        for (auto it = text->ticks().cbegin(); it != text->ticks().cend(); ++it)
            out << it.value();
    return out;
}

bool ResultsChart::secondValueAxis() const { return plot()->yAxis2->visible(); }

QString ResultsChart::valueAxisLabel(bool second) const { return second ? plot()->yAxis2->label() : m_yLabel; }

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
    plot()->yAxis2->setVisible(false);
    m_twoAxes = false;
    if (!m_sc || !m_rs || m_metric->currentText().isEmpty()) {
        requestReplot();
        return;
    }
    const std::string metric = m_metric->currentText().toStdString();
    m_plotted = m_userValues.value_or(defaultValues(metric, m_rs->scale));
    m_valuesPick->setCurrentIndex(m_valuesPick->findData(int(m_plotted)));
    m_valuesPick->setItemText(0, tr("ratio to %1").arg(QString::fromStdString(m_sc->baseline())));
    if (m_sc->axes().empty())
        buildBars(metric);
    else
        buildSweep(metric);
    plot()->yAxis->setLabel(m_yLabel);
    styleAxes();
    requestReplot();
}

ResultsChart::Pair ResultsChart::valueAt(const std::string& variant, const OJson& point, const std::string& metric) const
{
    if (m_plotted == Values::Ratio) {
        const Ratio r = tableRatio(*m_rs, *m_sc, variant, point, metric);
        return { r.sim, r.post };
    }
    const Cell c = tableCell(*m_rs, *m_sc, variant, point, metric);
    return { c.n > 0 ? std::optional<double>(c.mean) : std::nullopt, c.published };
}

// The value axes: one for simulated and post whenever they compare (ratios, or an absolute figure at scale 1 or
// scale-free); else the post on the right axis, each axis naming the range it spans, so nobody reads a simulated
// line and a post's line drawn at the same height as equal figures.
void ResultsChart::setValueAxes(const std::string& metric, double simLo, double simHi, double postLo, double postHi, bool anyPost)
{
    const QString m = QString::fromStdString(metric);
    const QString better = lowerIsBetter(metric) ? tr(" (↓ better)") : tr(" (↑ better)");
    auto range = [&](double lo, double hi) {
        return QStringLiteral("%1–%2").arg(QString::fromStdString(formatNumber(lo, metric)), QString::fromStdString(formatNumber(hi, metric)));
    };
    auto fit = [](QCPAxis* ax, double lo, double hi) { ax->setRange(std::min(0.0, lo), hi > 0 ? hi * 1.12 : 1.0); };
    m_twoAxes = m_plotted == Values::Absolute && anyPost && !comparableToPost(metric, m_rs->scale);
    if (m_plotted == Values::Ratio) {
        m_yLabel = tr("%1 ÷ %2").arg(m, QString::fromStdString(m_sc->baseline())) + better;
        fit(plot()->yAxis, std::min(simLo, postLo), std::max({ simHi, postHi, 1.0 }));
    } else if (!m_twoAxes) {
        m_yLabel = (m_rs->scale != 1.0 && !scaleFree(metric) ? tr("%1 at scale %2").arg(m).arg(m_rs->scale) : m) + better;
        fit(plot()->yAxis, std::min(simLo, postLo), std::max(simHi, postHi));
    } else {
        m_yLabel = tr("%1, simulated at scale %2: %3").arg(m).arg(m_rs->scale).arg(range(simLo, simHi)) + better;
        plot()->yAxis2->setLabel(tr("post (full scale): %1").arg(range(postLo, postHi)));
        fit(plot()->yAxis, simLo, simHi);
        fit(plot()->yAxis2, postLo, postHi);
    }
    plot()->yAxis2->setVisible(m_twoAxes);
    if (m_plotted == Values::Ratio) {
        auto* one = new QCPItemStraightLine(plot());
        one->point1->setCoords(plot()->xAxis->range().lower, 1.0);
        one->point2->setCoords(plot()->xAxis->range().upper, 1.0);
        one->setPen(QPen(QColor(0x90, 0x90, 0x90), 1, Qt::DotLine));
    }
}

void ResultsChart::buildBars(const std::string& metric)
{
    const std::vector<std::string> variants = m_sc->variantNames();
    const bool ratio = m_plotted == Values::Ratio;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    auto* group = new QCPBarsGroup(plot());
    group->setSpacing(2);
    m_twoAxes = !ratio && !comparableToPost(metric, m_rs->scale);
    auto* sim = new QCPBars(plot()->xAxis, plot()->yAxis);
    auto* pub = new QCPBars(plot()->xAxis, m_twoAxes ? plot()->yAxis2 : plot()->yAxis);
    const QString base = QString::fromStdString(m_sc->baseline());
    sim->setName(ratio ? tr("simulated ÷ %1").arg(base) : m_rs->scale != 1.0 && !scaleFree(metric) ? tr("simulated (scale %1)").arg(m_rs->scale) : tr("simulated"));
    pub->setName(ratio ? tr("post ÷ %1").arg(base) : tr("published (post)"));
    sim->setPen(QPen(seriesColour(0).darker(130)));
    sim->setBrush(seriesColour(0));
    pub->setPen(QPen(QColor(0x80, 0x80, 0x80)));
    pub->setBrush(QColor(0xc8, 0xc8, 0xc8));
    for (auto* b : { sim, pub }) {
        b->setWidth(0.35);
        b->setBarsGroup(group);
    }
    double simLo = 0, simHi = 0, postLo = 0, postHi = 0;
    bool anyPublished = false;
    auto text = [&](double v) { return ratio ? QString::fromStdString(formatRatio(v)) + QStringLiteral("×") : QString::fromStdString(formatNumber(v, metric)); };
    // The two bars' centres are 0.36 x-units apart; in a narrow chart their value labels would run into each
    // other ("101761879585"): then each label leans away from the gap between the bars instead of centring.
    const double unitPx = double(std::max(1, plot()->axisRect()->width())) / double(variants.size() + 1);
    const QFontMetrics fm(font());
    std::vector<std::pair<QCPItemText*, QCPBars*>> labels;
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const Pair v = valueAt(variants[i], OJson::object(), metric);
        const bool crowded = v.sim && v.post && (fm.horizontalAdvance(text(*v.sim)) + fm.horizontalAdvance(text(*v.post))) / 2.0 + 6 > 0.36 * unitPx;
        ticker->addTick(double(i + 1), QString::fromStdString(variants[i]));
        if (v.sim) {
            sim->addData(double(i + 1), *v.sim);
            simLo = std::min(simLo, *v.sim);
            simHi = std::max(simHi, *v.sim);
            auto* label = new QCPItemText(plot());
            label->position->setCoords(double(i + 1) - (crowded ? 0.02 : 0.18), *v.sim);
            label->setPositionAlignment((crowded ? Qt::AlignRight : Qt::AlignHCenter) | Qt::AlignBottom);
            label->setText(text(*v.sim));
            label->setColor(palette().color(QPalette::Text));
            label->setFont(font());
        }
        if (v.post) {
            anyPublished = true;
            pub->addData(double(i + 1), *v.post);
            postLo = std::min(postLo, *v.post);
            postHi = std::max(postHi, *v.post);
            auto* label = new QCPItemText(plot());
            label->position->setAxes(plot()->xAxis, pub->valueAxis());
            label->position->setCoords(double(i + 1) + (crowded ? 0.02 : 0.18), *v.post);
            label->setPositionAlignment((crowded ? Qt::AlignLeft : Qt::AlignHCenter) | Qt::AlignBottom);
            label->setText(text(*v.post));
            label->setColor(QColor(0x70, 0x70, 0x70));
            label->setFont(font());
        }
    }
    if (!anyPublished)
        plot()->removePlottable(pub);
    plot()->xAxis->setScaleType(QCPAxis::stLinear);
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
    setValueAxes(metric, simLo, simHi, postLo, postHi, anyPublished);
    if (m_twoAxes) {
        sim->setName(sim->name() + tr(", left axis"));
        pub->setName(pub->name() + tr(", right axis"));
    }
}

namespace {
    // The distinct numeric values a sweep takes on its axis, in order.
    std::vector<double> sweptValues(const std::vector<OJson>& points, const std::string& axis)
    {
        std::vector<double> swept;
        for (const OJson& p : points)
            if (const OJson& a = p.value(axis, OJson()); a.is_number() && std::find(swept.begin(), swept.end(), a.get<double>()) == swept.end())
                swept.push_back(a.get<double>());
        std::sort(swept.begin(), swept.end());
        return swept;
    }

    // Powers of two (threads 1..16, devices 1..8) go on a log2 axis with a tick at each.
    bool powersOfTwo(const std::vector<double>& swept)
    {
        return swept.size() >= 3 && std::all_of(swept.begin(), swept.end(), [](double v) {
            return v >= 1 && v == std::floor(v) && (std::uint64_t(v) & (std::uint64_t(v) - 1)) == 0;
        });
    }
} // namespace

void ResultsChart::buildSweep(const std::string& metric)
{
    const std::string axis = m_sc->axes().front();
    const std::vector<OJson> points = m_sc->points();
    const std::vector<std::string> variants = m_sc->variantNames();
    m_twoAxes = m_plotted != Values::Ratio && !comparableToPost(metric, m_rs->scale);
    setSweepAxis(axis, sweptValues(points, axis));
    Extent sim, post;
    bool anyPublished = false;
    for (std::size_t v = 0; v < variants.size(); ++v)
        anyPublished = addSweepSeries(metric, axis, points, variants[v], seriesColour(int(v)), sim, post) || anyPublished;
    if (anyPublished) {
        // one legend entry explains every hollow marker
        QCPGraph* key = plot()->addGraph(plot()->xAxis, plot()->yAxis);
        key->setName(m_twoAxes ? tr("the post (right axis)") : tr("the post"));
        key->setPen(QPen(QColor(0x80, 0x80, 0x80), 1.2, Qt::DashLine));
        key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(0x80, 0x80, 0x80), Qt::white, 8));
    }
    setValueAxes(metric, sim.lo, sim.hi, post.lo, post.hi, anyPublished);
}

void ResultsChart::setSweepAxis(const std::string& axis, const std::vector<double>& swept)
{
    const bool log2 = powersOfTwo(swept);
    if (log2) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (double v : swept)
            ticker->addTick(v, QString::number(v));
        plot()->xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot()->xAxis->setTicker(ticker);
        plot()->xAxis->setSubTicks(false);
    } else {
        plot()->xAxis->setScaleType(QCPAxis::stLinear);
        plot()->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        plot()->xAxis->setSubTicks(true);
    }
    plot()->legend->setWrap(4);
    plot()->xAxis->setTickLabelRotation(0);
    plot()->xAxis->setLabel(QString::fromStdString(axis) + (log2 ? tr(" (log₂ scale)") : QString()));
    if (swept.empty())
        plot()->xAxis->setRange(0, 1);
    else if (log2)
        plot()->xAxis->setRange(swept.front() / 1.25, swept.back() * 1.25);
    else {
        const double pad = std::max((swept.back() - swept.front()) * 0.05, 0.5);
        plot()->xAxis->setRange(swept.front() - pad, swept.back() + pad);
    }
}

bool ResultsChart::addSweepSeries(const std::string& metric, const std::string& axis, const std::vector<OJson>& points,
    const std::string& variant, const QColor& colour, Extent& sim, Extent& post)
{
    QVector<double> x, y, px, py;
    for (const OJson& p : points) {
        const OJson& a = p.value(axis, OJson());
        if (!a.is_number())
            continue;
        const Pair val = valueAt(variant, p, metric);
        if (val.sim) {
            x << a.get<double>();
            y << *val.sim;
            sim.add(*val.sim);
        }
        if (val.post) {
            px << a.get<double>();
            py << *val.post;
            post.add(*val.post);
        }
    }
    QCPGraph* g = plot()->addGraph();
    g->setName(QString::fromStdString(variant));
    g->setPen(QPen(colour, 2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 7));
    g->setData(x, y);
    if (px.isEmpty())
        return false;
    QCPGraph* pg = plot()->addGraph(plot()->xAxis, m_twoAxes ? plot()->yAxis2 : plot()->yAxis);
    pg->setName(QString::fromStdString(variant) + tr(" (post)"));
    pg->setPen(QPen(colour, 1.2, Qt::DashLine));
    pg->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 8));
    pg->setData(px, py);
    pg->removeFromLegend();
    return true;
}

} // namespace mms
