// MainWindow's docks: scenario, parameters and the kernel's rules on the left, the results table, chart, A/B compare and the native run
// on the right, the CPU timeline, lock contention and counters (over the shown run's CPU times) along the bottom, and
// their default proportions.
#include "mainwindow.h"

#include "comparepanel.h"
#include "counterplot.h"
#include "cpulockmapview.h"
#include "cputimelineview.h"
#include "cputimesview.h"
#include "lockcaptureview.h"
#include "kernelrulesview.h"
#include "lockheatmapview.h"
#include "nativerunview.h"
#include "parametereditor.h"
#include "resultschart.h"
#include "resultsmodel.h"
#include "scenariobrowser.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace mms {

namespace {
    QDockWidget* dock(QMainWindow* w, const QString& title, const QString& name, QWidget* content)
    {
        auto* d = new QDockWidget(title, w);
        d->setObjectName(name);
        d->setWidget(content);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
        return d;
    }

    // A table of one line per row and columns sized to their contents, without row numbers.
    QTableView* compactTable(QWidget* parent, QAbstractItemModel* model)
    {
        auto* t = new QTableView(parent);
        t->setModel(model);
        t->verticalHeader()->hide();
        t->verticalHeader()->setDefaultSectionSize(parent->fontMetrics().height() + 6);
        t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        return t;
    }
} // namespace

void MainWindow::buildDocks()
{
    buildScenarioDocks();
    buildResultsDocks();
    buildBottomDocks();
}

void MainWindow::buildScenarioDocks()
{
    m_browser = new ScenarioBrowser(this);
    m_params = new ParameterEditor(this);
    auto* dScenario = dock(this, tr("Scenario"), QStringLiteral("scenario"), m_browser);
    auto* dParams = dock(this, tr("Parameters"), QStringLiteral("parameters"), m_params);
    m_rules = new KernelRulesView(this);
    auto* dKernel = dock(this, tr("Kernel"), QStringLiteral("kernel"), m_rules);
    addDockWidget(Qt::LeftDockWidgetArea, dScenario);
    addDockWidget(Qt::LeftDockWidgetArea, dParams);
    tabifyDockWidget(dScenario, dParams);
    tabifyDockWidget(dParams, dKernel);
    dScenario->raise();
}

void MainWindow::buildResultsDocks()
{
    m_resultsModel = new ResultsModel(this);
    m_resultsTable = compactTable(this, m_resultsModel);
    m_resultsTable->setObjectName(QStringLiteral("resultsTable"));
    m_resultsTable->setAlternatingRowColors(true);
    m_resultsTable->setWordWrap(false);
    m_resultsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    // The shown run's row stays in view when the table's height changes (new contents, a horizontal scroll bar).
    connect(m_resultsTable->verticalScrollBar(), &QScrollBar::rangeChanged, this, [this] {
        const QModelIndexList rows = m_resultsTable->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            m_resultsTable->scrollTo(rows.front(), QAbstractItemView::EnsureVisible);
    });
    m_chart = new ResultsChart(this);
    m_compare = new ComparePanel(this);
    m_scaleNote = new QLabel(this);
    m_scaleNote->setWordWrap(true);
    m_scaleNote->setStyleSheet(QStringLiteral("color: gray;"));
    auto* resultsBox = new QWidget(this);
    auto* resultsLay = new QVBoxLayout(resultsBox);
    resultsLay->setContentsMargins(0, 0, 0, 0);
    resultsLay->setSpacing(2);
    resultsLay->addWidget(m_resultsTable, 1);
    resultsLay->addWidget(m_scaleNote);
    auto* dResults = dock(this, tr("Results"), QStringLiteral("results"), resultsBox);
    auto* dChart = dock(this, tr("Results chart"), QStringLiteral("chart"), m_chart);
    auto* dCompare = dock(this, tr("A/B compare"), QStringLiteral("compare"), m_compare);
    m_native = new NativeRunView(this);
    auto* dNative = dock(this, tr("Native run"), QStringLiteral("native"), m_native);
    addDockWidget(Qt::RightDockWidgetArea, dResults);
    addDockWidget(Qt::RightDockWidgetArea, dChart);
    tabifyDockWidget(dChart, dCompare);
    tabifyDockWidget(dCompare, dNative);
    dChart->raise();
}

// The timeline over the explain lines (at most six lines high, scrolled past that).
QWidget* MainWindow::buildCpuBox()
{
    m_timeline = new CpuTimelineView(this);
    m_explain = new QLabel(this);
    m_explain->setTextFormat(Qt::RichText);
    m_explain->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_explain->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* cpuBox = new QWidget(this);
    auto* cpuLay = new QVBoxLayout(cpuBox);
    cpuLay->setContentsMargins(0, 0, 0, 0);
    cpuLay->addWidget(m_timeline, 1);
    auto* explainScroll = new QScrollArea(this);
    explainScroll->setWidget(m_explain);
    explainScroll->setWidgetResizable(true);
    explainScroll->setFrameShape(QFrame::NoFrame);
    explainScroll->setMaximumHeight(6 * fontMetrics().height() + 8);
    explainScroll->setMinimumHeight(3 * fontMetrics().height());
    explainScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    cpuLay->addWidget(explainScroll);
    return cpuBox;
}

// The locks x time and CPUs x locks maps side by side over the lockstat table.
QWidget* MainWindow::buildLockBox()
{
    m_heatmap = new LockHeatmapView(this);
    m_lockModel = new LockStatModel(this);
    m_lockTable = compactTable(this, m_lockModel);
    m_cpuLocks = new CpuLockMapView(this);
    auto* heatSplit = new QSplitter(Qt::Horizontal, this);
    heatSplit->addWidget(m_heatmap);
    heatSplit->addWidget(m_cpuLocks);
    heatSplit->setStretchFactor(0, 3);
    heatSplit->setStretchFactor(1, 2);
    auto* lockSplit = new QSplitter(Qt::Vertical, this);
    lockSplit->addWidget(heatSplit);
    lockSplit->addWidget(m_lockTable);
    m_captureView = new LockCaptureView(this);
    m_captureView->hide(); // until a capture is opened
    lockSplit->addWidget(m_captureView);
    lockSplit->setStretchFactor(0, 2);
    lockSplit->setStretchFactor(1, 1);
    lockSplit->setStretchFactor(2, 1);
    return lockSplit;
}

void MainWindow::buildBottomDocks()
{
    QWidget* cpuBox = buildCpuBox();
    QWidget* lockBox = buildLockBox();
    m_counters = new CounterPlot(this);
    m_cpuTimes = new CpuTimesView(this);
    auto* counterSplit = new QSplitter(Qt::Vertical, this);
    counterSplit->addWidget(m_counters);
    counterSplit->addWidget(m_cpuTimes);
    counterSplit->setStretchFactor(0, 3);
    counterSplit->setStretchFactor(1, 2);
    auto* dCpu = dock(this, tr("CPU timeline"), QStringLiteral("cpus"), cpuBox);
    auto* dLocks = dock(this, tr("Lock contention"), QStringLiteral("locks"), lockBox);
    auto* dCounters = dock(this, tr("Counters"), QStringLiteral("counters"), counterSplit);
    addDockWidget(Qt::BottomDockWidgetArea, dCpu);
    addDockWidget(Qt::BottomDockWidgetArea, dLocks);
    addDockWidget(Qt::BottomDockWidgetArea, dCounters);
    splitDockWidget(dCpu, dLocks, Qt::Horizontal);
    splitDockWidget(dLocks, dCounters, Qt::Horizontal);
}

void MainWindow::applyDefaultLayout()
{
    // Proportions of the window, so the default layout reads at 1280x800 as well as on a big screen.
    auto* dScenario = findChild<QDockWidget*>(QStringLiteral("scenario"));
    auto* dResults = findChild<QDockWidget*>(QStringLiteral("results"));
    auto* dChart = findChild<QDockWidget*>(QStringLiteral("chart"));
    auto* dCpu = findChild<QDockWidget*>(QStringLiteral("cpus"));
    auto* dLocks = findChild<QDockWidget*>(QStringLiteral("locks"));
    auto* dCounters = findChild<QDockWidget*>(QStringLiteral("counters"));
    const int w = width(), h = height();
    // On a short screen (1280x800) the bottom row and the results table give height to the results chart, whose
    // axes and legend need about 250 px to read.
    const bool shortScreen = h < 900;
    resizeDocks({ dScenario, dResults }, { std::min(300, w / 5), w * 36 / 100 }, Qt::Horizontal);
    resizeDocks({ dCpu }, { h * (shortScreen ? 35 : 38) / 100 }, Qt::Vertical);
    resizeDocks({ dResults, dChart }, { h * (shortScreen ? 23 : 22) / 100, h * (shortScreen ? 37 : 30) / 100 }, Qt::Vertical);
    resizeDocks({ dCpu, dLocks, dCounters }, { w * 36 / 100, w * 30 / 100, w * 34 / 100 }, Qt::Horizontal);
}

void MainWindow::showEvent(QShowEvent* e)
{
    QMainWindow::showEvent(e);
    if (!m_layoutApplied) {
        m_layoutApplied = true;
        if (!m_layoutRestored)
            applyDefaultLayout();
    }
}

void MainWindow::resizeEvent(QResizeEvent* e)
{
    QMainWindow::resizeEvent(e);
    if (m_layoutApplied && !m_layoutRestored && !m_userLayout)
        applyDefaultLayout();
}

} // namespace mms
