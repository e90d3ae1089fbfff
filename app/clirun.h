#pragma once
// mmscope-cli run, report and reproduce: the runner's options from the command line, the checks before a run, and
// a run with its progress line on a terminal.

#include "cliinput.h"
#include "run/runner.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace mms::cli {

// Refuses a scenario whose runs would not fit in the host's memory, before anything is allocated.
void checkMemory(const Scenario& sc, const RunnerOptions& opts);
// A report charts counters over time, so its runs record (`record`).
RunnerOptions runnerOptions(const RunArgs& r, bool record);
// Below a scenario's faithful scale its ratios may be more than 10 % from scale 1's: said on stderr, and the run
// goes on (small scales are what tests and quick looks are for).
void warnBelowFaithful(const Scenario& sc, double scale, std::ostream& err);
// Runs every run of sc, its progress on err when that is a terminal; Interrupted on Ctrl-C.
ResultSet execute(const Scenario& sc, RunnerOptions opts, std::ostream& err);

} // namespace mms::cli
