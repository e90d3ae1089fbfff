// The recording's per-page flags and owners and its per-CPU lock waits: they agree with the page states and lock
// totals recorded beside them, before and after decimation. Its frames and CPU bins cover the run, short or long;
// a CPU whose task sleeps on a lock is free in its bins. Recording a run does not change its results. Its NUMA
// nodes are the kernel's.
#include "../recorded.h"
#include "mm/page.h"
#include "run/recording.h"
#include "run/run.h"
#include "testutil.h"

#include <cmath>

#include <QTest>

using namespace mms;

namespace {
std::shared_ptr<const Recording> record(std::size_t budget)
{
    return test::recordedRun("madv-free-swapin", "madvfree", 0.01, budget).recording;
}
// migration-unmapped at this scale is a 3 ms run on 120 CPUs: far shorter than the 10 ms interval the recorder had.
RunResult shortManyCpuRun() { return test::recordedRun("migration-unmapped", "baseline", 0.05); }

// A recording of a 4-CPU machine of `sockets` sockets (a node each) on which two tasks run user code, and whether
// each of its page frames lies on the node the kernel's page_to_nid() says.
struct NodeRun {
    std::shared_ptr<const Recording> recording;
    bool nodesAgree = true;
};

NodeRun recordNodes(int sockets)
{
    MachineSpec m = *machinePreset("generic-12cpu-2015");
    m.cpus = 4;
    m.sockets = sockets;
    m.memoryBytes = 64ull << 20;
    Simulator sim;
    Sched s(sim, m);
    Kernel k(s, Toggles {});
    Task& a = s.spawn("a", 0, false, nullptr, 1);
    Task& b = s.spawn("b", 3, false, nullptr, 2);
    s.start(a, test::userWork(s, a, 20'000));
    s.start(b, test::userWork(s, b, 20'000));
    RecordingOptions o;
    o.enabled = true;
    o.interval = us(4);
    Recorder recorder(k, s, o);
    sim.run();
    NodeRun r;
    r.recording = recorder.finish();
    for (std::uint32_t p = 0; p < r.recording->pageCount(); ++p)
        r.nodesAgree = r.nodesAgree && r.recording->nodeOf(p) == k.page_to_nid(p);
    return r;
}

// The frames are f x interval apart, the last one at most an interval after the one before it; CPU activity
// reaches into that last interval and no bin lies past the last frame.
void checkFramesCoverTheRun(const Recording& r, std::size_t minFrames = Recording::kMaxFrames / 4)
{
    const std::size_t n = r.frameCount();
    QVERIFY2(n >= minFrames, qPrintable(QString::number(n)));
    QVERIFY(n <= Recording::kMaxFrames);
    for (std::size_t f = 0; f + 1 < n; ++f)
        QCOMPARE(r.frameTime(f), Time(f) * r.interval());
    const Time end = r.frameTime(n - 1);
    QVERIFY(end > r.frameTime(n - 2) && end <= r.frameTime(n - 2) + r.interval());
    QCOMPARE(r.binWidth() * Time(Recording::kCpuBinsPerFrame), r.interval());
    QCOMPARE(r.binCount(), std::size_t((end + r.binWidth() - 1) / r.binWidth()));
    const auto lastInterval = std::size_t(r.frameTime(n - 2) / r.binWidth());
    float busyAtEnd = 0, busy = 0;
    for (int c = 0; c < r.cpuCount(); ++c) {
        const auto& bins = r.cpuBins(c);
        QVERIFY(bins.size() <= r.binCount());
        for (std::size_t b = 0; b < bins.size(); ++b) {
            busy += bins[b].run;
            if (b >= lastInterval)
                busyAtEnd += bins[b].run;
        }
    }
    QVERIFY(busy > 0);
    QVERIFY2(busyAtEnd > 0, "no CPU ran in the run's last interval");
}

// A CPU is at most busy for the whole of a bin: running and spinning are its own time, counted once. (A task asleep
// on a mutex was drawn as spinning for the whole wait, on top of what its CPU ran meanwhile: up to 2.0 and more.)
void checkNoBinOverFull(const Recording& r)
{
    for (int c = 0; c < r.cpuCount(); ++c)
        for (std::size_t b = 0; b < r.cpuBins(c).size(); ++b) {
            const CpuBin& bin = r.cpuBins(c)[b];
            QVERIFY2(bin.run <= 1.001f && bin.lockWait <= bin.run + 0.001f,
                qPrintable(QStringLiteral("cpu %1 bin %2: run %3, lock spin %4")
                               .arg(c)
                               .arg(b)
                               .arg(bin.run)
                               .arg(bin.lockWait)));
        }
}

// The JSON `mmscope-cli run` prints for one result, without `host`.
std::string resultJson(const RunResult& r)
{
    ResultSet rs;
    rs.scenario = "x";
    rs.results.push_back(r);
    rs.results.back().recording = nullptr;
    return test::withoutHost(rs);
}
} // namespace

class TestRecording : public QObject {
    Q_OBJECT

    static void checkPages(const Recording& r)
    {
        QVERIFY(r.frameCount() > 2);
        bool sawAnon = false, sawFree = false;
        for (std::size_t f : { std::size_t(0), r.frameCount() / 3, r.frameCount() / 2 + 1, r.frameCount() - 1 }) {
            const auto map = r.pageMap(f);
            for (std::uint32_t p = 0; p < r.pageCount(); ++p) {
                const PageInfo info = r.pageInfo(f, p);
                QCOMPARE(std::uint8_t(info.state), map[p]);
                if (info.state == PageMapState::Free) {
                    sawFree = true;
                    QVERIFY2(info.flags & PG_buddy, pageFlagNames(info.flags).c_str());
                    QCOMPARE(info.owner, std::uint16_t(0));
                    QCOMPARE(r.ownerName(info.owner, info.flags), std::string("none"));
                }
                if (info.state == PageMapState::AnonActive || info.state == PageMapState::AnonInactive) {
                    sawAnon = true;
                    QVERIFY(info.flags & PG_lru);
                    QVERIFY(info.flags & PG_swapbacked);
                    QCOMPARE(bool(info.flags & PG_active), info.state == PageMapState::AnonActive);
                    QVERIFY(info.owner != 0);
                    const std::string list = pageListName(info.flags);
                    const char* expected = info.state == PageMapState::AnonActive ? "active_anon" : "inactive_anon";
                    QVERIFY2(list == expected, list.c_str());
                    const std::string owner = r.ownerName(info.owner, info.flags);
                    QVERIFY2(owner != "none" && owner.rfind("mm ", 0) != 0, owner.c_str()); // a task's name
                }
            }
        }
        QVERIFY(sawAnon);
        QVERIFY(sawFree);
    }

    static void checkLocks(const Recording& r)
    {
        bool any = false;
        for (std::size_t l = 0; l < r.lockNames().size(); ++l)
            for (std::size_t f = 0; f < r.frameCount(); ++f) {
                Time sum = 0;
                for (int c = 0; c < r.cpuCount(); ++c)
                    sum += r.lockCpuWait(l, c, f);
                QCOMPARE(sum, r.lockFrame(l, f).wait);
                any = any || sum > 0;
            }
        QVERIFY(any); // madv-free-swapin contends swap_info's lock
    }

private Q_SLOTS:
    void flagNames()
    {
        QCOMPARE(pageFlagNames(0), std::string("none"));
        QCOMPARE(pageFlagNames(PG_lru | PG_active | PG_swapbacked), std::string("PG_lru|PG_active|PG_swapbacked"));
        QCOMPARE(std::string(pageListName(PG_buddy)), std::string("buddy"));
        QCOMPARE(std::string(pageListName(PG_lru)), std::string("inactive_file"));
        QCOMPARE(std::string(pageListName(PG_lru | PG_unevictable)), std::string("unevictable"));
    }

    void fullRecording()
    {
        auto r = record(256u << 20);
        QVERIFY(r);
        QCOMPARE(r->decimations(), std::size_t(0));
        checkPages(*r);
        checkLocks(*r);
        QCOMPARE(r->lockCpuWait(0, -1, 0), Time(0));
        QCOMPARE(r->pageInfo(0, r->pageCount()).owner, std::uint16_t(0)); // out of range: a default
    }

    // A run far shorter than any fixed interval still gets a few hundred frames, and its bins reach its end
    // (on 120 CPUs it had two frames, 0 and 10 ms, and bins for the first 2.5 ms of the axis).
    void shortRunOnManyCpus()
    {
        const RunResult run = shortManyCpuRun();
        QVERIFY(run.recording);
        const Recording& r = *run.recording;
        QCOMPARE(r.cpuCount(), 120);
        QCOMPARE(r.decimations(), std::size_t(0));
        checkFramesCoverTheRun(r);
        // The last frame is the run's end: the last user task's exit, no sampling tick after it.
        QVERIFY(toSec(r.frameTime(r.frameCount() - 1)) <= run.metrics.at("sim_time_s"));
        checkLocks(r);
        // "what the CPU did" in the middle of the run is not idle everywhere.
        int busy = 0;
        for (int c = 0; c < r.cpuCount(); ++c)
            busy += r.explain(c, r.frameCount() * 4 / 5) != "idle";
        QVERIFY(busy > 0);
    }

    // A long run (1.2 s) gets coarser frames, as many; so does one recorded with a decimating budget.
    void longRunCoarserFrames()
    {
        auto r = record(256u << 20);
        // The interval doubles on an estimate of the run's length from the workload's progress, which runs ahead of
        // time in madv-free's later, swapping loops: the run may end at well under half the estimate.
        checkFramesCoverTheRun(*r, Recording::kMaxFrames / 8);
        QVERIFY(r->interval() > Recording::kFirstInterval);
        auto small = record(r->memoryBytes() / 3);
        QVERIFY(small->decimations() > 0);
        checkFramesCoverTheRun(*small, 3);
    }

    // A sleeping mutex waiter (no spin on owner) frees its CPU: while b, on CPU 1, sleeps on the mutex a holds for
    // 100 us, c (queued behind b) runs 30 us of user code there, then CPU 1 idles. The bins show c running and then
    // idle, with b's lock sleep beside; none shows CPU 1 spinning.
    void sleepingMutexWaitFreesItsCpuInTheBins()
    {
        const test::SleepingMutexRun run = test::sleepingMutexRecording();
        const Recording& r = *run.recording;
        QCOMPARE(run.stat.contentions, std::uint64_t(1));
        checkNoBinOverFull(r);
        const Time sw = run.contextSwitch, w = r.binWidth(), interval = r.interval();
        QCOMPARE(interval, us(8));
        QVERIFY(run.cFinished + us(20) < run.release);
        const auto& bins = r.cpuBins(1);
        QCOMPARE(r.functionNames()[bins[std::size_t((2 * sw + us(15)) / w)].topFn], std::string("user"));
        int running = 0, idle = 0;
        for (std::size_t i = std::size_t(2 * sw / w) + 1; (Time(i) + 1) * w <= run.release; ++i) {
            const CpuBin& bin = bins.at(i);
            QCOMPARE(bin.lockWait, 0.0f);
            QVERIFY2(std::fabs(bin.lockSleep - 1.0f) < 1e-4f,
                qPrintable(QStringLiteral("bin %1: lock sleep %2").arg(i).arg(bin.lockSleep)));
            QCOMPARE(r.functionNames()[bin.sleepFn], std::string("m"));
            if ((Time(i) + 1) * w <= run.cFinished) { // c runs
                QVERIFY(std::fabs(bin.run - 1.0f) < 1e-4f);
                ++running;
            } else if (Time(i) * w >= run.cFinished) { // nobody runs
                QCOMPARE(bin.run, 0.0f);
                ++idle;
            }
        }
        QVERIFY(running >= 25 && idle >= 25);
        // "What the CPU did": a frame whose whole interval lies in the idle stretch.
        const std::size_t f = std::size_t((run.cFinished + interval - 1) / interval);
        QVERIFY(r.frameTime(f) + interval <= run.release);
        QCOMPARE(r.explain(1, f), std::string("idle, its task sleeps on m"));
    }

    // Recording a run changes none of its results: the clock stops at the run's last event, not at the sampling
    // tick after it (sim_time_s and AIM7's idle_fraction were up to a frame interval longer, recorded).
    void recordedRunsResultsAreTheUnrecordedRuns_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<double>("scale");
        QTest::addRow("migration-unmapped (AIM7, 120 CPUs)") << "migration-unmapped"
                                                             << "baseline" << 0.05;
        QTest::addRow("madv-free-swapin (kswapd, swap I/O)") << "madv-free-swapin"
                                                             << "madvfree" << 0.01;
    }
    void recordedRunsResultsAreTheUnrecordedRuns()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, variant);
        QFETCH(double, scale);
        const RunResult recorded = test::recordedRun(scenario.toStdString(), variant.toStdString(), scale);
        const RunResult plain = test::unrecordedRun(scenario.toStdString(), variant.toStdString(), scale);
        QVERIFY(recorded.recording && !plain.recording);
        QCOMPARE(recorded.metrics.at("sim_time_s"), plain.metrics.at("sim_time_s"));
        if (plain.metrics.count("idle_fraction"))
            QCOMPARE(recorded.metrics.at("idle_fraction"), plain.metrics.at("idle_fraction"));
        QCOMPARE(recorded.events, plain.events);
        QCOMPARE(resultJson(recorded), resultJson(plain));
        // The recording ends where the run does.
        const Recording& rec = *recorded.recording;
        QVERIFY(toSec(rec.frameTime(rec.frameCount() - 1)) <= plain.metrics.at("sim_time_s"));
        checkNoBinOverFull(rec);
    }

    void nodeStartsAreTheKernels_data()
    {
        QTest::addColumn<int>("sockets");
        QTest::addRow("one node") << 1;
        QTest::addRow("two nodes") << 2;
        QTest::addRow("four nodes") << 4;
    }
    void nodeStartsAreTheKernels()
    {
        QFETCH(int, sockets);
        const NodeRun run = recordNodes(sockets);
        const Recording& r = *run.recording;
        QCOMPARE(r.nodeCount(), sockets);
        QCOMPARE(r.nodeStarts().size(), std::size_t(sockets));
        QCOMPARE(r.nodeStarts().front(), std::uint32_t(0));
        for (int n = 1; n < sockets; ++n) {
            const std::uint32_t start = r.nodeStarts()[std::size_t(n)];
            QVERIFY(start > r.nodeStarts()[std::size_t(n - 1)]);
            QCOMPARE(r.nodeOf(start - 1), n - 1);
            QCOMPARE(r.nodeOf(start), n);
        }
        QVERIFY(run.nodesAgree);
        QCOMPARE(r.nodeOf(r.pageCount() - 1), sockets - 1);
        // Each CPU's socket and cache, as the machine places them (one cache a socket on this preset).
        for (int c = 0; c < r.cpuCount(); ++c) {
            QCOMPARE(r.cpuPlace(c).socket, c * sockets / r.cpuCount());
            QCOMPARE(r.cpuPlace(c).llc, r.cpuPlace(c).socket);
        }
    }

    void lockNodePrefixes_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("prefix");
        QTest::addRow("node lock") << "node1 zone->lru_lock" << "node1 ";
        QTest::addRow("two digits") << "node12 zone->lock" << "node12 ";
        QTest::addRow("no node") << "zone->lru_lock" << "";
        QTest::addRow("node without a number") << "node zone->lock" << "";
        QTest::addRow("nodes of a name") << "nodelist_lock" << "";
    }
    void lockNodePrefixes()
    {
        QFETCH(QString, name);
        QFETCH(QString, prefix);
        const std::string n = name.toStdString();
        QCOMPARE(QString::fromStdString(std::string(lockNodePrefix(n))), prefix);
    }

    void decimatedRecording()
    {
        auto full = record(256u << 20);
        auto r = record(full->memoryBytes() / 3);
        QVERIFY(r);
        QVERIFY(r->decimations() > 0);
        checkPages(*r);
        checkLocks(*r);
        QCOMPARE(r->nodeStarts(), full->nodeStarts());
        // The machine's places survive the decimation: madv-free-swapin on two sockets of three cores (CPUs i and
        // i + 3 of a socket are SMT siblings), two caches a socket (cores 0-1 and core 2).
        const test::ScenarioSets caches { { "machine.sockets", "2" }, { "machine.cores_per_llc", "2" } };
        auto placed = test::recordedRun("madv-free-swapin", "madvfree", 0.01, full->memoryBytes() / 3, caches).recording;
        QVERIFY(placed->decimations() > 0);
        for (int c = 0; c < placed->cpuCount(); ++c) {
            QCOMPARE(placed->cpuPlace(c).socket, c / 6);
            QCOMPARE(placed->cpuPlace(c).llc, 2 * (c / 6) + c % 6 % 3 / 2);
        }
        // Decimation merges frames: the total wait per lock and CPU is kept.
        for (std::size_t l = 0; l < r->lockNames().size(); ++l)
            for (int c = 0; c < r->cpuCount(); ++c) {
                Time a = 0, b = 0;
                for (std::size_t f = 0; f < full->frameCount(); ++f)
                    a += full->lockCpuWait(l, c, f);
                for (std::size_t f = 0; f < r->frameCount(); ++f)
                    b += r->lockCpuWait(l, c, f);
                QCOMPARE(b, a);
            }
    }
};

QTEST_GUILESS_MAIN(TestRecording)
#include "tst_recording.moc"
