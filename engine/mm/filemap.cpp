// mm/filemap.c (5.6): the page cache of a sparse file -- lookup, insertion and removal under i_pages, the page
// lock and its waiters, the buffered read and write, and the read fault's page-cache half (filemap_fault,
// filemap_map_pages).
//
//   generic_file_buffered_read
//     find_get_page                    miss -> page_cache_sync_readahead (readahead.cpp)
//     wait_on_page_locked              (another reader's readahead still holds the page lock)
//     copy_page_to_iter                4 KiB to the user buffer
//     mark_page_accessed               1st: PG_referenced; 2nd: activate_page (swap.cpp)
//     put_page
#include "mm/filemap.h"

#include "mm/memory.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/pagemap.h"
#include "mm/readahead.h"
#include "mm/swap.h"

#include <algorithm>
#include <cassert>

namespace mms {

// Nearly every unlock finds nobody waiting: that test stays inline (wake_page_waiters), the wake-ups do not.
[[gnu::noinline]] void wake_page_waiters_slow(Mm& k, AddressSpace& m)
{
    auto waiters = std::move(m.pageWaiters);
    m.pageWaiters.clear();
    for (auto [w, gen] : waiters)
        k.s.wakeIf(*w, gen);
}

// unlock_page(): clear_bit_unlock_is_negative_byte(), then wake_up_page() if someone waits.
void unlock_page(Mm& k, Task& t, AddressSpace& m, Pfn p)
{
    Sched::burnTime(t, m.costs.lockedRmw);
    k.pages.clear(p, PG_locked);
    wake_page_waiters(k, m);
}

namespace {
    // wait_on_page_locked(): sleep on the page's wait queue until the lock holder unlocks it.
    Co<> wait_on_page_locked(Mm& k, Task& t, AddressSpace& m, Pfn p)
    {
        FnScope fn(t, "wait_on_page_locked");
        while (k.pages.test(p, PG_locked)) {
            co_await k.s.flush(t);
            if (!k.pages.test(p, PG_locked))
                break;
            m.pageWaiters.emplace_back(&t, t.sleepGen + 1);
            co_await k.s.sleep(t);
        }
    }

    // add_to_page_cache_lru(), in three parts so that the per-page work pays no coroutine frame of its own: the
    // part before i_pages (here), the insertion under it (page_cache_insert_locked), and lru_cache_add; the caller
    // (__do_page_cache_readahead) awaits the lock and lru_cache_add itself, in the kernel's order.
    inline void add_to_page_cache_prepare(Mm& k, Task& t, AddressSpace& m, Pfn p)
    {
        k.pages.setFlags(p, PG_locked); // __SetPageLocked: the page is not visible yet, non-atomic
        k.touchLine(t, p);
        Sched::burnTime(t, m.costs.memcgCharge); // mem_cgroup_try_charge + commit: css refcount and the memcg counters
        k.chargeMemcg(t, p);
    }
} // namespace

AddressSpace& new_address_space(Mm& k, std::uint64_t sizePages)
{
    auto m = std::make_unique<AddressSpace>();
    m->id = static_cast<std::uint16_t>(k.mappings.size());
    m->sizePages = sizePages;
    const CostModel& c = k.cost;
    m->costs.xarrayWalk = ns(xarrayWalkNs(c));
    m->costs.lockedRmw = ns(c.lockedRmwNs);
    m->costs.memcgCharge = ns(2 * c.lockedRmwNs);
    m->costs.xaStore = ns(c.swapCacheOpNs);
    m->costs.pageAlloc = ns(c.pageAllocNs);
    m->i_mmap_kind = k.tg.immapLock;
    // i_mmap_rwsem exists from 3.19 on, whose rwsem lets a running writer steal it from a woken one (3.10).
    m->i_mmap_rwsem.setImpl(RwsemImpl::XaddSteal);
    k.mappings.push_back(std::move(m));
    return *k.mappings.back();
}

Pfn find_get_page(Mm& k, Task& t, AddressSpace& m, std::uint64_t index)
{
    Sched::burnTime(t, m.costs.xarrayWalk);
    Pfn p = m.lookup(index);
    if (p == kNoPage)
        return kNoPage;
    Sched::burnTime(t, m.costs.lockedRmw); // page_cache_get_speculative(): atomic inc of the refcount
    k.touchLine(t, p);
    k.pin(p);
    return p;
}

void put_page(Mm& k, Task& t, Pfn p)
{
    Sched::burn(t, k.cost.lockedRmwNs);
    k.touchLine(t, p);
    k.unpin(p);
}

namespace {
    // add_to_page_cache_lru() as one call, for a single page (no_cached_page); readahead runs the same three parts
    // in its own frame.
    Co<bool> add_to_page_cache_lru(Mm& k, Task& t, AddressSpace& m, Pfn p, std::uint64_t index)
    {
        FnScope add(t, "add_to_page_cache_lru");
        add_to_page_cache_prepare(k, t, m, p);
        co_await spin_lock(k.s, t, m.i_pages);
        bool added = page_cache_insert_locked(k, t, m, p, index);
        if (added)
            co_await lru_cache_add(k, t, p, false);
        co_return added;
    }

    // no_cached_page: readahead gave up for lack of memory and left the page out, so the reader allocates it alone
    // with page_cache_alloc_cold() (GFP_KERNEL: reclaim until it gets one, or the OOM killer), adds it to the page
    // cache and reads it (a hole: zero-filled). False for -ENOMEM: an OOM victim found even the reserves empty.
    Co<bool> no_cached_page(Mm& k, Task& t, AddressSpace& m, std::uint64_t index)
    {
        Pfn p = co_await alloc_page(k, t);
        if (p == kNoPage)
            co_return false;
        bool added = co_await add_to_page_cache_lru(k, t, m, p, index);
        if (!added) { // another reader was faster: use its page
            co_await free_hot_cold_page(k, t, p);
            co_return true;
        }
        k.burnStream(t, p, k.cost.zeroPageNs * k.memCostJitter * t.rng.jitter(k.pageCostJitter)); // readpage: a hole
        Sched::burn(t, k.cost.lockedRmwNs); // SetPageUptodate
        unlock_page(k, t, m, p);
        co_return true;
    }

    // generic_file_buffered_read()'s common case: the page is cached, unlocked and uptodate, carries no PG_readahead,
    // and mark_page_accessed() will not activate it through a pagevec. Everything is then plain work with nothing
    // to wait for, so it runs without a coroutine frame. Returns false, having changed nothing, otherwise.
    //
    // The page reference (find_get_page .. put_page) is charged as the full path charges it, but the pin itself is
    // not recorded: it is taken and dropped with no event in between, so no other task could observe it. For the
    // same reason the steps' charges are added up and charged once (integer picoseconds: the same sum), the three
    // writes of the page's line need one touchLine() (the first moves the line here, the others find it here), and
    // the timeline's function names are not set (no span can begin or end in here).
    // `copyNs` is copyPageNs * memCostJitter, the copy cost's first two factors (a reader of many pages takes it once);
    // `extra`, the caller's own charges next to the read with no event between (added to the one charge, if read).
    [[gnu::always_inline]] inline bool read_cached_page(
        Mm& k, Task& t, AddressSpace& m, std::uint64_t index, double copyNs, Time extra = 0)
    {
        Pfn p = m.lookup(index);
        if (p == kNoPage || PageReadahead(m, index))
            return false;
        std::uint16_t f = k.pages.flags(p);
        if ((f & PG_locked) || ((f & PG_referenced) && (f & PG_lru) && !(f & (PG_active | PG_unevictable))))
            return false;
        const FilemapCosts& c = m.costs;
        // find_get_page(): xas_load and page_cache_get_speculative(); put_page() at the end
        Time cost = extra + c.xarrayWalk + 2 * c.lockedRmw;
        // copy_page_to_iter()
        cost += k.streamNs(t, p, copyNs * t.rng.jitter(k.pageCostJitter), cost);
        if (!(f & PG_referenced)) {
            // mark_page_accessed()'s first touch: SetPageReferenced
            cost += c.lockedRmw;
            k.pages.set(p, PG_referenced);
        } else {
            MaybeCo activation = mark_page_accessed(k, t, p);
            assert(activation.await_ready()); // excluded above
            (void)activation;
        }
        Sched::burnTime(t, cost);
        k.touchLine(t, p);
        return true;
    }

    Co<bool> generic_file_buffered_read_slowpath(Mm& k, Task& t, AddressSpace& m, std::uint64_t index)
    {
        FnScope fn(t, "generic_file_buffered_read");
        const CostModel& c = k.cost;
        Pfn p = find_get_page(k, t, m, index);
        while (p == kNoPage) { // page_cache_sync_readahead(): this window, the next page marked
            bool whole = co_await do_page_cache_readahead(k, t, m, index, VM_READAHEAD_PAGES, index + 1);
            p = find_get_page(k, t, m, index);
            if (p == kNoPage && !whole) {
                bool ok = co_await no_cached_page(k, t, m, index);
                if (!ok)
                    co_return false; // -ENOMEM
                p = find_get_page(k, t, m, index);
            }
        }
        if (PageReadahead(m, index))
            co_await page_cache_async_readahead(k, t, m, index);
        if (k.pages.test(p, PG_locked))
            co_await wait_on_page_locked(k, t, m, p); // PageUptodate is clear until the reader unlocks it
        {
            FnScope copy(t, "copy_page_to_iter");
            k.burnStream(t, p, c.copyPageNs * k.memCostJitter * t.rng.jitter(k.pageCostJitter));
        }
        co_await mark_page_accessed(k, t, p);
        put_page(k, t, p);
        co_return true;
    }
} // namespace

bool generic_file_read_cached(Mm& k, Task& t, AddressSpace& m, std::uint64_t index)
{
    return index < m.sizePages && read_cached_page(k, t, m, index, k.cost.copyPageNs * k.memCostJitter);
}

std::uint64_t generic_file_read_cached_run(
    Mm& k, Task& t, AddressSpace& m, std::uint64_t index, std::uint64_t nr, Time each, Time end)
{
    const Time now = k.s.sim().now(); // no event in here: the clock stands still
    const double copyNs = k.cost.copyPageNs * k.memCostJitter;
    const std::uint64_t last = std::min(index + nr, m.sizePages);
    std::uint64_t i = index;
    for (; i < last; ++i) {
        if (end > 0 && now + t.debt >= end)
            break;
        if (!read_cached_page(k, t, m, i, copyNs, each))
            break;
    }
    return i - index;
}

ValueOrCo<bool> generic_file_buffered_read(Mm& k, Task& t, AddressSpace& m, std::uint64_t index)
{
    if (index >= m.sizePages)
        return false;
    if (read_cached_page(k, t, m, index, k.cost.copyPageNs * k.memCostJitter))
        return true;
    return generic_file_buffered_read_slowpath(k, t, m, index);
}

void workingset_refault(Mm& k, Task& t, AddressSpace& m, Pfn p, std::uint64_t index)
{
    const std::uint64_t eviction = m.shadows[index];
    m.shadows[index] = 0;
    Lruvec& v = k.lruvecOf(p);
    Sched::burn(t, k.cost.lockedRmwNs); // atomic_long_read(&inactive_age), inc_zone_state(WORKINGSET_REFAULT)
    k.vm.inc(Vm::WorkingsetRefault);
    if (v.inactiveAge - eviction > v.nr[LRU_ACTIVE_FILE])
        return;
    k.pages.set(p, PG_active); // the caller's lru_cache_add() puts it on the active file list
    ++v.inactiveAge; // workingset_activation()
    Sched::burn(t, k.cost.lockedRmwNs);
    k.vm.inc(Vm::WorkingsetActivate);
}

void unlock_page(Mm& k, Task& t, Pfn p) { unlock_page(k, t, *k.mappings[k.pages.owner(p) - 1u], p); }

Co<bool> remove_mapping(Mm& k, Task& t, Pfn p)
{
    FnScope fn(t, "__remove_mapping");
    AddressSpace& m = *k.mappings[k.pages.owner(p) - 1u];
    co_await spin_lock(k.s, t, m.i_pages);
    Sched::burn(t, k.cost.lockedRmwNs); // page_ref_freeze(page, 2): cmpxchg
    if (k.isPinned(p)) { // someone else holds a reference (a reader between find_get_page and put_page)
        spin_unlock(k.s, t, m.i_pages);
        unlock_page(k, t, m, p);
        co_return false;
    }
    std::uint64_t index = k.pages.index(p);
    if (index < m.readahead.size())
        m.readahead[index] = 0; // the page's flags go with it
    m.pages[index] = kNoPage; // __delete_from_page_cache: xas_store of the shadow entry (workingset_eviction)
    k.mappingPageRemoved(m);
    if (k.tg.workingset) {
        // workingset_eviction() (3.15): atomic_long_inc_return(&inactive_age), packed into the shadow entry.
        Lruvec& v = k.lruvecOf(p);
        Sched::burn(t, k.cost.lockedRmwNs);
        if (m.shadows.size() <= index)
            m.shadows.resize(std::max<std::size_t>(index + 1, m.pages.size()), 0);
        m.shadows[index] = ++v.inactiveAge;
    }
    Sched::burn(t, k.cost.swapCacheOpNs);
    spin_unlock(k.s, t, m.i_pages);
    k.pages.setOwner(p, 0);
    k.pages.clear(p, PG_locked | PG_referenced | PG_active);
    wake_page_waiters(k, m);
    co_return true;
}

// --- mmap reads: filemap_fault and filemap_map_pages, which mm/memory.c's do_read_fault calls ---

namespace {
    // lock_page(): sleep until the page lock is free, then take it.
    Co<> lock_page(Mm& k, Task& t, AddressSpace& m, Pfn p)
    {
        if (k.pages.test(p, PG_locked))
            co_await wait_on_page_locked(k, t, m, p);
        Sched::burn(t, k.cost.lockedRmwNs); // test_and_set_bit_lock
        k.pages.set(p, PG_locked);
    }
} // namespace

// filemap_fault(): the page at `index`, pinned and locked (kNoPage: VM_FAULT_OOM for a killed task). A miss reads
// around the fault
// (do_sync_mmap_readahead: ra_pages from index - ra_pages/2, PG_readahead at size - async_size, async_size =
// ra_pages/4); a hit on a PG_readahead page starts the next window (do_async_mmap_readahead).
Co<Pfn> filemap_fault(Mm& k, Task& t, AddressSpace& m, std::uint64_t index)
{
    FnScope fn(t, "filemap_fault");
    Pfn p = find_get_page(k, t, m, index);
    if (p != kNoPage && PageReadahead(m, index)) {
        co_await page_cache_async_readahead(k, t, m, index);
    } else if (p == kNoPage) {
        k.vm.inc(Vm::PgMajFault);
        std::uint64_t start = index > VM_READAHEAD_PAGES / 2 ? index - VM_READAHEAD_PAGES / 2 : 0;
        std::uint64_t mark = start + VM_READAHEAD_PAGES - VM_READAHEAD_PAGES / 4;
        while (p == kNoPage) { // pagecache_get_page(FGP_CREAT) after the read-around
            bool whole = co_await do_page_cache_readahead(k, t, m, start, VM_READAHEAD_PAGES, mark);
            p = find_get_page(k, t, m, index);
            start = index; // raced with reclaim: read from the fault on
            if (p == kNoPage && !whole) {
                // The read-around gave up for lack of memory: page_cache_read() of this page alone. Failing
                // that, an OOM victim with the reserves empty gets VM_FAULT_OOM (and exits on its return to
                // user space); anyone else retries.
                co_await no_cached_page(k, t, m, index);
                p = find_get_page(k, t, m, index);
                if (p == kNoPage && fatal_signal_pending(t))
                    co_return kNoPage;
            }
        }
    }
    co_await lock_page(k, t, m, p);
    co_return p;
}

// filemap_map_pages() over [from, to): map the cached, unlocked, uptodate pages whose PTE is none, under one PTE
// lock. Pages with PG_readahead are skipped so that the fault on them starts the next readahead window.
Co<> filemap_map_pages(Mm& k, Task& t, MmStruct& mm, const Vma& v, std::uint32_t from, std::uint32_t to)
{
    FnScope fn(t, "filemap_map_pages");
    AddressSpace& m = *v.file;
    SpinLock& ptl = mm.ptlFor(from);
    co_await spin_lock(k.s, t, ptl);
    Sched::burn(t, xarrayWalkNs(k.cost)); // xas_find
    for (std::uint32_t vpn = from; vpn < to; ++vpn) {
        std::uint64_t index = v.pgoff + (vpn - v.start);
        Pfn p = m.lookup(index);
        Sched::burn(t, k.cost.pteOpNs); // xas_next_entry
        if (p == kNoPage || k.pages.test(p, PG_locked) || PageReadahead(m, index) || !pte::none(mm.pte[vpn]))
            continue;
        // page_cache_get_speculative, trylock_page, then unlock_page: the PTE keeps the mapping's reference
        Sched::burn(t, 3 * k.cost.lockedRmwNs);
        k.touchLine(t, p);
        alloc_set_pte(k, t, mm, vpn, p);
    }
    spin_unlock(k.s, t, ptl);
}

Co<> generic_perform_write(Mm& k, Task& t, AddressSpace& m, std::uint64_t index, std::uint64_t nr)
{
    FnScope fn(t, "generic_perform_write");
    // New pages: allocated and added to the page cache as the read path adds them (a hole zero-filled), then
    // written over.
    co_await do_page_cache_readahead(k, t, m, index, static_cast<int>(nr), ~0ull);
    Sched::burn(t, static_cast<double>(nr) * k.cost.copyPageNs); // copy_from_user
}

} // namespace mms
