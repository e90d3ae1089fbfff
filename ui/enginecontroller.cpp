#include "enginecontroller.h"

#include "run/recording.h"
#include "run/runner.h"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QPointer>

namespace mms {

// Shared between the GUI thread and the worker: the cancellation flag and the progress throttle.
class EngineController::Job final : public Interrupter {
public:
    std::atomic<bool> cancelled { false };
    std::atomic<bool> done { false };
    bool wasInterrupted() override { return cancelled.load(std::memory_order_relaxed); }
};

EngineController::EngineController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const mms::ResultSet>>();
    qRegisterMetaType<std::shared_ptr<const mms::Recording>>();
}

EngineController::~EngineController()
{
    for (auto& [job, thread] : m_workers) {
        job->cancelled = true;
        thread.join();
    }
}

void EngineController::joinFinished()
{
    // A worker whose job is done is about to return: joining it does not block the GUI thread.
    for (auto it = m_workers.begin(); it != m_workers.end();) {
        if (it->first->done) {
            it->second.join();
            it = m_workers.erase(it);
        } else
            ++it;
    }
}

quint64 EngineController::start(const Request& request)
{
    cancel();
    const quint64 gen = ++m_generation;
    auto job = std::make_shared<Job>();
    m_job = job;
    m_running = true;
    m_pendingScenario = request.scenario;
    m_progress = 0;
    m_done.clear();
    m_partialHeader = ResultSet {};
    m_partialHeader.scenario = request.scenario->id();
    m_partialHeader.engineVersion = engineVersion();
    m_partialHeader.seed = request.scenario->seed();
    m_partialHeader.scale = request.scale;
    Q_EMIT runStarted(gen);
    Q_EMIT progressChanged(0.0);

    QPointer<EngineController> self(this);
    Request req = request;
    std::thread worker([self, job, gen, req] {
        RunnerOptions opts;
        opts.threads = req.threads;
        opts.scale = req.scale;
        opts.interrupter = job.get();
        opts.recording.enabled = req.record;
        // Each run's result as it ends, and the watched run's recording as it grows: queued to the GUI thread, where
        // a superseded generation's are dropped.
        opts.runDone = [self, gen](std::size_t, std::size_t index, const RunResult& r) {
            QMetaObject::invokeMethod(
                self.data(), [self, gen, index, r] {
                    if (self && self->m_generation == gen && self->m_running)
                        self->addPartial(index, r);
                },
                Qt::QueuedConnection);
        };
        if (req.record && req.liveRun >= 0) {
            opts.liveRun = static_cast<std::size_t>(req.liveRun);
            opts.recording.livePeriodSeconds = req.livePeriodSeconds;
            opts.recording.live = [self, gen](std::shared_ptr<const Recording> rec) {
                QMetaObject::invokeMethod(
                    self.data(), [self, gen, rec] {
                        if (self && self->m_generation == gen && self->m_running)
                            Q_EMIT self->liveRecording(rec);
                    },
                    Qt::QueuedConnection);
            };
        }
        // The runner reports the share of all the work done (finished runs and the running ones' own progress)
        // in 0.1 % steps, like heaptrack; each step is one queued call. They may arrive out of order from
        // parallel runs: the GUI side keeps the largest.
        opts.progressFraction = [self, gen](double fraction) {
            QMetaObject::invokeMethod(
                self.data(), [self, gen, fraction] {
                    if (self && self->m_generation == gen && fraction > self->m_progress) {
                        self->m_progress = fraction;
                        Q_EMIT self->progressChanged(fraction);
                    }
                },
                Qt::QueuedConnection);
        };
        std::shared_ptr<const ResultSet> rs;
        QString error;
        try {
            // A machine the host cannot hold would get the whole app OOM-killed, and the user's edits with it:
            // refuse it with the estimate, as the CLI does.
            if (std::string why = hostMemoryShortfall(*req.scenario, opts); !why.empty())
                error = QString::fromStdString(why) + QObject::tr("; choose a smaller scale or machine.memory");
            else
                rs = std::make_shared<const ResultSet>(runScenario(*req.scenario, opts));
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        job->done = true;
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(), [self, gen, rs, error] {
                if (self)
                    self->deliver(gen, rs, error);
            },
            Qt::QueuedConnection);
    });
    m_workers.emplace_back(job, std::move(worker));
    return gen;
}

void EngineController::addPartial(std::size_t index, const RunResult& r)
{
    auto at = std::lower_bound(m_done.begin(), m_done.end(), index, [](const auto& d, std::size_t i) { return d.first < i; });
    m_done.insert(at, { index, r });
    auto rs = std::make_shared<ResultSet>(m_partialHeader);
    for (const auto& d : m_done)
        rs->results.push_back(d.second);
    Q_EMIT partialResults(rs);
}

void EngineController::cancel()
{
    if (m_job && m_running) {
        m_job->cancelled = true;
        m_running = false;
        ++m_generation; // whatever the cancelled run still delivers is stale
        Q_EMIT runCancelled();
    }
}

void EngineController::deliver(quint64 generation, std::shared_ptr<const ResultSet> rs, const QString& error)
{
    joinFinished();
    if (generation != m_generation)
        return; // stale: superseded by a newer run
    m_running = false;
    m_done.clear();
    if (!error.isEmpty()) {
        Q_EMIT runFailed(error);
        return;
    }
    if (!rs || rs->cancelled) {
        Q_EMIT runCancelled();
        return;
    }
    m_results = rs;
    m_scenario = m_pendingScenario;
    Q_EMIT progressChanged(1.0);
    Q_EMIT runFinished(rs);
}

} // namespace mms
