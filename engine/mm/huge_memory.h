#pragma once
// mm/huge_memory.c: the THP allocation and the watermarks it raises, the anonymous huge-page fault of the brk heap
// and the split of a huge page.

#include "mm/page.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

constexpr int HPAGE_PMD_ORDER = 9;
// alloc_hugepage_vma() for a THP fault (3.x, transparent_hugepage=always, defrag on): GFP_TRANSHUGE, order
// HPAGE_PMD_ORDER, __GFP_NO_KSWAPD | __GFP_NORETRY. kNoPage when it fails; the fault then falls back to 4 KiB pages.
Co<Pfn> alloc_hugepage(Mm& k, Task& t);
// set_recommended_min_free_kbytes() (hugepage_init(), when THP is enabled): enough free memory for
// anti-fragmentation to keep pageblocks free, raising the watermarks.
void set_recommended_min_free_kbytes(Mm& k);

// do_huge_pmd_anonymous_page(): alloc_hugepage() and clear_huge_page(); the 512 subpages appended to mm.heap. False
// (thp_fault_fallback) when no huge page could be had: the caller faults the range 4 KiB at a time.
Co<bool> do_huge_pmd_anonymous_page(Mm& k, Task& t, MmStruct& mm);
// split_huge_page() of the huge page at mm.heap[first]: its PMD becomes a page table of 512 PTEs, each page then freed
// on its own.
void split_huge_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t first);

} // namespace mms
