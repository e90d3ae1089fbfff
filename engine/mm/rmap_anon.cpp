// mm/rmap.c (4.0-4.5), the anonymous half of the reverse map: from an anonymous page to the one PTE that maps it,
// through its anon_vma (the file half is mm/rmap.cpp). Reclaim (mm/vmscan.cpp) tests and clears the young bit with
// page_referenced_anon() and unmaps with try_to_unmap_anon().
#include "mm/rmap.h"

#include "mm/mm.h"
#include "mm/swapfile.h"
#include "mm/tlb.h"

namespace mms {

namespace {
    // page_referenced_anon()'s work under the owner's ptl: test and clear the young bit of the page's PTE.
    // Releases the ptl.
    bool page_referenced_anon_pte(Mm& k, Task& t, Pfn p, MmStruct& mm, std::uint32_t vpn, SpinLock& ptl)
    {
        Pte e = mm.pte[vpn];
        bool young = pte::present(e) && pte::pfn(e) == p && pte::young(e);
        if (young)
            mm.pte[vpn] = e & ~pte::kYoung; // ptep_clear_flush_young: no flush on x86 since 3.18
        Sched::burn(t, k.cost.rmapOpNs + k.cost.pteOpNs);
        spin_unlock(k.s, t, ptl);
        return young;
    }

    // try_to_unmap_one()'s work under the ptl.
    Co<Unmap> try_to_unmap_anon_one(Mm& k, Task& t, Pfn p, MmStruct& mmRef)
    {
        MmStruct* mm = &mmRef;
        std::uint32_t vpn = k.pages.index(p);
        SpinLock& ptl = mm->ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        Pte e = mm->pte[vpn];
        if (!pte::present(e) || pte::pfn(e) != p) {
            spin_unlock(k.s, t, ptl);
            co_return Unmap::Done;
        }
        if (pte::young(e)) { // touched since page_referenced(): keep it
            mm->pte[vpn] = e & ~pte::kYoung;
            spin_unlock(k.s, t, ptl);
            co_return Unmap::Referenced;
        }
        mm->pte[vpn] = 0; // ptep_clear_flush
        co_await flush_tlb_page(k, t, *mm);
        if (pte::dirty(e))
            k.pages.set(p, PG_dirty);
        if (!k.pages.test(p, PG_swapbacked) && k.pages.test(p, PG_dirty)) {
            // A lazily freed page on the file list (4.12+) written since MADV_FREE: "If the page was redirtied, it
            // cannot be discarded. Remap the page to page table." -- SetPageSwapBacked, and try_to_unmap() fails.
            mm->pte[vpn] = e;
            k.pages.set(p, PG_swapbacked);
            k.pages.clear(p, PG_lazyfree);
            Sched::burn(t, k.cost.rmapOpNs + k.cost.pteOpNs);
            spin_unlock(k.s, t, ptl);
            co_return Unmap::Redirtied;
        }
        k.pages.setMapcount(p, 0); // page_remove_rmap
        k.pages.clear(p, PG_lazyfree);
        --mm->rss;
        Sched::burn(t, k.cost.rmapOpNs + k.cost.pteOpNs);
        if (!k.pages.test(p, PG_dirty)) {
            // TTU_LZFREE: a clean anonymous page (MADV_FREE'd, not written since) is dropped; the PTE stays none
            spin_unlock(k.s, t, ptl);
            co_return Unmap::Discarded;
        }
        std::uint32_t entry = k.pages.priv(p);
        SwapInfo& si = *k.swap[pte::swpType(entry)];
        SpinLock& lock = swapInfoLock(k, si);
        co_await spin_lock(k.s, t, lock); // swap_duplicate()
        ++si.slot[pte::swpOffset(entry)].swapMap;
        Sched::burn(t, k.cost.lockedRmwNs);
        spin_unlock(k.s, t, lock);
        mm->pte[vpn] = pte::mkSwap(entry);
        ++mm->swapents;
        spin_unlock(k.s, t, ptl);
        co_return Unmap::Done;
    }
} // namespace

// page_referenced() for an anonymous page (rmap_walk_anon): under the anon_vma's rwsem for read
// (page_lock_anon_vma_read: down_read_trylock, else down_read; exclusively before 3.8, rmap.anon_vma_read), the
// interval tree's one VMA, then test and clear the young bit of its PTE under the owner's ptl. `held`: the caller
// has the rwsem already.
Co<bool> page_referenced_anon(Mm& k, Task& t, Pfn p, bool held)
{
    MmStruct* mm = k.mmOf(p);
    if (!mm || k.pages.mapcount(p) == 0)
        co_return false;
    FnScope fn(t, "page_referenced");
    if (!k.tg.anonVmaRead) {
        // Before 4fc3f1d66b1e (3.8): page_lock_anon_vma() takes the anon_vma's lock exclusively.
        co_await mm->anon_vma.down_write(k.s, t);
        Sched::burn(t, k.cost.rmapOpNs); // anon_vma_interval_tree_foreach + vma_address
        std::uint32_t vpn = k.pages.index(p);
        SpinLock& ptl = mm->ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        bool young = page_referenced_anon_pte(k, t, p, *mm, vpn, ptl);
        co_await mm->anon_vma.up_write(k.s, t);
        co_return young;
    }
    if (!held) {
        if (!mm->anon_vma.down_read_trylock(k.s, t))
            co_await mm->anon_vma.down_read(k.s, t);
        Sched::burn(t, k.cost.rmapOpNs); // anon_vma_interval_tree_foreach + vma_address
    }
    std::uint32_t vpn = k.pages.index(p);
    SpinLock& ptl = mm->ptlFor(vpn);
    co_await spin_lock(k.s, t, ptl);
    bool young = page_referenced_anon_pte(k, t, p, *mm, vpn, ptl);
    if (!mm->anon_vma.up_read_nowait(k.s, t))
        co_await mm->anon_vma.up_read(k.s, t);
    co_return young;
}

// page_referenced_anon() as a plain call when nothing in it suspends (the anon_vma's trylock succeeds, the ptl
// is granted by SpinLock::Acquire's await_ready fast path, the up_read wakes nobody): 0 or 1 is the answer, with
// the same clock, grants and charges as the coroutine's. -1: the trylock failed and nothing changed; -2: the
// rwsem is held and the ptl would have to be awaited (a refused await_ready has no side effect). The caller then
// awaits page_referenced_anon(), with held = (answer == -2), which carries on from the same point. Host-side
// only: one coroutine frame fewer per page reclaim scans.
int page_referenced_anon_now(Mm& k, Task& t, Pfn p)
{
    MmStruct* mm = k.mmOf(p);
    if (!mm || k.pages.mapcount(p) == 0)
        return 0;
    if (!k.tg.anonVmaRead)
        return -1; // the exclusive lock of the era before 3.8: page_referenced_anon() takes it
    FnScope fn(t, "page_referenced");
    if (!mm->anon_vma.down_read_trylock(k.s, t))
        return -1;
    Sched::burn(t, k.cost.rmapOpNs); // anon_vma_interval_tree_foreach + vma_address
    std::uint32_t vpn = k.pages.index(p);
    SpinLock& ptl = mm->ptlFor(vpn);
    SpinLock::Acquire acquire = spin_lock(k.s, t, ptl);
    if (!acquire.await_ready())
        return -2;
    bool young = page_referenced_anon_pte(k, t, p, *mm, vpn, ptl);
    // The trylock found no waiter and nothing has run since: the up_read wakes nobody and completes here.
    [[maybe_unused]] bool released = mm->anon_vma.up_read_nowait(k.s, t);
    assert(released);
    return young ? 1 : 0;
}

// try_to_unmap_one() for an anonymous page mapped once (try_to_unmap_anon).
Co<Unmap> try_to_unmap_anon(Mm& k, Task& t, Pfn p)
{
    MmStruct* mm = k.mmOf(p);
    if (!mm || k.pages.mapcount(p) == 0)
        co_return Unmap::Done;
    FnScope fn(t, "try_to_unmap_one");
    // rmap_walk_anon(): anon_vma_lock_read() around the walk; before 4fc3f1d66b1e "mm/rmap, migration: Make
    // rmap_walk_anon() and try_to_unmap_anon() more scalable" (3.8) the anon_vma's lock, exclusively.
    const bool shared = k.tg.anonVmaRead;
    if (shared)
        co_await mm->anon_vma.down_read(k.s, t);
    else
        co_await mm->anon_vma.down_write(k.s, t);
    Sched::burn(t, k.cost.rmapOpNs); // anon_vma_interval_tree_foreach + vma_address
    Unmap r = co_await try_to_unmap_anon_one(k, t, p, *mm);
    if (shared)
        co_await mm->anon_vma.up_read(k.s, t);
    else
        co_await mm->anon_vma.up_write(k.s, t);
    co_return r;
}

} // namespace mms
