// import: a lock capture from a real kernel (/proc/lock_stat, perf lock contention or report) written as a results
// document with one run, which the app opens beside a simulated run (File > Open lock capture, --capture).
#include "clicommand.h"
#include "cliinput.h"
#include "clioutput.h"
#include "lockcapture.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace mms::cli {

namespace {
    struct ImportOptions {
        std::vector<std::string> positionals; // KIND FILE
        std::string out, name;
    };

    std::string readCapture(const std::string& file)
    {
        std::error_code ec;
        if (std::filesystem::is_directory(file, ec))
            throw BadInput(file + ": cannot read (a directory; expected a capture file)");
        std::ifstream f(file, std::ios::binary);
        if (!f)
            throw BadInput(file + ": cannot read (" + std::string(std::strerror(errno)) + ")");
        std::ostringstream s;
        s << f.rdbuf();
        return s.str();
    }

    int importCapture(const ImportOptions& o, std::ostream& out)
    {
        if (o.positionals.empty())
            throw BadInput("import: expected lockstat or perf-lock, then the FILE of the capture");
        const std::string& kind = o.positionals[0];
        if (kind != "lockstat" && kind != "perf-lock")
            throw BadInput("import " + kind
                + ": expected lockstat (a copy of /proc/lock_stat) or perf-lock (the output of perf lock contention or "
                  "perf lock report)");
        if (o.positionals.size() != 2)
            throw BadInput("import " + kind + ": expected exactly one FILE");
        const std::string& file = o.positionals[1];
        const std::string text = readCapture(file);
        LockCapture c;
        try {
            c = kind == "lockstat" ? parseLockStat(text, file) : parsePerfLock(text, file);
        } catch (const CaptureError& e) {
            throw BadInput(e.what());
        }
        const std::string label = o.name.empty() ? std::filesystem::path(file).filename().string() : o.name;
        RunArgs r;
        r.out = o.out;
        emit(r, captureToJson(c, label, std::filesystem::path(file).filename().string()).dump(2) + "\n", out);
        return 0;
    }
} // namespace

void addImportCommand(CommandLine& cl)
{
    auto o = std::make_shared<ImportOptions>();
    Command& c = cl.add("import", "lockstat|perf-lock FILE [--out F.json] [--name NAME]",
        "a real kernel's lock capture as a result's lock table",
        "Read a lock capture from a real kernel and write it as a results document (the JSON of run --format json) "
        "with "
        "one run, whose lock table holds the capture: lockstat reads a copy of /proc/lock_stat (CONFIG_LOCK_STAT, "
        "format version 0.3 or 0.4; times in microseconds), perf-lock the output of perf lock contention (with or "
        "without -b; times with their unit) or of perf lock report. Rows of the same lock name are summed. Open the "
        "file in the desktop app (File > Open lock capture, or mmscope --capture FILE) to see it beside a simulated "
        "run's locks.\n\nA line the format does not allow is refused with the file, the line number and what was "
        "expected.");
    c.app->add_option("args", o->positionals, "lockstat or perf-lock, then the capture's file");
    addValue(c.app, "--out", o->out, "F.json", "write to F.json instead of standard output");
    addValue(c.app, "--name", o->name, "NAME", "the run's name in the app (default: the file's name)");
    c.run = [o](std::ostream& out, std::ostream&) { return importCapture(*o, out); };
}

} // namespace mms::cli
