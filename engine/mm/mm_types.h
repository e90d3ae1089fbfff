#pragma once
// struct vm_area_struct and struct mm_struct (include/linux/mm_types.h): a process's VMAs, its page table (one PTE
// per virtual page) with the split page-table locks, mmap_sem, the RSS counters and the brk heap.

#include "mm/page.h"
#include "mm/pte.h"
#include "sync/rwsem.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mms {

struct AddressSpace; // mm/filemap.h

constexpr int PTRS_PER_PTE = 512; // PTEs per page-table page, i.e. per split ptl

// pmd_addr_end(): the end of the page-table page holding `vpn`, clamped to `end` (page-table walks go a PMD at a
// time, taking that page's split ptl).
constexpr std::uint32_t pmd_addr_end(std::uint32_t vpn, std::uint32_t end)
{
    std::uint32_t next = (vpn / PTRS_PER_PTE + 1) * PTRS_PER_PTE;
    return next < end ? next : end;
}

struct Vma {
    std::uint32_t start = 0; // first virtual page number
    std::uint32_t pages = 0;
    AddressSpace* file = nullptr; // vm_file->f_mapping of a file mapping; nullptr: anonymous
    std::uint64_t pgoff = 0; // vm_pgoff: the file page mapped at `start`
    bool contains(std::uint32_t vpn) const { return vpn >= start && vpn - start < pages; }
};

struct MmStruct {
    std::uint16_t id = 0; // page owner id is id + 1
    std::vector<Pte> pte; // one entry per virtual page, from vpn 0
    std::vector<std::unique_ptr<SpinLock>> ptl; // split page-table locks, one per PTRS_PER_PTE entries
    // mm->page_table_lock: every page table's lock where the kernel has no split locks (KernelConfig::splitPtlocks).
    SpinLock page_table_lock { "mm->page_table_lock" };
    bool splitPtlocks = true;
    RwSem mmap_sem { "mm->mmap_sem" };
    // The root anon_vma's rwsem (3.8+; a spinlock before 2.6.36): one anon_vma per process here, as a process that
    // never forks has. Reclaim's rmap walks of its anonymous pages take it for read (page_referenced through
    // page_lock_anon_vma_read's down_read_trylock, try_to_unmap through anon_vma_lock_read), so its count's cache
    // line travels between the reclaiming CPUs.
    RwSem anon_vma { "anon_vma->rwsem" };
    std::vector<Vma> vmas;
    std::vector<std::uint8_t> cpuVmMask; // mm_cpumask: CPUs running the mm at its last TLB flush (x86 clears lazily)
    std::uint64_t rss = 0; // MM_ANONPAGES
    std::uint64_t fileRss = 0; // MM_FILEPAGES: present PTEs of file mappings
    std::uint64_t swapents = 0; // MM_SWAPENTS
    // Page-table pages allocated in simulated time (pgd_alloc at mm_init, the first faults' pud/pmd/pte pages),
    // freed by mmput (free_pgtables, pgd_free). The PTEs themselves live in `pte`; these pages are what the
    // allocator sees.
    std::vector<Pfn> pgtables;
    bool exiting = false; // the last thread of its process has started to give its memory back (exit_mmap)
    // The process the mm belongs to, as the OOM killer sees it (mm/oom_kill.cpp): its pid, which an exec keeps (the
    // new mm takes it over), its parent's (0: a process started at set-up), and for a forked process when the fork
    // happened and how much CPU time the forking task had used by then (a child the model runs in its parent's task
    // counts its own CPU time from there); -1 and 0 for a process started at set-up, whose task's own count it is.
    std::uint32_t pid = 0;
    std::uint32_t ppid = 0;
    Time forkedAt = -1;
    Time cpuAtFork = 0;
    // The brk heap (mm->brk, mm/mmap.cpp), kept apart from `pte` and `vmas`: its pages in fault order, on no LRU list
    // and mapped by no PTE the model tracks, so that reclaim and compaction leave them alone as they leave a THP on a
    // machine without swap. `heapHuge`: the index in `heap` of each huge page's first subpage.
    std::uint32_t brkPages = 0;
    std::vector<Pfn> heap;
    std::vector<std::uint32_t> heapHuge;

    // pte_lockptr(): the lock of the page table holding `vpn`.
    SpinLock& ptlFor(std::uint32_t vpn) { return splitPtlocks ? *ptl[vpn / PTRS_PER_PTE] : page_table_lock; }
    // The file VMA holding `vpn`, or nullptr (anonymous memory or a hole).
    const Vma* file_vma_at(std::uint32_t vpn) const
    {
        for (const Vma& v : vmas)
            if (v.file && v.contains(vpn))
                return &v;
        return nullptr;
    }
    // find_vma(): the VMA holding `vpn`, or nullptr.
    const Vma* find_vma(std::uint32_t vpn) const
    {
        for (const Vma& v : vmas)
            if (v.contains(vpn))
                return &v;
        return nullptr;
    }
};

} // namespace mms
