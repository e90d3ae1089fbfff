#pragma once
// The page-cache internals that filemap.cpp and readahead.cpp share (include/linux/pagemap.h and mm/filemap.c, 5.6):
// the xarray walk's cost, the page wait queue's wake-up, PG_readahead, and the insertion of a page under i_pages
// that add_to_page_cache_lru() and __do_page_cache_readahead() both end in. Inline: a streaming read runs each once
// per page. They read the memory-management state, hence mm/mm.h.

#include "mm/filemap.h"
#include "mm/mm.h"

#include <algorithm>
#include <cstdint>

namespace mms {

// xas_load(): an RCU walk of the xarray, ~3 levels of 64-slot nodes, each one dependent load.
inline double xarrayWalkNs(const CostModel& c) { return 3 * c.pteOpNs; }

// wake_up_page(): wake every task in wait_on_page_locked() on one of the mapping's pages (filemap.cpp).
void wake_page_waiters_slow(Mm& k, AddressSpace& m);

// Nearly every unlock finds nobody waiting: that test stays inline, the wake-ups do not.
inline void wake_page_waiters(Mm& k, AddressSpace& m)
{
    if (!m.pageWaiters.empty())
        wake_page_waiters_slow(k, m);
}

// PageReadahead(): the page at `index` is the one that starts the next asynchronous window.
inline bool PageReadahead(const AddressSpace& m, std::uint64_t index)
{
    return index < m.readahead.size() && m.readahead[index];
}

// workingset_refault() (mm/workingset.c, 3.15) for a page inserted where a shadow entry was, under i_pages: the
// refault distance is how far the lruvec's inactive_age moved since the eviction; a distance the active file list
// could have held makes the new page start active (SetPageActive, workingset_activation).
void workingset_refault(Mm& k, Task& t, AddressSpace& m, Pfn p, std::uint64_t index);

// Under i_pages: store the page at `index` and drop the lock. False if another reader inserted this index first
// (-EEXIST); the page is then the caller's to free.
[[gnu::always_inline]] inline bool page_cache_insert_locked(
    Mm& k, Task& t, AddressSpace& m, Pfn p, std::uint64_t index)
{
    if (m.lookup(index) != kNoPage) {
        Sched::burnTime(t, m.costs.xarrayWalk);
        spin_unlock(k.s, t, m.i_pages);
        k.pages.setFlags(p, 0);
        return false;
    }
    if (m.pages.size() <= index)
        m.pages.resize(index + 1, kNoPage);
    m.pages[index] = p;
    k.mappingPageAdded(m);
    if (index < m.shadows.size() && m.shadows[index] != 0) [[unlikely]] // lru.workingset: a shadow entry replaced
        workingset_refault(k, t, m, p, index);
    k.pages.setOwner(p, static_cast<std::uint16_t>(m.id + 1));
    k.pages.setIndex(p, static_cast<std::uint32_t>(index));
    Sched::burnTime(t, m.costs.xaStore); // xas_store + __inc_node_page_state(NR_FILE_PAGES)
    spin_unlock(k.s, t, m.i_pages);
    return true;
}

} // namespace mms
