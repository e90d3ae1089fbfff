#include "run/json.h"

#include <algorithm>
#include <map>

namespace mms {

OJson resultsToJson(const ResultSet& rs) { return resultsToJson(rs, std::string()); }

OJson resultsToJson(const ResultSet& rs, const std::string& baseline)
{
    OJson j;
    j["scenario"] = rs.scenario;
    j["engine_version"] = rs.engineVersion;
    j["seed"] = rs.seed;
    j["scale"] = rs.scale;
    if (!baseline.empty())
        j["baseline"] = baseline;
    j["results"] = OJson::array();
    // The baseline's mean per (point, metric) over its repetitions, for each result's ratio.
    std::vector<std::pair<const OJson*, std::map<std::string, std::pair<double, int>>>> baseMeans;
    if (!baseline.empty())
        for (const RunResult& r : rs.results) {
            if (r.variant != baseline)
                continue;
            auto it = std::find_if(baseMeans.begin(), baseMeans.end(), [&](const auto& b) { return *b.first == r.point; });
            if (it == baseMeans.end())
                it = baseMeans.insert(baseMeans.end(), { &r.point, {} });
            for (auto& [k, v] : r.metrics) {
                it->second[k].first += v;
                it->second[k].second += 1;
            }
        }
    for (const RunResult& r : rs.results) {
        OJson jr;
        jr["variant"] = r.variant;
        jr["point"] = r.point;
        jr["rep"] = r.rep;
        jr["events"] = r.events;
        jr["metrics"] = OJson::object();
        for (auto& [k, v] : r.metrics)
            jr["metrics"][k] = v;
        if (!baseline.empty()) {
            // This run's figure over the baseline's mean at the same point, for every metric the baseline has
            // and is not 0 in.
            auto base = std::find_if(baseMeans.begin(), baseMeans.end(), [&](const auto& b) { return *b.first == r.point; });
            OJson ratio = OJson::object();
            if (base != baseMeans.end())
                for (auto& [k, v] : r.metrics)
                    if (auto b = base->second.find(k); b != base->second.end() && b->second.first != 0)
                        ratio[k] = v / (b->second.first / b->second.second);
            jr["ratio"] = ratio;
        }
        jr["locks"] = OJson::array();
        for (const LockSummary& l : r.locks)
            jr["locks"].push_back(OJson { { "name", l.name }, { "kind", l.kind }, { "instances", l.instances },
                { "acquisitions", l.acquisitions }, { "contentions", l.contentions }, { "con_bounces", l.conBounces },
                { "acq_bounces", l.acqBounces }, { "wait_min_ns", toNs(l.waitMin) }, { "wait_max_ns", toNs(l.waitMax) },
                { "wait_total_ns", toNs(l.waitTotal) }, { "hold_min_ns", toNs(l.holdMin) }, { "hold_max_ns", toNs(l.holdMax) },
                { "hold_total_ns", toNs(l.holdTotal) } });
        jr["cpus"] = OJson::array();
        for (const CpuStat& c : r.cpus) {
            OJson jc { { "cpu", c.cpu }, { "user_s", c.userS }, { "sys_s", c.sysS }, { "idle_s", c.idleS } };
            if (c.stealS > 0) // only where a host deschedules vCPUs, so that other results keep their keys
                jc["steal_s"] = c.stealS;
            jr["cpus"].push_back(std::move(jc));
        }
        j["results"].push_back(jr);
    }
    if (rs.cancelled)
        j["cancelled"] = true;
    j["host"] = OJson { { "wall_s", rs.wallSeconds }, { "threads", rs.threads } };
    return j;
}

ResultSet resultsFromJson(const OJson& doc, const std::string& origin)
{
    auto bad = [&](const std::string& path, const std::string& what) { return ScenarioError(origin + ": " + path + ": expected " + what); };
    if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
        throw bad("results", "an array of runs (a file written by mmscope-cli run --format json)");
    ResultSet rs;
    rs.scenario = doc.value("scenario", "");
    rs.engineVersion = doc.value("engine_version", "");
    rs.seed = doc.value("seed", 0ULL);
    rs.scale = doc.value("scale", 1.0);
    for (std::size_t i = 0; i < doc["results"].size(); ++i) {
        const OJson& jr = doc["results"][i];
        std::string p = "results[" + std::to_string(i) + "]";
        if (!jr.is_object() || !jr.contains("variant") || !jr["variant"].is_string() || !jr.contains("metrics") || !jr["metrics"].is_object())
            throw bad(p, "an object with variant, point, rep and metrics");
        RunResult r;
        r.variant = jr["variant"];
        r.point = jr.value("point", OJson::object());
        r.rep = jr.value("rep", 0);
        r.events = jr.value("events", 0ULL);
        for (auto& [k, v] : jr["metrics"].items()) {
            if (!v.is_number())
                throw bad(p + ".metrics." + k, "a number");
            r.metrics[k] = v.get<double>();
        }
        if (jr.contains("locks"))
            for (const OJson& l : jr["locks"]) {
                LockSummary s;
                s.name = l.value("name", "");
                s.kind = l.value("kind", "");
                s.instances = l.value("instances", 0ULL);
                s.acquisitions = l.value("acquisitions", 0ULL);
                s.contentions = l.value("contentions", 0ULL);
                s.conBounces = l.value("con_bounces", 0ULL);
                s.acqBounces = l.value("acq_bounces", 0ULL);
                s.waitMin = ns(l.value("wait_min_ns", 0.0));
                s.waitMax = ns(l.value("wait_max_ns", 0.0));
                s.waitTotal = ns(l.value("wait_total_ns", 0.0));
                s.holdMin = ns(l.value("hold_min_ns", 0.0));
                s.holdMax = ns(l.value("hold_max_ns", 0.0));
                s.holdTotal = ns(l.value("hold_total_ns", 0.0));
                r.locks.push_back(s);
            }
        if (jr.contains("cpus"))
            for (const OJson& c : jr["cpus"])
                r.cpus.push_back({ c.value("cpu", 0), c.value("user_s", 0.0), c.value("sys_s", 0.0), c.value("idle_s", 0.0),
                    c.value("steal_s", 0.0) });
        rs.results.push_back(std::move(r));
    }
    if (doc.contains("host")) {
        rs.wallSeconds = doc["host"].value("wall_s", 0.0);
        rs.threads = doc["host"].value("threads", 0);
    }
    rs.cancelled = doc.value("cancelled", false);
    return rs;
}

} // namespace mms
