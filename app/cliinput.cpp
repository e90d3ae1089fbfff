#include "cliinput.h"

#include "scenario/scale.h"

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

} // namespace mms::cli
