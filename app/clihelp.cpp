// mmscope-cli's usage, each command's help and its man page, all written from the commands' CLI11 definitions
// (clicommand.h): a command or an option added there appears in all three.
#include "clicommand.h"

#include "run/render.h"
#include "run/runner.h"
#include "scenario/scenario.h"

#include <CLI/CLI.hpp>

#include <sstream>

namespace mms::cli {

namespace {
    constexpr std::size_t kWidth = 100; // columns of the help text
    constexpr std::size_t kSummaryColumn = 41; // where a command's summary starts in the usage list
    constexpr std::size_t kOptionColumn = 22; // where an option's description starts

    // Words of `text` filled into lines of at most kWidth columns, the first starting at `first` (the column
    // already used), the others indented by `indent`. An empty line in `text` is a paragraph break.
    std::string fill(const std::string& text, std::size_t first, std::size_t indent)
    {
        std::string out;
        std::size_t col = first;
        bool lineStart = true;
        std::istringstream paragraphs(text);
        std::string line;
        bool firstParagraph = true;
        std::string para;
        std::vector<std::string> paras;
        while (std::getline(paragraphs, line)) {
            if (line.empty()) {
                paras.push_back(para);
                para.clear();
            } else
                para += (para.empty() ? "" : " ") + line;
        }
        paras.push_back(para);
        for (const std::string& p : paras) {
            if (!firstParagraph) {
                out += "\n\n" + std::string(indent, ' ');
                col = indent;
                lineStart = true;
            }
            firstParagraph = false;
            std::istringstream words(p);
            std::string w;
            while (words >> w) {
                if (!lineStart && col + 1 + w.size() > kWidth) {
                    out += "\n" + std::string(indent, ' ');
                    col = indent;
                    lineStart = true;
                }
                if (!lineStart) {
                    out += ' ';
                    ++col;
                }
                out += w;
                col += w.size();
                lineStart = false;
            }
        }
        return out;
    }

    std::string pad(std::string s, std::size_t column)
    {
        if (s.size() + 1 >= column)
            return s + "\n" + std::string(column, ' ');
        return s + std::string(column - s.size(), ' ');
    }

    std::vector<const CLI::Option*> optionsOf(const Command& c)
    {
        std::vector<const CLI::Option*> v;
        for (const CLI::Option* o : c.app->get_options())
            if (o->nonpositional())
                v.push_back(o);
        return v;
    }

    std::string optionName(const CLI::Option* o) { return o->get_name(false, true); }
    std::string valueName(const CLI::Option* o) { return o->get_type_name(); }

    std::string optionLines(const Command& c)
    {
        std::string s;
        for (const CLI::Option* o : optionsOf(c)) {
            std::string head = "  " + optionName(o) + (valueName(o).empty() ? "" : " " + valueName(o));
            s += pad(head, kOptionColumn) + fill(o->get_description(), kOptionColumn, kOptionColumn) + "\n";
        }
        return s;
    }

    std::string commandList(const CommandLine& cl)
    {
        std::string s;
        for (const auto& c : cl.commands()) {
            std::string use = "  mmscope-cli " + c->app->get_name() + (c->synopsis.empty() ? "" : " " + c->synopsis);
            s += pad(use, kSummaryColumn) + fill(c->summary, kSummaryColumn, kSummaryColumn) + "\n";
        }
        return s;
    }

    const char* kExitCodes = "exit codes: 0 success, 2 bad input, 1 internal error, 130 interrupted\n";

    // roff: a backslash, a minus and a line that starts with a dot or a quote are escaped.
    std::string roff(const std::string& text)
    {
        std::string out;
        bool lineStart = true;
        for (char ch : text) {
            if (lineStart && (ch == '.' || ch == '\''))
                out += "\\&";
            if (ch == '\\')
                out += "\\e";
            else if (ch == '-')
                out += "\\-";
            else
                out += ch;
            lineStart = ch == '\n';
        }
        return out;
    }

    // A description's paragraphs as roff: one sentence per line is not needed; .PP between paragraphs.
    std::string roffParagraphs(const std::string& text)
    {
        std::string out;
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line))
            out += line.empty() ? ".PP\n" : roff(line) + "\n";
        return out;
    }

    const char* kDescription = R"roff(.SH DESCRIPTION
.B mmscope\-cli
is the headless side of mmscope, a laboratory for Linux memory-management performance.
It runs the same deterministic simulation engine as the desktop application
.BR mmscope :
simulated multi-core machines executing the kernel's madvise (MADV_FREE, MADV_DONTNEED), swap-entry freeing,
LRU add and page migration paths under the workloads of published linux-mm benchmarks, with each patch of those
posts available as a variant that can be switched on and off.
.PP
Results are reproducible: the same scenario, options and seed give byte-identical results at any
.BR \-\-threads ,
apart from the host-dependent fields (wall time, thread count, machine), which are kept apart under
.B host
in the JSON output.
.PP
.I SCENARIO
is either the id of a built-in scenario (see
.BR "mmscope\-cli list" )
or the path of a scenario file in JSON.
Built-in scenarios are compiled into the program; no data files are needed at run time.
)roff";
    const char* kFormats = R"roff(.SH OUTPUT FORMATS
.TP
.B text
The table as the original post laid it out, with the published figures beside the simulated ones, and under it
each variant's ratio to the baseline (the first variant) beside the post's same ratio.
.TP
.B markdown
The same table in Markdown, for a mail or a review.
.TP
.B csv
One row per variant, sweep point and repetition, one column per metric.
.TP
.B json
The machine-readable result:
.RS
.PP
.EX
{"scenario": "madv\-free\-swapin", "engine_version": "...", "seed": 1, "scale": 1.0,
 "baseline": "dontneed",
 "results": [{"variant": "dontneed", "point": {}, "rep": 0,
              "metrics": {"elapsed_s": 50.4, "swapins": 1612},
              "ratio": {"elapsed_s": 1.0},
              "locks": [{"name": "swap_info[0].lock", "acquisitions": 0,
                         "contentions": 0, "wait_total_ns": 0,
                         "hold_total_ns": 0}],
              "cpus": [{"cpu": 0, "user_s": 0.4, "sys_s": 1.9,
                        "idle_s": 48.1}]}],
 "host": {"wall_s": 0.8, "threads": 2}}
.EE
.PP
.B point
holds one entry per sweep axis, keyed by the axis name, for example
.BR "{\(dqthreads\(dq: 4}" .
.B cpus
holds one entry per simulated CPU: its user, system and idle seconds, as its line of
.I /proc/stat
would count them.
.RE
.TP
.B mmtests
Columns in the style of mmtests' compare-kernels: each value as
.B %12.2f (%6.2f%%)
relative to the first (baseline) variant, which shows
.BR "(   0.00%)" .
)roff";
    const char* kExitStatus = R"roff(.SH EXIT STATUS
.TP
.B 0
Success.
.TP
.B 2
Bad input: an unknown command, option, scenario, variant or
.B \-\-set
path, a value of the wrong kind, an invalid scenario file, a file that cannot be read or written, shards that do
not belong together, or a scenario whose estimated memory exceeds what the host has available.
A message on standard error names the file, the path inside it and what was expected.
Also a run that ends without results: a simulated program that gave up (an
.B mmap
the overcommit heuristic refused), a run past its event budget
.RB ( \-\-max\-events ),
or one the watchdog stopped because it could not end; the message names the simulated time and what each CPU was
doing.
.TP
.B 1
Internal error.
.TP
.B 130
Interrupted (SIGINT, Ctrl-C): the run stops at the next simulated event and nothing is written.
A second Ctrl-C quits at once; output files are written under a temporary name and renamed, so no
half-written file is left either way.
)roff";
    const char* kExamples = R"roff(.SH EXAMPLES
List the scenarios, then run the default one at a tenth of its size:
.PP
.EX
mmscope\-cli list
mmscope\-cli run madv\-free\-swapin \-\-scale 0.1
.EE
.PP
Compare two variants in mmtests style with 4 host threads:
.PP
.EX
mmscope\-cli run madv\-free\-tlb\-batch \-\-variant vanilla \e
    \-\-variant glibc\-madvfree\-tlb \-\-threads 4 \-\-format mmtests
.EE
.PP
Save a scenario, edit it, run the edited file with an override and keep the JSON:
.PP
.EX
mmscope\-cli show swap\-free\-sort > mine.json
mmscope\-cli run mine.json \-\-set swap.devices=2 \-\-reps 5 \e
    \-\-format json \-\-out mine\-result.json
.EE
.PP
Write a PDF report:
.PP
.EX
mmscope\-cli report migration\-unmapped \-\-scale 0.05 \-\-out migration.pdf
.EE
.PP
Every built-in table at a twentieth of its size, with the distance to each post:
.PP
.EX
mmscope\-cli reproduce \-\-scale 0.05
.EE
.PP
A sweep in four shards, on four machines or as a job array, then merged:
.PP
.EX
for k in 1 2 3 4; do
    mmscope\-cli run migration\-unmapped \-\-reps 5 \-\-shard $k/4 \-\-out part$k.json
done
mmscope\-cli merge part*.json \-\-format markdown
.EE
)roff";
    const char* kEnvironment = R"roff(.SH ENVIRONMENT AND LIMITS
Before a run starts,
.B mmscope\-cli
estimates the host memory it needs: for each run the page frames (the engine's bytes per page frame, a free-list
slot and a page-table entry), the swap slots (swap map, swap cache and a page-table entry) and, for
.BR report ,
the recording budget; times the runs that execute at once
.RB ( \-\-threads ,
at most the number of runs).
A scenario whose estimate exceeds
.B MemAvailable
in
.I /proc/meminfo
(or the cgroup's
.B memory.max
less
.BR memory.current ,
when lower) is refused with the estimate in the message.
.PP
At start-up
.B mmscope\-cli
restarts itself once with
.B glibc.malloc.hugetlb=1
added to
.BR GLIBC_TUNABLES ,
so that its large arrays get transparent huge pages where THP is set to
.IR madvise .
This changes only the host's speed, never a result.
.B MMSCOPE_NO_THP=1
turns it off; it is also skipped when
.B GLIBC_TUNABLES
already names the tunable, and under valgrind.
)roff";
    const char* kFiles = R"roff(.SH FILES
.TP
.I /usr/share/mmscope/scenarios/*.json
The built-in scenarios as files, to copy and edit
.RB ( "mmscope\-cli show"
prints the same with every default filled in).
The programs do not read them: the scenarios are compiled in.
)roff";
    const char* kSeeAlso = R"roff(.SH SEE ALSO
.BR madvise (2),
.BR swapon (8).
.PP
The desktop application
.B mmscope
plays the same scenarios with animated page maps, lock heatmaps and CPU timelines:
.BR "mmscope \-\-scenario madv\-free\-swapin" .
)roff";
} // namespace

std::string usageText(const CommandLine& cl)
{
    std::string s = "mmscope-cli: " + cl.app().get_description() + "\n\nusage:\n" + commandList(cl);
    s += "\n" + fill("SCENARIO is a built-in id (see `list`) or the path of a scenario file. `mmscope-cli COMMAND --help` shows a "
                      "command's options; `man mmscope-cli` (or `mmscope-cli help --man`) has more.",
              0, 0)
        + "\n";
    if (const Command* run = cl.find("run"))
        s += "\noptions of run and report:\n" + optionLines(*run);
    return s + "\n" + kExitCodes;
}

std::string commandHelp(const CommandLine& cl, const Command& c)
{
    std::string s = "usage: mmscope-cli " + c.app->get_name() + (c.synopsis.empty() ? "" : " " + c.synopsis) + "\n\n";
    s += fill(c.app->get_description(), 0, 0) + "\n";
    if (!optionsOf(c).empty())
        s += "\noptions:\n" + optionLines(c);
    return s + "\ncommands:\n" + commandList(cl) + "\n" + kExitCodes;
}

std::string manPage(const CommandLine& cl)
{
    std::string s
        = ".\\\" mmscope-cli(1), written by `mmscope-cli help --man` from the command line's own definitions.\n";
    s += ".TH MMSCOPE\\-CLI 1 \"\" \"mmscope " + roff(engineVersion()) + "\" \"User Commands\"\n.nh\n";
    s += ".SH NAME\nmmscope\\-cli \\- run mmscope's Linux memory-management scenarios without a display\n";
    s += ".SH SYNOPSIS\n";
    for (const auto& c : cl.commands())
        s += ".SY mmscope\\-cli\n.B " + roff(c->app->get_name()) + "\n"
            + (c->synopsis.empty() ? "" : roff(c->synopsis) + "\n") + ".YS\n";
    s += kDescription;
    s += ".SH COMMANDS\n";
    for (const auto& c : cl.commands()) {
        s += ".SS \"" + roff(c->app->get_name() + (c->synopsis.empty() ? "" : " " + c->synopsis)) + "\"\n";
        s += roffParagraphs(c->app->get_description());
        for (const CLI::Option* o : optionsOf(*c)) {
            s += valueName(o).empty() ? ".TP\n.B " + roff(optionName(o))
                                         : ".TP\n.BI \"" + roff(optionName(o)) + " \" " + roff(valueName(o));
            s += "\n" + roff(o->get_description()) + "\n";
        }
    }
    s += kFormats;
    s += ".SH BUILT-IN SCENARIOS\n";
    for (const ScenarioInfo& info : builtinScenarios())
        s += ".TP\n.B " + roff(info.id) + "\n" + roff(info.title) + " (seeds/" + roff(info.seed) + ": "
            + roff(info.measured) + ").\n";
    s += kExitStatus;
    s += kExamples;
    s += kEnvironment;
    s += kFiles;
    s += kSeeAlso;
    return s;
}

} // namespace mms::cli
