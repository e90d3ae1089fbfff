#pragma once
// mmscope-cli kernels [VERSION | --markdown]: the releases a scenario may name and the era rules in force in one;
// and the note `run --set kernel=X` prints on stderr: the rules in which X differs from the scenario's own kernel.

#include "cliinput.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace mms::cli {

// With --set kernel=X among r's options: the scenario's own kernel, X, and the rules between them, on err.
void noteKernelChange(const RunArgs& r, std::ostream& err);

} // namespace mms::cli
