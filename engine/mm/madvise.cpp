// mm/madvise.c: MADV_DONTNEED (zap the range) and MADV_FREE as merged in 4.5 (madvise_free_pte_range), with the
// toggle of seed 000's patch: swap PTEs met by MADV_FREE are freed instead of kept; and Rik van Riel's 2007 MADV_FREE
// (madvise.era=2007, seed 001) with and without his TLB batching patch (madvise.tlb_batch).
#include "mm/madvise.h"

#include "mm/mm.h"
#include "mm/memory.h"
#include "mm/swap.h"
#include "mm/swapfile.h"
#include "mm/tlb.h"

namespace mms {

namespace {
    // FREE_PTE_NR for x86-64 in 2.6.20 (include/asm-generic/tlb.h): pages an mmu_gather holds before it must flush.
    constexpr std::size_t FREE_PTE_NR = 506;

    // deactivate_tail_page() of the 2007 patch: no pagevec, zone->lru_lock (spin_lock_irq) taken for every page.
    Co<> deactivate_tail_page(Mm& k, Task& t, Pfn p)
    {
        FnScope fn(t, "deactivate_tail_page");
        Lruvec& lruvec = k.lruvecOf(p);
        co_await spin_lock(k.s, t, lruvec.lru_lock);
        if (k.pages.test(p, PG_lru) && k.pages.test(p, PG_active) && !k.pages.test(p, PG_isolated)) {
            k.touchLruDel(t, p);
            k.del_page_from_lru_list(p);
            k.pages.clear(p, PG_active | PG_referenced);
            k.add_page_to_lru_list(p, Mm::page_lru(k.pages.flags(p)), true); // the inactive list's tail
            k.lruVmstat(t, lruvec, Mm::page_lru(k.pages.flags(p)), 1);
            k.vm.inc(Vm::PgDeactivate);
            Sched::burn(t, 2 * k.cost.listOpNs);
        }
        spin_unlock(k.s, t, lruvec.lru_lock);
    }

    // The batched form's tlb_flush_mmu(): one flush for the whole gather, then the references taken by get_page()
    // are dropped (put_page: the pages stay mapped, so none reaches zero and lru_lock is not taken).
    Co<> lazyfree_flush_gather(Mm& k, Task& t, MmStruct& mm, std::vector<Pfn>& gathered)
    {
        if (gathered.empty())
            co_return;
        co_await flush_tlb_mm_range(k, t, mm);
        for (Pfn p : gathered) {
            k.unpin(p);
            Sched::burn(t, k.cost.lockedRmwNs); // put_page_testzero
        }
        gathered.clear();
    }

    // zap_pte_range() with details->madv_free, as in Rik's v1 patch (<46247427.6000902@redhat.com>) on 2.6.20. A
    // present anonymous page is left mapped; its PTE is made clean and old, the page gets PG_lazyfree and moves
    // to the tail of the inactive list. Without tlb_batch, ptep_clear_flush_dirty() and ptep_clear_flush_young()
    // each call flush_tlb_page() when their bit was set: a local INVLPG plus a synchronous IPI round to every other
    // CPU in mm->cpu_vm_mask, under the ptl (and under mmap_sem). With tlb_batch (<462C8E1D.8000706@redhat.com>)
    // the bits are cleared without a flush and the page goes into the mmu_gather (get_page + tlb_remove_page), so
    // one flush covers a batch of FREE_PTE_NR pages.
    Co<> lazyfree_pte_range(
        Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, std::uint32_t end, std::vector<Pfn>& gathered)
    {
        FnScope fn(t, "zap_pte_range");
        SpinLock& ptl = mm.ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        for (; vpn < end; ++vpn) {
            Pte e = mm.pte[vpn];
            Sched::burn(t, k.cost.pteOpNs);
            if (pte::none(e))
                continue;
            if (!pte::present(e)) {
                if (pte::isSwap(e)) { // the non-lazy part of zap_pte_range: swap PTEs are freed
                    --mm.swapents;
                    k.vm.inc(Vm::ZapSwapEntries);
                    co_await free_swap_and_cache(k, t, pte::toSwpEntry(e));
                    mm.pte[vpn] = 0;
                }
                continue;
            }
            Pfn p = pte::pfn(e);
            if (k.pages.test(p, PG_swapcache) && !k.pages.test(p, PG_locked)) { // TestSetPageLocked
                k.pages.set(p, PG_locked);
                co_await try_to_free_swap(k, t, p); // remove_exclusive_swap_page
                k.pages.clear(p, PG_locked);
            }
            if (k.tg.tlbBatch) {
                // ptep_test_and_clear_dirty/young without a flush; the gather flushes once
                mm.pte[vpn] = e & ~(pte::kYoung | pte::kDirty);
                Sched::burn(t, 2 * k.cost.lockedRmwNs);
                k.pin(p); // get_page(): tlb_remove_page() drops it after the flush
                gathered.push_back(p);
            } else {
                Sched::burn(t, k.cost.lockedRmwNs); // ptep_clear_flush_dirty: test_and_clear_bit
                if (e & pte::kDirty) {
                    mm.pte[vpn] &= ~pte::kDirty;
                    co_await flush_tlb_page(k, t, mm);
                }
                Sched::burn(t, k.cost.lockedRmwNs); // ptep_clear_flush_young
                if (e & pte::kYoung) {
                    mm.pte[vpn] &= ~pte::kYoung;
                    co_await flush_tlb_page(k, t, mm);
                }
            }
            k.pages.clear(p, PG_dirty);
            k.pages.set(p, PG_lazyfree); // SetPageLazyFree
            if (k.pages.test(p, PG_active))
                co_await deactivate_tail_page(k, t, p);
            if (gathered.size() >= FREE_PTE_NR) {
                spin_unlock(k.s, t, ptl);
                co_await lazyfree_flush_gather(k, t, mm, gathered);
                co_await spin_lock(k.s, t, ptl);
            }
        }
        spin_unlock(k.s, t, ptl);
        co_await k.s.cond_resched(t);
    }

    // madvise_free() of the 2007 patch: zap_page_range() with the madv_free detail.
    Co<> madvise_free_2007(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages)
    {
        FnScope fn(t, "zap_page_range");
        co_await lru_add_drain(k, t);
        std::vector<Pfn> gathered; // tlb_gather_mmu
        std::uint32_t end = start + pages;
        for (std::uint32_t pmd = start; pmd < end; pmd = pmd_addr_end(pmd, end))
            co_await lazyfree_pte_range(k, t, mm, pmd, pmd_addr_end(pmd, end), gathered);
        co_await lazyfree_flush_gather(k, t, mm, gathered); // tlb_finish_mmu
    }

    Co<> madvise_free_pte_range(Mm& k, Task& t, MmuGather& tlb, MmStruct& mm, std::uint32_t vpn, std::uint32_t end)
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
            if (k.tg.lazyfreeLru == LazyfreeLru::File) {
                // mark_page_lazyfree() (4.12). A page mapped more than once (shared with a forked child) stays on
                // its list here: the model's anonymous rmap walks one mm.
                if (k.pages.mapcount(p) == 1)
                    co_await mark_page_lazyfree(k, t, p);
            } else {
                co_await deactivate_page(k, t, p);
            }
        }
        spin_unlock(k.s, t, ptl);
        co_await k.s.cond_resched(t);
    }

    Co<> madvise_free_page_range(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages)
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

Co<> sys_madvise(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages, Advice advice)
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
    else if (k.tg.madviseEra == "2007")
        co_await madvise_free_2007(k, t, mm, start, pages);
    else
        co_await madvise_free_page_range(k, t, mm, start, pages);
    if (write)
        co_await mm.mmap_sem.up_write(k.s, t);
    else
        co_await mm.mmap_sem.up_read(k.s, t);
}

} // namespace mms
