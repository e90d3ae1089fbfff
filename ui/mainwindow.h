#pragma once
// The main window: scenario browser and parameter editor, run/cancel with progress, the transport, and the views
// (page map, lock heatmap, CPU timeline with the explain lines, counters with the run's CPU times, results table and
// chart, A/B compare), all following the transport's time cursor. Docks and their layout are saved with QSettings.

#include "run/result.h"

#include <QMainWindow>

#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QTableView;

namespace mms {

class ComparePanel;
class CounterPlot;
class CpuTimelineView;
class CpuTimesView;
class EngineController;
class LockHeatmapView;
class CpuLockMapView;
class LockStatModel;
class LockCaptureView;
class KernelRulesView;
class NativeRunView;
struct LockCapture;
class PageMapView;
class ParameterEditor;
class ResultsChart;
class ResultsModel;
class ScenarioBrowser;
class TransportBar;
struct FirstView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        bool restoreLayout = true; // from QSettings (off for screenshots and tests)
        bool dialogs = true; // errors as message boxes (off: status bar only)
    };
    explicit MainWindow(const Options& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    bool loadScenario(const QString& idOrPath);
    // A lock capture from a real kernel (mmscope-cli import) beside the simulated run: in the lock dock under the
    // run's lockstat, and as a run the A/B compare can pick. False, with lastError(), when the file is not one.
    bool openCapture(const QString& path);
    void startRun();
    // The scenario as edited, at the app's scale, run natively on this machine (the Native run dock).
    void runNatively();
    // Fixes the scale for this and every later scenario (else each opens at its faithful scale).
    void setScale(double scale);
    double scale() const;
    // Selects the run shown in the main views by its variant name (first point and repetition).
    bool selectVariant(const QString& variant);
    void goToFraction(double fraction);
    void setDarkPalette(bool dark);
    QString lastError() const { return m_lastError; }

    EngineController* controller() const { return m_controller; }
    TransportBar* transport() const { return m_transport; }
    PageMapView* pageMap() const { return m_pageMap; }
    LockHeatmapView* lockHeatmap() const { return m_heatmap; }
    CpuLockMapView* cpuLockMap() const { return m_cpuLocks; }
    LockCaptureView* captureView() const { return m_captureView; }
    NativeRunView* nativeRun() const { return m_native; }
    KernelRulesView* kernelRules() const { return m_rules; }
    ComparePanel* comparePanel() const { return m_compare; }
    CpuTimelineView* cpuTimeline() const { return m_timeline; }
    CpuTimesView* cpuTimes() const { return m_cpuTimes; }
    ParameterEditor* parameters() const { return m_params; }
    ScenarioBrowser* browser() const { return m_browser; }
    ResultsModel* resultsModel() const { return m_resultsModel; }
    std::shared_ptr<const ResultSet> results() const { return m_results; }
    std::shared_ptr<const Scenario> resultsScenario() const { return m_resultsScenario; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    // mainwindowactions.cpp: the run toolbar (run/cancel, scale, progress, the run shown) and the transport; menus.
    void buildToolBars();
    void buildMenus();
    // mainwindowdocks.cpp
    void buildDocks();
    void buildScenarioDocks();
    void buildResultsDocks();
    void buildBottomDocks();
    QWidget* buildCpuBox();
    QWidget* buildLockBox();
    void applyDefaultLayout();
    // mainwindow.cpp: the window's size and, unless Options say not to, its saved geometry, docks and palette.
    void restoreWindow();
    // mainwindowrun.cpp
    void connectRuns();
    void showResults(std::shared_ptr<const ResultSet> rs);
    // While a run goes on: the runs done so far in the results table and chart, and the watched run's recording
    // so far in the views, the time cursor following its latest frame unless the user moved it back.
    void showPartialResults(std::shared_ptr<const ResultSet> rs);
    void showLiveRecording(std::shared_ptr<const Recording> rec);
    // The run ended without results (cancelled, failed): the views go back to the previous results.
    void endLive();
    // The run of the plan to watch while `sc` runs: the one shown now when it is in the new plan, else the first.
    int liveRunFor(const Scenario& sc, QString& label) const;
    // The recording the views show: the live one while a run streams, else the shown run's.
    const Recording* shownRecording() const;
    void fillRunPick(int run);
    void showFirstView(const FirstView& first);
    void updateScaleNote();
    void updateNativeScenario();
    void updateKernelRules();
    void showRun(int index);
    void onTime(Time t);
    void nextEvent();
    void updateExplain();
    void fail(const QString& message);
    void updateScaleHint(bool announce);
    void exportChart(QWidget* w, const QString& name);
    void exportTable(int format);
    void copyTable(int format);
    void exportReport(const QString& suffix);
    const RunResult* currentRun() const;

    Options m_options;
    EngineController* m_controller;
    TransportBar* m_transport;
    ScenarioBrowser* m_browser;
    ParameterEditor* m_params;
    PageMapView* m_pageMap;
    LockHeatmapView* m_heatmap;
    CpuLockMapView* m_cpuLocks;
    QTableView* m_lockTable;
    LockStatModel* m_lockModel;
    LockCaptureView* m_captureView;
    NativeRunView* m_native;
    KernelRulesView* m_rules;
    CpuTimelineView* m_timeline;
    QLabel* m_explain;
    CounterPlot* m_counters;
    CpuTimesView* m_cpuTimes;
    QTableView* m_resultsTable;
    ResultsModel* m_resultsModel;
    QLabel* m_scaleNote;
    ResultsChart* m_chart;
    ComparePanel* m_compare;
    QComboBox* m_runPick;
    QDoubleSpinBox* m_scale;
    QLabel* m_scaleHint;
    bool m_scaleGiven = false; // a scale was asked for: scenarios no longer open at their faithful scale
    QProgressBar* m_progress;
    QAction* m_runAction;
    QAction* m_cancelAction;
    QAction* m_darkAction = nullptr;

    std::unique_ptr<Scenario> m_scenario;
    std::shared_ptr<const ResultSet> m_results;
    std::shared_ptr<const Scenario> m_resultsScenario;
    std::shared_ptr<const LockCapture> m_capture;
    int m_run = -1;
    std::shared_ptr<const Scenario> m_runningScenario; // the scenario of the run in progress
    std::shared_ptr<const Recording> m_liveRecording; // its watched run's recording so far
    QString m_liveLabel; // "running: madvfree"
    bool m_liveFollow = true; // the time cursor stays at the live recording's latest frame
    QString m_lastError;
    QString m_runDescription; // "ID at scale S" of the run last started, for its failure message
    bool m_firstView = true; // the next results are the first of the scenario just opened: show its story
    QString m_firstViewNote; // "showing madvfree at 1.2 s: first swap-in", for the status bar
    bool m_layoutApplied = false;
    bool m_layoutRestored = false;
    bool m_userLayout = false; // reserved: set once the user drags a splitter
};

} // namespace mms
