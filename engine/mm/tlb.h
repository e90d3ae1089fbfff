#pragma once
// arch/x86/mm/tlb.c and mm/memory.c's mmu_gather: TLB flushes (a local flush and an IPI round to the other CPUs
// the mm is live on) and the gather that batches the pages an unmap frees behind one flush.

#include "mm/page.h"
#include "sim/co.h"

#include <cstdint>
#include <vector>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

constexpr int MMU_GATHER_BATCH = 510; // pages per mmu_gather batch: (PAGE_SIZE - header) / sizeof(void*)

struct MmuGather {
    MmStruct* mm = nullptr;
    std::vector<Pfn> pages; // pages to free after the flush
    bool needFlush = false;
    std::uint32_t flushes = 0;
};
Co<> flush_tlb_mm_range(Mm& k, Task& t, MmStruct& mm);
Co<> flush_tlb_page(Mm& k, Task& t, MmStruct& mm);
Co<> tlb_flush_mmu(Mm& k, Task& t, MmuGather& tlb);
Co<> tlb_finish_mmu(Mm& k, Task& t, MmuGather& tlb);

} // namespace mms
