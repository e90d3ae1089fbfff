#pragma once
// mm/memory.c: page faults (anonymous, swap, and read faults on a file VMA), unmapping a range (zap_page_range),
// exit_mmap and page-table page allocation.

#include "mm/pte.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct MmStruct;
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
Co<> zap_page_range(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages);
Co<> exit_mmap(Mm& k, Task& t, MmStruct& mm);
// __pte_alloc() and friends, pgd_alloc(): one zeroed page-table page for `mm` (mm->pgtables). False when none could be
// had (an OOM victim with the reserves gone: it exits next).
Co<bool> pte_alloc_one(Mm& k, Task& t, MmStruct& mm);

} // namespace mms
