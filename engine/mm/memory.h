#pragma once
// mm/memory.c: page faults (anonymous, swap, and read faults on a file VMA), unmapping a range (zap_page_range),
// exit_mmap and page-table page allocation.

#include "mm/pte.h"
#include "sim/co.h"

#include <cstdint>
#include <optional>

namespace mms {

class Mm;
struct MmStruct;
struct SwapInfo;
struct Task;
struct Vma;

Co<> handle_mm_fault(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, bool write);
Co<> do_anonymous_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn);
Co<> do_swap_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, Pte orig);
// A read fault on a file VMA: do_fault_around(), else filemap_fault() and finish_fault().
Co<> do_read_fault(Mm& k, Task& t, MmStruct& mm, Vma v, std::uint32_t vpn);
// alloc_set_pte(): map page-cache page `p` at `vpn` (the caller holds the PTE lock and found the PTE none), young
// and read-only, with its file rmap and MM_FILEPAGES.
void alloc_set_pte(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, Pfn p);
// read_swap_cache_async() for slot `o` of `si`: unless the slot is free or cached already (kNoPage), a new page in
// the swap cache, locked for the read and on the inactive anon list (lru_cache_add_anon). swapcache_prepare() marks
// SWAP_HAS_CACHE under swap_info->lock, then the page goes into the swap cache under tree_lock; both may have
// slept, and someone may have read the slot or freed the entry meanwhile (-EEXIST / -ENOENT: kNoPage). nullopt
// when no page could be allocated (an OOM victim with the reserves gone). `memalloc`: the caller is reclaim itself
// (zswap's writeback), which takes the page from the reserves (PF_MEMALLOC) instead of entering reclaim again.
Co<std::optional<Pfn>> read_swap_cache_async(Mm& k, Task& t, SwapInfo& si, std::uint32_t o, bool memalloc = false);
Co<> zap_page_range(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages);
Co<> exit_mmap(Mm& k, Task& t, MmStruct& mm);
// __pte_alloc() and friends, pgd_alloc(): one zeroed page-table page for `mm` (mm->pgtables). False when none could be
// had (an OOM victim with the reserves gone: it exits next).
Co<bool> pte_alloc_one(Mm& k, Task& t, MmStruct& mm);

} // namespace mms
