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

} // namespace mms
