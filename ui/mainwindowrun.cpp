// MainWindow's runs: starting one, following it (progress, cancel, failure), and showing its results: the run
// the views play, the time cursor, the explain lines and the next event of interest.
#include "mainwindow.h"

#include "comparepanel.h"
#include "counterplot.h"
#include "cpulockmapview.h"
#include "cputimelineview.h"
#include "cputimesview.h"
#include "enginecontroller.h"
#include "firstview.h"
#include "kernelrulesview.h"
#include "lockcaptureview.h"
#include "lockheatmapview.h"
#include "nativerunview.h"
#include "pagemapview.h"
#include "parametereditor.h"
#include "recordingview.h"
#include "resultschart.h"
#include "resultsmodel.h"
#include "run/recording.h"
#include "run/runner.h"
#include "scenariobrowser.h"
#include "transportbar.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDockWidget>
#include <QLabel>
#include <QProgressBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>

#include <algorithm>

namespace mms {

namespace {
    // Many CPUs: one line per distinct activity, naming its CPUs ("spinning on swap_info[0].lock: CPU 0, 9, …").
    QString explainByActivity(const Recording& rec, std::size_t f)
    {
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
        return html;
    }

    // A line per CPU, in as many columns of 240 px as fit (one to four), CPU numbers running down the columns.
    QString explainPerCpu(const Recording& rec, std::size_t f, int width)
    {
        QString html = QStringLiteral("<table cellspacing=0 cellpadding=1>");
        const int cpus = rec.cpuCount(), cols = std::clamp(width / 240, 1, 4);
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
        return html + QStringLiteral("</table>");
    }
} // namespace

void MainWindow::connectRuns()
{
    connect(m_runPick, &QComboBox::currentIndexChanged, this, [this](int i) {
        statusBar()->clearMessage(); // the first view's note names the run it chose, no longer the one shown
        showRun(m_runPick->itemData(i).toInt());
    });
    connect(m_transport, &TransportBar::timeChanged, this, [this](Time t) {
        if (m_liveRecording)
            m_liveFollow = t >= m_transport->end();
        onTime(t);
    });
    connect(m_transport, &TransportBar::nextEventRequested, this, &MainWindow::nextEvent);
    connect(m_controller, &EngineController::runStarted, this, [this] {
        m_runAction->setEnabled(true);
        m_cancelAction->setEnabled(true);
        m_progress->setValue(0);
        m_progress->setFormat(tr("running %p%"));
        statusBar()->showMessage(tr("running %1 at scale %2…").arg(QString::fromStdString(m_scenario->id())).arg(scale()));
    });
    connect(m_controller, &EngineController::progressChanged, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(m_controller, &EngineController::partialResults, this, &MainWindow::showPartialResults);
    connect(m_controller, &EngineController::liveRecording, this, &MainWindow::showLiveRecording);
    connect(m_controller, &EngineController::runFinished, this, &MainWindow::showResults);
    connect(m_controller, &EngineController::runCancelled, this, [this] {
        endLive();
        m_cancelAction->setEnabled(false);
        m_progress->setFormat(tr("cancelled"));
        statusBar()->showMessage(tr("run cancelled; the previous results stay"), 5000);
    });
    connect(m_controller, &EngineController::runFailed, this, [this](const QString& msg) {
        endLive();
        m_cancelAction->setEnabled(false);
        m_progress->setFormat(tr("failed"));
        // The parameter editor is left alone: the edited scenario is still there to correct and run again.
        fail(tr("The run of %1 failed:\n%2\nThe parameters are kept as you edited them%3.")
                 .arg(m_runDescription, msg, m_results ? tr("; the views still show the previous results") : QString()));
    });
    connect(m_params, &ParameterEditor::scenarioEdited, this, [this] {
        statusBar()->showMessage(tr("parameters changed: press Run (Ctrl+R) to run them"), 4000);
        updateNativeScenario();
        updateKernelRules();
    });
    connect(m_rules, &KernelRulesView::kernelChosen, this, [this](const QString& v) {
        if (!m_params->setEverywhere(QStringLiteral("kernel"), v))
            updateKernelRules(); // refused: the pick goes back to the scenario's release
    });
    connect(m_rules, &KernelRulesView::toggleChosen, this, [this](const QString& toggle, const QString& value) {
        if (!m_params->setEverywhere(toggle, value))
            updateKernelRules();
    });
    connect(m_scale, &QDoubleSpinBox::valueChanged, this, &MainWindow::updateNativeScenario);
    connect(m_native, &NativeRunView::finished, this, [this](bool ok) {
        if (ok)
            statusBar()->showMessage(tr("native run done: measured beside simulated in the Native run dock"), 8000);
        else
            statusBar()->showMessage(tr("native run: %1").arg(m_native->error()), 15000);
    });
    connect(m_browser, &ScenarioBrowser::scenarioRequested, this, [this](const QString& id) {
        if (loadScenario(id))
            startRun();
    });
}

void MainWindow::updateNativeScenario()
{
    if (std::shared_ptr<const Scenario> sc = m_params->scenario())
        m_native->setScenario(*sc, scale());
}

void MainWindow::updateKernelRules()
{
    if (std::shared_ptr<const Scenario> sc = m_params->scenario())
        m_rules->setScenario(*sc, m_scenario ? QString::fromStdString(m_scenario->json().value("kernel", std::string())) : QString());
}

void MainWindow::runNatively()
{
    if (auto* d = findChild<QDockWidget*>(QStringLiteral("native"))) {
        d->show();
        d->raise();
    }
    updateNativeScenario();
    if (!m_native->running() && !m_native->start())
        fail(tr("Cannot run natively: %1").arg(m_native->error()));
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
    req.liveRun = liveRunFor(*sc, m_liveLabel);
    m_runDescription = tr("%1 at scale %2").arg(QString::fromStdString(sc->id())).arg(req.scale);
    endLive(); // a run superseded mid-way leaves its views to the next one's
    m_runningScenario = sc;
    m_controller->start(req);
}

int MainWindow::liveRunFor(const Scenario& sc, QString& label) const
{
    const std::vector<PlannedRun> plan = planRuns(sc);
    int pick = 0;
    if (const RunResult* shown = currentRun(); shown && m_resultsScenario && m_resultsScenario->id() == sc.id())
        for (std::size_t i = 0; i < plan.size(); ++i)
            if (plan[i].variant == shown->variant && plan[i].point == shown->point && plan[i].rep == shown->rep)
                pick = int(i);
    if (plan.empty())
        return -1;
    RunResult run;
    run.variant = plan[std::size_t(pick)].variant;
    run.point = plan[std::size_t(pick)].point;
    run.rep = plan[std::size_t(pick)].rep;
    label = tr("running: %1").arg(ComparePanel::runLabel(run, sc.reps() > 1));
    return pick;
}

void MainWindow::showPartialResults(std::shared_ptr<const ResultSet> rs)
{
    m_resultsModel->setResults(m_runningScenario, rs);
    m_chart->setResults(m_runningScenario, rs);
}

void MainWindow::showLiveRecording(std::shared_ptr<const Recording> rec)
{
    if (!rec || rec->frameCount() == 0)
        return;
    if (!m_liveRecording) {
        m_runPick->setEnabled(false); // it lists the previous results' runs
        m_liveFollow = true;
    }
    m_liveRecording = rec;
    m_pageMap->setRecording(rec, m_liveLabel);
    m_heatmap->setRecording(rec, m_liveLabel);
    m_cpuLocks->setRecording(rec, m_liveLabel);
    m_timeline->setRecording(rec, m_liveLabel);
    m_counters->setSeries({ { m_liveLabel, rec } });
    const bool follow = m_liveFollow;
    m_transport->setRange(recordingEnd(*rec), rec->frameCount() > 1 ? rec->frameTime(1) - rec->frameTime(0) : rec->interval());
    if (follow)
        m_transport->setTime(m_transport->end());
    m_liveFollow = follow;
    onTime(m_transport->time());
}

void MainWindow::endLive()
{
    m_runPick->setEnabled(true);
    m_runningScenario.reset();
    if (!m_liveRecording)
        return;
    m_liveRecording.reset();
    // Back to the previous results, as they were shown.
    m_resultsModel->setResults(m_resultsScenario, m_results);
    m_chart->setResults(m_resultsScenario, m_results);
    const int shown = m_run;
    m_run = -1;
    if (m_results && shown >= 0)
        showRun(shown);
    else {
        m_pageMap->setRecording(nullptr, QString());
        m_heatmap->setRecording(nullptr, QString());
        m_cpuLocks->setRecording(nullptr, QString());
        m_timeline->setRecording(nullptr, QString());
        m_counters->setSeries({});
    }
}

const Recording* MainWindow::shownRecording() const
{
    if (m_liveRecording)
        return m_liveRecording.get();
    const RunResult* r = currentRun();
    return r ? r->recording.get() : nullptr;
}

void MainWindow::showResults(std::shared_ptr<const ResultSet> rs)
{
    m_liveRecording.reset();
    m_runningScenario.reset();
    m_runPick->setEnabled(true);
    m_cancelAction->setEnabled(false);
    m_progress->setFormat(tr("done"));
    m_results = std::move(rs);
    m_resultsScenario = m_controller->scenario();
    m_resultsModel->setResults(m_resultsScenario, m_results);
    m_chart->setResults(m_resultsScenario, m_results);
    m_compare->setResults(m_resultsScenario, m_results);

    // A scenario just opened starts at its most telling run and moment; a run again keeps what the user picked.
    const FirstView first = m_firstView ? chooseFirstView(*m_resultsScenario, *m_results) : FirstView {};
    fillRunPick(first.run);
    if (first.run >= 0)
        showFirstView(first);
    if (m_capture) // a capture opened stays B in the compare, beside the run the first view chose as A
        m_compare->setCapture(m_capture);
    updateScaleNote();
    statusBar()->showMessage(tr("%1 runs in %2 s (host, %3 threads)%4")
                                 .arg(m_results->results.size())
                                 .arg(m_results->wallSeconds, 0, 'f', 2)
                                 .arg(m_results->threads)
                                 .arg(m_firstViewNote.isEmpty() ? QString() : QStringLiteral("; ") + m_firstViewNote),
                             8000);
    m_firstViewNote.clear();
}

// The run pick lists the results' runs and selects `run` (else the run it showed before, by name, else the first);
// the views show that one.
void MainWindow::fillRunPick(int run)
{
    const QString keep = m_runPick->currentText();
    m_runPick->blockSignals(true);
    m_runPick->clear();
    for (std::size_t i = 0; i < m_results->results.size(); ++i) {
        const RunResult& r = m_results->results[i];
        const QString label = ComparePanel::runLabel(r, m_resultsScenario->reps() > 1);
        m_runPick->addItem(label, int(i));
    }
    int pick = run >= 0 ? m_runPick->findData(run) : m_runPick->findText(keep);
    pick = std::max(0, pick);
    m_runPick->setCurrentIndex(pick);
    m_runPick->blockSignals(false);
    m_run = -1;
    showRun(m_runPick->itemData(pick).toInt());
}

void MainWindow::showFirstView(const FirstView& first)
{
    m_firstView = false;
    if (first.baselineRun >= 0 && first.baselineRun != first.run)
        m_compare->setPair(first.baselineRun, first.run);
    m_transport->setTime(first.at);
    m_firstViewNote = tr("showing %1 at %2: %3")
                          .arg(m_runPick->currentText(), formatTime(first.at), QString::fromStdString(first.why));
}

void MainWindow::updateScaleNote()
{
    const double faithful = m_resultsScenario->faithfulScale();
    m_scaleNote->setText(m_results->scale == 1.0
            ? tr("Simulated at full scale.")
            : tr("Scale %1: counts and times grow with it, so the absolute figures are set against the post's only for scale-free metrics; "
                 "the ratios to %2 compare at any scale%3.")
                  .arg(m_results->scale)
                  .arg(QString::fromStdString(m_resultsScenario->baseline()))
                  .arg(m_results->scale < faithful * (1 - 1e-9) ? tr(" (this one is below the faithful scale %1: they may differ by more than 10 %)").arg(faithful)
                                                                : QString()));
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
    m_cpuTimes->setRun(r, label);
    // The scrubber spans the shown run; other runs (A/B, counters) follow the same simulated time.
    if (r.recording && r.recording->frameCount() > 0) {
        const Recording& rec = *r.recording;
        m_transport->setRange(recordingEnd(rec), rec.frameCount() > 1 ? rec.frameTime(1) - rec.frameTime(0) : rec.interval());
    }
    onTime(m_transport->time());
}

bool MainWindow::openCapture(const QString& path)
{
    QString error;
    std::optional<LockCapture> c = readLockCapture(path, error);
    if (!c) {
        fail(tr("Cannot open the lock capture:\n%1").arg(error));
        return false;
    }
    m_capture = std::make_shared<const LockCapture>(std::move(*c));
    m_captureView->setCapture(*m_capture);
    if (!m_captureView->isVisibleTo(this)) {
        m_captureView->show();
        // The splitter gave the hidden view no height: the maps half, the run's and the capture's tables a quarter each.
        if (auto* split = qobject_cast<QSplitter*>(m_captureView->parentWidget())) {
            const int h = std::max(split->height(), 400);
            split->setSizes({ h / 2, h / 4, h / 4 });
        }
    }
    m_compare->setCapture(m_capture);
    if (auto* d = findChild<QDockWidget*>(QStringLiteral("locks")))
        d->raise();
    statusBar()->showMessage(tr("lock capture %1 (%2): beside the run in Lock contention and in the A/B compare")
                                 .arg(m_capture->label, m_capture->source),
        8000);
    return true;
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
    const Recording* shown = shownRecording();
    if (!shown) {
        m_explain->clear();
        return;
    }
    const Recording& rec = *shown;
    const std::size_t f = frameAt(rec, m_transport->time());
    m_explain->setText(rec.cpuCount() > 16 ? explainByActivity(rec, f) : explainPerCpu(rec, f, m_explain->width()));
}

void MainWindow::nextEvent()
{
    const Recording* shown = shownRecording();
    if (!shown)
        return;
    const Recording& rec = *shown;
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

} // namespace mms
