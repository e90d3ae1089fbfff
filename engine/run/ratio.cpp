#include "run/ratio.h"

#include <cmath>
#include <cstdio>

namespace mms {

namespace {
    bool endsWith(const std::string& s, const char* tail)
    {
        std::string t(tail);
        return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
    }
} // namespace

bool scaleFree(const std::string& m)
{
    if (m.rfind("throughput", 0) == 0 || m.find("_per_") != std::string::npos)
        return true; // a rate, or a figure per page, per call, per test
    if (m.find("_call_") != std::string::npos || endsWith(m, "_entry_us") || endsWith(m, "_entry_ns"))
        return true; // the time of one call, of one entry
    if (m.rfind("cpu_busy_", 0) == 0)
        return true; // the busiest CPU's, the mean CPU's share of time busy
    return endsWith(m, "_mbps") || endsWith(m, "_share") || endsWith(m, "_busy") || endsWith(m, "ratio") || endsWith(m, "_fraction");
}

bool comparableToPost(const std::string& metric, double scale) { return scale == 1.0 || scaleFree(metric); }

Ratio tableRatio(const ResultSet& rs, const Scenario& sc, const std::string& variant, const OJson& point, const std::string& metric)
{
    Ratio r;
    r.baseline = sc.baseline();
    Cell c = tableCell(rs, sc, variant, point, metric);
    Cell b = tableCell(rs, sc, r.baseline, point, metric);
    if (c.n && b.n && b.mean != 0)
        r.sim = c.mean / b.mean;
    if (c.published && b.published && *b.published != 0)
        r.post = *c.published / *b.published;
    if (r.sim && r.post && *r.post != 0)
        r.distancePercent = (*r.sim / *r.post - 1.0) * 100.0;
    return r;
}

namespace {
    // Whether the post publishes a figure for `metric` anywhere in its table (a row's column, or the metric of
    // its sweep's columns).
    bool postPublishes(const Scenario& sc, const std::string& metric)
    {
        const OJson& pub = sc.published();
        if (pub.contains("columns") && pub.value("metric", "") == metric)
            return true;
        if (pub.contains("rows") && pub["rows"].is_array())
            for (const OJson& row : pub["rows"])
                if (row.is_object() && row.contains(metric) && row[metric].is_number())
                    return true;
        return false;
    }
} // namespace

std::vector<RatioKey> postRatios(const Scenario& sc)
{
    std::vector<std::string> metrics;
    for (const std::string& m : sc.metrics())
        if (postPublishes(sc, m))
            metrics.push_back(m);
    if (metrics.empty() && !sc.metrics().empty())
        metrics.push_back(sc.metrics().front());
    std::vector<RatioKey> keys;
    std::string base = sc.baseline();
    for (const OJson& p : sc.points())
        for (const std::string& v : sc.variantNames())
            if (v != base)
                for (const std::string& m : metrics)
                    keys.push_back({ v, p, m });
    return keys;
}

RatioDrift ratioDrift(const ResultSet& scaled, const ResultSet& full, const Scenario& sc)
{
    RatioDrift d;
    for (const RatioKey& k : postRatios(sc)) {
        Ratio a = tableRatio(scaled, sc, k.variant, k.point, k.metric);
        Ratio b = tableRatio(full, sc, k.variant, k.point, k.metric);
        if (!a.sim && !b.sim)
            continue; // neither run has it (a variant left out of both)
        ++d.ratios;
        double pct = a.sim && b.sim && *b.sim != 0 ? std::fabs(*a.sim / *b.sim - 1.0) * 100.0 : HUGE_VAL;
        if (a.sim && b.sim && std::fabs(*b.sim - 1.0) > 0.01 && (*a.sim > 1.0) != (*b.sim > 1.0))
            ++d.changedSides;
        if (d.ratios == 1 || pct > d.maxAbsPercent) {
            d.maxAbsPercent = pct;
            d.worst = k.variant + " " + (k.point.empty() ? std::string() : k.point.dump() + " ") + k.metric;
        }
    }
    return d;
}

std::string formatRatio(double v)
{
    char buf[64];
    double a = std::fabs(v);
    if (a >= 1000)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (a >= 100)
        std::snprintf(buf, sizeof buf, "%.1f", v);
    else if (a >= 10)
        std::snprintf(buf, sizeof buf, "%.2f", v);
    else
        std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::string formatPercent(double pct)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
    return buf;
}

} // namespace mms
