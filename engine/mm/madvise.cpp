// mm/madvise.c: MADV_DONTNEED (zap the range) and MADV_FREE as merged in 4.5 (madvise_free_pte_range), with the
// toggle of seed 000's patch: swap PTEs met by MADV_FREE are freed instead of kept.
#include "mm/kernel.h"

namespace mms {

namespace {
    Co<> madvise_free_pte_range(Kernel& k, Task& t, MmuGather& tlb, MmStruct& mm, std::uint32_t vpn, std::uint32_t end)
    {
        FnScope fn(t, "madvise_free_pte_range");
        SpinLock& ptl = mm.ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        for (; vpn < end; ++vpn) {
            Pte e = mm.pte[vpn];
            Sched::burn(t, k.cost.pteOpNs);
            if (pte::none(e))
                continue;
            if (!pte::present(e)) {
                // Before the patch: `if (!pte_present(ptent)) continue;` keeps the swap entry, so the next touch
                // swaps the stale data back in. The patch frees it: a later touch is a cheap zero-fill fault.
                if (!k.tg.freeSwapEntries || !pte::isSwap(e))
                    continue;
                --mm.swapents;
                k.vm.inc(Vm::ZapSwapEntries);
                co_await free_swap_and_cache(k, t, pte::toSwpEntry(e));
                mm.pte[vpn] = 0; // pte_clear_not_present_full
                continue;
            }
            Pfn p = pte::pfn(e);
            if (k.pages.test(p, PG_swapcache) || k.pages.test(p, PG_dirty)) {
                if (k.pages.test(p, PG_locked) || k.pages.mapcount(p) != 1) // trylock_page, page_mapcount
                    continue;
                if (k.pages.test(p, PG_swapcache)) {
                    k.pages.set(p, PG_locked);
                    bool freed = co_await try_to_free_swap(k, t, p);
                    k.pages.clear(p, PG_locked);
                    if (!freed)
                        continue;
                }
                k.pages.clear(p, PG_dirty); // ClearPageDirty
            }
            if (e & (pte::kYoung | pte::kDirty)) {
                // ptep_get_and_clear_full + pte_mkold + pte_mkclean + set_pte_at; the flush is batched
                mm.pte[vpn] = e & ~(pte::kYoung | pte::kDirty);
                tlb.needFlush = true; // tlb_remove_tlb_entry
                Sched::burn(t, 2 * k.cost.pteOpNs);
            }
            k.pages.set(p, PG_lazyfree);
            co_await deactivate_page(k, t, p);
        }
        spin_unlock(k.s, t, ptl);
        co_await k.s.cond_resched(t);
    }

    Co<> madvise_free_page_range(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages)
    {
        FnScope fn(t, "madvise_free_page_range");
        co_await lru_add_drain(k, t);
        MmuGather tlb;
        tlb.mm = &mm;
        std::uint32_t end = start + pages;
        for (std::uint32_t pmd = start; pmd < end; pmd = pmd_addr_end(pmd, end))
            co_await madvise_free_pte_range(k, t, tlb, mm, pmd, pmd_addr_end(pmd, end));
        co_await tlb_finish_mmu(k, t, tlb);
    }
} // namespace

Co<> sys_madvise(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages, Advice advice)
{
    FnScope fn(t, "sys_madvise");
    Sched::burn(t, k.cost.faultEntryNs); // syscall entry/exit
    bool write = k.tg.madviseMmapSem == MmapSemMode::Write;
    if (write)
        co_await mm.mmap_sem.down_write(k.s, t);
    else
        co_await mm.mmap_sem.down_read(k.s, t);
    if (advice == Advice::DontNeed)
        co_await zap_page_range(k, t, mm, start, pages);
    else
        co_await madvise_free_page_range(k, t, mm, start, pages);
    if (write)
        co_await mm.mmap_sem.up_write(k.s, t);
    else
        co_await mm.mmap_sem.up_read(k.s, t);
}

} // namespace mms
