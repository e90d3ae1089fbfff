#pragma once
// The scale a scenario runs at (--scale, the app's scale spin box): it multiplies memory sizes and amounts of work,
// CPU counts and the ratios between sizes stay (Scenario::resolve()). mmscope-cli, mmscope and the spin box accept
// the same range and say the same when a scale is outside it.

#include <sstream>
#include <string>

namespace mms {

// 0.001: the smallest step the app's spin box shows (three decimals). Far below it a machine is too small to mean
// anything: at 0.002 a 1 GiB, 32-CPU machine has 512 pages and some of its readers are OOM-killed
// (docs/reliability.md, "tiny scales").
// 4: every built-in machine's memory stays within what a PTE's 28-bit pfn addresses (1 TiB; dd-sparse-read's
// 112 GiB is the largest). A scaled machine past a limit of the model (that one, or a swap entry's 25-bit offset,
// 128 GiB per device) is refused by Scenario::resolve() with the limit it passes.
inline constexpr double kMinScale = 0.001;
inline constexpr double kMaxScale = 4.0;

inline bool scaleInRange(double scale) { return scale >= kMinScale && scale <= kMaxScale; }

// "--scale 9: expected a number in [0.001, 4]", for a value (as given) that is not a number in range.
inline std::string scaleOutOfRange(const std::string& given)
{
    std::ostringstream o;
    o << "--scale " << given << ": expected a number in [" << kMinScale << ", " << kMaxScale << "]";
    return o.str();
}

} // namespace mms
