#pragma once
// A frame of the machine's physical memory: 4 KiB (PAGE_SIZE on x86, 1 << PAGE_SHIFT with PAGE_SHIFT 12,
// arch/x86/include/asm/page_types.h) and its page frame number, the frame's index from the start of RAM. The block
// layer names the frames a request reads or writes by pfn; mm/page.h keeps each frame's struct page under it.

#include <cstdint>

namespace mms {

constexpr std::uint64_t kPageSize = 4096; // bytes

// A page frame number. 32 bits hold every frame the engine addresses (a PTE's 28-bit pfn, mm/pte.h).
using Pfn = std::uint32_t;
constexpr Pfn kNoPage = 0xffffffffu; // no frame: an empty list, a lookup that found none

} // namespace mms
