#include "cli.h"

#include "run/format.h"
#include "run/runner.h"
#include "scenario/scenario.h"

#ifdef MMSCOPE_HAVE_UI
#include "report.h"
#endif

#include <atomic>
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

    std::atomic<bool> g_interrupted { false };
    extern "C" void onSigint(int) { g_interrupted = true; }

    class SignalInterrupter final : public Interrupter {
    public:
        bool wasInterrupted() override { return g_interrupted.load(); }
    };

    struct RunArgs {
        std::string scenario;
        std::vector<std::string> variants;
        std::vector<std::pair<std::string, std::string>> sets;
        double scale = 1.0;
        std::optional<int> reps;
        std::optional<std::uint64_t> seed;
        int threads = 0;
        Format format = Format::Text;
        std::string out;
        bool checkInvariants = false;
    };

    double parseDouble(const std::string& opt, const std::string& v, double lo, double hi)
    {
        try {
            std::size_t used = 0;
            double d = std::stod(v, &used);
            if (used == v.size() && d >= lo && d <= hi)
                return d;
        } catch (...) {
        }
        std::ostringstream o;
        o << opt << " " << v << ": expected a number in [" << lo << ", " << hi << "]";
        throw BadInput(o.str());
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
                r.scale = parseDouble(s, value(s), 1e-4, 4.0);
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
            } else if (s == "--out")
                r.out = value(s);
            else if (s == "--check-invariants")
                r.checkInvariants = true;
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
        return r;
    }

    Scenario prepare(const RunArgs& r)
    {
        Scenario sc = loadScenario(r.scenario);
        for (auto& [k, v] : r.sets)
            sc.set(k, v);
        if (r.reps)
            sc.setReps(*r.reps);
        if (r.seed)
            sc.setSeed(*r.seed);
        sc.selectVariants(r.variants);
        return sc;
    }

    // Writes next to the target and renames, so a failed write never leaves half a file behind.
    void writeFile(const std::string& path, const std::string& text)
    {
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
        std::filesystem::rename(tmp, path, ec);
        if (ec) {
            std::filesystem::remove(tmp, ec);
            throw BadInput(path + ": cannot write (" + ec.message() + ")");
        }
    }

    ResultSet execute(const Scenario& sc, const RunArgs& r, bool record, std::ostream& err)
    {
        SignalInterrupter interrupter;
        g_interrupted = false;
        auto previous = std::signal(SIGINT, onSigint);
        RunnerOptions opts;
        opts.threads = r.threads;
        opts.scale = r.scale;
        opts.interrupter = &interrupter;
        opts.checkInvariants = r.checkInvariants;
        // A report charts counters over time, so its runs record (within a budget; frames are decimated past it).
        opts.recording.enabled = record;
        opts.recording.memoryBudget = 64u << 20;
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
        std::signal(SIGINT, previous);
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

SCENARIO is a built-in id (see `list`) or the path of a scenario file.

options:
  --variant NAME      run only this variant (repeatable; default: all)
  --set PATH=VALUE    override a field (machine.cpus=16), a toggle for every variant
                      (i_mmap.lock=rwsem) or a sweep axis (users=481) (repeatable)
  --scale F           multiply memory sizes and amounts of work by F (CPU counts kept)
  --reps N            repetitions per variant and sweep point
  --seed S            scenario seed
  --threads N         host threads for the runner (default: all cores)
  --format FMT        text | markdown | csv | json | mmtests (default: text)
  --out FILE          write to FILE instead of standard output

exit codes: 0 success, 2 bad input, 1 internal error, 130 interrupted
)";
}

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    try {
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            (args.empty() ? err : out) << cliUsage();
            return args.empty() ? 2 : 0;
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
        if (cmd == "run" || cmd == "report") {
            RunArgs r = parseRunArgs(args, 1, cmd == "report");
            Scenario sc = prepare(r);
            ResultSet rs = execute(sc, r, cmd == "report", err);
            if (rs.cancelled) {
                err << "interrupted: no results written\n";
                return 130;
            }
            if (cmd == "report") {
#ifdef MMSCOPE_HAVE_UI
                std::string error;
                if (!writeReport(sc, rs, r.out, error))
                    throw BadInput(error);
                return 0;
#else
                throw BadInput("report: this build has no desktop UI library (configure with -DMMSCOPE_BUILD_UI=ON)");
#endif
            }
            std::string text = formatResults(rs, sc, r.format);
            if (r.out.empty())
                out << text;
            else
                writeFile(r.out, text);
            return 0;
        }
        throw BadInput(cmd + ": unknown command; expected list, show, run or report (see mmscope-cli --help)");
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

} // namespace mms
