#include "mainwindow.h"

#include "comparepanel.h"
#include "counterplot.h"
#include "cputimelineview.h"
#include "enginecontroller.h"
#include "export.h"
#include "firstview.h"
#include "cpulockmapview.h"
#include "lockheatmapview.h"
#include "pagemapview.h"
#include "parametereditor.h"
#include "recordingview.h"
#include "report.h"
#include "resultschart.h"
#include "resultsmodel.h"
#include "run/render.h"
#include "run/recording.h"
#include "scenario/scale.h"
#include "scenariobrowser.h"
#include "transportbar.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace mms {

namespace {
    enum TableFormat { Csv, Markdown, Mmtests, Text };

    QDockWidget* dock(QMainWindow* w, const QString& title, const QString& name, QWidget* content)
    {
        auto* d = new QDockWidget(title, w);
        d->setObjectName(name);
        d->setWidget(content);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
        return d;
    }
} // namespace

MainWindow::MainWindow(const Options& options, QWidget* parent)
    : QMainWindow(parent)
    , m_options(options)
    , m_controller(new EngineController(this))
    , m_transport(new TransportBar(this))
{
    setWindowTitle(tr("mmscope"));
    setObjectName(QStringLiteral("mmscope-main"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    m_pageMap = new PageMapView(this);
    setCentralWidget(m_pageMap);

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

    buildDocks();
    buildMenus();

    connect(m_runPick, &QComboBox::currentIndexChanged, this, [this](int i) {
        statusBar()->clearMessage(); // the first view's note names the run it chose, no longer the one shown
        showRun(m_runPick->itemData(i).toInt());
    });
    connect(m_transport, &TransportBar::timeChanged, this, &MainWindow::onTime);
    connect(m_transport, &TransportBar::nextEventRequested, this, &MainWindow::nextEvent);
    connect(m_controller, &EngineController::runStarted, this, [this] {
        m_runAction->setEnabled(true);
        m_cancelAction->setEnabled(true);
        m_progress->setValue(0);
        m_progress->setFormat(tr("running %p%"));
        statusBar()->showMessage(tr("running %1 at scale %2…").arg(QString::fromStdString(m_scenario->id())).arg(scale()));
    });
    connect(m_controller, &EngineController::progressChanged, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(m_controller, &EngineController::runFinished, this, &MainWindow::showResults);
    connect(m_controller, &EngineController::runCancelled, this, [this] {
        m_cancelAction->setEnabled(false);
        m_progress->setFormat(tr("cancelled"));
        statusBar()->showMessage(tr("run cancelled; the previous results stay"), 5000);
    });
    connect(m_controller, &EngineController::runFailed, this, [this](const QString& msg) {
        m_cancelAction->setEnabled(false);
        m_progress->setFormat(tr("failed"));
        // The parameter editor is left alone: the edited scenario is still there to correct and run again.
        fail(tr("The run of %1 failed:\n%2\nThe parameters are kept as you edited them%3.")
                 .arg(m_runDescription, msg, m_results ? tr("; the views still show the previous results") : QString()));
    });
    connect(m_params, &ParameterEditor::scenarioEdited, this,
            [this] { statusBar()->showMessage(tr("parameters changed: press Run (Ctrl+R) to run them"), 4000); });
    connect(m_browser, &ScenarioBrowser::scenarioRequested, this, [this](const QString& id) {
        if (loadScenario(id))
            startRun();
    });

    // Fit the screen (readable down to 1280x800), else 1500x940.
    QSize size(1500, 940);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableSize());
    resize(size);
    if (m_options.restoreLayout) {
        QSettings s;
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
        m_layoutRestored = restoreState(s.value(QStringLiteral("window/state")).toByteArray());
        if (s.value(QStringLiteral("view/dark"), false).toBool())
            setDarkPalette(true);
    }
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks()
{
    m_browser = new ScenarioBrowser(this);
    m_params = new ParameterEditor(this);
    auto* dScenario = dock(this, tr("Scenario"), QStringLiteral("scenario"), m_browser);
    auto* dParams = dock(this, tr("Parameters"), QStringLiteral("parameters"), m_params);
    addDockWidget(Qt::LeftDockWidgetArea, dScenario);
    addDockWidget(Qt::LeftDockWidgetArea, dParams);
    tabifyDockWidget(dScenario, dParams);
    dScenario->raise();

    m_resultsModel = new ResultsModel(this);
    m_resultsTable = new QTableView(this);
    m_resultsTable->setObjectName(QStringLiteral("resultsTable"));
    m_resultsTable->setModel(m_resultsModel);
    m_resultsTable->verticalHeader()->hide();
    m_resultsTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_resultsTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
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
    addDockWidget(Qt::RightDockWidgetArea, dResults);
    addDockWidget(Qt::RightDockWidgetArea, dChart);
    tabifyDockWidget(dChart, dCompare);
    dChart->raise();

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
    m_heatmap = new LockHeatmapView(this);
    m_lockModel = new LockStatModel(this);
    m_lockTable = new QTableView(this);
    m_lockTable->setModel(m_lockModel);
    m_lockTable->verticalHeader()->hide();
    m_lockTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_lockTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_cpuLocks = new CpuLockMapView(this);
    auto* heatSplit = new QSplitter(Qt::Horizontal, this);
    heatSplit->addWidget(m_heatmap);
    heatSplit->addWidget(m_cpuLocks);
    heatSplit->setStretchFactor(0, 3);
    heatSplit->setStretchFactor(1, 2);
    auto* lockSplit = new QSplitter(Qt::Vertical, this);
    lockSplit->addWidget(heatSplit);
    lockSplit->addWidget(m_lockTable);
    lockSplit->setStretchFactor(0, 2);
    lockSplit->setStretchFactor(1, 1);
    m_counters = new CounterPlot(this);
    auto* dCpu = dock(this, tr("CPU timeline"), QStringLiteral("cpus"), cpuBox);
    auto* dLocks = dock(this, tr("Lock contention"), QStringLiteral("locks"), lockSplit);
    auto* dCounters = dock(this, tr("Counters"), QStringLiteral("counters"), m_counters);
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
    file->addSeparator();
    file->addAction(tr("Report as HTML…"), this, [this] { exportReport(QStringLiteral("html")); });
    file->addAction(tr("Report as PDF…"), this, [this] { exportReport(QStringLiteral("pdf")); });
    file->addSeparator();
    file->addAction(tr("Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_cancelAction);
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

bool MainWindow::loadScenario(const QString& idOrPath)
{
    try {
        m_scenario = std::make_unique<Scenario>(mms::loadScenario(idOrPath.toStdString()));
    } catch (const std::exception& e) {
        fail(tr("Cannot open scenario %1:\n%2").arg(idOrPath, QString::fromStdString(e.what())));
        return false;
    }
    m_firstView = true;
    // Each scenario opens at its faithful scale, unless a scale was asked for (--scale, setScale()).
    if (!m_scaleGiven) {
        const QSignalBlocker quiet(m_scale);
        m_scale->setValue(m_scenario->faithfulScale());
    }
    updateScaleHint(false);
    m_browser->showScenario(*m_scenario);
    m_params->setScenario(*m_scenario);
    setWindowTitle(tr("mmscope — %1").arg(QString::fromStdString(m_scenario->title())));
    return true;
}

void MainWindow::startRun()
{
    std::shared_ptr<const Scenario> sc = m_params->scenario();
    if (!sc)
        return fail(tr("No scenario loaded"));
    // A field left red holds text the engine refused; running the last valid value instead would silently not
    // run what the user sees. Say which field, and leave every edit where it is.
    if (const auto invalid = m_params->invalidFields(); !invalid.empty()) {
        if (auto* d = findChild<QDockWidget*>(QStringLiteral("parameters")))
            d->raise();
        return fail(tr("Not run: the parameter %1 is not valid:\n%2\nCorrect it and run again; your other edits are kept.")
                        .arg(invalid.front().first, invalid.front().second));
    }
    EngineController::Request req;
    req.scenario = sc;
    req.scale = scale();
    m_runDescription = tr("%1 at scale %2").arg(QString::fromStdString(sc->id())).arg(req.scale);
    m_controller->start(req);
}

void MainWindow::setScale(double s)
{
    m_scaleGiven = true;
    m_scale->setValue(s);
}

void MainWindow::updateScaleHint(bool announce)
{
    if (!m_scenario) {
        m_scaleHint->clear();
        return;
    }
    const double faithful = m_scenario->faithfulScale();
    const bool below = scale() < faithful * (1 - 1e-9);
    m_scaleHint->setText(below ? tr("below faithful %1").arg(faithful) : tr("faithful ≥ %1").arg(faithful));
    m_scaleHint->setStyleSheet(below ? QStringLiteral("color: #b04010; font-weight: bold;") : QStringLiteral("color: gray;"));
    m_scaleHint->setToolTip(tr("%1's ratios between variants stay within 10 % of their full-scale values at scale %2 and above")
                                .arg(QString::fromStdString(m_scenario->id()))
                                .arg(faithful));
    if (below && announce)
        statusBar()->showMessage(tr("Scale %1 is below %2's faithful scale %3: its ratios may be more than 10 % from full scale")
                                     .arg(scale())
                                     .arg(QString::fromStdString(m_scenario->id()))
                                     .arg(faithful),
                                 8000);
}
double MainWindow::scale() const { return m_scale->value(); }

void MainWindow::showResults(std::shared_ptr<const ResultSet> rs)
{
    m_cancelAction->setEnabled(false);
    m_progress->setFormat(tr("done"));
    m_results = std::move(rs);
    m_resultsScenario = m_controller->scenario();
    m_resultsModel->setResults(m_resultsScenario, m_results);
    m_chart->setResults(m_resultsScenario, m_results);
    m_compare->setResults(m_resultsScenario, m_results);

    // A scenario just opened starts at its most telling run and moment; a run again keeps what the user picked.
    const FirstView first = m_firstView ? chooseFirstView(*m_resultsScenario, *m_results) : FirstView {};
    const QString keep = m_runPick->currentText();
    m_runPick->blockSignals(true);
    m_runPick->clear();
    for (std::size_t i = 0; i < m_results->results.size(); ++i) {
        const RunResult& r = m_results->results[i];
        const QString label = ComparePanel::runLabel(r, m_resultsScenario->reps() > 1);
        m_runPick->addItem(label, int(i));
    }
    int pick = first.run >= 0 ? m_runPick->findData(first.run) : m_runPick->findText(keep);
    pick = std::max(0, pick);
    m_runPick->setCurrentIndex(pick);
    m_runPick->blockSignals(false);
    m_run = -1;
    showRun(m_runPick->itemData(pick).toInt());
    if (first.run >= 0) {
        m_firstView = false;
        if (first.baselineRun >= 0 && first.baselineRun != first.run)
            m_compare->setPair(first.baselineRun, first.run);
        m_transport->setTime(first.at);
        m_firstViewNote = tr("showing %1 at %2: %3")
                              .arg(m_runPick->currentText(), formatTime(first.at), QString::fromStdString(first.why));
    }
    const double faithful = m_resultsScenario->faithfulScale();
    m_scaleNote->setText(m_results->scale == 1.0
            ? tr("Simulated at full scale.")
            : tr("Scale %1: counts and times grow with it, so the absolute figures are set against the post's only for scale-free metrics; "
                 "the ratios to %2 compare at any scale%3.")
                  .arg(m_results->scale)
                  .arg(QString::fromStdString(m_resultsScenario->baseline()))
                  .arg(m_results->scale < faithful * (1 - 1e-9) ? tr(" (this one is below the faithful scale %1: they may differ by more than 10 %)").arg(faithful)
                                                                : QString()));
    statusBar()->showMessage(tr("%1 runs in %2 s (host, %3 threads)%4")
                                 .arg(m_results->results.size())
                                 .arg(m_results->wallSeconds, 0, 'f', 2)
                                 .arg(m_results->threads)
                                 .arg(m_firstViewNote.isEmpty() ? QString() : QStringLiteral("; ") + m_firstViewNote),
                             8000);
    m_firstViewNote.clear();
}

const RunResult* MainWindow::currentRun() const
{
    if (!m_results || m_run < 0 || m_run >= int(m_results->results.size()))
        return nullptr;
    return &m_results->results[std::size_t(m_run)];
}

void MainWindow::showRun(int index)
{
    if (!m_results || index < 0 || index >= int(m_results->results.size()) || index == m_run)
        return;
    m_run = index;
    const RunResult& r = m_results->results[std::size_t(index)];
    const QString label = ComparePanel::runLabel(r, m_resultsScenario && m_resultsScenario->reps() > 1);
    m_pageMap->setRecording(r.recording, label);
    m_heatmap->setRecording(r.recording, label);
    m_cpuLocks->setRecording(r.recording, label);
    m_timeline->setRecording(r.recording, label);
    m_lockModel->setLocks(r.locks);
    // The table follows: the shown run's row selected and in view.
    if (const int row = m_resultsModel->rowOf(r.variant, r.point); row >= 0) {
        m_resultsTable->selectRow(row);
        m_resultsTable->scrollTo(m_resultsModel->index(row, 0), QAbstractItemView::PositionAtCenter);
    }
    // Counters: every variant at the shown run's sweep point and repetition, on one time axis.
    QVector<CounterPlot::Series> series;
    for (const RunResult& other : m_results->results)
        if (other.recording && other.point == r.point && other.rep == r.rep)
            series.push_back({ QString::fromStdString(other.variant), other.recording });
    m_counters->setSeries(series);
    // The scrubber spans the shown run; other runs (A/B, counters) follow the same simulated time.
    if (r.recording && r.recording->frameCount() > 0) {
        const Recording& rec = *r.recording;
        m_transport->setRange(recordingEnd(rec), rec.frameCount() > 1 ? rec.frameTime(1) - rec.frameTime(0) : rec.interval());
    }
    onTime(m_transport->time());
}

bool MainWindow::selectVariant(const QString& variant)
{
    if (!m_results)
        return false;
    for (int i = 0; i < m_runPick->count(); ++i)
        if (m_results->results[std::size_t(m_runPick->itemData(i).toInt())].variant == variant.toStdString()) {
            m_runPick->setCurrentIndex(i);
            showRun(m_runPick->itemData(i).toInt());
            return true;
        }
    return false;
}

void MainWindow::goToFraction(double fraction) { m_transport->setFraction(fraction); }

void MainWindow::onTime(Time t)
{
    m_pageMap->setTime(t);
    m_heatmap->setTime(t);
    m_cpuLocks->setTime(t);
    m_timeline->setTime(t);
    m_counters->setTime(t);
    m_compare->setTime(t);
    updateExplain();
}

void MainWindow::updateExplain()
{
    const RunResult* r = currentRun();
    if (!r || !r->recording) {
        m_explain->clear();
        return;
    }
    const Recording& rec = *r->recording;
    const std::size_t f = frameAt(rec, m_transport->time());
    if (rec.cpuCount() > 16) {
        // Many CPUs: one line per distinct activity, naming its CPUs ("spinning on swap_info[0].lock: CPU 0, 9, …").
        std::vector<std::pair<std::string, std::vector<int>>> groups;
        for (int cpu = 0; cpu < rec.cpuCount(); ++cpu) {
            const std::string what = rec.explain(cpu, f);
            auto it = std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.first == what; });
            if (it == groups.end())
                groups.push_back({ what, { cpu } });
            else
                it->second.push_back(cpu);
        }
        std::stable_sort(groups.begin(), groups.end(), [](auto& a, auto& b) { return a.second.size() > b.second.size(); });
        QString html;
        for (auto& [what, cpus] : groups) {
            QStringList ids;
            for (std::size_t i = 0; i < cpus.size() && i < 24; ++i)
                ids << QString::number(cpus[i]);
            if (cpus.size() > 24)
                ids << QStringLiteral("…");
            html += QStringLiteral("<b>%1 CPUs</b> %2: <span style='color:gray'>%3</span><br>")
                        .arg(cpus.size())
                        .arg(QString::fromStdString(what).toHtmlEscaped(), ids.join(QStringLiteral(", ")));
        }
        m_explain->setText(html);
        return;
    }
    QString html = QStringLiteral("<table cellspacing=0 cellpadding=1>");
    const int cpus = rec.cpuCount(), cols = std::clamp(m_explain->width() / 240, 1, 4);
    const int rows = (cpus + cols - 1) / cols;
    for (int row = 0; row < rows; ++row) {
        html += QStringLiteral("<tr>");
        for (int c = 0; c < cols; ++c) {
            int cpu = c * rows + row;
            if (cpu < cpus)
                html += QStringLiteral("<td nowrap><b>CPU%1</b>&nbsp;</td><td nowrap>%2&nbsp;&nbsp;&nbsp;</td>")
                            .arg(cpu)
                            .arg(QString::fromStdString(rec.explain(cpu, f)).toHtmlEscaped());
        }
        html += QStringLiteral("</tr>");
    }
    m_explain->setText(html + QStringLiteral("</table>"));
}

void MainWindow::nextEvent()
{
    const RunResult* r = currentRun();
    if (!r || !r->recording)
        return;
    const Recording& rec = *r->recording;
    const std::size_t f = rec.nextEventFrame(frameAt(rec, m_transport->time()));
    if (f >= rec.frameCount()) {
        statusBar()->showMessage(tr("no further event of interest"), 3000);
        return;
    }
    m_transport->setTime(rec.frameTime(f));
    QStringList what;
    for (const InterestingEvent& e : rec.events())
        if (e.frame == f)
            what << QString::fromStdString(e.what);
    statusBar()->showMessage(tr("%1: %2").arg(formatTime(rec.frameTime(f)), what.join(QStringLiteral("; "))), 6000);
}

void MainWindow::fail(const QString& message)
{
    m_lastError = message;
    statusBar()->showMessage(message, 10000);
    if (m_options.dialogs)
        QMessageBox::warning(this, tr("mmscope"), message);
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

namespace {
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

void MainWindow::setDarkPalette(bool dark)
{
    static const QPalette light = QApplication::palette();
    QPalette p = light;
    if (dark) {
        p.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
        p.setColor(QPalette::WindowText, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Base, QColor(0x1f, 0x21, 0x24));
        p.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2c, 0x30));
        p.setColor(QPalette::Text, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3b));
        p.setColor(QPalette::ButtonText, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xd6));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::Mid, QColor(0x55, 0x57, 0x5c));
        p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8a, 0x8a));
        p.setColor(QPalette::ToolTipBase, QColor(0x35, 0x37, 0x3b));
        p.setColor(QPalette::ToolTipText, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Link, QColor(0x7c, 0xb8, 0xff)); // the default dark blue is unreadable on Base
        p.setColor(QPalette::LinkVisited, QColor(0xc0, 0x9c, 0xff));
        p.setColor(QPalette::BrightText, QColor(0xff, 0x80, 0x80));
        for (QPalette::ColorRole r : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
            p.setColor(QPalette::Disabled, r, QColor(0x80, 0x80, 0x80));
    }
    QApplication::setPalette(p);
    if (m_darkAction && m_darkAction->isChecked() != dark)
        m_darkAction->setChecked(dark);
    if (m_options.restoreLayout)
        QSettings().setValue(QStringLiteral("view/dark"), dark);
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    m_controller->cancel();
    if (m_options.restoreLayout) {
        QSettings s;
        s.setValue(QStringLiteral("window/geometry"), saveGeometry());
        s.setValue(QStringLiteral("window/state"), saveState());
    }
    QMainWindow::closeEvent(e);
}

} // namespace mms
