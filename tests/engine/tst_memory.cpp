// The host memory a run needs (estimateRunMemory), against what the run really takes: the peak resident set of a
// child process that runs it, less the child's resident set before. The runner keeps the runs in flight within a
// budget by the estimate, so it must not fall short of the real peak (the budget would be exceeded) nor lie far
// above it (runs that fit would wait).
#include "../reduced.h"
#include "run/run.h"
#include "run/runner.h"
#include "scenario/runsetup.h"
#include "scenario/scenario.h"

#include <QtTest>

#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace mms;

namespace {
// VmHWM or VmRSS of this process, in bytes.
std::uint64_t statusBytes(const char* key)
{
    std::ifstream in("/proc/self/status");
    std::string k;
    std::uint64_t kb = 0;
    std::string unit;
    while (in >> k) {
        if (k == key) {
            in >> kb >> unit;
            return kb * 1024;
        }
        std::getline(in, unit);
    }
    return 0;
}

// The peak resident set that executeRun(spec) adds to a process: measured in a forked child, which resets its
// peak (clear_refs 5) before the run, so that nothing the parent held counts.
std::int64_t peakOfRun(const RunSpec& spec)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        std::int64_t grown = -1;
        try {
            { std::ofstream("/proc/self/clear_refs") << "5"; }
            const std::uint64_t before = statusBytes("VmRSS:");
            (void)executeRun(spec);
            grown = static_cast<std::int64_t>(statusBytes("VmHWM:")) - static_cast<std::int64_t>(before);
        } catch (...) {
        }
        (void)!write(fd[1], &grown, sizeof grown);
        _exit(0);
    }
    close(fd[1]);
    std::int64_t grown = -1;
    if (read(fd[0], &grown, sizeof grown) != sizeof grown)
        grown = -1;
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return grown;
}

double mib(double bytes) { return bytes / (1 << 20); }
} // namespace

class TestMemory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every built-in scenario's largest run by the estimate, and its plan's last run (the largest sweep point, where
    // the workload's own state is largest): each estimate covers its run's peak, and the larger is within 1.5x of
    // the larger peak. A few MiB of slack either way for what is not proportional to the machine (the tasks, the
    // coroutine frames, the host allocator's own arenas).
    void estimateCoversEveryScenariosLargestRun_data()
    {
        QTest::addColumn<QString>("id");
        for (const ScenarioInfo& s : builtinScenarios())
            QTest::newRow(s.id.c_str()) << QString::fromStdString(s.id);
    }
    void estimateCoversEveryScenariosLargestRun()
    {
        QFETCH(QString, id);
        if (test::kSanitized) // the sanitizer's shadow memory and quarantine are in the resident set too
            QSKIP("the host memory of a sanitized build is not the engine's");
        const double scale = qEnvironmentVariableIsSet("MMSCOPE_MEMORY_SCALE")
            ? qEnvironmentVariable("MMSCOPE_MEMORY_SCALE").toDouble()
            : 0.1;
        Scenario sc = loadScenario(id.toStdString());
        const std::vector<PlannedRun> plan = planRuns(sc);
        std::size_t largest = 0;
        std::uint64_t most = 0;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            std::uint64_t bytes = estimateRunMemory(sc.resolve(plan[i].variant, plan[i].point, scale), {}).bytes;
            if (bytes > most) {
                most = bytes;
                largest = i;
            }
        }
        const double slack = 8 << 20;
        double mostPeak = 0;
        for (std::size_t i : { largest, plan.size() - 1 }) {
            const PlannedRun& r = plan[i];
            RunSpec spec;
            spec.scenario = &sc;
            spec.variant = r.variant;
            spec.point = r.point;
            spec.rep = r.rep;
            spec.scale = scale;
            spec.seed = runSeed(sc.seed(), r.variant, r.point, r.rep);
            spec.bootSeed = bootSeed(sc.seed(), r.point, r.rep);
            const double estimate = static_cast<double>(estimateRunMemory(sc.resolve(r.variant, r.point, scale), {}).bytes);
            const auto peak = static_cast<double>(peakOfRun(spec));
            const QString what = QString("%1 %2: estimate %3 MiB, peak %4 MiB")
                                     .arg(id, QString::fromStdString(r.variant + " " + r.point.dump()))
                                     .arg(mib(estimate), 0, 'f', 1)
                                     .arg(mib(peak), 0, 'f', 1);
            qInfo("%s", qPrintable(what));
            QVERIFY2(peak > 0, "the run failed in the child");
            QVERIFY2(estimate + slack >= peak, qPrintable(what));
            mostPeak = std::max(mostPeak, peak);
        }
        QVERIFY2(static_cast<double>(most) <= 1.5 * mostPeak + slack,
            qPrintable(QString("estimate %1 MiB, largest peak %2 MiB").arg(mib(most)).arg(mib(mostPeak))));
    }
};

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
