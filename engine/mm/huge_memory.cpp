// mm/huge_memory.c (3.x, transparent_hugepage=always with defrag): the anonymous huge-page fault of the brk heap and
// the split that a partial unmap of a huge page causes.
#include "mm/huge_memory.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"

namespace mms {

Co<bool> do_huge_pmd_anonymous_page(Mm& k, Task& t, MmStruct& mm)
{
    FnScope fn(t, "do_huge_pmd_anonymous_page");
    // alloc_hugepage_vma(): GFP_TRANSHUGE, direct compaction when no order-9 block is free (page_alloc.cpp).
    Pfn p = co_await alloc_hugepage(k, t);
    if (p == kNoPage) {
        k.vm.inc(Vm::ThpFaultFallback);
        co_return false;
    }
    k.vm.inc(Vm::ThpFaultAlloc);
    FnScope clear(t, "clear_huge_page");
    mm.heapHuge.push_back(static_cast<std::uint32_t>(mm.heap.size()));
    for (Pfn q = p; q < p + pageblock_nr_pages; ++q)
        mm.heap.push_back(q);
    Sched::burn(t, static_cast<double>(pageblock_nr_pages) * k.cost.zeroPageNs * k.memCostJitter);
    co_return true;
}

void split_huge_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t first)
{
    FnScope fn(t, "split_huge_page");
    Sched::burn(t, static_cast<double>(pageblock_nr_pages) * (k.cost.pteOpNs + k.cost.rmapOpNs));
    std::erase(mm.heapHuge, first);
}

} // namespace mms
