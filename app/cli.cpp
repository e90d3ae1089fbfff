#include "cli.h"

#include "cliinput.h"
#include "cliinterrupt.h"
#include "clikernels.h"
#include "clioutput.h"
#include "clirun.h"
#include "run/render.h"
#include "run/shard.h"
#include "scenario/scenario.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ostream>

namespace mms {

using namespace cli;

namespace {
    int cmdList(std::ostream& out)
    {
        for (const ScenarioInfo& s : builtinScenarios()) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "%-22s ", s.id.c_str());
            out << buf << s.title << "\n" << std::string(23, ' ') << "seeds/" << s.seed << ": " << s.measured << "\n";
        }
        return 0;
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
            if (cmd == "kernels")
                return cmdKernels(args, out);
            throw BadInput(cmd
                + ": unknown command; expected list, show, run, report, reproduce, merge or kernels (see mmscope-cli "
                  "--help)");
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
  mmscope-cli kernels [VERSION]          the kernel releases a scenario may name (2.6.20 .. 6.12)
                                         and, for one, the era rules in force with their commits;
                                         --markdown: the whole table (docs/kernels.md)

SCENARIO is a built-in id (see `list`) or the path of a scenario file.

options:
  --variant NAME      run only this variant (repeatable; default: all)
  --set PATH=VALUE    override a field (machine.cpus=16), a toggle for every variant
                      (i_mmap.lock=rwsem) or a sweep axis (users=481) (repeatable); with
                      kernel=X the rules in which X differs from the scenario's kernel go to stderr
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

} // namespace mms
