#include "run/table.h"

#include "run/ratio.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mms {

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

double sampleStddev(double sum, double sumSquares, int n)
{
    return n > 1 ? std::sqrt(std::max(0.0, (sumSquares - sum * sum / n) / (n - 1))) : 0.0;
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
        c.stddev = sampleStddev(sum, sq, c.n);
    }
    c.published = publishedValue(sc, variant, point, metric);
    const OJson& pub = sc.published();
    if (c.published && point.empty() && pub.contains("rows"))
        for (const OJson& row : pub["rows"])
            if (row.value("variant", "") == variant && row.contains(metric + "_sd"))
                c.publishedSd = row[metric + "_sd"].get<double>();
    return c;
}

std::string pointLabel(const OJson& p)
{
    std::string s;
    for (auto& [k, v] : p.items())
        s += (s.empty() ? "" : ",") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    return s;
}

namespace {
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

    // The cells of the table in the order figureTable() shows them: (variant, point, metric).
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

    // A metric's column heading: "(scaled)" when its figures grow with the scale and the scale is not 1.
    std::string metricLabel(const std::string& m, double scale) { return comparableToPost(m, scale) ? m : m + " (scaled)"; }

    std::string pointCell(const Scenario& sc, const OJson& p)
    {
        return sc.axes().size() == 1 ? p.begin().value().dump() : pointLabel(p);
    }

    // The ratios (run/ratio.h) in the table's cells, in the order ratioTable() shows them: every variant but the
    // baseline, with the table's metrics (no sweep) or its first metric at every point (a sweep).
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

Table figureTable(const ResultSet& rs, const Scenario& sc)
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

Table ratioTable(const ResultSet& rs, const Scenario& sc)
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

} // namespace mms
