#pragma once
// mmscope-cli: list, show, run (and report when built with the UI). Returns the process exit code:
// 0 success, 2 bad input (message on `err`), 1 internal error, 130 cancelled (SIGINT).

#include <iosfwd>
#include <string>
#include <vector>

namespace mms {

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
std::string cliUsage();

} // namespace mms
