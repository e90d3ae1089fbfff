#include "run/reproduce.h"

#include <cstdio>
#include <sstream>

namespace mms {

std::string formatReproduced(const ReproduceRow& row, const ResultSet& rs, const Scenario& sc)
{
    std::ostringstream text;
    text << formatTable(rs, sc);
    char buf[160];
    if (row.d.cells)
        std::snprintf(buf, sizeof buf, "distance to the post: %d cells, mean |%.1f%%|, largest %.1f%% (%s)\n", row.d.cells,
            row.d.meanAbsPercent, row.d.maxAbsPercent, row.d.worst.c_str());
    else
        std::snprintf(buf, sizeof buf, "distance to the post: no published figure to compare\n");
    text << buf;
    std::snprintf(buf, sizeof buf, "wall time: %.2f s (%zu runs, %d threads)\n\n", rs.wallSeconds, row.runs, rs.threads);
    text << buf;
    return text.str();
}

std::string formatNotRun(const ReproduceRow& row) { return row.id + ": not run: " + row.failed + "\n\n"; }

std::string formatReproduceSummary(const std::vector<ReproduceRow>& rows, double scale, double totalWallSeconds)
{
    std::ostringstream o;
    char buf[200];
    std::snprintf(buf, sizeof buf, "summary (scale %g)\n%-24s %6s %10s %7s %12s %12s\n", scale, "scenario", "runs", "wall s",
        "cells", "mean |vs|", "max |vs|");
    o << buf;
    int failed = 0;
    for (const ReproduceRow& row : rows) {
        if (!row.failed.empty()) {
            ++failed;
            std::snprintf(buf, sizeof buf, "%-24s %6zu %10s\n", row.id.c_str(), row.runs, "failed");
        } else if (row.d.cells)
            std::snprintf(buf, sizeof buf, "%-24s %6zu %10.2f %7d %11.1f%% %11.1f%%\n", row.id.c_str(), row.runs, row.wall,
                row.d.cells, row.d.meanAbsPercent, row.d.maxAbsPercent);
        else
            std::snprintf(buf, sizeof buf, "%-24s %6zu %10.2f %7d %12s %12s\n", row.id.c_str(), row.runs, row.wall, 0, "-", "-");
        o << buf;
    }
    std::snprintf(buf, sizeof buf, "total wall time: %.2f s for %zu scenarios%s\n", totalWallSeconds, rows.size(),
        failed ? (", " + std::to_string(failed) + " failed").c_str() : "");
    o << buf;
    return o.str();
}

} // namespace mms
