#include "counterplot.h"

#include "qcp.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mms {

CounterPlot::CounterPlot(QWidget* parent)
    : PlotWidget(parent)
    , m_counter(new QComboBox(this))
{
    setWindowTitle(tr("Counters"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(new QLabel(tr("Counter:"), this));
    bar->addWidget(m_counter, 1);
    layout()->insertLayout(0, bar);
    m_counter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_counter, &QComboBox::currentTextChanged, this, [this] { rebuild(); });

    plot()->legend->setVisible(true);
    plot()->legend->setFont(font());
    plot()->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot()->xAxis->setLabel(tr("simulated time (s)"));
    m_cursor = new QCPItemStraightLine(plot());
    m_cursor->setPen(QPen(QColor(0x20, 0x60, 0xff), 1.5));
    m_cursor->point1->setCoords(0, 0);
    m_cursor->point2->setCoords(0, 1);
    styleAxes();
}

bool CounterPlot::isLevel(const std::string& counter)
{
    return counter == "free_pages" || counter == "swap_used" || counter == "zram_pool_pages" || counter == "zswap_pool_pages";
}

int CounterPlot::framesPerBin(const Recording& r, const std::string& counter, int maxBins)
{
    const std::size_t idx = r.counterIndex(counter);
    const std::size_t frames = r.frameCount();
    if (isLevel(counter) || idx >= r.counterNames().size() || frames < 2)
        return 1;
    const std::size_t intervals = frames - 1;
    const double moved = r.counters(frames - 1)[idx] - r.counters(0)[idx];
    std::size_t k = 1;
    if (moved > 0)
        k = std::size_t(std::ceil(kEventsPerBin * double(intervals) / moved));
    if (maxBins > 0)
        k = std::max(k, (intervals + std::size_t(maxBins) - 1) / std::size_t(maxBins));
    return int(std::clamp<std::size_t>(k, 1, std::max<std::size_t>(1, intervals / kMinBins)));
}

QVector<double> CounterPlot::values(const Recording& r, const std::string& counter, QVector<double>* seconds, int maxBins)
{
    QVector<double> out;
    const std::size_t idx = r.counterIndex(counter);
    if (idx >= r.counterNames().size())
        return out;
    if (isLevel(counter)) {
        for (std::size_t f = 0; f < r.frameCount(); ++f) {
            out.push_back(r.counters(f)[idx] * 4096.0 / (1 << 20)); // pages -> MiB
            if (seconds)
                seconds->push_back(toSec(r.frameTime(f)));
        }
        return out;
    }
    // A rate over each bin of k whole frames, drawn at the bin's middle; the last bin takes what is left.
    const std::size_t k = std::size_t(framesPerBin(r, counter, maxBins));
    for (std::size_t from = 0; from + 1 < r.frameCount(); from += k) {
        const std::size_t to = std::min(from + k, r.frameCount() - 1);
        const double dt = toSec(r.frameTime(to) - r.frameTime(from));
        out.push_back(dt > 0 ? (r.counters(to)[idx] - r.counters(from)[idx]) / dt : 0);
        if (seconds)
            seconds->push_back(toSec(r.frameTime(from) + (r.frameTime(to) - r.frameTime(from)) / 2));
    }
    return out;
}

void CounterPlot::setSeries(const QVector<Series>& series)
{
    m_series = series;
    const QString keep = m_counter->currentText();
    QStringList names;
    for (const Series& s : m_series)
        if (s.recording)
            for (const std::string& n : s.recording->counterNames())
                if (!names.contains(QString::fromStdString(n)))
                    names << QString::fromStdString(n);
    m_counter->blockSignals(true);
    m_counter->clear();
    m_counter->addItems(names);
    int i = keep.isEmpty() ? -1 : m_counter->findText(keep);
    if (i < 0) {
        // The first of the telling counters that moves in this run.
        for (const char* c : { "pswpin", "ops", "pswpout", "tlb_remote_ipi", "vm_exits", "zram_pool_pages", "zswap_pool_pages", "pgfault", "free_pages" }) {
            const int at = m_counter->findText(QString::fromLatin1(c));
            if (at < 0)
                continue;
            if (i < 0)
                i = at;
            bool moves = false;
            for (const Series& s : m_series)
                if (s.recording)
                    for (double v : values(*s.recording, c, nullptr))
                        moves = moves || v != 0;
            if (moves) {
                i = at;
                break;
            }
        }
    }
    m_counter->setCurrentIndex(std::max(0, i));
    m_counter->blockSignals(false);
    rebuild();
}

void CounterPlot::setCounter(const QString& name)
{
    int i = m_counter->findText(name);
    if (i >= 0)
        m_counter->setCurrentIndex(i);
}

QString CounterPlot::counter() const { return m_counter->currentText(); }

void CounterPlot::rebuild()
{
    plot()->clearGraphs();
    const std::string counter = m_counter->currentText().toStdString();
    const bool level = isLevel(counter);
    double maxX = 0;
    for (int i = 0; i < m_series.size(); ++i) {
        if (!m_series[i].recording)
            continue;
        QVector<double> x;
        QVector<double> y = values(*m_series[i].recording, counter, &x, std::max(16, plot()->axisRect()->width() / 3));
        QCPGraph* g = plot()->addGraph();
        g->setName(m_series[i].name);
        g->setPen(QPen(seriesColour(i), 1.6));
        g->setData(x, y, true);
        if (!x.isEmpty())
            maxX = std::max(maxX, x.last());
    }
    plot()->yAxis->setLabel(level ? m_counter->currentText() + tr(" (MiB)") : m_counter->currentText() + tr(" per second"));
    plot()->rescaleAxes();
    plot()->xAxis->setRange(0, std::max(maxX, 1e-6));
    QCPRange yr = plot()->yAxis->range();
    plot()->yAxis->setRange(std::min(0.0, yr.lower), yr.upper > 0 ? yr.upper * 1.08 : 1.0);
    styleAxes();
}

void CounterPlot::setTime(Time t)
{
    const double x = toSec(t);
    m_cursor->point1->setCoords(x, 0);
    m_cursor->point2->setCoords(x, 1);
    requestReplot();
}

} // namespace mms
