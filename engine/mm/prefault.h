#pragma once
// Set-up fast-forward of an anonymous fill that swaps (mm/prefault.cpp), behind sys::fast_forward_touch_swapping.

#include <cstdint>
#include <vector>

namespace mms {

class Mm;
struct Task;

// Each task's process has written every page of order[i] once, in that order, the processes interleaved at random
// (PRNG `seed`), while reclaim kept the resident pages within the free memory above the high watermark by swapping
// out the page touched longest ago from the CPU that needed a page (its swap slots cache, as get_swap_page() hands
// slots out). Builds the state that leaves, without simulating it; when swap fills up, the rest stays untouched.
void prefault_swapping(
    Mm& k, const std::vector<Task*>& tasks, const std::vector<std::vector<std::uint32_t>>& order, std::uint64_t seed);

} // namespace mms
