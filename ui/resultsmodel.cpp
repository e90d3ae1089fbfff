#include "resultsmodel.h"

#include "export.h"
#include "firstview.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>

namespace mms {

namespace {
    QString number(double v, const std::string& metric) { return QString::fromStdString(formatNumber(v, metric)); }
    QString axisValue(const OJson& v) { return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString::fromStdString(v.dump()); }
} // namespace

ResultsModel::ResultsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ResultsModel::setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs)
{
    beginResetModel();
    m_sc = std::move(sc);
    m_rows.clear();
    m_axes.clear();
    m_metrics.clear();
    m_columns.clear();
    if (m_sc && rs) {
        m_scale = rs->scale;
        m_axes = m_sc->axes();
        m_metrics = m_sc->metrics();
        // The headline metric first, so it is on screen without scrolling.
        const std::string headline = headlineMetric(*m_sc);
        std::stable_partition(m_metrics.begin(), m_metrics.end(), [&](const std::string& m) { return m == headline; });
        std::vector<OJson> points = m_sc->points();
        if (points.empty())
            points.push_back(OJson::object());
        for (const std::string& v : m_sc->variantNames())
            for (const OJson& p : points) {
                Row row { v, p, {}, {} };
                bool any = false;
                for (const std::string& m : m_metrics) {
                    row.cells.push_back(tableCell(*rs, *m_sc, v, p, m));
                    row.ratios.push_back(tableRatio(*rs, *m_sc, v, p, m));
                    any = any || row.cells.back().n > 0;
                }
                if (any)
                    m_rows.push_back(std::move(row));
            }
        m_columns.push_back({ Kind::Variant });
        for (std::size_t a = 0; a < m_axes.size(); ++a)
            m_columns.push_back({ Kind::Axis, a });
        for (std::size_t m = 0; m < m_metrics.size(); ++m) {
            for (Kind k : { Kind::Ratio, Kind::PostRatio, Kind::RatioDistance, Kind::Simulated })
                m_columns.push_back({ k, m });
            if (comparableToPost(m_metrics[m], m_scale))
                for (Kind k : { Kind::Published, Kind::Delta })
                    m_columns.push_back({ k, m });
        }
    }
    endResetModel();
}

int ResultsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_columns.size()); }

ResultsModel::Kind ResultsModel::columnKind(int c) const { return c >= 0 && c < int(m_columns.size()) ? m_columns[std::size_t(c)].kind : Kind::Variant; }

std::string ResultsModel::columnMetric(int c) const
{
    const Kind k = columnKind(c);
    if (c < 0 || c >= int(m_columns.size()) || k == Kind::Variant || k == Kind::Axis)
        return {};
    return m_metrics[m_columns[std::size_t(c)].metric];
}

int ResultsModel::rowOf(const std::string& variant, const OJson& point) const
{
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].variant == variant && m_rows[r].point == point)
            return int(r);
    return -1;
}

int ResultsModel::column(Kind kind, const std::string& metric) const
{
    for (std::size_t c = 0; c < m_columns.size(); ++c)
        if (m_columns[c].kind == kind && (kind == Kind::Variant || kind == Kind::Axis || m_metrics[m_columns[c].metric] == metric))
            return int(c);
    return -1;
}

ResultsModel::CellRef ResultsModel::cellRef(const QModelIndex& index) const
{
    const Row& row = m_rows[std::size_t(index.row())];
    const Column& col = m_columns[std::size_t(index.column())];
    CellRef c { row, col };
    if (col.kind == Kind::Variant || col.kind == Kind::Axis)
        return c;
    c.metric = m_metrics[col.metric];
    c.cell = &row.cells[col.metric];
    c.ratio = &row.ratios[col.metric];
    c.isBaseline = row.variant == c.ratio->baseline;
    if (c.cell->n > 0 && c.cell->published && *c.cell->published != 0)
        c.delta = 100.0 * (c.cell->mean - *c.cell->published) / std::abs(*c.cell->published);
    return c;
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= columnCount())
        return {};
    const CellRef c = cellRef(index);
    const Kind kind = c.col.kind;
    switch (role) {
    case Qt::DisplayRole: return displayText(c);
    case Qt::TextAlignmentRole:
        return kind == Kind::Variant ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole: return foreground(c);
    case Qt::FontRole:
        if (kind == Kind::Ratio && !c.isBaseline) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole: return c.ratio ? toolTip(c) : QVariant();
    case Qt::UserRole: return c.ratio ? sortValue(c) : QVariant();
    default: return {};
    }
}

QVariant ResultsModel::displayText(const CellRef& c) const
{
    auto ratioText = [](const std::optional<double>& r) { return r ? QString::fromStdString(formatRatio(*r)) : QStringLiteral("—"); };
    const Cell* cell = c.cell;
    const Ratio* ratio = c.ratio;
    switch (c.col.kind) {
    case Kind::Variant: return QString::fromStdString(c.row.variant);
    case Kind::Axis: return axisValue(c.row.point.value(m_axes[c.col.metric], OJson()));
    case Kind::Ratio: return ratioText(ratio->sim);
    case Kind::PostRatio: return ratioText(ratio->post);
    case Kind::RatioDistance:
        return ratio->distancePercent && !c.isBaseline ? QString::fromStdString(formatPercent(*ratio->distancePercent)) : QStringLiteral("—");
    case Kind::Simulated:
        if (cell->n == 0)
            return QStringLiteral("—");
        if (cell->n > 1)
            return number(cell->mean, c.metric) + QStringLiteral(" ± ") + number(cell->stddev, c.metric);
        return number(cell->mean, c.metric);
    case Kind::Published:
        return cell->published ? number(*cell->published, c.metric) : QStringLiteral("—");
    case Kind::Delta:
        return c.delta ? QStringLiteral("%1%2%").arg(*c.delta >= 0 ? QStringLiteral("+") : QString()).arg(*c.delta, 0, 'f', 1) : QStringLiteral("—");
    }
    return {};
}

// The post's figures and the baseline's own ratio in grey; a difference or a ratio's distance green within its
// tolerance (25 %, 10 %), else orange.
QVariant ResultsModel::foreground(const CellRef& c) const
{
    const Kind kind = c.col.kind;
    if (kind == Kind::Published || kind == Kind::PostRatio || (c.isBaseline && kind == Kind::Ratio))
        return QBrush(QColor(0x70, 0x70, 0x70));
    if (kind == Kind::Delta && c.delta)
        return QBrush(std::abs(*c.delta) <= 25 ? QColor(0x1a, 0x7f, 0x2a) : QColor(0xb0, 0x40, 0x10));
    if (kind == Kind::RatioDistance && c.ratio->distancePercent && !c.isBaseline)
        return QBrush(std::abs(*c.ratio->distancePercent) <= 10 ? QColor(0x1a, 0x7f, 0x2a) : QColor(0xb0, 0x40, 0x10));
    return {};
}

// A ratio's two figures with their variants; a scaled figure's reason to compare ratios instead.
QVariant ResultsModel::toolTip(const CellRef& c) const
{
    const Kind kind = c.col.kind;
    const Cell* cell = c.cell;
    const Ratio* ratio = c.ratio;
    const std::string& metric = c.metric;
    const Cell b = [&] {
        for (const Row& r : m_rows)
            if (r.variant == ratio->baseline && r.point == c.row.point)
                return r.cells[c.col.metric];
        return Cell {};
    }();
    if (kind == Kind::Ratio && ratio->sim && b.n > 0)
        return tr("%1 simulated: %2 (%3) ÷ %4 (%5)")
            .arg(QString::fromStdString(metric), number(cell->mean, metric), QString::fromStdString(c.row.variant), number(b.mean, metric),
                 QString::fromStdString(ratio->baseline));
    if (kind == Kind::PostRatio && ratio->post && cell->published && b.published)
        return tr("%1 in the post: %2 (%3) ÷ %4 (%5)")
            .arg(QString::fromStdString(metric), number(*cell->published, metric), QString::fromStdString(c.row.variant),
                 number(*b.published, metric), QString::fromStdString(ratio->baseline));
    if (kind == Kind::Simulated && m_scale != 1.0 && !scaleFree(metric))
        return tr("Simulated at scale %1: counts and times grow with the scale, so compare the ratios with the post").arg(m_scale);
    return {};
}

// The number behind a figure, for sorting and tests.
QVariant ResultsModel::sortValue(const CellRef& c) const
{
    switch (c.col.kind) {
    case Kind::Simulated: return c.cell->n > 0 ? QVariant(c.cell->mean) : QVariant();
    case Kind::Ratio: return c.ratio->sim ? QVariant(*c.ratio->sim) : QVariant();
    case Kind::PostRatio: return c.ratio->post ? QVariant(*c.ratio->post) : QVariant();
    case Kind::RatioDistance: return c.ratio->distancePercent ? QVariant(*c.ratio->distancePercent) : QVariant();
    default: return {};
    }
}

QString ResultsModel::headerText(int section, bool full) const
{
    const Column& col = m_columns[std::size_t(section)];
    if (col.kind == Kind::Variant)
        return tr("variant");
    if (col.kind == Kind::Axis)
        return QString::fromStdString(m_axes[col.metric]);
    const QString metric = QString::fromStdString(m_metrics[col.metric]);
    const QString base = m_sc ? QString::fromStdString(m_sc->baseline()) : QString();
    const bool scaled = m_scale != 1.0 && !scaleFree(m_metrics[col.metric]);
    QString what;
    switch (col.kind) {
    case Kind::Ratio: what = tr("÷ %1").arg(base); break;
    case Kind::PostRatio: what = full ? tr("post ÷ %1").arg(base) : tr("post"); break;
    case Kind::RatioDistance: what = full ? tr("ratio vs post") : tr("Δ vs post"); break;
    case Kind::Simulated: what = scaled ? tr("at scale %1").arg(m_scale) : tr("simulated"); break;
    case Kind::Published: what = tr("published"); break;
    default: what = tr("Δ% vs post"); break;
    }
    // The view names the metric once, over its group's first column.
    if (full)
        return metric + QLatin1Char(' ') + what;
    const bool first = section == 0 || m_columns[std::size_t(section - 1)].metric != col.metric
        || m_columns[std::size_t(section - 1)].kind == Kind::Axis || m_columns[std::size_t(section - 1)].kind == Kind::Variant;
    return (first ? metric : QString()) + QLatin1Char('\n') + what;
}

QVariant ResultsModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, o, role);
    if (role == Qt::DisplayRole)
        return headerText(section, false);
    if (role == ExportHeaderRole || role == Qt::ToolTipRole)
        return headerText(section, true);
    return QAbstractTableModel::headerData(section, o, role);
}

// ---- lockstat

namespace {
    enum LockColumn { Name, Kind_, Instances, Contentions, ConBounces, Acquisitions, AcqBounces, WaitTotal, WaitMax, WaitAvg, HoldTotal, HoldMax, HoldAvg, ColumnCount };
    double usOf(Time t) { return toUs(t); }
} // namespace

LockStatModel::LockStatModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void LockStatModel::setLocks(const std::vector<LockSummary>& locks)
{
    beginResetModel();
    m_locks = locks;
    std::stable_sort(m_locks.begin(), m_locks.end(), [](const LockSummary& a, const LockSummary& b) { return a.waitTotal > b.waitTotal; });
    endResetModel();
}

int LockStatModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_locks.size()); }
int LockStatModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LockStatModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_locks.size()))
        return {};
    const LockSummary& l = m_locks[std::size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() <= Kind_ ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    auto avg = [](Time total, std::uint64_t n) { return n ? usOf(total) / double(n) : 0.0; };
    auto us = [](double v) { return QString::number(v, 'f', 2); };
    switch (index.column()) {
    case Name: return QString::fromStdString(l.name);
    case Kind_: return QString::fromStdString(l.kind);
    case Instances: return qulonglong(l.instances);
    case Contentions: return qulonglong(l.contentions);
    case ConBounces: return qulonglong(l.conBounces);
    case Acquisitions: return qulonglong(l.acquisitions);
    case AcqBounces: return qulonglong(l.acqBounces);
    case WaitTotal: return us(usOf(l.waitTotal));
    case WaitMax: return us(usOf(l.waitMax));
    case WaitAvg: return us(avg(l.waitTotal, l.contentions));
    case HoldTotal: return us(usOf(l.holdTotal));
    case HoldMax: return us(usOf(l.holdMax));
    case HoldAvg: return us(avg(l.holdTotal, l.acquisitions));
    default: return {};
    }
}

QVariant LockStatModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = { "lock", "kind", "instances", "contentions", "con-bounces", "acquisitions", "acq-bounces",
                                   "waittime-total µs", "waittime-max µs", "waittime-avg µs", "holdtime-total µs", "holdtime-max µs",
                                   "holdtime-avg µs" };
    if (section < 0 || section >= ColumnCount)
        return {};
    return QString::fromUtf8(names[section]);
}

} // namespace mms
