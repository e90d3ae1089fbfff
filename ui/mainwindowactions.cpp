// MainWindow's toolbars and menus, and what the File and Export menus write.
#include "mainwindow.h"

#include "comparepanel.h"
#include "counterplot.h"
#include "cpulockmapview.h"
#include "cputimelineview.h"
#include "enginecontroller.h"
#include "export.h"
#include "lockheatmapview.h"
#include "pagemapview.h"
#include "parametereditor.h"
#include "report.h"
#include "resultschart.h"
#include "resultsmodel.h"
#include "run/render.h"
#include "scenario/scale.h"
#include "transportbar.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolBar>

namespace mms {

namespace {
    enum TableFormat { Csv, Markdown, Mmtests, Text };

    QString tableText(const ResultSet& rs, const Scenario& sc, int format)
    {
        switch (format) {
        case Csv: return QString::fromStdString(formatResults(rs, sc, Format::Csv));
        case Markdown: return QString::fromStdString(formatResults(rs, sc, Format::Markdown));
        case Mmtests: return QString::fromStdString(formatResults(rs, sc, Format::Mmtests));
        default: return QString::fromStdString(formatResults(rs, sc, Format::Text));
        }
    }
} // namespace

void MainWindow::buildToolBars()
{
    // Run toolbar: which run the views show, run/cancel, scale, progress.
    auto* runBar = new QToolBar(tr("Run"), this);
    runBar->setObjectName(QStringLiteral("run"));
    m_runAction = runBar->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("Run"), this, &MainWindow::startRun);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_cancelAction = runBar->addAction(style()->standardIcon(QStyle::SP_BrowserStop), tr("Cancel"), m_controller, &EngineController::cancel);
    m_cancelAction->setEnabled(false);
    runBar->addWidget(new QLabel(tr(" scale "), this));
    m_scale = new QDoubleSpinBox(this);
    m_scale->setDecimals(3);
    m_scale->setRange(kMinScale, kMaxScale);
    m_scale->setSingleStep(0.05);
    m_scale->setValue(0.1);
    m_scale->setToolTip(tr("Multiplies memory sizes and amounts of work (CPU counts and ratios stay)"));
    runBar->addWidget(m_scale);
    // The scenario's faithful scale beside the control, and a warning when the scale is below it.
    m_scaleHint = new QLabel(this);
    m_scaleHint->setObjectName(QStringLiteral("scaleHint"));
    m_scaleHint->setContentsMargins(4, 0, 6, 0);
    runBar->addWidget(m_scaleHint);
    connect(m_scale, &QDoubleSpinBox::valueChanged, this, [this] { updateScaleHint(true); });
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(160);
    m_progress->setTextVisible(true);
    runBar->addWidget(m_progress);
    runBar->addSeparator();
    runBar->addWidget(new QLabel(tr(" show "), this));
    m_runPick = new QComboBox(this);
    m_runPick->setMinimumContentsLength(18);
    m_runPick->setFocusPolicy(Qt::NoFocus);
    runBar->addWidget(m_runPick);
    addToolBar(Qt::TopToolBarArea, runBar);
    addToolBar(Qt::TopToolBarArea, m_transport);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Open scenario…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), tr("Scenario (*.json);;All files (*)"));
        if (!path.isEmpty() && loadScenario(path))
            startRun();
    });
    file->addAction(tr("Save scenario as…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), QString(), tr("Scenario (*.json)"));
        if (path.isEmpty())
            return;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return fail(tr("cannot write %1: %2").arg(path, f.errorString()));
        f.write(QByteArray::fromStdString(m_params->scenario()->json().dump(2) + "\n"));
    });
    file->addAction(tr("Open lock capture…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open lock capture"), QString(),
            tr("Lock capture, from mmscope-cli import (*.json);;All files (*)"));
        if (!path.isEmpty())
            openCapture(path);
    });
    file->addSeparator();
    file->addAction(tr("Report as HTML…"), this, [this] { exportReport(QStringLiteral("html")); });
    file->addAction(tr("Report as PDF…"), this, [this] { exportReport(QStringLiteral("pdf")); });
    file->addSeparator();
    file->addAction(tr("Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_cancelAction);
    run->addAction(tr("Run natively on this machine"), this, &MainWindow::runNatively)
        ->setToolTip(tr("The scenario's workload as real processes on this machine's kernel, beside the simulated run of its shape"));
    run->addSeparator();
    for (QAction* a : m_transport->actions())
        run->addAction(a);

    QMenu* exp = menuBar()->addMenu(tr("&Export"));
    exp->addAction(tr("Page map…"), this, [this] { exportChart(m_pageMap, QStringLiteral("page-map")); });
    exp->addAction(tr("Lock heatmap…"), this, [this] { exportChart(m_heatmap, QStringLiteral("lock-heatmap")); });
    exp->addAction(tr("CPUs × locks…"), this, [this] { exportChart(m_cpuLocks, QStringLiteral("cpu-lock-map")); });
    exp->addAction(tr("CPU timeline…"), this, [this] { exportChart(m_timeline, QStringLiteral("cpu-timeline")); });
    exp->addAction(tr("Counters chart…"), this, [this] { exportChart(m_counters, QStringLiteral("counters")); });
    exp->addAction(tr("Results chart…"), this, [this] { exportChart(m_chart, QStringLiteral("results-chart")); });
    exp->addAction(tr("A/B compare…"), this, [this] { exportChart(m_compare, QStringLiteral("compare")); });
    exp->addSeparator();
    exp->addAction(tr("Results as CSV…"), this, [this] { exportTable(Csv); });
    exp->addAction(tr("Results as Markdown…"), this, [this] { exportTable(Markdown); });
    exp->addAction(tr("Results as mmtests text…"), this, [this] { exportTable(Mmtests); });
    exp->addAction(tr("Results as the post's text table…"), this, [this] { exportTable(Text); });
    exp->addSeparator();
    exp->addAction(tr("Copy results as Markdown"), this, [this] { copyTable(Markdown); });
    exp->addAction(tr("Copy results as mmtests text"), this, [this] { copyTable(Mmtests); });
    exp->addAction(tr("Copy results as CSV"), this, [this] { copyTable(Csv); });
    exp->addAction(tr("Copy lockstat as CSV"), this, [this] { QApplication::clipboard()->setText(modelToCsv(*m_lockModel)); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("Reset page map zoom"), this, [this] { m_pageMap->resetZoom(); });
    QAction* dark = view->addAction(tr("Dark palette"));
    dark->setCheckable(true);
    connect(dark, &QAction::toggled, this, &MainWindow::setDarkPalette);
    m_darkAction = dark;
}

void MainWindow::exportChart(QWidget* w, const QString& name)
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), name + QStringLiteral(".png"),
                                                      tr("PNG image (*.png);;PDF (*.pdf);;SVG (*.svg)"));
    if (path.isEmpty())
        return;
    QString error;
    bool ok = false;
    if (auto* e = dynamic_cast<Exportable*>(w))
        ok = e->exportTo(path, &error);
    else
        ok = exportWidget(w, path, &error);
    if (!ok)
        fail(error);
    else
        statusBar()->showMessage(tr("wrote %1").arg(path), 4000);
}

void MainWindow::exportTable(int format)
{
    if (!m_results)
        return fail(tr("Nothing to export yet: run the scenario first"));
    static const char* ext[] = { "csv", "md", "txt", "txt" };
    const QString path = QFileDialog::getSaveFileName(this, tr("Export results"), QStringLiteral("results.") + QLatin1String(ext[format]));
    if (path.isEmpty())
        return;
    QString error;
    QFile f(path);
    if (!checkWritable(path, &error))
        return fail(error);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return fail(tr("cannot write %1: %2").arg(path, f.errorString()));
    f.write(tableText(*m_results, *m_resultsScenario, format).toUtf8());
}

void MainWindow::copyTable(int format)
{
    if (m_results)
        QApplication::clipboard()->setText(tableText(*m_results, *m_resultsScenario, format));
}

void MainWindow::exportReport(const QString& suffix)
{
    if (!m_results)
        return fail(tr("Nothing to report yet: run the scenario first"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), QStringLiteral("%1-report.%2").arg(QString::fromStdString(m_resultsScenario->id()), suffix));
    if (path.isEmpty())
        return;
    std::string error;
    if (!writeReport(*m_resultsScenario, *m_results, path.toStdString(), error))
        fail(QString::fromStdString(error));
    else
        statusBar()->showMessage(tr("wrote %1").arg(path), 4000);
}

} // namespace mms
