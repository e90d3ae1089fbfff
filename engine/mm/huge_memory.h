#pragma once
// mm/huge_memory.c: the anonymous huge-page fault of the brk heap and the split of a huge page.

#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

// do_huge_pmd_anonymous_page(): alloc_hugepage() and clear_huge_page(); the 512 subpages appended to mm.heap. False
// (thp_fault_fallback) when no huge page could be had: the caller faults the range 4 KiB at a time.
Co<bool> do_huge_pmd_anonymous_page(Mm& k, Task& t, MmStruct& mm);
// split_huge_page() of the huge page at mm.heap[first]: its PMD becomes a page table of 512 PTEs, each page then freed
// on its own.
void split_huge_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t first);

} // namespace mms
