#include "resultsmodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

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
    if (m_sc && rs) {
        m_axes = m_sc->axes();
        m_metrics = m_sc->metrics();
        std::vector<OJson> points = m_sc->points();
        if (points.empty())
            points.push_back(OJson::object());
        for (const std::string& v : m_sc->variantNames())
            for (const OJson& p : points) {
                Row row { v, p, {} };
                bool any = false;
                for (const std::string& m : m_metrics) {
                    row.cells.push_back(tableCell(*rs, *m_sc, v, p, m));
                    any = any || row.cells.back().n > 0;
                }
                if (any)
                    m_rows.push_back(std::move(row));
            }
    }
    endResetModel();
}

int ResultsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ResultsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(1 + m_axes.size() + 3 * m_metrics.size());
}

ResultsModel::Kind ResultsModel::columnKind(int c) const
{
    if (c == 0)
        return Kind::Variant;
    if (c <= int(m_axes.size()))
        return Kind::Axis;
    switch ((c - 1 - int(m_axes.size())) % 3) {
    case 0: return Kind::Simulated;
    case 1: return Kind::Published;
    default: return Kind::Delta;
    }
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= columnCount())
        return {};
    const Row& row = m_rows[std::size_t(index.row())];
    const int c = index.column();
    const Kind kind = columnKind(c);
    const std::size_t mi = kind == Kind::Variant || kind == Kind::Axis ? 0 : std::size_t((c - 1 - int(m_axes.size())) / 3);
    const std::string metric = mi < m_metrics.size() ? m_metrics[mi] : std::string();
    const Cell* cell = mi < row.cells.size() ? &row.cells[mi] : nullptr;
    std::optional<double> delta;
    if (cell && cell->n > 0 && cell->published && *cell->published != 0)
        delta = 100.0 * (cell->mean - *cell->published) / std::abs(*cell->published);

    if (role == Qt::DisplayRole) {
        switch (kind) {
        case Kind::Variant: return QString::fromStdString(row.variant);
        case Kind::Axis: return axisValue(row.point.value(m_axes[std::size_t(c - 1)], OJson()));
        case Kind::Simulated:
            if (!cell || cell->n == 0)
                return QStringLiteral("—");
            if (cell->n > 1)
                return number(cell->mean, metric) + QStringLiteral(" ± ") + number(cell->stddev, metric);
            return number(cell->mean, metric);
        case Kind::Published:
            if (!cell || !cell->published)
                return QStringLiteral("—");
            return number(*cell->published, metric);
        case Kind::Delta:
            return delta ? QStringLiteral("%1%2%").arg(*delta >= 0 ? QStringLiteral("+") : QString()).arg(*delta, 0, 'f', 1)
                         : QStringLiteral("—");
        }
    }
    if (role == Qt::TextAlignmentRole)
        return kind == Kind::Variant ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && kind == Kind::Published)
        return QBrush(QColor(0x70, 0x70, 0x70));
    if (role == Qt::ForegroundRole && kind == Kind::Delta && delta)
        return QBrush(std::abs(*delta) <= 25 ? QColor(0x1a, 0x7f, 0x2a) : QColor(0xb0, 0x40, 0x10));
    if (role == Qt::FontRole && kind == Kind::Simulated) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::UserRole && cell && kind == Kind::Simulated)
        return cell->mean;
    return {};
}

QVariant ResultsModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, o, role);
    const Kind kind = columnKind(section);
    if (kind == Kind::Variant)
        return tr("variant");
    if (kind == Kind::Axis)
        return QString::fromStdString(m_axes[std::size_t(section - 1)]);
    const QString metric = QString::fromStdString(m_metrics[std::size_t((section - 1 - int(m_axes.size())) / 3)]);
    if (kind == Kind::Simulated)
        return metric + tr("\nsimulated");
    if (kind == Kind::Published)
        return metric + tr("\npublished");
    return metric + tr("\nΔ% vs post");
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
