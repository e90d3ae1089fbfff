#pragma once
// mm/mprotect.c and mm/mmap.c (2.6.20) as glibc's per-thread heaps use them (seed 001): a heap shrinks with
// mmap(PROT_NONE, MAP_FIXED) and regrows with mprotect.

#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

Co<> sys_mmap_prot_none(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages);
Co<> sys_mprotect(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages);

} // namespace mms
