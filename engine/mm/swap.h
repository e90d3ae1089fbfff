#pragma once
// mm/swap.c: the per-CPU pagevecs in front of lru_lock (lru_cache_add, activate, deactivate, drain), release_pages
// and mark_page_accessed().
// lru_cache_add() is inline here and reads the memory-management state, hence mm/mm.h.

#include "mm/mm.h"

#include <cstddef>
#include <vector>

namespace mms {

constexpr int SWAP_CLUSTER_MAX = 32; // pages reclaimed per batch (include/linux/swap.h)

// lru_cache_add(): a coroutine only when the pagevec drains (__pagevec_lru_add). Inline: every page that enters an
// LRU list passes here, and nearly always only its pagevec takes it.
Co<> pagevec_lru_add(Mm& k, Task& t, Pagevec& pv);
// `getPage`: ns(lockedRmwNs), for a caller that has it converted already (the readahead loop).
[[gnu::always_inline]] inline MaybeCo lru_cache_add(Mm& k, Task& t, Pfn p, bool active, Time getPage)
{
    Sched::burnTime(t, getPage); // get_page()
    k.pages.set(p, PG_pagevec | (active ? PG_active : 0));
    Pagevec& pv = k.pcpu[static_cast<std::size_t>(t.cpu)].lruAdd;
    pv.pages.push_back(p);
    if (pv.pages.size() >= static_cast<std::size_t>(k.tg.pagevecSize))
        return pagevec_lru_add(k, t, pv);
    return {};
}
[[gnu::always_inline]] inline MaybeCo lru_cache_add(Mm& k, Task& t, Pfn p, bool active)
{
    return lru_cache_add(k, t, p, active, ns(k.cost.lockedRmwNs));
}
Co<> lru_add_drain(Mm& k, Task& t);
MaybeCo deactivate_page(Mm& k, Task& t, Pfn p); // a coroutine only when the pagevec drains
// mark_page_lazyfree() (4.12+, madvise.lazyfree_lru=file): a clean anonymous page on an LRU list, not in the swap
// cache, goes through this CPU's lru_lazyfree pagevec to the head of the inactive file list, PG_swapbacked cleared.
MaybeCo mark_page_lazyfree(Mm& k, Task& t, Pfn p);
// mark_page_accessed(): 1st access sets PG_referenced, the 2nd activates (activate_page or, while the page still
// sits in this CPU's lru_add pagevec, __lru_cache_activate_page).
MaybeCo mark_page_accessed(Mm& k, Task& t, Pfn p);
Co<> activate_page(Mm& k, Task& t, Pfn p);
// Drains this CPU's activate_page pagevec (part of lru_add_drain()).
Co<> activate_page_drain(Mm& k, Task& t);
// `gathered`: the pages come from an mmu_gather, which pinned them; the pins are dropped under lru_lock.
Co<> release_pages(Mm& k, Task& t, std::vector<Pfn>& pages, bool gathered = false);

} // namespace mms
