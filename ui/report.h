#pragma once
// The whole-run report (scenario, parameters, seed, version, tables, charts) as HTML or PDF. Shared by the desktop
// app and `mmscope-cli report`; works headlessly (it starts an offscreen QGuiApplication when none exists).

#include "run/result.h"

#include <string>

namespace mms {

// Writes FILE.html or FILE.pdf (chosen by the extension). Returns false with a message in `error` on failure.
bool writeReport(const Scenario& sc, const ResultSet& rs, const std::string& path, std::string& error);
// What writeReport() checks of `path` before it renders anything (a .html, .htm or .pdf name in a folder it can
// write), for a caller to check before the run: false with the message in `error`.
bool checkReportPath(const std::string& path, std::string& error);

} // namespace mms
