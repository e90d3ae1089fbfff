// mm/truncate.c: truncate_inode_pages_range(), what unlink, ftruncate and a punched hole do to the page cache.
#include "mm/filemap.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/swap.h"

namespace mms {

Co<> truncate_inode_pages_range(Mm& k, Task& t, AddressSpace& m, std::uint64_t start, std::uint64_t end)
{
    FnScope fn(t, "truncate_inode_pages_range");
    co_await lru_add_drain(k, t);
    std::vector<Pfn> pages;
    // release_pages(): the lru_lock of each page's lruvec, re-taken only when it changes (the zone's up to 4.7).
    LruLock lk(k, t);
    for (std::uint64_t i = start; i < end; ++i) {
        Pfn p = m.lookup(i);
        Sched::burn(t, k.cost.pteOpNs);
        if (p != kNoPage)
            co_await lk.relock(p);
        // Held by someone else: isolated by reclaim or compaction, in another CPU's pagevec, locked, referenced.
        if (p == kNoPage || !k.pages.test(p, PG_lru) || k.pages.test(p, PG_locked | PG_isolated) || k.isPinned(p))
            continue;
        k.lruVmstat(t, k.lruvecOf(p), Mm::page_lru(k.pages.flags(p)), -1);
        k.del_page_from_lru_list(p); // via __page_cache_release when the last reference goes
        Sched::burn(t, k.cost.listOpNs);
        pages.push_back(p);
    }
    lk.unlock();
    co_await spin_lock(k.s, t, m.i_pages);
    for (Pfn p : pages) { // __delete_from_page_cache
        std::uint64_t i = k.pages.index(p);
        m.pages[i] = kNoPage;
        if (i < m.readahead.size())
            m.readahead[i] = 0;
        k.mappingPageRemoved(m);
        Sched::burn(t, k.cost.swapCacheOpNs * 0.5);
    }
    spin_unlock(k.s, t, m.i_pages);
    for (Pfn p : pages) {
        k.pages.setFlags(p, 0);
        k.pages.setOwner(p, 0);
        co_await free_hot_cold_page(k, t, p);
    }
}

} // namespace mms
