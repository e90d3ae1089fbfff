#pragma once
// mmscope-cli: its commands are defined on CLI11 (clicommand.h). Returns the process exit code:
// 0 success, 2 bad input (message on `err`), 1 internal error, 130 cancelled (SIGINT).

#include <iosfwd>
#include <string>
#include <vector>

namespace mms {

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace mms
