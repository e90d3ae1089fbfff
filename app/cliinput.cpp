#include "cliinput.h"

#include "clicommand.h"
#include "scenario/scale.h"
#include "scenario/size.h"

namespace mms::cli {

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

void addMemoryBudget(CLI::App* a, std::string& text)
{
    addValue(a, "--memory-budget", text, "SIZE",
        "host memory the runs in flight may take together, by their estimates (4GiB, 512MiB); default: 1 GiB, or "
        "the largest run and a quarter more, at most what the host has available. A run that does not fit waits "
        "for one to end, so a smaller budget runs fewer at once");
}

std::uint64_t parseMemoryBudget(const std::string& v)
{
    std::optional<std::uint64_t> bytes = parseSize(v);
    if (!bytes || *bytes < (1u << 20))
        throw BadInput("--memory-budget " + v + ": expected a size of at least 1MiB, e.g. 4GiB or 512MiB");
    return *bytes;
}

Format parseFormatOption(const std::string& v)
{
    if (auto f = parseFormat(v))
        return *f;
    throw BadInput("--format " + v + ": expected text, markdown, csv, json or mmtests");
}

std::pair<std::string, std::string> parseSet(const std::string& kv)
{
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        throw BadInput("--set " + kv + ": expected PATH=VALUE, e.g. --set machine.cpus=16");
    return { kv.substr(0, eq), kv.substr(eq + 1) };
}

void RunOptionText::addTo(CLI::App* a, bool shard)
{
    app = a;
    a->add_option("SCENARIO", positionals, "a built-in id (see `list`) or the path of a scenario file");
    addValues(a, "--variant", variants, "NAME", "run only this variant (repeatable; default: all)");
    addValues(a, "--set", sets, "PATH=VALUE",
        "override a field (machine.cpus=16), a toggle for every variant (i_mmap.lock=rwsem) or a sweep axis "
        "(users=481) (repeatable); all --set are applied together, then checked, so machine.cpus=1 with "
        "machine.sockets=1 is one valid machine");
    addValue(a, "--scale", scale, "F",
        "multiply memory sizes and amounts of work by F (CPU counts kept); default: the scenario's faithful scale "
        "(`show` prints it as faithful_scale), the smallest whose ratios stay within 10 % of scale 1's; 1 for "
        "reproduce. Below it a warning goes to stderr");
    addValue(a, "--reps", reps, "N", "repetitions per variant and sweep point");
    addValue(a, "--seed", seed, "S", "scenario seed");
    addValue(a, "--threads", threads, "N", "host threads for the runner (default: all cores)");
    addMemoryBudget(a, memoryBudget);
    addValue(a, "--format", format, "FMT", "text | markdown | csv | json | mmtests (default: text; json with --shard)");
    addValue(a, "--out", out, "FILE", "write to FILE instead of standard output");
    if (shard)
        addValue(a, "--shard", this->shard, "K/N",
            "run slice K of N (1 <= K <= N) of the runs (variant x sweep point x repetition; run i is in slice i mod "
            "N + 1) and write them as JSON for merge; give every shard the same other options");
    addValue(a, "--max-events", maxEvents, "N",
        "stop a run after N simulated events with a message (exit 2; counted in steps of 65536, so a run that "
        "ends within the step it passes N in completes); default 10000000000 (minutes of one host core), 0 for no "
        "limit");
    a->add_flag("--check-invariants", checkInvariants,
        "check the simulated kernel's invariants at the end of each run (tests)");
}

RunArgs RunOptionText::check(bool needOut) const
{
    // An option the command defines and the user gave (`report` has no --shard).
    auto given = [&](const char* name) {
        const CLI::Option* o = app->get_option_no_throw(name);
        return o && o->count() > 0;
    };
    RunArgs r;
    r.variants = variants;
    for (const std::string& kv : sets)
        r.sets.push_back(parseSet(kv));
    if (given("--scale"))
        r.scale = parseScale(scale);
    if (given("--reps"))
        r.reps = static_cast<int>(parseInt("--reps", reps, 1, 1000));
    if (given("--seed"))
        r.seed = static_cast<std::uint64_t>(parseInt("--seed", seed, 0, (1LL << 62)));
    if (given("--threads"))
        r.threads = static_cast<int>(parseInt("--threads", threads, 1, 1024));
    if (given("--memory-budget"))
        r.memoryBudget = parseMemoryBudget(memoryBudget);
    if (given("--format"))
        r.format = parseFormatOption(format);
    r.out = out;
    r.checkInvariants = checkInvariants;
    if (given("--max-events"))
        r.maxEvents = static_cast<std::uint64_t>(parseInt("--max-events", maxEvents, 0, 1LL << 62));
    if (given("--shard")) {
        const std::string& v = shard;
        auto slash = v.find('/');
        if (slash == std::string::npos)
            throw BadInput("--shard " + v + ": expected K/N with 1 <= K <= N, e.g. --shard 2/8");
        auto n = static_cast<std::size_t>(parseInt("--shard " + v + ": N", v.substr(slash + 1), 1, 1'000'000));
        auto k = static_cast<std::size_t>(
            parseInt("--shard " + v + ": K", v.substr(0, slash), 1, static_cast<long long>(n)));
        r.shardIndex = k - 1;
        r.shardCount = n;
    }
    if (positionals.size() > 1)
        throw BadInput(positionals[1] + ": unexpected argument; one SCENARIO only");
    if (positionals.empty())
        throw BadInput("expected a SCENARIO (an id from `mmscope-cli list`, or a file)");
    r.scenario = positionals.front();
    if (needOut && r.out.empty())
        throw BadInput("report: expected --out FILE.pdf or --out FILE.html");
    if (r.shardCount) {
        // A shard is only useful as input to `merge`, which reads JSON; any other format would lose the runs.
        if (given("--format") && r.format != Format::Json)
            throw BadInput(
                "--shard: writes JSON for `mmscope-cli merge`; expected --format json (the default with --shard)");
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

} // namespace mms::cli
