#include "cli.h"

#include "run/render.h"
#include "run/reproduce.h"
#include "run/runner.h"
#include "run/shard.h"
#include "run/table.h"
#include "scenario/scale.h"
#include "scenario/scenario.h"

#ifdef MMSCOPE_HAVE_UI
#include "report.h"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace mms {

namespace {
    struct BadInput : std::runtime_error {
        using std::runtime_error::runtime_error;
    };

    // SIGINT sets a flag that the runner polls between events, so a run stops at an event boundary and nothing is
    // written; a second SIGINT quits at once (output files are written to a temporary name and renamed, so even
    // that leaves no half-written file).
    std::atomic<int> g_sigints { 0 }; // lock-free, so safe to touch in a signal handler
    std::atomic<bool> g_interrupted { false };
    static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);
    extern "C" void onSigint(int)
    {
        if (g_sigints.fetch_add(1) > 0)
            _exit(130);
        g_interrupted = true;
    }

    // Installs onSigint for the lifetime of one runCli() call.
    class SigintScope {
    public:
        SigintScope()
        {
            g_sigints = 0;
            g_interrupted = false;
            m_previous = std::signal(SIGINT, onSigint);
        }
        ~SigintScope() { std::signal(SIGINT, m_previous); }
        SigintScope(const SigintScope&) = delete;
        SigintScope& operator=(const SigintScope&) = delete;

    private:
        void (*m_previous)(int);
    };

    struct Interrupted : std::runtime_error {
        Interrupted()
            : std::runtime_error("interrupted: no results written")
        {
        }
    };
    void checkInterrupted()
    {
        if (g_interrupted.load())
            throw Interrupted();
    }

    class SignalInterrupter final : public Interrupter {
    public:
        bool wasInterrupted() override { return g_interrupted.load(); }
    };

    struct RunArgs {
        std::string scenario;
        std::vector<std::string> variants;
        std::vector<std::pair<std::string, std::string>> sets;
        // --scale; when not given, `run` and `report` take the scenario's faithful scale and `reproduce` takes 1.
        std::optional<double> scale;
        std::optional<int> reps;
        std::optional<std::uint64_t> seed;
        int threads = 0;
        Format format = Format::Text;
        std::string out;
        bool checkInvariants = false;
        std::uint64_t maxEvents = kDefaultMaxEvents;
        // --shard K/N, stored 0-based.
        std::size_t shardIndex = 0, shardCount = 0;
    };

    // --scale, in the range every front end accepts (scenario/scale.h).
    double parseScale(const std::string& v)
    {
        try {
            std::size_t used = 0;
            double d = std::stod(v, &used);
            if (used == v.size() && scaleInRange(d))
                return d;
        } catch (...) {
        }
        throw BadInput(scaleOutOfRange(v));
    }

    long long parseInt(const std::string& opt, const std::string& v, long long lo, long long hi)
    {
        try {
            std::size_t used = 0;
            long long d = std::stoll(v, &used);
            if (used == v.size() && d >= lo && d <= hi)
                return d;
        } catch (...) {
        }
        throw BadInput(opt + " " + v + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }

    RunArgs parseRunArgs(const std::vector<std::string>& a, std::size_t i, bool needOut)
    {
        RunArgs r;
        bool formatGiven = false;
        auto value = [&](const std::string& opt) -> std::string {
            if (i + 1 >= a.size())
                throw BadInput(opt + ": expected a value after it");
            return a[++i];
        };
        for (; i < a.size(); ++i) {
            const std::string& s = a[i];
            if (s == "--variant")
                r.variants.push_back(value(s));
            else if (s == "--set") {
                std::string kv = value(s);
                auto eq = kv.find('=');
                if (eq == std::string::npos || eq == 0)
                    throw BadInput("--set " + kv + ": expected PATH=VALUE, e.g. --set machine.cpus=16");
                r.sets.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
            } else if (s == "--scale")
                r.scale = parseScale(value(s));
            else if (s == "--reps")
                r.reps = static_cast<int>(parseInt(s, value(s), 1, 1000));
            else if (s == "--seed")
                r.seed = static_cast<std::uint64_t>(parseInt(s, value(s), 0, (1LL << 62)));
            else if (s == "--threads")
                r.threads = static_cast<int>(parseInt(s, value(s), 1, 1024));
            else if (s == "--format") {
                std::string f = value(s);
                auto pf = parseFormat(f);
                if (!pf)
                    throw BadInput("--format " + f + ": expected text, markdown, csv, json or mmtests");
                r.format = *pf;
                formatGiven = true;
            } else if (s == "--out")
                r.out = value(s);
            else if (s == "--check-invariants")
                r.checkInvariants = true;
            else if (s == "--max-events")
                r.maxEvents = static_cast<std::uint64_t>(parseInt(s, value(s), 0, 1LL << 62));
            else if (s == "--shard") {
                std::string v = value(s);
                auto slash = v.find('/');
                if (slash == std::string::npos)
                    throw BadInput("--shard " + v + ": expected K/N with 1 <= K <= N, e.g. --shard 2/8");
                auto n = static_cast<std::size_t>(parseInt("--shard " + v + ": N", v.substr(slash + 1), 1, 1'000'000));
                auto k = static_cast<std::size_t>(parseInt("--shard " + v + ": K", v.substr(0, slash), 1, static_cast<long long>(n)));
                r.shardIndex = k - 1;
                r.shardCount = n;
            }
            else if (s.rfind("--", 0) == 0)
                throw BadInput(s + ": unknown option (see mmscope-cli --help)");
            else if (r.scenario.empty())
                r.scenario = s;
            else
                throw BadInput(s + ": unexpected argument; one SCENARIO only");
        }
        if (r.scenario.empty())
            throw BadInput("expected a SCENARIO (an id from `mmscope-cli list`, or a file)");
        if (needOut && r.out.empty())
            throw BadInput("report: expected --out FILE.pdf or --out FILE.html");
        if (r.shardCount) {
            // A shard is only useful as input to `merge`, which reads JSON; any other format would lose the runs.
            if (formatGiven && r.format != Format::Json)
                throw BadInput("--shard: writes JSON for `mmscope-cli merge`; expected --format json (the default with --shard)");
            r.format = Format::Json;
        }
        return r;
    }

    Scenario prepare(const RunArgs& r)
    {
        Scenario sc = loadScenario(r.scenario);
        sc.set(r.sets);
        if (r.reps)
            sc.setReps(*r.reps);
        if (r.seed)
            sc.setSeed(*r.seed);
        sc.selectVariants(r.variants);
        return sc;
    }

    // Writes next to the target and renames, so a failed write never leaves half a file behind. A target that
    // exists and is not a regular file (/dev/null, a FIFO, /dev/stdout) is written in place: renaming over it
    // would replace the device node with a file (as root, /dev/null itself).
    void writeFile(const std::string& path, const std::string& text)
    {
        std::error_code st;
        if (auto s = std::filesystem::status(path, st); !st && std::filesystem::exists(s) && !std::filesystem::is_regular_file(s)) {
            std::ofstream f(path, std::ios::binary);
            if (!f)
                throw BadInput(path + ": cannot write (" + std::string(std::strerror(errno)) + ")");
            if (!(f << text).flush())
                throw BadInput(path + ": write failed (" + std::string(std::strerror(errno)) + ")");
            return;
        }
        std::string tmp = path + ".tmp";
        {
            std::ofstream f(tmp, std::ios::binary);
            if (!f)
                throw BadInput(path + ": cannot write (" + std::string(std::strerror(errno)) + ")");
            f << text;
            if (!f.flush())
                throw BadInput(path + ": write failed (" + std::string(std::strerror(errno)) + ")");
        }
        std::error_code ec;
        if (g_interrupted.load()) {
            std::filesystem::remove(tmp, ec);
            throw Interrupted();
        }
        std::filesystem::rename(tmp, path, ec);
        if (ec) {
            std::filesystem::remove(tmp, ec);
            throw BadInput(path + ": cannot write (" + ec.message() + ")");
        }
    }

    // Refuses a scenario whose runs would not fit in the host's memory, before anything is allocated.
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
        // A report charts counters over time, so its runs record (within a budget; frames are decimated past it).
        opts.recording.enabled = record;
        opts.recording.memoryBudget = 64u << 20;
        if (r.shardCount) {
            opts.shardIndex = r.shardIndex;
            opts.shardCount = r.shardCount;
        }
        return opts;
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
        if (rs.cancelled || g_interrupted.load())
            throw Interrupted();
        return rs;
    }

    int cmdList(std::ostream& out)
    {
        for (const ScenarioInfo& s : builtinScenarios()) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "%-22s ", s.id.c_str());
            out << buf << s.title << "\n" << std::string(23, ' ') << "seeds/" << s.seed << ": " << s.measured << "\n";
        }
        return 0;
    }

    void emit(const RunArgs& r, const std::string& text, std::ostream& out)
    {
        if (r.out.empty())
            out << text;
        else
            writeFile(r.out, text);
    }

    // Below a scenario's faithful scale its ratios may be more than 10 % from scale 1's: said on stderr, and the run
    // goes on (small scales are what tests and quick looks are for).
    void warnBelowFaithful(const Scenario& sc, double scale, std::ostream& err)
    {
        if (scale < sc.faithfulScale())
            err << "mmscope-cli: warning: " << sc.id() << " at --scale " << scale << ", below its faithful scale " << sc.faithfulScale()
                << ": its ratios may be more than 10 % from those at scale 1\n";
    }

    int cmdRun(const std::vector<std::string>& args, bool report, std::ostream& out, std::ostream& err)
    {
        RunArgs r = parseRunArgs(args, 1, report);
        Scenario sc = prepare(r);
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

    // reproduce: every built-in scenario at one scale, each table beside the post's with the distance to it, the
    // wall time of each, and a summary. Scenarios are taken from the embedded list, so new ones join by themselves.
    int cmdReproduce(const std::vector<std::string>& a, std::ostream& out, std::ostream& err)
    {
        RunArgs r;
        auto value = [&](std::size_t& i, const std::string& opt) -> std::string {
            if (i + 1 >= a.size())
                throw BadInput(opt + ": expected a value after it");
            return a[++i];
        };
        for (std::size_t i = 1; i < a.size(); ++i) {
            const std::string& s = a[i];
            if (s == "--scale")
                r.scale = parseScale(value(i, s));
            else if (s == "--threads")
                r.threads = static_cast<int>(parseInt(s, value(i, s), 1, 1024));
            else if (s == "--out")
                r.out = value(i, s);
            else
                throw BadInput("reproduce: " + s + ": unknown option; expected --scale F, --threads N or --out FILE");
        }
        std::vector<ReproduceRow> rows;
        std::ostringstream all;
        auto print = [&](const std::string& text) {
            all << text;
            if (r.out.empty())
                out << text << std::flush;
        };
        auto t0 = std::chrono::steady_clock::now();
        // Every scenario's runs go into one pool (runScenarios), so both cores stay busy to the end instead of
        // waiting at each scenario's last run; the tables come out in the list's order, each as soon as its
        // scenario and those before it are done. The memory check is per scenario, as for `run`.
        RunnerOptions opts = runnerOptions(r, false);
        std::vector<std::unique_ptr<Scenario>> scenarios;
        std::vector<const Scenario*> pooled;
        std::vector<std::size_t> rowOfPooled;
        for (const ScenarioInfo& info : builtinScenarios()) {
            ReproduceRow row;
            row.id = info.id;
            try {
                auto sc = std::make_unique<Scenario>(loadScenario(info.id));
                row.runs = planRuns(*sc).size();
                warnBelowFaithful(*sc, opts.scale, err);
                checkMemory(*sc, opts);
                pooled.push_back(sc.get());
                rowOfPooled.push_back(rows.size());
                scenarios.push_back(std::move(sc));
            } catch (const BadInput& e) {
                row.failed = e.what();
            } catch (const ScenarioError& e) {
                row.failed = e.what();
            }
            rows.push_back(row);
        }
        checkInterrupted();
        SignalInterrupter interrupter;
        opts.interrupter = &interrupter;
        std::mutex m;
        std::size_t printed = 0; // rows[0, printed) are out
        std::vector<bool> finished(rows.size(), false);
        auto report = [&](ReproduceRow& row, const Scenario* sc, const ScenarioOutcome* o) {
            if (o && o->error) {
                try {
                    std::rethrow_exception(o->error);
                } catch (const std::exception& e) {
                    row.failed = e.what();
                }
            }
            if (!row.failed.empty()) {
                err << "mmscope-cli: reproduce: " << row.failed << "\n";
                print(formatNotRun(row));
                return;
            }
            const ResultSet& rs = o->results;
            row.wall = rs.wallSeconds;
            row.d = distanceToPost(rs, *sc);
            row.ratios = ratioDistanceToPost(rs, *sc);
            print(formatReproduced(row, rs, *sc));
        };
        std::vector<const ScenarioOutcome*> outcomeOfRow(rows.size(), nullptr);
        std::vector<const Scenario*> scenarioOfRow(rows.size(), nullptr);
        for (std::size_t i = 0; i < pooled.size(); ++i)
            scenarioOfRow[rowOfPooled[i]] = pooled[i];
        // Prints every row whose turn has come (all before it printed); called with m held.
        auto flushRows = [&] {
            while (printed < rows.size() && (finished[printed] || !scenarioOfRow[printed])) {
                if (!g_interrupted.load())
                    report(rows[printed], scenarioOfRow[printed], outcomeOfRow[printed]);
                ++printed;
            }
        };
        bool tty = isatty(2);
        std::size_t runsDone = 0;
        if (tty)
            opts.progress = [&](std::size_t done, std::size_t total) {
                std::lock_guard<std::mutex> lock(m);
                runsDone = std::max(runsDone, done);
                err << "\rreproduce: " << runsDone << "/" << total << " runs" << (runsDone == total ? "\n" : "") << std::flush;
            };
        {
            std::lock_guard<std::mutex> lock(m);
            flushRows(); // the scenarios that failed before the pool, up to the first pooled one
        }
        std::vector<ScenarioOutcome> outcomes = runScenarios(pooled, opts, [&](std::size_t i, const ScenarioOutcome& o) {
            std::lock_guard<std::mutex> lock(m);
            outcomeOfRow[rowOfPooled[i]] = &o;
            finished[rowOfPooled[i]] = true;
            flushRows();
        });
        if (g_interrupted.load() || (!outcomes.empty() && outcomes.front().results.cancelled))
            throw Interrupted();
        {
            std::lock_guard<std::mutex> lock(m);
            for (std::size_t i = 0; i < pooled.size(); ++i) // every scenario has finished: all print now
                outcomeOfRow[rowOfPooled[i]] = &outcomes[i];
            flushRows();
        }
        double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        print(formatReproduceSummary(rows, opts.scale, total));
        if (!r.out.empty())
            writeFile(r.out, all.str());
        return std::any_of(rows.begin(), rows.end(), [](const ReproduceRow& row) { return !row.failed.empty(); }) ? 2 : 0;
    }

    // merge: shards written by `run --shard K/N --format json` back into the result of one unsharded run
    // (mergeShards() checks that they belong together).
    int cmdMerge(const std::vector<std::string>& a, std::ostream& out)
    {
        RunArgs r;
        std::vector<std::string> files;
        for (std::size_t i = 1; i < a.size(); ++i) {
            const std::string& s = a[i];
            if (s == "--format" || s == "--out") {
                if (i + 1 >= a.size())
                    throw BadInput(s + ": expected a value after it");
                std::string v = a[++i];
                if (s == "--out")
                    r.out = v;
                else if (auto f = parseFormat(v))
                    r.format = *f;
                else
                    throw BadInput("--format " + v + ": expected text, markdown, csv, json or mmtests");
            } else if (s.rfind("--", 0) == 0)
                throw BadInput("merge: " + s + ": unknown option; expected --format FMT or --out FILE");
            else
                files.push_back(s);
        }
        MergedShards merged = mergeShards(files);
        emit(r, formatResults(merged.results, merged.scenario, r.format), out);
        return 0;
    }
} // namespace

std::string cliUsage()
{
    return R"(mmscope-cli: simulate Linux memory-management paths and reproduce linux-mm benchmark tables

usage:
  mmscope-cli list                       the built-in scenarios
  mmscope-cli show SCENARIO              the scenario's JSON with every default filled in
  mmscope-cli run SCENARIO [options]     run it and print the table beside the post's
  mmscope-cli report SCENARIO --out FILE.pdf|FILE.html [options]
                                         charts and tables for a report
  mmscope-cli reproduce [--scale F] [--threads N] [--out FILE]
                                         run every built-in scenario: each table beside the
                                         post's, the distance to it in %, the wall time of each
  mmscope-cli run SCENARIO --shard K/N --out FILE.json [options]
                                         run only the K-th of N slices of the scenario's runs
                                         (variant x sweep point x repetition; run i is in slice
                                         i mod N + 1) and write them as JSON for merge
  mmscope-cli merge FILE.json... [--format FMT] [--out FILE]
                                         combine all N shards into the result of one unsharded run

SCENARIO is a built-in id (see `list`) or the path of a scenario file.

options:
  --variant NAME      run only this variant (repeatable; default: all)
  --set PATH=VALUE    override a field (machine.cpus=16), a toggle for every variant
                      (i_mmap.lock=rwsem) or a sweep axis (users=481) (repeatable)
  --scale F           multiply memory sizes and amounts of work by F (CPU counts kept); default:
                      the scenario's faithful scale (`show` prints it as faithful_scale), the
                      smallest whose ratios stay within 10 % of scale 1's; 1 for reproduce.
                      Below it a warning goes to stderr
  --reps N            repetitions per variant and sweep point
  --seed S            scenario seed
  --threads N         host threads for the runner (default: all cores)
  --format FMT        text | markdown | csv | json | mmtests (default: text; json with --shard)
  --out FILE          write to FILE instead of standard output
  --shard K/N         run slice K of N (1 <= K <= N); give every shard the same other options
  --max-events N      stop a run after N simulated events with a message (exit 2); default
                      10000000000 (minutes of one host core), 0 for no limit

A scenario whose runs would need more memory than the host has available (MemAvailable, or the
cgroup's limit) is refused before it starts, with the estimate. Ctrl-C stops at the next event and
writes nothing (exit 130); a second Ctrl-C quits at once.

exit codes: 0 success, 2 bad input, 1 internal error, 130 interrupted
)";
}

namespace {
    int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
} // namespace

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    SigintScope sigint;
    errno = 0;
    int code = runCommand(args, out, err);
    // A full disk or a closed pipe on standard output must not look like success.
    if (!out.flush()) {
        err << "mmscope-cli: standard output: write failed" << (errno ? " (" + std::string(std::strerror(errno)) + ")" : std::string()) << "\n";
        return code ? code : 2;
    }
    return code;
}

namespace {
    int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
    {
        try {
            if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
                (args.empty() ? err : out) << cliUsage();
                return args.empty() ? 2 : 0;
            }
            // `mmscope-cli reproduce --help`: the usage (it covers every command), not an unknown option.
            auto isHelp = [](const std::string& a) { return a == "--help" || a == "-h"; };
            if (std::any_of(args.begin() + 1, args.end(), isHelp)) {
                out << cliUsage();
                return 0;
            }
            if (args[0] == "--version") {
                out << "mmscope-cli " << engineVersion() << "\n";
                return 0;
            }
            const std::string& cmd = args[0];
            if (cmd == "list") {
                if (args.size() > 1)
                    throw BadInput("list: takes no arguments");
                return cmdList(out);
            }
            if (cmd == "show") {
                if (args.size() != 2)
                    throw BadInput("show: expected exactly one SCENARIO");
                out << loadScenario(args[1]).json().dump(2) << "\n";
                return 0;
            }
            if (cmd == "run" || cmd == "report")
                return cmdRun(args, cmd == "report", out, err);
            if (cmd == "reproduce")
                return cmdReproduce(args, out, err);
            if (cmd == "merge")
                return cmdMerge(args, out);
            throw BadInput(cmd + ": unknown command; expected list, show, run, report, reproduce or merge (see mmscope-cli --help)");
        } catch (const Interrupted& e) {
            err << "mmscope-cli: " << e.what() << "\n";
            return 130;
        } catch (const BadInput& e) {
            err << "mmscope-cli: " << e.what() << "\n";
            return 2;
        } catch (const ScenarioError& e) {
            err << "mmscope-cli: " << e.what() << "\n";
            return 2;
        } catch (const std::exception& e) {
            err << "mmscope-cli: internal error: " << e.what() << "\n";
            return 1;
        }
    }

} // namespace

} // namespace mms
