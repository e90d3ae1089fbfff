#pragma once
// mm/madvise.c: MADV_DONTNEED and MADV_FREE.

#include "mm/toggles.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

Co<> sys_madvise(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages, Advice advice);

} // namespace mms
