// reproduce: every built-in scenario at one scale, each table beside the post's with the distance to it, the wall
// time of each, and a summary. Scenarios are taken from the embedded list, so new ones join by themselves.
#include "clirun.h"

#include "clicommand.h"
#include "cliinterrupt.h"
#include "clioutput.h"
#include "run/reproduce.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace mms::cli {

namespace {
    struct ReproduceOptions {
        std::string scale, threads, memoryBudget, out;
    };

    RunArgs checkReproduce(const ReproduceOptions& o, const CLI::App& app)
    {
        RunArgs r;
        if (app.count("--scale"))
            r.scale = parseScale(o.scale);
        if (app.count("--threads"))
            r.threads = static_cast<int>(parseInt("--threads", o.threads, 1, 1024));
        if (app.count("--memory-budget"))
            r.memoryBudget = parseMemoryBudget(o.memoryBudget);
        r.out = o.out;
        return r;
    }

    // A row per built-in scenario, in the list's order; those that load and fit the host go into the pool.
    struct ReproducePlan {
        std::vector<ReproduceRow> rows;
        std::vector<std::unique_ptr<Scenario>> scenarios;
        std::vector<const Scenario*> pooled;
        std::vector<std::size_t> rowOfPooled;
    };

    // The memory check is per scenario, as for `run`; a scenario that fails it, or does not load, is a row that
    // says why.
    ReproducePlan planReproduce(const RunnerOptions& opts, std::ostream& err)
    {
        ReproducePlan plan;
        for (const ScenarioInfo& info : builtinScenarios()) {
            ReproduceRow row;
            row.id = info.id;
            try {
                auto sc = std::make_unique<Scenario>(loadScenario(info.id));
                row.runs = planRuns(*sc).size();
                warnBelowFaithful(*sc, opts.scale, err);
                checkMemory(*sc, opts);
                plan.pooled.push_back(sc.get());
                plan.rowOfPooled.push_back(plan.rows.size());
                plan.scenarios.push_back(std::move(sc));
            } catch (const BadInput& e) {
                row.failed = e.what();
            } catch (const ScenarioError& e) {
                row.failed = e.what();
            }
            plan.rows.push_back(row);
        }
        return plan;
    }

    // Prints the tables in the list's order, each as soon as its scenario and those before it are done. The pool's
    // callbacks come from its threads: every call takes mutex().
    class ReproduceTables {
    public:
        ReproduceTables(ReproducePlan& plan, std::function<void(const std::string&)> print, std::ostream& err)
            : m_plan(plan)
            , m_print(std::move(print))
            , m_err(err)
            , m_finished(plan.rows.size(), false)
            , m_outcomeOfRow(plan.rows.size(), nullptr)
            , m_scenarioOfRow(plan.rows.size(), nullptr)
        {
            for (std::size_t i = 0; i < plan.pooled.size(); ++i)
                m_scenarioOfRow[plan.rowOfPooled[i]] = plan.pooled[i];
        }

        std::mutex& mutex() { return m_mutex; }

        // The scenarios that failed before the pool, up to the first pooled one.
        void printReady()
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            flushRows();
        }

        // Pooled scenario i has finished.
        void finished(std::size_t i, const ScenarioOutcome& o)
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_outcomeOfRow[m_plan.rowOfPooled[i]] = &o;
            m_finished[m_plan.rowOfPooled[i]] = true;
            flushRows();
        }

        // Every scenario has finished: all print now.
        void finishedAll(const std::vector<ScenarioOutcome>& outcomes)
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            for (std::size_t i = 0; i < m_plan.pooled.size(); ++i)
                m_outcomeOfRow[m_plan.rowOfPooled[i]] = &outcomes[i];
            flushRows();
        }

    private:
        // Prints every row whose turn has come (all before it printed); called with m_mutex held.
        void flushRows()
        {
            while (m_printed < m_plan.rows.size() && (m_finished[m_printed] || !m_scenarioOfRow[m_printed])) {
                if (!interrupted())
                    report(m_plan.rows[m_printed], m_scenarioOfRow[m_printed], m_outcomeOfRow[m_printed]);
                ++m_printed;
            }
        }

        void report(ReproduceRow& row, const Scenario* sc, const ScenarioOutcome* o)
        {
            if (o && o->error) {
                try {
                    std::rethrow_exception(o->error);
                } catch (const std::exception& e) {
                    row.failed = e.what();
                }
            }
            if (!row.failed.empty()) {
                m_err << "mmscope-cli: reproduce: " << row.failed << "\n";
                m_print(formatNotRun(row));
                return;
            }
            const ResultSet& rs = o->results;
            row.wall = rs.wallSeconds;
            row.d = distanceToPost(rs, *sc);
            row.ratios = ratioDistanceToPost(rs, *sc);
            m_print(formatReproduced(row, rs, *sc));
        }

        ReproducePlan& m_plan;
        std::function<void(const std::string&)> m_print;
        std::ostream& m_err;
        std::mutex m_mutex;
        std::size_t m_printed = 0; // rows[0, m_printed) are out
        std::vector<bool> m_finished;
        std::vector<const ScenarioOutcome*> m_outcomeOfRow;
        std::vector<const Scenario*> m_scenarioOfRow;
    };
} // namespace

static int reproduce(const RunArgs& r, std::ostream& out, std::ostream& err)
{
    std::ostringstream all;
    auto print = [&](const std::string& text) {
        all << text;
        if (r.out.empty())
            out << text << std::flush;
    };
    auto t0 = std::chrono::steady_clock::now();
    // Every scenario's runs go into one pool (runScenarios), so both cores stay busy to the end instead of
    // waiting at each scenario's last run.
    RunnerOptions opts = runnerOptions(r, false);
    ReproducePlan plan = planReproduce(opts, err);
    checkInterrupted();
    SignalInterrupter interrupter;
    opts.interrupter = &interrupter;
    ReproduceTables tables(plan, print, err);
    std::size_t runsDone = 0;
    if (isatty(2))
        opts.progress = [&](std::size_t done, std::size_t total) {
            std::lock_guard<std::mutex> lock(tables.mutex());
            runsDone = std::max(runsDone, done);
            err << "\rreproduce: " << runsDone << "/" << total << " runs" << (runsDone == total ? "\n" : "") << std::flush;
        };
    tables.printReady();
    std::vector<ScenarioOutcome> outcomes
        = runScenarios(plan.pooled, opts, [&](std::size_t i, const ScenarioOutcome& o) { tables.finished(i, o); });
    if (interrupted() || (!outcomes.empty() && outcomes.front().results.cancelled))
        throw Interrupted();
    tables.finishedAll(outcomes);
    double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print(formatReproduceSummary(plan.rows, opts.scale, total));
    if (!r.out.empty())
        writeFile(r.out, all.str());
    return std::any_of(plan.rows.begin(), plan.rows.end(), [](const ReproduceRow& row) { return !row.failed.empty(); }) ? 2 : 0;
}

void addReproduceCommand(CommandLine& cl)
{
    auto o = std::make_shared<ReproduceOptions>();
    Command& c = cl.add("reproduce", "[--scale F] [--threads N] [--memory-budget SIZE] [--out FILE]",
        "run every built-in scenario: each table beside the post's, the distance to it in %, the wall time of each",
        "Run every built-in scenario (new ones join by themselves) and print, for each, its table beside the post's, "
        "a line with the distance to the post (the cells that have a published figure, their mean and largest "
        "absolute distance in per cent) and its wall time; then a summary with the total wall time. Published "
        "figures are for scale 1, so at a smaller scale the distances show shape rather than agreement. A scenario "
        "that cannot run (one that would not fit in memory) is reported and skipped; the exit status is then 2.");
    addValue(c.app, "--scale", o->scale, "F", "multiply memory sizes and amounts of work by F (default 1)");
    addValue(c.app, "--threads", o->threads, "N", "host threads for the runner (default: all cores)");
    addMemoryBudget(c.app, o->memoryBudget);
    addValue(c.app, "--out", o->out, "FILE", "write to FILE instead of standard output");
    c.run = [o, app = c.app](
                std::ostream& out, std::ostream& err) { return reproduce(checkReproduce(*o, *app), out, err); };
}

} // namespace mms::cli
