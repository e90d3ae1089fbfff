#pragma once
// The scenario's workload run natively on this machine's kernel, beside the simulated run of this machine's shape:
// `mmscope-cli native` (app/clinative.cpp) as a child process, its progress as it comes and its table when it ends.
// The CLI owns everything it makes on the host (processes, temporary directory, memory cgroup) and removes it on
// SIGTERM, which is how Cancel and closing the app stop it.

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;
class QTemporaryFile;

namespace mms {

class Scenario;

// The mmscope-cli the app runs: $MMSCOPE_CLI, else the one beside the app, else the first on PATH; empty if none.
QString findCli();

class NativeRunView : public QWidget {
    Q_OBJECT
public:
    explicit NativeRunView(QWidget* parent = nullptr);
    ~NativeRunView() override;

    // The scenario (with the user's edits) and scale the next native run uses; its variants fill the variant pick.
    void setScenario(const Scenario& scenario, double scale);
    // Starts `mmscope-cli native` for the scenario; false, with error(), when it cannot start.
    bool start();
    // Stops a native run: SIGTERM (the CLI removes what it made), SIGKILL if it is still there after 10 s.
    void cancel();
    bool running() const;
    void setNoPressure(bool on);

    QString error() const { return m_error; }
    QStringList arguments() const { return m_arguments; }
    // The result table's rows as the CLI's markdown gave them (variant, metric, native, simulated, ratio).
    QTableWidget* table() const { return m_table; }

Q_SIGNALS:
    void started();
    // ok: the CLI exited 0 and its table is shown; otherwise error() says why (its message, or "cancelled").
    void finished(bool ok);

private:
    void onFinished(int code, QProcess::ExitStatus status);
    void showTable(const QString& markdown);
    void setRunning(bool on);
    QString logLines(bool ended);

    QLabel* m_what;
    QComboBox* m_variant;
    QCheckBox* m_noPressure;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QLabel* m_header;
    QTableWidget* m_table;
    QPlainTextEdit* m_log;
    QProcess* m_process;
    std::unique_ptr<QTemporaryFile> m_scenarioFile;
    QByteArray m_scenarioJson;
    QByteArray m_stderr; // the part of a line the CLI has not ended yet
    QString m_lastLine; // the CLI's last line of standard error: a failure's reason
    QString m_scenarioId;
    double m_scale = 1.0;
    QString m_error;
    QStringList m_arguments;
    bool m_cancelled = false;
};

} // namespace mms
