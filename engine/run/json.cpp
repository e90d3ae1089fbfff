#include "run/json.h"

#include <algorithm>
#include <limits>
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

namespace {
    // The fields of a result file as their writer wrote them: an absent one takes its default, one of another type
    // is refused with its path (a file edited by hand, or another program's).
    class Reader {
    public:
        explicit Reader(const std::string& origin)
            : m_origin(origin)
        {
        }
        ScenarioError bad(const std::string& path, const std::string& what) const
        {
            return ScenarioError(m_origin + ": " + path + ": expected " + what);
        }
        const OJson& object(const OJson& j, const std::string& path) const
        {
            if (!j.is_object())
                throw bad(path, "an object");
            return j;
        }
        // j[key] as an array (empty where absent).
        const OJson& array(const OJson& j, const char* key, const std::string& path) const
        {
            static const OJson none = OJson::array();
            if (!j.contains(key))
                return none;
            if (!j[key].is_array())
                throw bad(at(path, key), "an array");
            return j[key];
        }
        std::string text(const OJson& j, const char* key, const std::string& path) const
        {
            if (!j.contains(key))
                return {};
            if (!j[key].is_string())
                throw bad(at(path, key), "a string");
            return j[key].get<std::string>();
        }
        double number(const OJson& j, const char* key, const std::string& path, double dflt = 0) const
        {
            if (!j.contains(key))
                return dflt;
            if (!j[key].is_number())
                throw bad(at(path, key), "a number");
            return j[key].get<double>();
        }
        std::uint64_t count(const OJson& j, const char* key, const std::string& path) const
        {
            if (!j.contains(key))
                return 0;
            // A parsed file's counts are unsigned; one built in memory holds what was assigned (an int's a signed).
            const OJson& v = j[key];
            if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
                throw bad(at(path, key), "a count (an integer from 0)");
            return v.get<std::uint64_t>();
        }
        int integer(const OJson& j, const char* key, const std::string& path) const
        {
            const std::uint64_t n = count(j, key, path);
            if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
                throw bad(at(path, key), "an integer up to " + std::to_string(std::numeric_limits<int>::max()));
            return static_cast<int>(n);
        }

    private:
        static std::string at(const std::string& path, const char* key)
        {
            return path.empty() ? key : path + "." + key;
        }
        const std::string& m_origin;
    };
} // namespace

ResultSet resultsFromJson(const OJson& doc, const std::string& origin)
{
    const Reader in(origin);
    if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
        throw in.bad("results", "an array of runs (a file written by mmscope-cli run --format json)");
    ResultSet rs;
    rs.scenario = in.text(doc, "scenario", "");
    rs.engineVersion = in.text(doc, "engine_version", "");
    rs.seed = in.count(doc, "seed", "");
    rs.scale = in.number(doc, "scale", "", 1.0);
    for (std::size_t i = 0; i < doc["results"].size(); ++i) {
        const OJson& jr = doc["results"][i];
        std::string p = "results[" + std::to_string(i) + "]";
        if (!jr.is_object() || !jr.contains("variant") || !jr["variant"].is_string() || !jr.contains("metrics") || !jr["metrics"].is_object())
            throw in.bad(p, "an object with variant, point, rep and metrics");
        RunResult r;
        r.variant = jr["variant"];
        r.point = jr.contains("point") ? in.object(jr["point"], p + ".point") : OJson::object();
        r.rep = in.integer(jr, "rep", p);
        r.events = in.count(jr, "events", p);
        for (auto& [k, v] : jr["metrics"].items()) {
            if (!v.is_number())
                throw in.bad(p + ".metrics." + k, "a number");
            r.metrics[k] = v.get<double>();
        }
        const OJson& locks = in.array(jr, "locks", p);
        for (std::size_t li = 0; li < locks.size(); ++li) {
            const std::string lp = p + ".locks[" + std::to_string(li) + "]";
            const OJson& l = in.object(locks[li], lp);
            LockSummary s;
            s.name = in.text(l, "name", lp);
            s.kind = in.text(l, "kind", lp);
            s.instances = in.count(l, "instances", lp);
            s.acquisitions = in.count(l, "acquisitions", lp);
            s.contentions = in.count(l, "contentions", lp);
            s.conBounces = in.count(l, "con_bounces", lp);
            s.acqBounces = in.count(l, "acq_bounces", lp);
            s.waitMin = ns(in.number(l, "wait_min_ns", lp));
            s.waitMax = ns(in.number(l, "wait_max_ns", lp));
            s.waitTotal = ns(in.number(l, "wait_total_ns", lp));
            s.holdMin = ns(in.number(l, "hold_min_ns", lp));
            s.holdMax = ns(in.number(l, "hold_max_ns", lp));
            s.holdTotal = ns(in.number(l, "hold_total_ns", lp));
            r.locks.push_back(s);
        }
        const OJson& cpus = in.array(jr, "cpus", p);
        for (std::size_t ci = 0; ci < cpus.size(); ++ci) {
            const std::string cp = p + ".cpus[" + std::to_string(ci) + "]";
            const OJson& c = in.object(cpus[ci], cp);
            r.cpus.push_back({ in.integer(c, "cpu", cp), in.number(c, "user_s", cp), in.number(c, "sys_s", cp),
                in.number(c, "idle_s", cp), in.number(c, "steal_s", cp) });
        }
        rs.results.push_back(std::move(r));
    }
    if (doc.contains("host")) {
        const OJson& host = in.object(doc["host"], "host");
        rs.wallSeconds = in.number(host, "wall_s", "host");
        rs.threads = in.integer(host, "threads", "host");
    }
    if (doc.contains("cancelled") && !doc["cancelled"].is_boolean())
        throw in.bad("cancelled", "true or false");
    rs.cancelled = doc.value("cancelled", false);
    return rs;
}

} // namespace mms
