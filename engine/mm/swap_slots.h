#pragma once
// mm/swap_slots.c (4.11) and the batch free of mm/swapfile.c: swap slots through the per-CPU slots caches.

#include "mm/page.h"
#include "sim/co.h"

#include <cstdint>
#include <vector>

namespace mms {

class Mm;
struct Task;

Co<std::uint32_t> get_swap_page_slots(Mm& k, Task& t, Pfn p);
Co<> free_swap_slot(Mm& k, Task& t, std::uint32_t entry);
// free_swap_slot() with this CPU's free_lock taken, which it drops: a coroutine only when the buffer is full and goes
// to swapcache_free_entries() first (1 in SWAP_SLOTS_CACHE_SIZE). For free_swap_and_cache(), which frees an entry at
// every swap PTE of an exiting process and so takes the lock itself rather than pay a coroutine frame per entry.
MaybeCo free_swap_slot_locked(Mm& k, Task& t, std::uint32_t entry);
Co<> swapcache_free_entries(Mm& k, Task& t, std::vector<std::uint32_t>& entries);
// The prefault twin of get_swap_page() (no time passes): a slot from `cpu`'s cache, or kNoSwapEntry.
std::uint32_t swap_slots_alloc_prefault(Mm& k, int cpu);

} // namespace mms
