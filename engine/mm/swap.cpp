// mm/swap.c: the per-CPU pagevecs in front of lru_lock (lru_cache_add, deactivate, drain) and release_pages.
#include "mm/swap.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"

namespace mms {

namespace {
    // __pagevec_lru_add_fn(), costed step by step as 5.6 has it; the variants of seed 002 differ only in here.
    //   pre-9c4e6b1a7027 (4.9):  SetPageLRU; add_page_to_lru_list; update_page_reclaim_stat
    //   5.6 (9c4e6b1a7027):      was_unevictable = TestClearPageUnevictable; SetPageLRU; smp_mb();
    //                            if (page_evictable(page)) { page_lru; update_page_reclaim_stat } ...;
    //                            add_page_to_lru_list
    //   5.7: page_evictable() static inline (page_mapping() stays out of line); smp_mb__after_atomic().
    //
    // The steps' costs depend on the toggles only, so a drain adds them up once (pagevec_lru_add_cost) and charges
    // the sum per page: the same picoseconds as charging them one by one, each rounded as Sched::burn rounds it.
    Time pagevec_lru_add_cost(const Mm& k)
    {
        const CostModel& c = k.cost;
        Time cost = 0;
        bool checksEvictable = k.tg.pageEvictable != EvictableCall::None || k.tg.lruBarrier != LruBarrier::None;
        if (checksEvictable)
            cost += ns(c.lockedRmwNs); // TestClearPageUnevictable(): lock btr
        cost += ns(c.lockedRmwNs); // SetPageLRU(): lock or
        switch (k.tg.lruBarrier) {
        case LruBarrier::SmpMb: // x86-64 5.6: lock addl $0,-4(%rsp)
            cost += ns(c.smpMbNs);
            break;
        case LruBarrier::AfterAtomic: // smp_mb__after_atomic(): a compiler barrier on x86, SetPageLRU was atomic
        case LruBarrier::None:
            break;
        }
        if (k.tg.pageEvictable == EvictableCall::OutOfLine)
            cost += ns(c.functionCallNs); // call page_evictable (vmscan.c): call/ret, push/pop prologue+epilogue
        if (k.tg.pageEvictable != EvictableCall::None) {
            // page_evictable()'s body: rcu_read_lock/unlock are compiler barriers (!PREEMPT); page_mapping() is out
            // of line in mm/util.c in both 5.6 and 5.7 but, as the post notes, without push/pop: half a call;
            // then compound_head, PageSlab, PageSwapCache, the PAGE_MAPPING_ANON test, mapping_unevictable's
            // test_bit(AS_UNEVICTABLE) and !PageMlocked: a handful of L1-hit loads and branches.
            cost += ns(0.5 * c.functionCallNs);
            cost += ns(2 * c.pteOpNs);
        }
        cost += ns(c.listOpNs); // page_lru + add_page_to_lru_list + update_page_reclaim_stat
        return cost;
    }

    // __pagevec_lru_add()'s loop over pages[b..) for as long as they are on lruvec `v`, whose lru_lock the caller
    // holds: relock_page_lruvec() of such a page is a no-op, so they need no coroutine step each. Returns where the
    // next lruvec begins (or the end). Per page __pagevec_lru_add_fn(): its steps' `cost`, PG_pagevec off, PG_lru
    // on, list_add at the head of its LRU list (touchLruAdd: the head, its old first entry and the page). Nothing
    // between the pages is an event, so the steps' charges are added up and charged once at the end (integer
    // picoseconds: the same sum); the line transfers touchLine() finds are charged as it finds them.
    std::size_t pagevec_lru_add_run(Mm& k, Task& t, const std::vector<Pfn>& pages, std::size_t b, Lruvec& v,
        Time cost, std::vector<Pfn>& orphans)
    {
        const Pfn* pv = pages.data();
        const std::size_t n = pages.size();
        const bool oneLruvec = k.lruvecs.size() == 1; // lruvecOf() is then `v` for every page
        std::uint64_t added = 0;
        for (; b < n; ++b) {
            Pfn p = pv[b];
            if (!oneLruvec && &k.lruvecOf(p) != &v)
                break;
            std::uint16_t f = k.pages.flags(p);
            // A page freed while it sits in a pagevec keeps the pagevec's reference: it is marked (PG_reclaim doubles
            // as "free on drain" while PG_pagevec is set) and freed when the pagevec drains.
            if (f & PG_reclaim) {
                k.pages.setFlags(p, static_cast<std::uint16_t>(f & ~(PG_pagevec | PG_reclaim)));
                orphans.push_back(p);
                continue;
            }
            f = static_cast<std::uint16_t>(f & ~PG_pagevec);
            LruList l = Mm::page_lru(f);
            Pfn head = k.lruHead(v, l);
            k.lruSizeChanged(t, v, l, 1); // touchLruAdd(), with the lruvec and the head already at hand
            k.touchLine(t, head);
            k.touchLine(t, k.pages.next(head));
            k.touchLine(t, p);
            k.pages.setFlags(p, static_cast<std::uint16_t>(f | PG_lru)); // add_page_to_lru_list()
            k.pages.listAdd(head, p);
            ++v.nr[l];
            ++added;
        }
        Sched::burnTime(t, cost * static_cast<Time>(added));
        return b;
    }

    Co<> pagevec_deactivate(Mm& k, Task& t, Pagevec& pv)
    {
        FnScope fn(t, "lru_deactivate_fn");
        LruLock lk(k, t);
        for (Pfn p : pv.pages) {
            co_await lk.relock(p);
            if (k.pages.test(p, PG_lru) && k.pages.test(p, PG_active) && !k.pages.test(p, PG_isolated)) {
                const LruList from = Mm::page_lru(k.pages.flags(p));
                k.del_page_from_lru_list(p);
                k.pages.clear(p, PG_active | PG_referenced);
                const LruList to = Mm::page_lru(k.pages.flags(p));
                k.add_page_to_lru_list(p, to);
                k.lruVmstat(t, k.lruvecOf(p), from, -1);
                k.lruVmstat(t, k.lruvecOf(p), to, 1);
                k.vm.inc(Vm::PgDeactivate);
                Sched::burn(t, 2 * k.cost.listOpNs);
            }
        }
        lk.unlock();
        pv.pages.clear();
    }

    // lru_lazyfree_fn() over a pagevec: a page still on an anonymous list, not isolated, not in the swap cache, moves
    // to the head of the inactive file list as a clean anonymous page ("They have SwapBacked flag cleared to
    // distinguish normal anonymous pages"). The pagevec holds no reference here (get_page() is only charged): a
    // page freed and faulted in again before the drain moves too, and reclaim, finding it written, gives it back.
    Co<> pagevec_lazyfree(Mm& k, Task& t, Pagevec& pv)
    {
        FnScope fn(t, "lru_lazyfree_fn");
        LruLock lk(k, t);
        for (Pfn p : pv.pages) {
            co_await lk.relock(p);
            const std::uint16_t f = k.pages.flags(p);
            if ((f & (PG_lru | PG_anon | PG_swapbacked)) == (PG_lru | PG_anon | PG_swapbacked)
                && !(f & (PG_swapcache | PG_unevictable | PG_isolated))) {
                const LruList from = Mm::page_lru(f);
                k.del_page_from_lru_list(p);
                k.pages.clear(p, PG_active | PG_referenced | PG_swapbacked);
                k.add_page_to_lru_list(p, LRU_INACTIVE_FILE);
                k.lruVmstat(t, k.lruvecOf(p), from, -1);
                k.lruVmstat(t, k.lruvecOf(p), LRU_INACTIVE_FILE, 1);
                Sched::burn(t, 2 * k.cost.listOpNs);
            }
        }
        lk.unlock();
        pv.pages.clear();
    }
} // namespace

// __pagevec_lru_add(): lru_cache_add() (swap.h) drains a full pagevec onto the LRU lists under lru_lock.
Co<> pagevec_lru_add(Mm& k, Task& t, Pagevec& pv)
{
    FnScope fn(t, "__pagevec_lru_add");
    std::vector<Pfn> orphans;
    const Time cost = pagevec_lru_add_cost(k);
    LruLock lk(k, t);
    for (std::size_t b = 0; b < pv.pages.size();) {
        Pfn p = pv.pages[b];
        co_await lk.relock(p);
        b = pagevec_lru_add_run(k, t, pv.pages, b, k.lruvecOf(p), cost, orphans);
    }
    lk.unlock();
    pv.pages.clear();
    for (Pfn p : orphans)
        co_await free_hot_cold_page(k, t, p);
}

Co<> lru_add_drain(Mm& k, Task& t)
{
    PerCpuState& pc = k.pcpu[static_cast<std::size_t>(t.cpu)];
    if (!pc.lruAdd.pages.empty())
        co_await pagevec_lru_add(k, t, pc.lruAdd);
    if (!pc.deactivate.pages.empty())
        co_await pagevec_deactivate(k, t, pc.deactivate);
    if (!pc.lazyfree.pages.empty())
        co_await pagevec_lazyfree(k, t, pc.lazyfree);
    if (!pc.activate.pages.empty())
        co_await activate_page_drain(k, t);
}

namespace {
    // get_page() and pagevec_add() into one of this CPU's pagevecs, which `drain` empties once it is full.
    MaybeCo pagevec_add(Mm& k, Task& t, Pagevec PerCpuState::*which, Pfn p, Co<> (*drain)(Mm&, Task&, Pagevec&))
    {
        Sched::burn(t, k.cost.lockedRmwNs); // get_page()
        Pagevec& pv = k.pcpu[static_cast<std::size_t>(t.cpu)].*which;
        pv.pages.push_back(p);
        if (pv.pages.size() >= static_cast<std::size_t>(k.tg.pagevecSize))
            return drain(k, t, pv);
        return {};
    }
} // namespace

MaybeCo deactivate_page(Mm& k, Task& t, Pfn p)
{
    if (!k.pages.test(p, PG_lru) || !k.pages.test(p, PG_active))
        return {};
    return pagevec_add(k, t, &PerCpuState::deactivate, p, pagevec_deactivate);
}

MaybeCo mark_page_lazyfree(Mm& k, Task& t, Pfn p)
{
    const std::uint16_t f = k.pages.flags(p);
    if ((f & (PG_lru | PG_anon | PG_swapbacked)) != (PG_lru | PG_anon | PG_swapbacked)
        || (f & (PG_swapcache | PG_unevictable)))
        return {};
    return pagevec_add(k, t, &PerCpuState::lazyfree, p, pagevec_lazyfree);
}

Co<> release_pages(Mm& k, Task& t, std::vector<Pfn>& pages, bool gathered)
{
    FnScope fn(t, "release_pages");
    std::vector<Pfn> toFree;
    toFree.reserve(pages.size());
    // lru_lock is held across a batch of SWAP_CLUSTER_MAX pages; every page's state is read under it.
    for (std::size_t i = 0; i < pages.size(); i += SWAP_CLUSTER_MAX) {
        LruLock lk(k, t);
        co_await lk.relock(pages[i]);
        for (std::size_t j = i; j < std::min(pages.size(), i + SWAP_CLUSTER_MAX); ++j) {
            Pfn p = pages[j];
            co_await lk.relock(p);
            if (gathered)
                k.unpin(p);
            Sched::burn(t, k.cost.lockedRmwNs); // put_page_testzero
            if (k.pages.test(p, PG_swapcache) || k.pages.mapcount(p) > 0 || k.pages.test(p, PG_locked))
                continue; // still referenced by the swap cache, a mapping or a lock holder
            if (k.pages.test(p, PG_pagevec)) {
                k.pages.set(p, PG_reclaim); // freed when its pagevec drains
                k.pages.setOwner(p, 0);
                continue;
            }
            if (k.pages.test(p, PG_isolated)) {
                k.pages.setOwner(p, 0); // reclaim holds it and frees it
                continue;
            }
            if (k.pages.test(p, PG_lru)) {
                k.lruVmstat(t, k.lruvecOf(p), Mm::page_lru(k.pages.flags(p)), -1);
                k.del_page_from_lru_list(p);
                Sched::burn(t, k.cost.listOpNs);
            }
            toFree.push_back(p);
        }
        lk.unlock();
    }
    for (Pfn p : toFree)
        co_await free_hot_cold_page(k, t, p);
    pages.clear();
}

// --- activation: mark_page_accessed() and the activate_page pagevec ---

namespace {
    // workingset_activation() (3.15, lru.workingset): an activated page-cache page advances its lruvec's
    // inactive_age, as an eviction does (atomic_long_inc).
    void workingset_activation(Mm& k, Task& t, Pfn p)
    {
        if (!k.tg.workingset || !page_is_file_cache(k, p))
            return;
        Sched::burn(t, k.cost.lockedRmwNs);
        ++k.lruvecOf(p).inactiveAge;
    }

    // mark_page_accessed()'s second touch of a page on an LRU list: activate it (the pagevec may drain).
    Co<> activate_referenced_page(Mm& k, Task& t, Pfn p)
    {
        co_await activate_page(k, t, p);
        Sched::burn(t, k.cost.lockedRmwNs); // ClearPageReferenced
        k.pages.clear(p, PG_referenced);
        k.touchLine(t, p);
        workingset_activation(k, t, p);
    }
} // namespace

// A plain function but for the activation of a page on an LRU list: a streaming read's first touch, once per page,
// only sets PG_referenced and should not pay a coroutine frame.
MaybeCo mark_page_accessed(Mm& k, Task& t, Pfn p)
{
    const CostModel& c = k.cost;
    std::uint16_t f = k.pages.flags(p);
    if (!(f & PG_active) && !(f & PG_unevictable) && (f & PG_referenced)) {
        if (f & PG_lru) {
            return activate_referenced_page(k, t, p);
        } else {
            // __lru_cache_activate_page(): still in this CPU's lru_add pagevec? Then it goes in active. A page in
            // another CPU's pagevec, or isolated by reclaim, is not activated.
            FnScope fn(t, "__lru_cache_activate_page");
            auto& pv = k.pcpu[static_cast<std::size_t>(t.cpu)].lruAdd.pages;
            Sched::burn(t, static_cast<double>(pv.size()) * c.pteOpNs * 0.25); // walk the pagevec backwards
            for (auto it = pv.rbegin(); it != pv.rend(); ++it)
                if (*it == p) {
                    Sched::burn(t, c.lockedRmwNs); // SetPageActive
                    k.pages.set(p, PG_active);
                    break;
                }
        }
        Sched::burn(t, c.lockedRmwNs); // ClearPageReferenced
        k.pages.clear(p, PG_referenced);
        k.touchLine(t, p);
        workingset_activation(k, t, p);
    } else if (!(f & PG_referenced)) {
        Sched::burn(t, c.lockedRmwNs); // SetPageReferenced
        k.pages.set(p, PG_referenced);
        k.touchLine(t, p);
    }
    return {};
}

namespace {
    // __activate_page(), the caller holding the page's lru_lock: from the inactive list to the active one.
    void activateLocked(Mm& k, Task& t, Pfn p)
    {
        const CostModel& c = k.cost;
        std::uint16_t f = k.pages.flags(p);
        if ((f & PG_lru) && !(f & PG_active) && !(f & PG_unevictable)) {
            k.touchLruDel(t, p);
            k.del_page_from_lru_list(p);
            Sched::burn(t, c.lockedRmwNs); // SetPageActive
            k.pages.set(p, PG_active);
            LruList l = Mm::page_lru(k.pages.flags(p));
            k.touchLruAdd(t, p, l);
            k.add_page_to_lru_list(p, l);
            Sched::burn(t, 2 * c.listOpNs); // del + add, __count_vm_event(PGACTIVATE), update_page_reclaim_stat
            k.vm.inc(Vm::PgActivate);
        }
    }
} // namespace

Co<> activate_page(Mm& k, Task& t, Pfn p)
{
    std::uint16_t f = k.pages.flags(p);
    if (!(f & PG_lru) || (f & PG_active) || (f & PG_unevictable))
        co_return;
    FnScope fn(t, "activate_page");
    if (!k.tg.activateBatch) {
        // Before eb709b0d062e "mm: batch activate_page() to reduce lock contention" (3.0): lru_lock for this page.
        LruLock lk(k, t);
        co_await lk.relock(p);
        activateLocked(k, t, p);
        lk.unlock();
        co_return;
    }
    Sched::burn(t, k.cost.lockedRmwNs); // get_page: the pagevec's reference
    k.pin(p);
    Pagevec& pv = k.pcpu[static_cast<std::size_t>(t.cpu)].activate;
    pv.pages.push_back(p);
    if (pv.pages.size() >= static_cast<std::size_t>(k.tg.pagevecSize))
        co_await activate_page_drain(k, t);
}

Co<> activate_page_drain(Mm& k, Task& t)
{
    FnScope fn(t, "__activate_page");
    const CostModel& c = k.cost;
    Pagevec& pv = k.pcpu[static_cast<std::size_t>(t.cpu)].activate;
    std::vector<Pfn> pages;
    pages.swap(pv.pages);
    // pagevec_lru_move_fn(pvec, __activate_page): one lru_lock round trip for the batch (per lruvec).
    LruLock lk(k, t);
    for (Pfn p : pages) {
        co_await lk.relock(p);
        activateLocked(k, t, p);
    }
    lk.unlock();
    // release_pages(): drop the pagevec's references.
    for (Pfn p : pages) {
        Sched::burn(t, c.lockedRmwNs);
        k.unpin(p);
    }
}

} // namespace mms
