#include "clirun.h"

#include "cliinterrupt.h"
#include "clikernels.h"
#include "clioutput.h"
#include "run/shard.h"

#ifdef MMSCOPE_HAVE_UI
#include "report.h"
#endif

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <unistd.h>

namespace mms::cli {

void checkMemory(const Scenario& sc, const RunnerOptions& opts)
{
    if (std::string why = hostMemoryShortfall(sc, opts); !why.empty())
        throw BadInput(why + "; expected a smaller --scale or fewer --threads");
}

RunnerOptions runnerOptions(const RunArgs& r, bool record)
{
    RunnerOptions opts;
    opts.threads = r.threads;
    opts.scale = r.scale.value_or(1.0);
    opts.checkInvariants = r.checkInvariants;
    opts.maxEvents = r.maxEvents;
    // A report's runs record within a budget; frames are decimated past it.
    opts.recording.enabled = record;
    opts.recording.memoryBudget = 64u << 20;
    if (r.shardCount) {
        opts.shardIndex = r.shardIndex;
        opts.shardCount = r.shardCount;
    }
    return opts;
}

void warnBelowFaithful(const Scenario& sc, double scale, std::ostream& err)
{
    if (scale < sc.faithfulScale())
        err << "mmscope-cli: warning: " << sc.id() << " at --scale " << scale << ", below its faithful scale " << sc.faithfulScale()
            << ": its ratios may be more than 10 % from those at scale 1\n";
}

ResultSet execute(const Scenario& sc, RunnerOptions opts, std::ostream& err)
{
    checkMemory(sc, opts);
    checkInterrupted();
    SignalInterrupter interrupter;
    opts.interrupter = &interrupter;
    std::mutex m;
    bool tty = isatty(2);
    // Runs finished and the share of all the work done (inside the running runs too), on one line.
    std::size_t runsDone = 0, runsTotal = planRuns(sc).size();
    double share = 0;
    auto show = [&] {
        char pct[16];
        std::snprintf(pct, sizeof pct, "%5.1f %%", 100.0 * share);
        err << "\r" << sc.id() << ": " << runsDone << "/" << runsTotal << " runs, " << pct << (runsDone == runsTotal ? "\n" : "") << std::flush;
    };
    if (tty) {
        opts.progress = [&](std::size_t done, std::size_t total) {
            std::lock_guard<std::mutex> lock(m);
            runsDone = std::max(runsDone, done);
            runsTotal = total;
            show();
        };
        opts.progressFraction = [&](double f) {
            std::lock_guard<std::mutex> lock(m);
            if (f > share) {
                share = f;
                show();
            }
        };
    }
    ResultSet rs = runScenario(sc, opts);
    if (rs.cancelled || interrupted())
        throw Interrupted();
    return rs;
}

int cmdRun(const std::vector<std::string>& args, bool report, std::ostream& out, std::ostream& err)
{
    RunArgs r = parseRunArgs(args, 1, report);
    Scenario sc = prepare(r);
    noteKernelChange(r, err);
    if (!r.scale)
        r.scale = sc.faithfulScale();
    warnBelowFaithful(sc, *r.scale, err);
    ResultSet rs = execute(sc, runnerOptions(r, report), err);
    checkInterrupted();
    if (report) {
#ifdef MMSCOPE_HAVE_UI
        std::string error;
        if (!writeReport(sc, rs, r.out, error))
            throw BadInput(error);
        return 0;
#else
        throw BadInput("report: this build has no desktop UI library (configure with -DMMSCOPE_BUILD_UI=ON)");
#endif
    }
    emit(r, r.shardCount ? shardJson(rs, sc, r.shardIndex, r.shardCount) : formatResults(rs, sc, r.format), out);
    return 0;
}

} // namespace mms::cli
