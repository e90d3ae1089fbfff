#pragma once
// mm/madvise.c: MADV_DONTNEED and MADV_FREE.

#include "mm/toggles.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Kernel;
struct MmStruct;
struct Task;

Co<> sys_madvise(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages, Advice advice);

} // namespace mms
