#include "run/reproduce.h"

#include "run/render.h"

#include <cstdio>
#include <sstream>

namespace mms {

namespace {
    std::string distanceLine(const char* what, const PostDistance& d)
    {
        char buf[200];
        if (d.cells)
            std::snprintf(buf, sizeof buf, "distance to the post%s: %d cells, mean |%.1f%%|, largest %.1f%% (%s)\n", what, d.cells,
                d.meanAbsPercent, d.maxAbsPercent, d.worst.c_str());
        else
            std::snprintf(buf, sizeof buf, "distance to the post%s: no published figure to compare\n", what);
        return buf;
    }

    std::string summaryCells(const PostDistance& d)
    {
        char buf[64];
        if (d.cells)
            std::snprintf(buf, sizeof buf, " %6d %9.1f%% %9.1f%%", d.cells, d.meanAbsPercent, d.maxAbsPercent);
        else
            std::snprintf(buf, sizeof buf, " %6d %10s %10s", 0, "-", "-");
        return buf;
    }
} // namespace

std::string formatReproduced(const ReproduceRow& row, const ResultSet& rs, const Scenario& sc)
{
    std::ostringstream text;
    text << formatTable(rs, sc);
    text << distanceLine("", row.d) << distanceLine("'s ratios", row.ratios);
    char buf[160];
    std::snprintf(buf, sizeof buf, "wall time: %.2f s (%zu runs, %d threads)\n\n", rs.wallSeconds, row.runs, rs.threads);
    text << buf;
    return text.str();
}

std::string formatNotRun(const ReproduceRow& row) { return row.id + ": not run: " + row.failed + "\n\n"; }

std::string formatReproduceSummary(const std::vector<ReproduceRow>& rows, double scale, double totalWallSeconds)
{
    std::ostringstream o;
    char buf[240];
    // "cells": the absolute figures compared with the post's; "ratios": the ratios compared with the post's.
    std::snprintf(buf, sizeof buf, "summary (scale %g)\n%-24s %6s %10s %6s %10s %10s %6s %10s %10s\n", scale, "scenario", "runs",
        "wall s", "cells", "mean |vs|", "max |vs|", "ratios", "mean |vs|", "max |vs|");
    o << buf;
    int failed = 0;
    for (const ReproduceRow& row : rows) {
        if (!row.failed.empty()) {
            ++failed;
            std::snprintf(buf, sizeof buf, "%-24s %6zu %10s\n", row.id.c_str(), row.runs, "failed");
            o << buf;
            continue;
        }
        std::snprintf(buf, sizeof buf, "%-24s %6zu %10.2f", row.id.c_str(), row.runs, row.wall);
        o << buf << summaryCells(row.d) << summaryCells(row.ratios) << "\n";
    }
    std::snprintf(buf, sizeof buf, "total wall time: %.2f s for %zu scenarios%s\n", totalWallSeconds, rows.size(),
        failed ? (", " + std::to_string(failed) + " failed").c_str() : "");
    o << buf;
    return o.str();
}

} // namespace mms
