#include "firstview.h"

#include "run/recording.h"
#include "run/table.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mms {

namespace {
    bool endsWith(const std::string& s, const std::string& tail)
    {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    }

    int runIndex(const ResultSet& rs, const std::string& variant, const OJson& point)
    {
        int best = -1;
        for (std::size_t i = 0; i < rs.results.size(); ++i) {
            const RunResult& r = rs.results[i];
            if (r.variant == variant && r.point == point && (best < 0 || r.rep < rs.results[std::size_t(best)].rep))
                best = int(i);
        }
        return best;
    }

    // The first event of the most telling kind the recording has (events() is in time order).
    const InterestingEvent* tellingEvent(const Recording& rec)
    {
        for (const char* kind : { "first-swapin", "first-contention", "reclaim-starts", "oom-kill" })
            for (const InterestingEvent& e : rec.events())
                if (e.kind == kind)
                    return &e;
        return rec.events().empty() ? nullptr : &rec.events().front();
    }

    // The frame with the fewest free pages: where the page map shows the most.
    std::size_t fullestFrame(const Recording& rec)
    {
        std::size_t best = 0;
        std::uint64_t fewest = std::numeric_limits<std::uint64_t>::max();
        for (std::size_t f = 0; f < rec.frameCount(); ++f) {
            const std::uint64_t free = rec.stateCounts(f)[std::size_t(PageMapState::Free)];
            if (free < fewest) {
                fewest = free;
                best = f;
            }
        }
        return best;
    }
} // namespace

std::string headlineMetric(const Scenario& sc)
{
    const std::vector<std::string> metrics = sc.metrics();
    for (const std::string& m : metrics)
        if (m == "elapsed_s" || m == "throughput" || endsWith(m, "_per_s") || endsWith(m, "_per_min") || endsWith(m, "_mbps"))
            return m;
    return metrics.empty() ? std::string() : metrics.front();
}

FirstView chooseFirstView(const Scenario& sc, const ResultSet& rs)
{
    FirstView out;
    if (rs.results.empty())
        return out;
    const std::string metric = headlineMetric(sc);
    const std::string base = sc.baseline(); // as run/ratio.h
    std::vector<OJson> points = sc.points();
    if (points.empty())
        points.push_back(OJson::object());

    // Per point, each variant's distance from the baseline, |log(variant / baseline)| of the headline metric.
    struct Candidate {
        std::string variant;
        double distance;
    };
    OJson bestPoint = points.front();
    std::vector<Candidate> bestCandidates;
    double bestSpread = -1;
    for (const OJson& p : points) {
        const Cell b = tableCell(rs, sc, base, p, metric);
        std::vector<Candidate> candidates;
        for (const std::string& v : sc.variantNames()) {
            if (v == base)
                continue;
            const Cell c = tableCell(rs, sc, v, p, metric);
            if (c.n > 0 && b.n > 0 && c.mean > 0 && b.mean > 0)
                candidates.push_back({ v, std::abs(std::log(c.mean / b.mean)) });
            else if (c.n > 0)
                candidates.push_back({ v, 0.0 });
        }
        double spread = 0;
        for (const Candidate& c : candidates)
            spread = std::max(spread, c.distance);
        if (spread > bestSpread) {
            bestSpread = spread;
            bestPoint = p;
            bestCandidates = std::move(candidates);
        }
    }
    std::stable_sort(bestCandidates.begin(), bestCandidates.end(), [](const Candidate& a, const Candidate& b) { return a.distance > b.distance; });
    bestCandidates.push_back({ base, 0.0 }); // the baseline itself when it is the only variant, or the only one recorded

    out.baselineRun = runIndex(rs, base, bestPoint);
    for (const Candidate& c : bestCandidates) {
        const int i = runIndex(rs, c.variant, bestPoint);
        if (i < 0)
            continue;
        if (out.run < 0)
            out.run = i;
        const auto& rec = rs.results[std::size_t(i)].recording;
        if (const InterestingEvent* e = rec ? tellingEvent(*rec) : nullptr) {
            out.run = i;
            out.at = e->at;
            out.why = e->what;
            return out;
        }
    }
    if (out.run < 0)
        out.run = 0;
    if (const auto& rec = rs.results[std::size_t(out.run)].recording; rec && rec->frameCount() > 0) {
        out.at = rec->frameTime(fullestFrame(*rec));
        out.why = "most pages in use";
    }
    return out;
}

} // namespace mms
