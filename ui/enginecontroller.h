#pragma once
// The one bridge between the GUI thread and the engine (hotspot's JobTracker): runs a scenario on a worker thread,
// drops results of superseded runs (generation counter), cancels through an Interrupter and throttles progress.
// Results cross back as immutable snapshots, while the run goes on too: the results of the runs done so far, and
// the recording so far of the one run the user watches.

#include "run/result.h"

#include <QObject>

#include <atomic>
#include <memory>
#include <thread>

namespace mms {

class EngineController : public QObject {
    Q_OBJECT
public:
    struct Request {
        std::shared_ptr<const Scenario> scenario;
        double scale = 0.1;
        int threads = 0; // 0 = all host cores
        bool record = true;
        // With record: the run (its index in the results) whose recording streams (liveRecording) while it runs;
        // -1 for none.
        int liveRun = 0;
        double livePeriodSeconds = 0.25; // host time between its copies
    };

    explicit EngineController(QObject* parent = nullptr);
    ~EngineController() override;

    // Starts a run, superseding (and cancelling) any run in progress. Returns the run's generation.
    quint64 start(const Request& request);
    void cancel();
    bool isRunning() const { return m_running; }
    quint64 generation() const { return m_generation; }
    std::shared_ptr<const ResultSet> results() const { return m_results; }
    std::shared_ptr<const Scenario> scenario() const { return m_scenario; }

Q_SIGNALS:
    void runStarted(quint64 generation);
    // The share of the run's work done, 0..1, growing in steps of at least 0.1 % (inside one simulation too).
    void progressChanged(double fraction);
    // The runs done so far, in their final order (the runs not done yet are left out), each time one ends.
    void partialResults(std::shared_ptr<const mms::ResultSet> results);
    // The live run's recording up to its latest frame, a few times a second while it runs.
    void liveRecording(std::shared_ptr<const mms::Recording> recording);
    void runFinished(std::shared_ptr<const mms::ResultSet> results);
    void runCancelled();
    void runFailed(const QString& message);

private:
    class Job;
    void deliver(quint64 generation, std::shared_ptr<const ResultSet> rs, const QString& error);
    void addPartial(std::size_t index, const RunResult& r);
    void joinFinished();

    std::shared_ptr<Job> m_job;
    std::vector<std::pair<std::shared_ptr<Job>, std::thread>> m_workers;
    quint64 m_generation = 0;
    bool m_running = false;
    double m_progress = 0; // the largest share done reported for the current generation
    std::shared_ptr<const ResultSet> m_results;
    std::shared_ptr<const Scenario> m_scenario;
    std::shared_ptr<const Scenario> m_pendingScenario;
    // The current generation's runs done so far, by their index in the results.
    std::vector<std::pair<std::size_t, RunResult>> m_done;
    ResultSet m_partialHeader; // the current run's ResultSet fields, without results
};

} // namespace mms

Q_DECLARE_METATYPE(std::shared_ptr<const mms::ResultSet>)
Q_DECLARE_METATYPE(std::shared_ptr<const mms::Recording>)
