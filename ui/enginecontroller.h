#pragma once
// The one bridge between the GUI thread and the engine (hotspot's JobTracker): runs a scenario on a worker thread,
// drops results of superseded runs (generation counter), cancels through an Interrupter and throttles progress.
// Results cross back as immutable snapshots.

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
    void runFinished(std::shared_ptr<const mms::ResultSet> results);
    void runCancelled();
    void runFailed(const QString& message);

private:
    class Job;
    void deliver(quint64 generation, std::shared_ptr<const ResultSet> rs, const QString& error);
    void joinFinished();

    std::shared_ptr<Job> m_job;
    std::vector<std::pair<std::shared_ptr<Job>, std::thread>> m_workers;
    quint64 m_generation = 0;
    bool m_running = false;
    double m_progress = 0; // the largest share done reported for the current generation
    std::shared_ptr<const ResultSet> m_results;
    std::shared_ptr<const Scenario> m_scenario;
    std::shared_ptr<const Scenario> m_pendingScenario;
};

} // namespace mms

Q_DECLARE_METATYPE(std::shared_ptr<const mms::ResultSet>)
