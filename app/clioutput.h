#pragma once
// Where mmscope-cli's results go: standard output, or --out FILE written whole or not at all.

#include "cliinput.h"

#include <iosfwd>
#include <string>

namespace mms::cli {

// Writes next to the target and renames, so a failed write never leaves half a file behind. A target that
// exists and is not a regular file (/dev/null, a FIFO, /dev/stdout) is written in place: renaming over it
// would replace the device node with a file (as root, /dev/null itself).
void writeFile(const std::string& path, const std::string& text);
// `text` to the file --out names, else to `out`.
void emit(const RunArgs& r, const std::string& text, std::ostream& out);

} // namespace mms::cli
