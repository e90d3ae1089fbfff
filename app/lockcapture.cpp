#include "lockcapture.h"

#include "run/json.h"
#include "run/render.h"
#include "run/runner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace mms::cli {

namespace {
    std::vector<std::string> words(const std::string& line)
    {
        std::vector<std::string> w;
        std::istringstream in(line);
        for (std::string s; in >> s;)
            w.push_back(s);
        return w;
    }

    std::string trim(const std::string& s)
    {
        const auto b = s.find_first_not_of(" \t\r");
        if (b == std::string::npos)
            return {};
        return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
    }

    // A line of one repeated character ("-----", "....."): lock_stat's separators.
    bool ruleOf(const std::string& t, char c) { return !t.empty() && t.find_first_not_of(c) == std::string::npos; }

    std::string quoted(const std::string& s) { return "'" + (s.size() > 80 ? s.substr(0, 77) + "..." : s) + "'"; }

    // A non-negative decimal number, the whole of `s`.
    bool number(const std::string& s, double& v)
    {
        if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0]))))
            return false;
        try {
            std::size_t used = 0;
            v = std::stod(s, &used);
            return used == s.size() && std::isfinite(v);
        } catch (...) {
            return false;
        }
    }

    class Lines {
    public:
        Lines(const std::string& text, const std::string& origin)
            : m_in(text)
            , m_origin(origin)
        {
        }
        bool next(std::string& line)
        {
            if (!std::getline(m_in, line))
                return false;
            ++m_no;
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            return true;
        }
        [[noreturn]] void fail(const std::string& what) const
        {
            throw CaptureError(m_origin + ":" + std::to_string(m_no) + ": " + what);
        }

    private:
        std::istringstream m_in;
        std::string m_origin;
        int m_no = 0;
    };

    // Rows of one name (a lock class in several lines, a lock from several callers) summed: counts and totals add,
    // minima and maxima keep the extreme.
    void add(std::vector<LockSummary>& locks, const LockSummary& l)
    {
        auto it = std::find_if(
            locks.begin(), locks.end(), [&](const LockSummary& o) { return o.name == l.name && o.kind == l.kind; });
        if (it == locks.end()) {
            locks.push_back(l);
            return;
        }
        auto minOf = [](Time a, Time b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); };
        it->instances += l.instances;
        it->acquisitions += l.acquisitions;
        it->contentions += l.contentions;
        it->conBounces += l.conBounces;
        it->acqBounces += l.acqBounces;
        it->waitMin = minOf(it->waitMin, l.waitMin);
        it->waitMax = std::max(it->waitMax, l.waitMax);
        it->waitTotal += l.waitTotal;
        it->holdMin = minOf(it->holdMin, l.holdMin);
        it->holdMax = std::max(it->holdMax, l.holdMax);
        it->holdTotal += l.holdTotal;
    }

    void sortByName(std::vector<LockSummary>& locks)
    {
        std::stable_sort(
            locks.begin(), locks.end(), [](const LockSummary& a, const LockSummary& b) { return a.name < b.name; });
    }

    std::uint64_t count(double v) { return static_cast<std::uint64_t>(std::llround(v)); }
} // namespace

// ---- /proc/lock_stat

LockCapture parseLockStat(const std::string& text, const std::string& origin)
{
    static const std::vector<std::string> known
        = { "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total", "waittime-avg",
              "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total", "holdtime-avg" };
    Lines in(text, origin);
    std::string line;
    if (!in.next(line) || trim(line).rfind("lock_stat version ", 0) != 0)
        in.fail("expected 'lock_stat version 0.4' (the first line of /proc/lock_stat), got " + quoted(trim(line)));
    const std::string version = trim(line).substr(18);
    if (version != "0.3" && version != "0.4")
        in.fail("lock_stat version " + version + ": expected version 0.3 or 0.4 (Documentation/locking/lockstat.rst)");
    std::vector<std::string> columns;
    LockCapture c;
    c.source = "/proc/lock_stat";
    while (in.next(line)) {
        const std::string t = trim(line);
        if (t.empty() || ruleOf(t, '-') || ruleOf(t, '.'))
            continue;
        if (t.rfind("class name", 0) == 0) {
            columns = words(t.substr(10));
            for (const std::string& col : columns)
                if (std::find(known.begin(), known.end(), col) == known.end())
                    in.fail("column " + quoted(col)
                        + ": expected the columns of lock_stat 0.3/0.4 (con-bounces, contentions, waittime-min, ...)");
            continue;
        }
        if (t.find("[<") != std::string::npos) // a contention point: count, [<ip>] symbol
            continue;
        if (columns.empty())
            in.fail(
                "expected the header line 'class name  con-bounces  contentions ...' before the first lock class, got "
                + quoted(t));
        const auto colon = t.rfind(':');
        const std::vector<std::string> values
            = colon == std::string::npos ? std::vector<std::string> {} : words(t.substr(colon + 1));
        if (colon == std::string::npos || colon == 0 || values.size() != columns.size())
            in.fail("expected a lock class line, 'NAME:' and " + std::to_string(columns.size())
                + " numbers, or a contention point '[<ip>] symbol', got " + quoted(t));
        LockSummary l;
        l.name = trim(t.substr(0, colon));
        l.instances = 1;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            double v = 0;
            if (!number(values[i], v))
                in.fail(l.name + ": " + columns[i] + ": expected a number, got " + quoted(values[i]));
            const Time us = ns(v * 1000.0); // lock_stat's times are in microseconds
            const std::string& col = columns[i];
            if (col == "con-bounces")
                l.conBounces = count(v);
            else if (col == "contentions")
                l.contentions = count(v);
            else if (col == "acq-bounces")
                l.acqBounces = count(v);
            else if (col == "acquisitions")
                l.acquisitions = count(v);
            else if (col == "waittime-min")
                l.waitMin = us;
            else if (col == "waittime-max")
                l.waitMax = us;
            else if (col == "waittime-total")
                l.waitTotal = us;
            else if (col == "holdtime-min")
                l.holdMin = us;
            else if (col == "holdtime-max")
                l.holdMax = us;
            else if (col == "holdtime-total")
                l.holdTotal = us;
        }
        add(c.locks, l);
    }
    if (c.locks.empty())
        throw CaptureError(origin
            + ": no lock classes: expected lines such as '&mm->mmap_lock-W: 46 84 0.26 ...' (is CONFIG_LOCK_STAT on, "
              "and "
              "was /proc/sys/kernel/lock_stat 1 while the workload ran?)");
    sortByName(c.locks);
    c.measured = { "acquisitions", "contentions", "con_bounces", "acq_bounces", "wait_min_ns", "wait_max_ns",
        "wait_total_ns", "hold_min_ns", "hold_max_ns", "hold_total_ns" };
    return c;
}

// ---- perf lock contention / perf lock report

namespace {
    enum class Col { Acquired, Contended, WaitTotal, WaitMax, WaitMin, WaitAvg };

    struct PerfHeader {
        bool report = false; // `perf lock report` (Name first) rather than `perf lock contention`
        std::vector<Col> numeric; // in the order printed
        std::vector<std::string> labels; // contention's trailing columns: type caller, address symbol, pid comm ...
    };

    const char* colName(Col c)
    {
        switch (c) {
        case Col::Acquired:
            return "acquired";
        case Col::Contended:
            return "contended";
        case Col::WaitTotal:
            return "total wait";
        case Col::WaitMax:
            return "max wait";
        case Col::WaitMin:
            return "min wait";
        case Col::WaitAvg:
            return "avg wait";
        }
        return "";
    }

    // The header, or false when the line is not one.
    bool readHeader(const std::string& t, PerfHeader& h)
    {
        std::vector<std::string> w = words(t);
        if (w.empty() || (w[0] != "contended" && w[0] != "Name"))
            return false;
        h = {};
        h.report = w[0] == "Name";
        for (std::size_t i = h.report ? 1 : 0; i < w.size(); ++i) {
            const std::string& a = w[i];
            const std::string b = i + 1 < w.size() ? w[i + 1] : std::string();
            if (a == "(ns)")
                continue;
            if (a == "acquired")
                h.numeric.push_back(Col::Acquired);
            else if (a == "contended")
                h.numeric.push_back(Col::Contended);
            else if (b == "wait" && (a == "total" || a == "max" || a == "min" || a == "avg")) {
                h.numeric.push_back(a == "total" ? Col::WaitTotal
                        : a == "max"             ? Col::WaitMax
                        : a == "min"             ? Col::WaitMin
                                                 : Col::WaitAvg);
                ++i;
            } else
                h.labels.push_back(a);
        }
        return !h.numeric.empty();
    }

    // A time cell: "1.23 us" (a unit each, perf 6.x) or a plain number of ns ("(ns)" headers of older perf).
    bool unitOf(const std::string& u, double& scale)
    {
        static const std::map<std::string, double> units
            = { { "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
        auto it = units.find(u);
        if (it == units.end())
            return false;
        scale = it->second;
        return true;
    }

    void store(LockSummary& l, Col c, double v)
    {
        switch (c) {
        case Col::Acquired:
            l.acquisitions = count(v);
            break;
        case Col::Contended:
            l.contentions = count(v);
            break;
        case Col::WaitTotal:
            l.waitTotal = ns(v);
            break;
        case Col::WaitMax:
            l.waitMax = ns(v);
            break;
        case Col::WaitMin:
            l.waitMin = ns(v);
            break;
        case Col::WaitAvg:
            break; // total / contended: derived
        }
    }
} // namespace

LockCapture parsePerfLock(const std::string& text, const std::string& origin)
{
    Lines in(text, origin);
    std::string line;
    PerfHeader h;
    bool haveHeader = false, sawAvgOnly = false;
    LockCapture c;
    std::vector<std::pair<LockSummary, double>> avgs; // rows with an average but no total
    while (in.next(line)) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        if (t.rfind("===", 0) == 0) // perf's debug summary ("=== output for debug ===") ends the table
            break;
        if (!haveHeader) {
            if (!readHeader(t, h))
                in.fail("expected the header of perf lock contention ('contended   total wait   max wait   avg wait   "
                        "type   caller') or of perf "
                        "lock report ('Name   acquired   contended   avg wait ...'), got "
                    + quoted(t));
            haveHeader = true;
            continue;
        }
        std::vector<std::string> w = words(t);
        LockSummary l;
        l.instances = 1;
        std::vector<double> values(h.numeric.size());
        std::size_t next = 0; // contention: numbers from the left, then the labels
        if (h.report) {
            // The name may hold spaces; the numbers are read from the right.
            std::size_t end = w.size();
            for (std::size_t k = h.numeric.size(); k-- > 0;) {
                const Col col = h.numeric[k];
                double scale = 1, v = 0;
                const bool isTime = col != Col::Acquired && col != Col::Contended;
                if (isTime && end >= 2 && unitOf(w[end - 1], scale))
                    --end;
                if (end < 2 || !number(w[end - 1], v))
                    in.fail(std::string("expected '") + colName(col) + "' as a number"
                        + (isTime ? " (of ns, or with a unit: ns, us, ms, s)" : "") + " after the lock's name, got "
                        + quoted(t));
                values[k] = v * scale;
                --end;
            }
            for (std::size_t i = 0; i < end; ++i)
                l.name += (i ? " " : "") + w[i];
        } else {
            for (std::size_t k = 0; k < h.numeric.size(); ++k) {
                const Col col = h.numeric[k];
                double v = 0, scale = 1;
                if (next >= w.size() || !number(w[next], v))
                    in.fail(std::string("expected '") + colName(col) + "' as a number, got " + quoted(t));
                ++next;
                if (col != Col::Contended && next < w.size() && unitOf(w[next], scale))
                    ++next;
                values[k] = v * scale;
            }
            std::vector<std::string> rest(w.begin() + static_cast<std::ptrdiff_t>(next), w.end());
            if (rest.empty())
                in.fail("expected the lock's " + (h.labels.empty() ? std::string("name") : h.labels.back())
                    + " after the numbers, got " + quoted(t));
            // "type caller": the type is one word, the caller the rest; "address symbol", "pid comm" alike.
            if (h.labels.size() >= 2 && rest.size() >= 2) {
                if (h.labels[0] == "type")
                    l.kind = rest[0];
                rest.erase(rest.begin());
            }
            for (std::size_t i = 0; i < rest.size(); ++i)
                l.name += (i ? " " : "") + rest[i];
        }
        bool total = false;
        double avg = -1;
        for (std::size_t k = 0; k < h.numeric.size(); ++k) {
            store(l, h.numeric[k], values[k]);
            total = total || h.numeric[k] == Col::WaitTotal;
            if (h.numeric[k] == Col::WaitAvg)
                avg = values[k];
        }
        if (!total && avg >= 0) { // -F without wait_total: the total is avg x contended
            l.waitTotal = ns(avg * static_cast<double>(l.contentions));
            sawAvgOnly = true;
        }
        add(c.locks, l);
    }
    if (!haveHeader)
        throw CaptureError(origin + ": empty: expected the output of perf lock contention or perf lock report");
    if (c.locks.empty())
        throw CaptureError(
            origin + ": no locks under the header: expected one line per lock (did perf record any lock event?)");
    sortByName(c.locks);
    c.source = h.report ? "perf lock report" : "perf lock contention";
    for (Col col : h.numeric)
        switch (col) {
        case Col::Acquired:
            c.measured.push_back("acquisitions");
            break;
        case Col::Contended:
            c.measured.push_back("contentions");
            break;
        case Col::WaitTotal:
            c.measured.push_back("wait_total_ns");
            break;
        case Col::WaitMax:
            c.measured.push_back("wait_max_ns");
            break;
        case Col::WaitMin:
            c.measured.push_back("wait_min_ns");
            break;
        case Col::WaitAvg:
            break;
        }
    if (sawAvgOnly)
        c.measured.push_back("wait_total_ns");
    return c;
}

OJson captureToJson(const LockCapture& c, const std::string& label, const std::string& file)
{
    ResultSet rs;
    rs.scenario = "capture";
    rs.engineVersion = engineVersion();
    RunResult r;
    r.variant = label;
    r.locks = c.locks;
    double contentions = 0, wait = 0;
    for (const LockSummary& l : c.locks) {
        contentions += static_cast<double>(l.contentions);
        wait += toNs(l.waitTotal);
    }
    r.metrics["lock_contentions"] = contentions;
    r.metrics["lock_wait_total_s"] = wait / 1e9;
    rs.results.push_back(std::move(r));
    OJson j = resultsToJson(rs);
    j.erase("host");
    j["capture"] = OJson { { "source", c.source }, { "file", file }, { "measured", c.measured } };
    j["host"] = OJson::object();
    return j;
}

} // namespace mms::cli
