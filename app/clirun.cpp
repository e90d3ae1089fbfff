#include "clirun.h"

#include "clicommand.h"
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
        throw BadInput(why + "; expected a smaller --scale, fewer --threads or a smaller --memory-budget");
}

RunnerOptions runnerOptions(const RunArgs& r, bool record)
{
    RunnerOptions opts;
    opts.threads = r.threads;
    opts.memoryBudget = r.memoryBudget;
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

namespace {
    int runOrReport(const RunOptionText& text, bool report, std::ostream& out, std::ostream& err)
    {
        RunArgs r = text.check(report);
        if (report) { // before the run, which can take minutes: a report that cannot be written is refused now
#ifdef MMSCOPE_HAVE_UI
            if (std::string error; !checkReportPath(r.out, error))
                throw BadInput(error);
#else
            throw BadInput("report: this build has no desktop UI library (configure with -DMMSCOPE_BUILD_UI=ON)");
#endif
        }
        Scenario sc = prepare(r);
        noteKernelChange(r, err);
        if (!r.scale)
            r.scale = sc.faithfulScale();
        warnBelowFaithful(sc, *r.scale, err);
        ResultSet rs = execute(sc, runnerOptions(r, report), err);
        checkInterrupted();
#ifdef MMSCOPE_HAVE_UI
        if (report) {
            std::string error;
            if (!writeReport(sc, rs, r.out, error))
                throw BadInput(error);
            return 0;
        }
#endif
        emit(r, r.shardCount ? shardJson(rs, sc, r.shardIndex, r.shardCount) : formatResults(rs, sc, r.format), out);
        return 0;
    }

    // merge: shards written by `run --shard K/N --format json` back into the result of one unsharded run
    // (mergeShards() checks that they belong together).
    struct MergeOptions {
        std::vector<std::string> files;
        std::string format, out;
    };
} // namespace

void addRunCommands(CommandLine& cl)
{
    auto run = std::make_shared<RunOptionText>();
    Command& c = cl.add("run", "SCENARIO [options]", "run it and print the table beside the post's",
        "Run every selected variant at every sweep point for the configured number of repetitions and write the "
        "results in the chosen format: the post's own table with the published figures beside (text), Markdown, CSV, "
        "JSON or mmtests' compare-kernels columns. A long run shows its progress on standard error when that is a "
        "terminal.\n\nA scenario whose runs would need more memory than the host has available (MemAvailable, or "
        "the cgroup's limit) is refused before it starts, with the estimate. Ctrl-C stops at the next event and "
        "writes nothing (exit 130); a second Ctrl-C quits at once.");
    run->addTo(c.app, true);
    c.run = [run](std::ostream& out, std::ostream& err) { return runOrReport(*run, false, out, err); };

    auto report = std::make_shared<RunOptionText>();
    Command& r = cl.add("report", "SCENARIO --out FILE.pdf|FILE.html [options]", "charts and tables for a report",
        "Run like run (with the same options) and write charts and tables for a report; the format follows the "
        "extension of the --out file, .pdf or .html.");
    report->addTo(r.app, false);
    r.run = [report](std::ostream& out, std::ostream& err) { return runOrReport(*report, true, out, err); };

    auto merge = std::make_shared<MergeOptions>();
    Command& m = cl.add("merge", "FILE.json... [--format FMT] [--out FILE]",
        "combine all N shards into the result of one unsharded run",
        "Combine the files of all N shards written by run --shard into the result of one unsharded run, in any "
        "--format (the same tables and JSON as the unsharded run, apart from host, where wall_s is the sum over the "
        "shards). Shards of different scenarios, seeds, scales or engine versions, a shard given twice and a "
        "missing shard are refused, naming the file and what differs.");
    m.app->add_option("FILE.json", merge->files, "the shards");
    addValue(m.app, "--format", merge->format, "FMT", "text | markdown | csv | json | mmtests (default: text)");
    addValue(m.app, "--out", merge->out, "FILE", "write to FILE instead of standard output");
    m.run = [merge, app = m.app](std::ostream& out, std::ostream&) {
        RunArgs r;
        r.out = merge->out;
        if (app->count("--format"))
            r.format = parseFormatOption(merge->format);
        MergedShards merged = mergeShards(merge->files);
        emit(r, formatResults(merged.results, merged.scenario, r.format), out);
        return 0;
    };
}

} // namespace mms::cli
