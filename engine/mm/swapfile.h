#pragma once
// mm/swapfile.c and mm/swap_state.c: swap entries allocated and freed, pages added to and deleted from the swap
// cache.

#include "mm/page.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Kernel;
struct Task;

Co<std::uint32_t> get_swap_page(Kernel& k, Task& t);
Co<> swap_free(Kernel& k, Task& t, std::uint32_t entry);
Co<> free_swap_and_cache(Kernel& k, Task& t, std::uint32_t entry);
// Host-side only (no simulated effect): starts loading what free_swap_and_cache(entry) will read, for a caller that
// knows the entry it frees next (zap_pte_range looks a few PTEs ahead).
void prefetch_swap_entry(Kernel& k, std::uint32_t entry);
Co<> swapcache_free(Kernel& k, Task& t, std::uint32_t entry);
Co<bool> add_to_swap(Kernel& k, Task& t, Pfn p);
Co<> delete_from_swap_cache(Kernel& k, Task& t, Pfn p);
Co<bool> try_to_free_swap(Kernel& k, Task& t, Pfn p);

} // namespace mms
