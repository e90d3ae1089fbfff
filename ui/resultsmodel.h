#pragma once
// The results table: one row per variant (and sweep point) and, per metric (the headline metric first), the
// variant's ratio to the baseline variant at the same point beside the post's same ratio and how far the two are
// apart, then the simulated mean (± stddev over repetitions), labelled with its scale. The post's absolute figure
// and the difference in % follow only where an absolute figure compares with the post's: at scale 1, or for a
// scale-free metric (run/ratio.h).

#include "run/ratio.h"
#include "run/table.h"

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <string>

namespace mms {

class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit ResultsModel(QObject* parent = nullptr);

    void setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    enum class Kind { Variant, Axis, Ratio, PostRatio, RatioDistance, Simulated, Published, Delta };
    Kind columnKind(int column) const;
    // The metric a column belongs to ("" for the variant and axis columns).
    std::string columnMetric(int column) const;
    // The row of a variant at a sweep point, or -1.
    int rowOf(const std::string& variant, const OJson& point) const;
    // The first column of `kind` for `metric`, or -1.
    int column(Kind kind, const std::string& metric) const;
    // The view's two-line header names the metric once per group; ExportHeaderRole (export.h) and the tooltip
    // give each column's full name ("elapsed_s post ÷ dontneed").

private:
    struct Column {
        Kind kind;
        std::size_t metric = 0; // index into m_metrics
    };
    struct Row {
        std::string variant;
        OJson point;
        std::vector<Cell> cells; // one per metric
        std::vector<Ratio> ratios; // one per metric
    };
    // A cell resolved: its row and column and, in a metric's column, the figures behind it (else null).
    struct CellRef {
        const Row& row;
        const Column& col;
        std::string metric {};
        const Cell* cell = nullptr;
        const Ratio* ratio = nullptr;
        bool isBaseline = false; // the row is the baseline variant's
        std::optional<double> delta {}; // the simulated mean's difference from the post's figure, in %
    };
    CellRef cellRef(const QModelIndex& index) const;
    QVariant displayText(const CellRef& c) const;
    QVariant foreground(const CellRef& c) const;
    QVariant toolTip(const CellRef& c) const;
    QVariant sortValue(const CellRef& c) const;
    QString headerText(int section, bool full) const;
    std::shared_ptr<const Scenario> m_sc;
    double m_scale = 1.0;
    std::vector<std::string> m_axes;
    std::vector<std::string> m_metrics;
    std::vector<Column> m_columns;
    std::vector<Row> m_rows;
};

// Lockstat columns (like /proc/lock_stat) of one run, summed over the instances of each lock name.
class LockStatModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit LockStatModel(QObject* parent = nullptr);
    void setLocks(const std::vector<LockSummary>& locks);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<LockSummary> m_locks;
};

} // namespace mms
