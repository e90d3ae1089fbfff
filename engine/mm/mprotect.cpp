// mm/mprotect.c and mm/mmap.c (2.6.20) as glibc's per-thread heaps use them (seed 001). Vanilla glibc shrinks a heap
// by mapping the freed top afresh with mmap(PROT_NONE, MAP_FIXED) and regrows it with mprotect(PROT_READ|WRITE);
// both take mmap_sem for write, and both end in a TLB flush that IPIs every other CPU running the process.
#include "mm/mprotect.h"

#include "mm/mm.h"
#include "mm/memory.h"
#include "mm/tlb.h"

namespace mms {

namespace {
    // change_protection() over a range whose PTEs glibc's shrink left none: change_pte_range still walks every
    // PTE of the page-table pages that exist, under their ptl.
    Co<> change_protection(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t end)
    {
        FnScope fn(t, "change_protection");
        for (std::uint32_t pmd = start; pmd < end; pmd = pmd_addr_end(pmd, end)) {
            std::uint32_t next = pmd_addr_end(pmd, end);
            SpinLock& ptl = mm.ptlFor(pmd);
            co_await spin_lock(k.s, t, ptl);
            for (std::uint32_t vpn = pmd; vpn < next; ++vpn)
                Sched::burn(t, k.cost.pteOpNs);
            spin_unlock(k.s, t, ptl);
        }
    }
} // namespace

// sys_mprotect() -> mprotect_fixup(): the range joins the heap's read-write VMA (vma_merge, or split_vma when it
// cannot merge), change_protection() rewrites the PTEs, and flush_tlb_range() -- on x86-64 in 2.6.20 a
// flush_tlb_mm() -- flushes every CPU in mm->cpu_vm_mask, unconditionally.
Co<> sys_mprotect(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages)
{
    FnScope fn(t, "sys_mprotect");
    Sched::burn(t, k.cost.faultEntryNs); // syscall entry/exit
    co_await mm.mmap_sem.down_write(k.s, t);
    Sched::burn(t, 2 * k.cost.vmaAdjustNs); // vma_merge into the RW VMA, vma_adjust of the PROT_NONE one
    co_await change_protection(k, t, mm, start, start + pages);
    co_await flush_tlb_mm_range(k, t, mm);
    co_await mm.mmap_sem.up_write(k.s, t);
}

// do_mmap_pgoff(MAP_FIXED, PROT_NONE) over the heap's freed top: do_munmap() splits the RW VMA, unmap_region()
// zaps the pages (mmu_gather, one flush, pages freed), then the new PROT_NONE VMA is merged with the heap's
// PROT_NONE reservation above it.
Co<> sys_mmap_prot_none(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages)
{
    FnScope fn(t, "sys_mmap");
    Sched::burn(t, k.cost.faultEntryNs);
    co_await mm.mmap_sem.down_write(k.s, t);
    if (k.s.mightSleepPreempts(t)) // split_vma(): kmem_cache_alloc(GFP_KERNEL)'s might_sleep_if()
        co_await k.s.preempt(t);
    Sched::burn(t, k.cost.vmaAdjustNs); // do_munmap: split_vma + detach_vmas_to_be_unmapped
    co_await zap_page_range(k, t, mm, start, pages); // unmap_region
    Sched::burn(t, 2 * k.cost.vmaAdjustNs); // remove_vma, vma_merge of the new PROT_NONE mapping
    co_await mm.mmap_sem.up_write(k.s, t);
}

} // namespace mms
