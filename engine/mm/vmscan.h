#pragma once
// mm/vmscan.c: kswapd and direct reclaim.

#include "sim/co.h"

#include <cstdint>

namespace mms {

class Kernel;
struct Task;

Co<> kswapd_main(Kernel& k, Task& t);
Co<std::uint64_t> try_to_free_pages(Kernel& k, Task& t);
Co<std::uint64_t> shrink_zone(Kernel& k, Task& t, bool kswapd);
// too_many_isolated() (3.x-4.7, per zone) for a direct reclaimer with GFP_IOFS: more pages isolated from the
// anonymous (file) lists than an eighth of the inactive anonymous (file) list. kswapd is never throttled by it.
bool too_many_isolated(const Kernel& k, bool file);

} // namespace mms
