#pragma once
// mm/swapfile.c and mm/swap_state.c: swap entries allocated and freed, pages added to and deleted from the swap
// cache.

#include "mm/page.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
class SpinLock;
struct SwapInfo;
struct Task;

Co<std::uint32_t> get_swap_page(Mm& k, Task& t);
// The lock of a device's swap_map without a slots cache: its si->lock, or (swap.lock=global, before ec8acf20afb8
// "swap: add per-partition lock for swapfile", 3.9) the one swap_lock of every device.
SpinLock& swapInfoLock(Mm& k, SwapInfo& si);
Co<> swap_free(Mm& k, Task& t, std::uint32_t entry);
Co<> free_swap_and_cache(Mm& k, Task& t, std::uint32_t entry);
// Host-side only (no simulated effect): starts loading what free_swap_and_cache(entry) will read, for a caller that
// knows the entry it frees next (zap_pte_range looks a few PTEs ahead).
void prefetch_swap_entry(Mm& k, std::uint32_t entry);
Co<> swapcache_free(Mm& k, Task& t, std::uint32_t entry);
Co<bool> add_to_swap(Mm& k, Task& t, Pfn p);
Co<> delete_from_swap_cache(Mm& k, Task& t, Pfn p);
Co<bool> try_to_free_swap(Mm& k, Task& t, Pfn p);
// si_swapinfo(): the swap space of every device in pages, and how much of it is free (nr_swap_pages: a slot in a
// per-CPU slots cache counts as used).
struct SwapSpace {
    std::uint64_t total = 0;
    std::uint64_t free = 0;
};
SwapSpace si_swapinfo(const Mm& k);
// vm_swap_full(): less than half of the swap space is free (nr_swap_pages * 2 < total_swap_pages).
inline bool vm_swap_full(const Mm& k)
{
    const SwapSpace s = si_swapinfo(k);
    return s.free * 2 < s.total;
}

} // namespace mms
