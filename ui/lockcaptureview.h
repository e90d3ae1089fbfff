#pragma once
// A lock capture from a real kernel (`mmscope-cli import lockstat|perf-lock`, or any results file) beside the
// simulated run's lockstat: where it came from, and its lock table in the same columns.

#include "run/result.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QTableView;

namespace mms {

class LockStatModel;

struct LockCapture {
    RunResult run; // the file's first run: its locks
    QString label; // the run's name
    QString source; // "/proc/lock_stat", "perf lock contention", ... ("mmscope" for a simulated results file)
    QString file;
};

// Reads a results document (run/json.h); an empty optional and `error` (the file and what was expected) otherwise.
std::optional<LockCapture> readLockCapture(const QString& path, QString& error);

class LockCaptureView : public QWidget {
    Q_OBJECT
public:
    explicit LockCaptureView(QWidget* parent = nullptr);
    void setCapture(const LockCapture& capture);
    LockStatModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }

private:
    QLabel* m_title;
    LockStatModel* m_model;
    QTableView* m_table;
};

} // namespace mms
