#include "nativerunview.h"

#include "scenario/scenario.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryFile>
#include <QTimer>
#include <QVBoxLayout>

namespace mms {

QString findCli()
{
    const QString env = qEnvironmentVariable("MMSCOPE_CLI");
    if (!env.isEmpty())
        return QFileInfo(env).isExecutable() ? env : QString();
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("mmscope-cli"));
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("mmscope-cli"));
}

NativeRunView::NativeRunView(QWidget* parent)
    : QWidget(parent)
    , m_what(new QLabel(this))
    , m_variant(new QComboBox(this))
    , m_noPressure(new QCheckBox(tr("Without memory pressure"), this))
    , m_run(new QPushButton(tr("Run natively"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_header(new QLabel(this))
    , m_table(new QTableWidget(0, 5, this))
    , m_log(new QPlainTextEdit(this))
    , m_process(new QProcess(this))
{
    m_what->setWordWrap(true);
    m_what->setText(tr("The workload as real processes on this machine's kernel, beside the simulated run of this "
                       "machine's shape."));
    m_what->setTextFormat(Qt::RichText);
    m_run->setToolTip(tr("mmscope-cli native: measures user, sys and elapsed time, faults and swapping of the real "
                         "processes; the temporary files, cgroup and processes are removed at the end or on Cancel"));
    m_variant->setObjectName(QStringLiteral("nativeVariant"));
    m_noPressure->setToolTip(tr("Run the program without the memory cgroup that gives the scenario its memory "
                                "pressure (no swapping then): for a host without a memory cgroup or swap."));
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName(QStringLiteral("nativeTable"));
    m_table->setHorizontalHeaderLabels({ tr("variant"), tr("metric"), tr("native"), tr("simulated"), tr("native / simulated") });
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(500);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("The native run's progress and messages"));
    m_log->setMaximumHeight(3 * fontMetrics().height() + 10);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Variant"), this));
    controls->addWidget(m_variant);
    controls->addWidget(m_noPressure);
    controls->addStretch(1);
    controls->addWidget(m_run);
    controls->addWidget(m_cancel);
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(4, 4, 4, 4);
    box->addWidget(m_what);
    box->addLayout(controls);
    box->addWidget(m_header);
    box->addWidget(m_table, 1);
    box->addWidget(m_log);
    setRunning(false);

    connect(m_run, &QPushButton::clicked, this, &NativeRunView::start);
    connect(m_cancel, &QPushButton::clicked, this, &NativeRunView::cancel);
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { logLines(false); });
    connect(m_process, &QProcess::finished, this, &NativeRunView::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        m_error = tr("cannot start %1: %2").arg(m_process->program(), m_process->errorString());
        m_log->appendPlainText(m_error);
        setRunning(false);
        Q_EMIT finished(false);
    });
}

NativeRunView::~NativeRunView()
{
    // The CLI removes its processes, directory and cgroup on SIGTERM; wait for it so nothing outlives the app.
    if (running()) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(10'000))
            m_process->kill();
    }
}

void NativeRunView::setScenario(const Scenario& scenario, double scale)
{
    m_scenarioJson = QByteArray::fromStdString(scenario.json().dump(2) + "\n");
    m_scenarioId = QString::fromStdString(scenario.id());
    m_scale = scale;
    const QString keep = m_variant->currentData().toString();
    m_variant->clear();
    m_variant->addItem(tr("all"), QString());
    for (const std::string& v : scenario.variantNames())
        m_variant->addItem(QString::fromStdString(v), QString::fromStdString(v));
    m_variant->setCurrentIndex(std::max(0, m_variant->findData(keep)));
    m_what->setText(tr("<b>%1</b> at scale %2: the workload as real processes on this machine's kernel, beside the "
                       "simulated run of this machine's shape.")
                        .arg(m_scenarioId.toHtmlEscaped())
                        .arg(m_scale));
}

void NativeRunView::setNoPressure(bool on) { m_noPressure->setChecked(on); }

bool NativeRunView::running() const { return m_process->state() != QProcess::NotRunning; }

void NativeRunView::setRunning(bool on)
{
    m_run->setEnabled(!on);
    m_cancel->setEnabled(on);
    m_variant->setEnabled(!on);
    m_noPressure->setEnabled(!on);
}

bool NativeRunView::start()
{
    if (running())
        return false;
    m_error.clear();
    m_cancelled = false;
    const QString cli = findCli();
    if (cli.isEmpty()) {
        m_error = tr("no mmscope-cli to run: none beside the app (%1) or on PATH, and MMSCOPE_CLI names no executable")
                      .arg(QCoreApplication::applicationDirPath());
        m_log->appendPlainText(m_error);
        return false;
    }
    if (m_scenarioJson.isEmpty()) {
        m_error = tr("no scenario to run natively");
        return false;
    }
    // The scenario as edited, not as built in: the CLI reads it from a file that lives until the run ends.
    m_scenarioFile = std::make_unique<QTemporaryFile>(QDir::temp().filePath(QStringLiteral("mmscope-native-XXXXXX.json")));
    if (!m_scenarioFile->open() || m_scenarioFile->write(m_scenarioJson) != m_scenarioJson.size() || !m_scenarioFile->flush()) {
        m_error = tr("cannot write the scenario for the native run: %1").arg(m_scenarioFile->errorString());
        m_log->appendPlainText(m_error);
        return false;
    }
    m_arguments = { QStringLiteral("native"), m_scenarioFile->fileName(), QStringLiteral("--scale"),
        QString::number(m_scale, 'g', 10), QStringLiteral("--format"), QStringLiteral("markdown") };
    if (const QString v = m_variant->currentData().toString(); !v.isEmpty())
        m_arguments << QStringLiteral("--variant") << v;
    if (m_noPressure->isChecked())
        m_arguments << QStringLiteral("--no-pressure");
    m_table->setRowCount(0);
    m_header->clear();
    m_header->setStyleSheet(QString());
    m_stderr.clear();
    m_lastLine.clear();
    m_log->appendPlainText(QStringLiteral("$ mmscope-cli %1").arg(m_arguments.join(QLatin1Char(' '))));
    setRunning(true);
    m_process->start(cli, m_arguments);
    Q_EMIT started();
    return true;
}

void NativeRunView::cancel()
{
    if (!running())
        return;
    m_cancelled = true;
    m_log->appendPlainText(tr("cancelling: the processes, the temporary directory and the cgroup are being removed…"));
    m_process->terminate();
    QTimer::singleShot(10'000, m_process, [p = m_process] {
        if (p->state() != QProcess::NotRunning)
            p->kill();
    });
}

void NativeRunView::onFinished(int code, QProcess::ExitStatus status)
{
    const QString out = QString::fromUtf8(m_process->readAllStandardOutput());
    const QString last = logLines(true);
    m_scenarioFile.reset();
    setRunning(false);
    const bool ok = !m_cancelled && status == QProcess::NormalExit && code == 0;
    if (ok) {
        showTable(out);
        m_log->appendPlainText(tr("done"));
    } else if (m_cancelled) {
        m_error = tr("cancelled");
        m_log->appendPlainText(m_error);
    } else {
        // The CLI's last message is the reason (a refusal says what the host lacks and what to do).
        m_error = last.isEmpty() ? tr("mmscope-cli native ended with status %1").arg(code) : last;
        m_error.remove(QStringLiteral("mmscope-cli: "));
        m_header->setStyleSheet(QStringLiteral("color: #b04010;"));
        m_header->setText(m_error);
        m_header->setToolTip(QString());
    }
    Q_EMIT finished(ok);
}

// The CLI's complete lines of standard error into the log (all that is left when it has ended); its last line so far.
QString NativeRunView::logLines(bool ended)
{
    m_stderr += m_process->readAllStandardError();
    qsizetype nl;
    while ((nl = m_stderr.indexOf('\n')) >= 0 || (ended && !m_stderr.isEmpty())) {
        const qsizetype end = nl >= 0 ? nl : m_stderr.size();
        const QString line = QString::fromLocal8Bit(m_stderr.left(end)).trimmed();
        m_stderr.remove(0, std::min(end + 1, m_stderr.size()));
        if (!line.isEmpty()) {
            m_log->appendPlainText(line);
            m_lastLine = line;
        }
    }
    return m_lastLine;
}

// The CLI's markdown: "- " lines say what ran where, then one table row per variant and metric.
void NativeRunView::showTable(const QString& markdown)
{
    QStringList about;
    m_table->setRowCount(0);
    for (const QString& line : markdown.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (line.startsWith(QStringLiteral("- "))) {
            about << line.mid(2);
            continue;
        }
        if (!line.startsWith(QLatin1Char('|')) || line.startsWith(QStringLiteral("|---")) || line.startsWith(QStringLiteral("| variant |")))
            continue;
        QStringList cells = line.split(QLatin1Char('|'));
        cells = cells.mid(1, cells.size() - 2);
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        for (int c = 0; c < std::min<int>(cells.size(), m_table->columnCount()); ++c) {
            auto* item = new QTableWidgetItem(cells[c].trimmed());
            if (c >= 2)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, c, item);
        }
    }
    // The host's line in view, what was measured how and what was simulated with which settings under the mouse.
    m_header->setText(about.value(0));
    m_header->setToolTip(about.join(QLatin1Char('\n')));
}

} // namespace mms
