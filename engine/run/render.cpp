#include "run/render.h"

#include "run/json.h"
#include "run/table.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
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

namespace {
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

std::string formatTable(const ResultSet& rs, const Scenario& sc)
{
    std::string text = heading(rs, sc) + "\n" + renderText(figureTable(rs, sc));
    Table ratios = ratioTable(rs, sc);
    if (!ratios.header.empty())
        text += "\n" + renderText(ratios);
    return text;
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
            + renderMarkdown(figureTable(rs, sc));
        Table ratios = ratioTable(rs, sc);
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
