#pragma once
// mm/mmap.c: the brk heap (MmStruct::heap) and the overcommit check of a new private mapping.

#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

// sys_brk(): the heap becomes `pages` long. Growing maps nothing; shrinking zaps the pages above the new break, a
// huge page among them split first (split_huge_page), each page freed through this CPU's per-cpu list.
Co<> sys_brk(Mm& k, Task& t, MmStruct& mm, std::uint32_t pages);
// A store to each heap page, in order: every one not yet faulted in faults (handle_mm_fault), a 2 MiB-aligned range
// inside the heap through do_huge_pmd_anonymous_page when thp.enabled.
Co<> heap_touch(Mm& k, Task& t, MmStruct& mm);

// __vm_enough_memory() as the `overcommit` toggle says: can a private writable mapping of `pages` be backed? The
// default heuristic refuses only obvious overcommits (mmap: ENOMEM); vm.overcommit_memory=1 refuses nothing.
bool vm_enough_memory(const Mm& k, std::uint64_t pages);

} // namespace mms
