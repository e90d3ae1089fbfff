#pragma once
// Lock statistics captured on a real kernel, read into the results schema's lock table (run/result.h LockSummary),
// so that a capture opens beside a simulated run:
//  - `cat /proc/lock_stat` (CONFIG_LOCK_STAT; Documentation/locking/lockstat.rst, version 0.4): one line per lock
//    class and read/write state, times in microseconds; the contention points under each class are skipped.
//  - `perf lock contention [-b]` (tools/perf/Documentation/perf-lock.txt): contended, total/max/avg wait with a
//    unit each (ns, us, ms, s), then the lock type and the caller (or, with -l, the address and the symbol).
//  - `perf lock report`: Name, acquired, contended and the wait times, in ns or with a unit each.
// A capture has no simulated time: what it does not measure (perf's hold times, lock_stat's kinds) stays 0, and
// `measured` names the columns it did.

#include "run/result.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mms::cli {

enum class CaptureKind { LockStat, PerfLock };

struct LockCapture {
    std::string source; // "/proc/lock_stat", "perf lock contention", "perf lock report"
    std::vector<std::string> measured; // the JSON lock fields the capture holds
    std::vector<LockSummary> locks; // sorted by name; rows of the same name summed
};

// A malformed capture: "FILE:LINE: expected ..., got ...".
struct CaptureError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `origin` names the file in messages.
LockCapture parseLockStat(const std::string& text, const std::string& origin);
LockCapture parsePerfLock(const std::string& text, const std::string& origin);

// The capture as a results document (run/json.h) with one run named `label`, and a "capture" object saying where
// it came from and what it measured.
OJson captureToJson(const LockCapture& c, const std::string& label, const std::string& file);

} // namespace mms::cli
