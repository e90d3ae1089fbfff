// The oneTBB runner: byte-identical results at 1, 2 and 4 threads, shards that partition the plan, a cancel raised
// from another thread while runs are in flight, and the host-memory estimate. Small enough to run under TSan
// (scripts/test.sh runs this suite in the tsan-engine build).
#include "run/json.h"
#include "run/poolqueue.h"
#include "run/recording.h"
#include "run/runner.h"

#include <QtTest>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace mms;

namespace {
// Six runs: three variants x two repetitions, at a scale where each takes a fraction of a second.
Scenario small()
{
    Scenario sc = loadScenario("madv-free-swapin");
    sc.set("loops", "2");
    sc.setReps(2);
    return sc;
}

constexpr double kScale = 0.005;

std::string withoutHost(const ResultSet& rs)
{
    OJson j = resultsToJson(rs);
    j.erase("host");
    return j.dump();
}

ResultSet run(const Scenario& sc, int threads, std::size_t shard = 0, std::size_t shards = 1)
{
    RunnerOptions o;
    o.scale = kScale;
    o.threads = threads;
    o.shardIndex = shard;
    o.shardCount = shards;
    return runScenario(sc, o);
}

// Raised by another thread once the first run has finished.
class FlagInterrupter final : public Interrupter {
public:
    std::atomic<bool> flag { false };
    bool wasInterrupted() override { return flag.load(); }
};
} // namespace

class TestRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameBytesAtAnyThreadCount()
    {
        Scenario sc = small();
        std::string one = withoutHost(run(sc, 1));
        QCOMPARE(withoutHost(run(sc, 2)), one);
        QCOMPARE(withoutHost(run(sc, 4)), one);
    }

    // reproduce's pool: two scenarios' runs mixed in one pool (largest machines first, whichever worker is free)
    // give each scenario exactly runScenario's bytes, at one thread and at two.
    void poolOfScenariosMatchesOneByOne()
    {
        Scenario a = small();
        Scenario b = small();
        b.setSeed(7);
        b.set("machine.memory", "4GiB"); // a larger machine: its runs go first in the pool
        for (int threads : { 1, 2 }) {
            RunnerOptions o;
            o.scale = kScale;
            o.threads = threads;
            std::vector<std::size_t> doneOrder;
            std::vector<ScenarioOutcome> pooled = runScenarios({ &a, &b }, o,
                [&](std::size_t i, const ScenarioOutcome& out) {
                    QCOMPARE(out.results.results.size(), std::size_t { 6 });
                    doneOrder.push_back(i);
                });
            QCOMPARE(pooled.size(), std::size_t { 2 });
            QCOMPARE(doneOrder.size(), std::size_t { 2 });
            QVERIFY(!pooled[0].error && !pooled[1].error);
            QCOMPARE(withoutHost(pooled[0].results), withoutHost(run(a, 1)));
            QCOMPARE(withoutHost(pooled[1].results), withoutHost(run(b, 1)));
        }
    }

    // The app's streaming: each run's result as it ends, equal to its slot in the final results; the watched run's
    // recording so far, a copy at every frame here, growing and never past the run's end; and the same results as
    // a run that streams nothing.
    void streamsRunsAndTheWatchedRecording()
    {
        Scenario sc = small();
        RunnerOptions o;
        o.scale = kScale;
        o.threads = 2;
        o.recording.enabled = true;
        const std::string quiet = withoutHost(runScenario(sc, o));

        std::mutex m;
        std::map<std::size_t, std::string> done;
        std::vector<std::shared_ptr<const Recording>> live;
        o.runDone = [&](std::size_t scenario, std::size_t index, const RunResult& r) {
            std::lock_guard<std::mutex> lock(m);
            QCOMPARE(scenario, std::size_t { 0 });
            QVERIFY(done.emplace(index, r.variant).second);
        };
        o.liveRun = 3;
        o.recording.livePeriodSeconds = 0;
        o.recording.live = [&](std::shared_ptr<const Recording> rec) {
            std::lock_guard<std::mutex> lock(m);
            live.push_back(std::move(rec));
        };
        const ResultSet rs = runScenario(sc, o);
        QCOMPARE(withoutHost(rs), quiet);
        QCOMPARE(done.size(), rs.results.size());
        for (const auto& [index, variant] : done)
            QCOMPARE(variant, rs.results[index].variant);
        QVERIFY2(live.size() >= 2, qPrintable(QString::number(live.size())));
        const Recording& watched = *rs.results[3].recording;
        const Time end = watched.frameTime(watched.frameCount() - 1);
        Time last = 0;
        for (const auto& rec : live) {
            QVERIFY(rec->frameCount() > 0);
            const Time t = rec->frameTime(rec->frameCount() - 1);
            QVERIFY(t >= last && t <= end);
            last = t;
        }
        QVERIFY(last > 0);
    }

    void shardsPartitionThePlan()
    {
        Scenario sc = small();
        std::size_t n = planRuns(sc).size();
        QCOMPARE(n, std::size_t(6));
        ResultSet whole = run(sc, 2);
        for (std::size_t shards : { std::size_t(1), std::size_t(4), std::size_t(8) }) {
            std::size_t seen = 0;
            for (std::size_t k = 0; k < shards; ++k) {
                ResultSet part = run(sc, 2, k, shards);
                std::size_t j = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    if (!inShard(i, k, shards))
                        continue;
                    QVERIFY(j < part.results.size());
                    // The same run gives the same numbers whichever shard executes it.
                    QCOMPARE(part.results[j].variant, whole.results[i].variant);
                    QCOMPARE(part.results[j].rep, whole.results[i].rep);
                    QCOMPARE(part.results[j].events, whole.results[i].events);
                    QCOMPARE(part.results[j].metrics, whole.results[i].metrics);
                    ++j;
                }
                QCOMPARE(j, part.results.size());
                seen += j;
            }
            QCOMPARE(seen, n);
        }
    }

    void cancelFromAnotherThread()
    {
        Scenario sc = small();
        FlagInterrupter stop;
        RunnerOptions o;
        o.scale = kScale;
        o.threads = 2;
        o.interrupter = &stop;
        std::atomic<std::size_t> progressed { 0 };
        o.progress = [&](std::size_t, std::size_t) { ++progressed; };
        std::thread canceller([&] {
            while (progressed.load() == 0)
                std::this_thread::yield();
            stop.flag = true;
        });
        ResultSet rs = runScenario(sc, o);
        canceller.join();
        // Some runs may have finished before the flag was seen; the set as a whole is marked cancelled.
        QVERIFY(rs.cancelled);
        QVERIFY(progressed.load() >= 1);
    }

    // The pool's queue within a budget of 1000: a large run goes with the small ones that fit beside it, the next
    // large one waits for it to end, and a run larger than the budget waits until nothing is in flight.
    void poolQueueKeepsTheBudget()
    {
        PoolQueue q({ 1200, 700, 600, 200, 100 }, 1000);
        QCOMPARE(q.take(), std::size_t(1)); // 700: the first that fits
        QCOMPARE(q.take(), std::size_t(3)); // 600 does not fit beside it, 200 does
        QCOMPARE(q.take(), std::size_t(4)); // 100: 1000 in flight
        std::atomic<std::size_t> next { 99 };
        std::thread waiter([&] { next = q.take(); });
        QTest::qWait(50);
        QCOMPARE(next.load(), std::size_t(99)); // nothing fits
        q.done(1);
        waiter.join();
        QCOMPARE(next.load(), std::size_t(2)); // 600 beside 200 and 100
        std::thread waiter2([&] { next = q.take(); });
        q.done(2);
        q.done(3);
        QTest::qWait(50);
        QCOMPARE(next.load(), std::size_t(2)); // 1200 waits for the last run in flight
        q.done(4);
        waiter2.join();
        QCOMPARE(next.load(), std::size_t(0)); // then goes alone
        QCOMPARE(q.take(), q.size()); // every run taken
        q.done(0);
    }

    // The default budget: at least kDefaultMemoryBudget, room for the largest run and a quarter more; a given one
    // is kept as it is.
    void memoryBudgetDefault()
    {
        RunnerOptions o;
        QVERIFY(memoryBudget(o, 1u << 20) <= kDefaultMemoryBudget);
        const std::uint64_t big = std::uint64_t { 3 } << 30;
        QVERIFY(memoryBudget(o, big) >= big);
        o.memoryBudget = 5u << 20;
        QCOMPARE(memoryBudget(o, big), std::uint64_t(5u << 20));
    }

    void memoryEstimateScales()
    {
        Scenario sc = loadScenario("madv-free-swapin"); // 3 GiB RAM, 8 GiB swap
        RunnerOptions o;
        o.threads = 1;
        o.scale = 1.0;
        MemoryEstimate full = estimateMemory(sc, o);
        QCOMPARE(full.simulatedPages, std::uint64_t((3ull << 30) / 4096 + (8ull << 30) / 4096));
        QCOMPARE(full.concurrent, std::size_t(1));
        // At least the PageArray bytes of every frame, at most 64 bytes per simulated page.
        QVERIFY(full.perRunBytes > full.simulatedPages * 4);
        QVERIFY(full.perRunBytes < full.simulatedPages * 64);
        o.threads = 8; // three runs at most execute at once
        QCOMPARE(estimateMemory(sc, o).concurrent, std::size_t(3));
        QCOMPARE(estimateMemory(sc, o).totalBytes, 3 * full.perRunBytes);
        o.scale = 0.5;
        o.threads = 1;
        QVERIFY(estimateMemory(sc, o).perRunBytes < full.perRunBytes * 6 / 10);
        o.scale = 1.0;
        o.recording.enabled = true;
        o.recording.memoryBudget = 1u << 20;
        QCOMPARE(estimateMemory(sc, o).perRunBytes, full.perRunBytes + (1u << 20));
    }
};

QTEST_GUILESS_MAIN(TestRunner)
#include "tst_runner.moc"
