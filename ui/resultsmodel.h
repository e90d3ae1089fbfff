#pragma once
// The results table in the post's layout: one row per variant (and sweep point), and for each metric the simulated
// mean (± stddev over repetitions), the post's published figure and the difference in %.

#include "run/format.h"

#include <QAbstractTableModel>

#include <memory>

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

    enum class Kind { Variant, Axis, Simulated, Published, Delta };
    Kind columnKind(int column) const;

private:
    struct Row {
        std::string variant;
        OJson point;
        std::vector<Cell> cells; // one per metric
    };
    std::shared_ptr<const Scenario> m_sc;
    std::vector<std::string> m_axes;
    std::vector<std::string> m_metrics;
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
