#include "run/format.h"

#include "run/ratio.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>

namespace mms {

std::optional<Format> parseFormat(const std::string& name)
{
    if (name == "text")
        return Format::Text;
    if (name == "markdown" || name == "md")
        return Format::Markdown;
    if (name == "csv")
        return Format::Csv;
    if (name == "json")
        return Format::Json;
    if (name == "mmtests")
        return Format::Mmtests;
    return std::nullopt;
}

bool lowerIsBetter(const std::string& m)
{
    auto ends = [&](const char* s) {
        std::string x(s);
        return m.size() >= x.size() && m.compare(m.size() - x.size(), x.size(), x) == 0;
    };
    return ends("_s") || ends("_us") || ends("_ns") || m == "swapins" || m == "swapouts";
}

std::string formatNumber(double v, const std::string& metric)
{
    char buf[64];
    if (std::fabs(v) >= 1000 || metric == "swapins" || metric == "swapouts" || std::floor(v) == v)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (std::fabs(v) >= 10)
        std::snprintf(buf, sizeof buf, "%.2f", v);
    else
        std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::optional<double> publishedValue(const Scenario& sc, const std::string& variant, const OJson& point, const std::string& metric)
{
    const OJson& pub = sc.published();
    if (pub.contains("rows") && point.empty())
        for (const OJson& row : pub["rows"])
            if (row.value("variant", "") == variant && row.contains(metric) && row[metric].is_number())
                return row[metric].get<double>();
    if (pub.contains("columns") && pub["columns"].contains(variant) && point.size() == 1) {
        std::string pm = pub.value("metric", "");
        if (!pm.empty() && pm != metric)
            return std::nullopt;
        auto [axis, value] = *point.items().begin();
        if (!pub.contains(axis))
            return std::nullopt;
        const OJson& xs = pub[axis];
        for (std::size_t i = 0; i < xs.size(); ++i)
            if (xs[i] == value && i < pub["columns"][variant].size())
                return pub["columns"][variant][i].get<double>();
    }
    return std::nullopt;
}

Cell tableCell(const ResultSet& rs, const Scenario& sc, const std::string& variant, const OJson& point, const std::string& metric)
{
    Cell c;
    double sum = 0, sq = 0;
    for (const RunResult& r : rs.results) {
        if (r.variant != variant || r.point != point)
            continue;
        auto it = r.metrics.find(metric);
        if (it == r.metrics.end())
            continue;
        sum += it->second;
        sq += it->second * it->second;
        ++c.n;
    }
    if (c.n) {
        c.mean = sum / c.n;
        c.stddev = c.n > 1 ? std::sqrt(std::max(0.0, (sq - sum * sum / c.n) / (c.n - 1))) : 0.0;
    }
    c.published = publishedValue(sc, variant, point, metric);
    const OJson& pub = sc.published();
    if (c.published && point.empty() && pub.contains("rows"))
        for (const OJson& row : pub["rows"])
            if (row.value("variant", "") == variant && row.contains(metric + "_sd"))
                c.publishedSd = row[metric + "_sd"].get<double>();
    return c;
}

namespace {
    std::string pointLabel(const OJson& p)
    {
        std::string s;
        for (auto& [k, v] : p.items())
            s += (s.empty() ? "" : ",") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
        return s;
    }

    std::string distance(const Cell& c)
    {
        if (!c.published || *c.published == 0 || c.n == 0)
            return "";
        return formatPercent((c.mean / *c.published - 1.0) * 100.0);
    }

    std::string simText(const Cell& c, const std::string& metric)
    {
        if (c.n == 0)
            return "-";
        std::string s = formatNumber(c.mean, metric);
        if (c.n > 1)
            s += " ±" + formatNumber(c.stddev, metric);
        return s;
    }

    // The cells of the table in the order buildTable() shows them: (variant, point, metric).
    template <typename F>
    void forEachTableCell(const Scenario& sc, F&& f)
    {
        std::vector<std::string> metrics = sc.metrics();
        if (sc.axes().empty()) {
            for (auto& v : sc.variantNames())
                for (auto& m : metrics)
                    f(v, OJson::object(), m);
            return;
        }
        std::string m = metrics.empty() ? "elapsed_s" : metrics.front();
        for (auto& p : sc.points())
            for (auto& v : sc.variantNames())
                f(v, p, m);
    }

    // A table as rows of cells, with a caption line above it when it has one; rendered as aligned text or as
    // markdown.
    struct Table {
        std::string caption;
        std::vector<std::string> header;
        std::vector<std::vector<std::string>> rows;
    };

    // A metric's column heading: "(scaled)" when its figures grow with the scale and the scale is not 1.
    std::string metricLabel(const std::string& m, double scale) { return comparableToPost(m, scale) ? m : m + " (scaled)"; }

    std::string pointCell(const Scenario& sc, const OJson& p)
    {
        return sc.axes().size() == 1 ? p.begin().value().dump() : pointLabel(p);
    }

    // The absolute figures. Rows: variants (no sweep) or points (with a sweep); columns: metric x (sim, post,
    // distance) or variant x (sim, post). The distance to the post's absolute figure is shown only where the two
    // compare (comparableToPost): at scale 1, or for a scale-free metric.
    Table buildTable(const ResultSet& rs, const Scenario& sc)
    {
        Table t;
        std::vector<std::string> metrics = sc.metrics();
        std::vector<OJson> points = sc.points();
        bool sweep = !sc.axes().empty();
        if (!sweep) {
            t.header.push_back("variant");
            for (auto& m : metrics) {
                t.header.push_back(metricLabel(m, rs.scale));
                t.header.push_back("post");
                if (comparableToPost(m, rs.scale))
                    t.header.push_back("vs post");
            }
            for (auto& v : sc.variantNames()) {
                std::vector<std::string> row { v };
                for (auto& m : metrics) {
                    Cell c = tableCell(rs, sc, v, OJson::object(), m);
                    row.push_back(simText(c, m));
                    row.push_back(c.published ? formatNumber(*c.published, m) : "");
                    if (comparableToPost(m, rs.scale))
                        row.push_back(distance(c));
                }
                t.rows.push_back(row);
            }
            return t;
        }
        std::string m = metrics.empty() ? "elapsed_s" : metrics.front();
        t.caption = metricLabel(m, rs.scale) + ":";
        t.header.push_back(sc.axes().size() == 1 ? sc.axes().front() : "point");
        for (auto& v : sc.variantNames()) {
            t.header.push_back(v);
            t.header.push_back("post");
        }
        for (auto& p : points) {
            std::vector<std::string> row { pointCell(sc, p) };
            for (auto& v : sc.variantNames()) {
                Cell c = tableCell(rs, sc, v, p, m);
                row.push_back(simText(c, m));
                row.push_back(c.published ? formatNumber(*c.published, m) : "");
            }
            t.rows.push_back(row);
        }
        return t;
    }

    // The ratios (run/ratio.h) in the table's cells, in the order buildRatioTable() shows them: every variant
    // but the baseline, with the table's metrics (no sweep) or its first metric at every point (a sweep).
    template <typename F>
    void forEachRatioCell(const Scenario& sc, F&& f)
    {
        std::string base = sc.baseline();
        forEachTableCell(sc, [&](const std::string& v, const OJson& p, const std::string& m) {
            if (v != base)
                f(v, p, m);
        });
    }

    void pushRatio(std::vector<std::string>& row, const Ratio& r)
    {
        row.push_back(r.sim ? formatRatio(*r.sim) : "-");
        row.push_back(r.post ? formatRatio(*r.post) : "");
        row.push_back(r.distancePercent ? formatPercent(*r.distancePercent) : "");
    }

    // Each variant's ratio to the baseline beside the post's ratio and the distance between them. Rows: variants
    // but the baseline (no sweep) or points (a sweep); columns: metric x (ratio, post, vs post) or variant x
    // (ratio, post, vs post). Empty when the scenario has one variant.
    Table buildRatioTable(const ResultSet& rs, const Scenario& sc)
    {
        Table t;
        std::vector<std::string> variants = sc.variantNames();
        std::string base = sc.baseline();
        variants.erase(std::remove(variants.begin(), variants.end(), base), variants.end());
        if (variants.empty())
            return t;
        std::vector<std::string> metrics = sc.metrics();
        if (sc.axes().empty()) {
            t.caption = "ratio to " + base + " (variant / " + base + "), beside the post's same ratio:";
            t.header.push_back("variant");
            for (auto& m : metrics) {
                t.header.push_back(m + " ratio");
                t.header.push_back("post");
                t.header.push_back("vs post");
            }
            for (auto& v : variants) {
                std::vector<std::string> row { v };
                for (auto& m : metrics)
                    pushRatio(row, tableRatio(rs, sc, v, OJson::object(), m));
                t.rows.push_back(row);
            }
            return t;
        }
        std::string m = metrics.empty() ? "elapsed_s" : metrics.front();
        std::string axis = sc.axes().size() == 1 ? sc.axes().front() : "point";
        t.caption = m + " ratio to " + base + " at the same " + axis + " (variant / " + base + "), beside the post's same ratio:";
        t.header.push_back(axis);
        for (auto& v : variants) {
            t.header.push_back(v);
            t.header.push_back("post");
            t.header.push_back("vs post");
        }
        for (auto& p : sc.points()) {
            std::vector<std::string> row { pointCell(sc, p) };
            for (auto& v : variants)
                pushRatio(row, tableRatio(rs, sc, v, p, m));
            t.rows.push_back(row);
        }
        return t;
    }

    std::string renderText(const Table& t)
    {
        std::vector<std::size_t> w(t.header.size(), 0);
        auto fit = [&](const std::vector<std::string>& r) {
            for (std::size_t i = 0; i < r.size(); ++i)
                w[i] = std::max(w[i], r[i].size());
        };
        fit(t.header);
        for (auto& r : t.rows)
            fit(r);
        std::ostringstream o;
        if (!t.caption.empty())
            o << t.caption << "\n";
        auto line = [&](const std::vector<std::string>& r) {
            std::string s;
            for (std::size_t i = 0; i < r.size(); ++i) {
                std::string cell = r[i];
                if (i == 0)
                    s += cell + std::string(w[i] - cell.size(), ' ');
                else
                    s += "  " + std::string(w[i] - cell.size(), ' ') + cell;
            }
            while (!s.empty() && s.back() == ' ')
                s.pop_back();
            o << s << "\n";
        };
        line(t.header);
        for (auto& r : t.rows)
            line(r);
        return o.str();
    }

    std::string renderMarkdown(const Table& t)
    {
        std::ostringstream o;
        if (!t.caption.empty())
            o << t.caption << "\n\n";
        auto line = [&](const std::vector<std::string>& r) {
            o << "|";
            for (auto& c : r)
                o << " " << c << " |";
            o << "\n";
        };
        line(t.header);
        o << "|";
        for (std::size_t i = 0; i < t.header.size(); ++i)
            o << (i == 0 ? " --- |" : " ---: |");
        o << "\n";
        for (auto& r : t.rows)
            line(r);
        return o.str();
    }

    std::string heading(const ResultSet& rs, const Scenario& sc)
    {
        std::ostringstream o;
        o << sc.id() << ": " << sc.title() << "\n";
        std::string seedFile = sc.json()["source"]["seed"];
        if (!seedFile.empty())
            o << "source: seeds/" << seedFile << " (" << sc.json()["source"]["measured"].get<std::string>() << ")\n";
        o << "scale " << rs.scale;
        if (sc.faithfulScale() < 1.0 && rs.scale >= sc.faithfulScale())
            o << " (faithful from " << sc.faithfulScale() << ")";
        o << ", seed " << rs.seed << ", " << sc.reps() << " repetition" << (sc.reps() > 1 ? "s" : "")
          << ", mmscope " << rs.engineVersion << "\n";
        if (rs.scale != 1.0)
            o << "note: sizes and work are scaled by " << rs.scale
              << "; published figures are for scale 1: figures marked (scaled) grow with the scale, their ratios do not\n";
        if (rs.scale < sc.faithfulScale())
            o << "warning: below this scenario's faithful scale " << sc.faithfulScale()
              << ": its ratios may be more than 10 % from those at scale 1\n";
        return o.str();
    }

    std::string lockText(const ResultSet& rs)
    {
        // The most contended locks of the first run of each variant, like a /proc/lock_stat excerpt.
        std::ostringstream o;
        std::vector<std::string> seen;
        for (const RunResult& r : rs.results) {
            if (std::find(seen.begin(), seen.end(), r.variant) != seen.end())
                continue;
            seen.push_back(r.variant);
            std::vector<LockSummary> locks = r.locks;
            std::sort(locks.begin(), locks.end(), [](const LockSummary& a, const LockSummary& b) {
                return a.waitTotal != b.waitTotal ? a.waitTotal > b.waitTotal : a.name < b.name;
            });
            o << "\nlockstat, " << r.variant << (r.point.empty() ? "" : " " + pointLabel(r.point)) << ":\n";
            char buf[256];
            std::snprintf(buf, sizeof buf, "%-28s %12s %12s %14s %14s\n", "class name", "contentions", "acquisitions", "waittime-total", "holdtime-total");
            o << buf;
            for (std::size_t i = 0; i < std::min<std::size_t>(5, locks.size()); ++i) {
                const LockSummary& l = locks[i];
                std::snprintf(buf, sizeof buf, "%-28s %12llu %12llu %12.2f s %12.2f s\n", l.name.c_str(),
                    static_cast<unsigned long long>(l.contentions), static_cast<unsigned long long>(l.acquisitions),
                    toSec(l.waitTotal), toSec(l.holdTotal));
                o << buf;
            }
        }
        return o.str();
    }

    std::string renderCsv(const ResultSet& rs, const Scenario& sc)
    {
        std::ostringstream o;
        std::vector<std::string> metrics = sc.metrics();
        o << "variant";
        for (auto& a : sc.axes())
            o << "," << a;
        o << ",rep";
        for (auto& m : metrics)
            o << "," << m;
        for (auto& m : metrics)
            o << ",post_" << m;
        o << "\n";
        for (const RunResult& r : rs.results) {
            o << r.variant;
            for (auto& a : sc.axes())
                o << "," << (r.point.contains(a) ? r.point[a].dump() : "");
            o << "," << r.rep;
            for (auto& m : metrics) {
                auto it = r.metrics.find(m);
                o << ",";
                if (it != r.metrics.end())
                    o << std::setprecision(10) << it->second;
            }
            for (auto& m : metrics) {
                auto p = publishedValue(sc, r.variant, r.point, m);
                o << ",";
                if (p)
                    o << std::setprecision(10) << *p;
            }
            o << "\n";
        }
        return o.str();
    }

    // compare-kernels: `<Stat> <op>` then per variant `%12.2f (%6.2f%%)`, the first variant the baseline.
    std::string renderMmtests(const ResultSet& rs, const Scenario& sc)
    {
        std::ostringstream o;
        std::vector<std::string> variants = sc.variantNames();
        std::string op = sc.json()["table"].value("mmtests_op", std::string());
        char buf[128];
        std::string h1 = std::string(28, ' '), h2 = std::string(28, ' ');
        for (auto& v : variants) {
            auto dash = v.find('-');
            std::snprintf(buf, sizeof buf, "%22s", v.substr(0, dash).c_str());
            h1 += buf;
            std::snprintf(buf, sizeof buf, "%22s", dash == std::string::npos ? "" : v.substr(dash + 1).c_str());
            h2 += buf;
        }
        auto trim = [](std::string s) {
            while (!s.empty() && s.back() == ' ')
                s.pop_back();
            return s;
        };
        o << trim(h1) << "\n" << trim(h2) << "\n";
        std::string stat = sc.reps() > 1 ? "Amean" : "";
        auto opName = [&](const std::string& m, const OJson& p) {
            std::string name = op.empty() ? m : op;
            for (auto& [k, v] : p.items())
                name += "-" + (v.is_string() ? v.get<std::string>() : v.dump());
            return name;
        };
        // One run per point and a workfile op (reaim): the rows as the posts paste them, `<op>` padded to the
        // widest op and the columns right after it ("new_fserver-61     21456.59 (  0.00%)    35875.59 ( 67.20%)").
        bool pasted = stat.empty() && !op.empty();
        std::size_t opWidth = 0;
        for (auto& m : sc.metrics())
            for (auto& p : sc.points())
                opWidth = std::max(opWidth, opName(m, p).size());
        for (auto& m : sc.metrics()) {
            if (pasted && m != sc.metrics().front())
                break; // the op names the first metric only
            for (auto& p : sc.points()) {
                std::string name = opName(m, p);
                if (pasted)
                    std::snprintf(buf, sizeof buf, "%-*s", static_cast<int>(opWidth), name.c_str());
                else
                    std::snprintf(buf, sizeof buf, "%-6s %-21s", stat.c_str(), name.c_str());
                std::string row = buf;
                double base = tableCell(rs, sc, variants.front(), p, m).mean;
                for (std::size_t i = 0; i < variants.size(); ++i) {
                    double val = tableCell(rs, sc, variants[i], p, m).mean;
                    double pct = 0;
                    if (i > 0 && base != 0)
                        pct = lowerIsBetter(m) ? 100.0 - val * 100.0 / base : val * 100.0 / base - 100.0;
                    std::snprintf(buf, sizeof buf, pasted ? "%12.2f (%6.2f%%)" : " %12.2f (%6.2f%%)", val, pct);
                    row += buf;
                }
                o << trim(row) << "\n";
            }
        }
        return o.str();
    }
} // namespace

namespace {
    // Accumulates |distance| in % over cells into a PostDistance.
    struct DistanceSum {
        PostDistance d;
        double sum = 0;
        void add(double pct, const std::string& v, const OJson& p, const std::string& m)
        {
            pct = std::fabs(pct);
            sum += pct;
            ++d.cells;
            if (pct > d.maxAbsPercent || d.cells == 1) {
                d.maxAbsPercent = pct;
                d.worst = v + " " + (p.empty() ? m : pointLabel(p));
            }
        }
        PostDistance done()
        {
            if (d.cells)
                d.meanAbsPercent = sum / d.cells;
            return d;
        }
    };
} // namespace

PostDistance distanceToPost(const ResultSet& rs, const Scenario& sc)
{
    DistanceSum s;
    forEachTableCell(sc, [&](const std::string& v, const OJson& p, const std::string& m) {
        Cell c = tableCell(rs, sc, v, p, m);
        if (!c.published || *c.published == 0 || c.n == 0 || !comparableToPost(m, rs.scale))
            return;
        s.add((c.mean / *c.published - 1.0) * 100.0, v, p, m);
    });
    return s.done();
}

PostDistance ratioDistanceToPost(const ResultSet& rs, const Scenario& sc)
{
    DistanceSum s;
    forEachRatioCell(sc, [&](const std::string& v, const OJson& p, const std::string& m) {
        Ratio r = tableRatio(rs, sc, v, p, m);
        if (r.distancePercent)
            s.add(*r.distancePercent, v, p, m);
    });
    return s.done();
}

std::string formatTable(const ResultSet& rs, const Scenario& sc)
{
    std::string text = heading(rs, sc) + "\n" + renderText(buildTable(rs, sc));
    Table ratios = buildRatioTable(rs, sc);
    if (!ratios.header.empty())
        text += "\n" + renderText(ratios);
    return text;
}

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
        rs.results.push_back(std::move(r));
    }
    if (doc.contains("host")) {
        rs.wallSeconds = doc["host"].value("wall_s", 0.0);
        rs.threads = doc["host"].value("threads", 0);
    }
    rs.cancelled = doc.value("cancelled", false);
    return rs;
}

std::string formatResults(const ResultSet& rs, const Scenario& sc, Format f)
{
    switch (f) {
    case Format::Text:
        return formatTable(rs, sc) + lockText(rs);
    case Format::Markdown: {
        std::ostringstream scale; // as the text heading writes it: 0.05, not 0.050
        scale << rs.scale;
        std::string md = "**" + sc.id() + "**: " + sc.title() + " (scale " + scale.str() + ", seed " + std::to_string(rs.seed) + ")\n\n"
            + renderMarkdown(buildTable(rs, sc));
        Table ratios = buildRatioTable(rs, sc);
        if (!ratios.header.empty())
            md += "\n" + renderMarkdown(ratios);
        return md;
    }
    case Format::Csv:
        return renderCsv(rs, sc);
    case Format::Json:
        return resultsToJson(rs, sc.baseline()).dump(2) + "\n";
    case Format::Mmtests:
        return renderMmtests(rs, sc);
    }
    return {};
}

} // namespace mms
