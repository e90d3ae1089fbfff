// mm/filemap.c, mm/readahead.c and mm/swap.c's activation half (5.6): the buffered read of a sparse file.
//
//   generic_file_buffered_read
//     find_get_page                    miss -> page_cache_sync_readahead:
//                                          __page_cache_alloc x nr, then per page (iomap_readpages):
//                                          add_to_page_cache_lru (i_pages xa_lock, memcg charge, lru_cache_add),
//                                          hole -> zero_user, SetPageUptodate, unlock_page
//     wait_on_page_locked              (another reader's readahead still holds the page lock)
//     copy_page_to_iter                4 KiB to the user buffer
//     mark_page_accessed               1st: PG_referenced; 2nd: activate_page -> activate_page_pvecs ->
//                                      __activate_page under lru_lock
//     put_page
#include "mm/filemap.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/swap.h"

#include <algorithm>
#include <cassert>

namespace mms {

namespace {
    // __do_page_cache_readahead() reads at most one window at a time (ra->size <= ra_pages).
    constexpr std::size_t kMaxReadaheadBatch = VM_READAHEAD_PAGES;

    // xas_load(): an RCU walk of the xarray, ~3 levels of 64-slot nodes, each one dependent load.
    double xarrayWalkNs(const CostModel& c) { return 3 * c.pteOpNs; }

    [[gnu::noinline]] void wake_page_waiters_slow(Mm& k, AddressSpace& m)
    {
        auto waiters = std::move(m.pageWaiters);
        m.pageWaiters.clear();
        for (auto [w, gen] : waiters)
            k.s.wakeIf(*w, gen);
    }

    // Nearly every unlock finds nobody waiting: that test stays inline, the wake-ups do not.
    inline void wake_page_waiters(Mm& k, AddressSpace& m)
    {
        if (!m.pageWaiters.empty())
            wake_page_waiters_slow(k, m);
    }

} // namespace

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

    bool PageReadahead(const AddressSpace& m, std::uint64_t index)
    {
        return index < m.readahead.size() && m.readahead[index];
    }

    // page_cache_async_readahead(): ClearPageReadahead, and read the window after the cached run (the "query the
    // page cache" case of ondemand_readahead, right for one reader and for several).
    Co<> page_cache_async_readahead(Mm& k, Task& t, AddressSpace& m, std::uint64_t index)
    {
        m.readahead[index] = 0;
        // The first index after `index` that is not cached (lookup() is kNoPage past the array's end), at most
        // 2 windows on and below i_size: a plain search of the array.
        std::uint64_t start = index + 1;
        std::uint64_t limit = std::min<std::uint64_t>({ m.sizePages, index + 2 * VM_READAHEAD_PAGES, m.pages.size() });
        if (start < limit) {
            auto from = m.pages.begin() + static_cast<std::ptrdiff_t>(start);
            start += static_cast<std::uint64_t>(
                std::find(from, m.pages.begin() + static_cast<std::ptrdiff_t>(limit), kNoPage) - from);
        }
        Sched::burn(t, xarrayWalkNs(k.cost)); // page_cache_next_miss()
        if (start < m.sizePages && m.lookup(start) == kNoPage)
            co_await do_page_cache_readahead(k, t, m, start, VM_READAHEAD_PAGES, start);
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
            m.pages.resize(std::max<std::size_t>(index + 1, m.pages.size() * 2), kNoPage);
        m.pages[index] = p;
        ++m.nrpages;
        k.pages.setOwner(p, static_cast<std::uint16_t>(m.id + 1));
        k.pages.setIndex(p, static_cast<std::uint32_t>(index));
        Sched::burnTime(t, m.costs.xaStore); // xas_store + __inc_node_page_state(NR_FILE_PAGES)
        spin_unlock(k.s, t, m.i_pages);
        return true;
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
    // The end of read_pages()' work on one page once it is in the page cache: zero_user_segments (a hole),
    // SetPageUptodate (smp_wmb + set_bit), PG_readahead on the marked page, unlock_page(). Returns the three
    // atomics' and the zeroing's charges added up with the caller's `pending` ones, for the caller to charge before
    // its next event (the same picoseconds). `zeroNs` is zeroPageNs * memCostJitter, the product's first two factors,
    // taken once per window.
    [[gnu::always_inline]] inline Time read_page_done(Mm& k, Task& t, AddressSpace& m, Pfn p, std::uint64_t index,
        std::uint64_t mark, double zeroNs, Time pending)
    {
        Time cost = pending + ns(zeroNs * t.rng.jitter(k.pageCostJitter)) + 2 * m.costs.lockedRmw;
        if (index == mark) [[unlikely]] { // SetPageReadahead
            if (m.readahead.size() < m.pages.size())
                m.readahead.resize(m.pages.size(), 0);
            m.readahead[index] = 1;
        }
        k.pages.clear(p, PG_locked); // unlock_page()
        if (!m.pageWaiters.empty()) [[unlikely]] { // wake_page_waiters(): the wake-ups see the time spent so far
            Sched::burnTime(t, cost);
            wake_page_waiters_slow(k, m);
            return 0;
        }
        return cost;
    }

    // Where read_pages_run() stopped: at page b, which needs the coroutine from the point `why` names (all of its
    // work before that point done), or at the batch's end.
    struct ReadPagesStop {
        enum Why : std::uint8_t { End, Lock, Exists, Drain };
        std::size_t b;
        Why why;
        MaybeCo drain; // Drain: lru_cache_add()'s pagevec drain, still to be awaited
    };

    // read_pages()' per-page work on batch[b..n) as plain calls, for as long as nothing has to wait: i_pages is taken
    // without suspending (SpinLock::tryLockInline, which changes nothing when it says no) and lru_cache_add() does
    // not drain the pagevec. Page by page it is what the coroutine's loop would do; a readahead window is one
    // coroutine resumption instead of one per step. The charges between two events (the end of one page's read and
    // the next page's memcg charge) are added up and charged before the next event: integer picoseconds, the same
    // sum, and nothing reads the task's pending time in between.
    ReadPagesStop read_pages_run(Mm& k, Task& t, AddressSpace& m, const std::uint64_t* index, const Pfn* page,
        std::size_t b, std::size_t n, std::uint64_t mark)
    {
        const FilemapCosts& c = m.costs;
        const double zeroNs = k.cost.zeroPageNs * k.memCostJitter;
        Pagevec& pv = k.pcpu[static_cast<std::size_t>(t.cpu)].lruAdd;
        const auto pagevecSize = static_cast<std::size_t>(k.tg.pagevecSize);
        Time pending = 0; // the last page's read_page_done(), charged with the next page's memcg charge
        for (; b < n; ++b) {
            Pfn p = page[b];
            {
                FnScope add(t, "add_to_page_cache_lru");
                // add_to_page_cache_prepare(), its charge added to the pending ones
                k.pages.setFlags(p, PG_locked);
                k.touchLine(t, p);
                Sched::burnTime(t, pending + c.memcgCharge);
                k.chargeMemcg(t, p);
                if (!m.i_pages.tryLockInline(k.s, t, c.lockedRmw))
                    return { b, ReadPagesStop::Lock, {} };
                if (!page_cache_insert_locked(k, t, m, p, index[b]))
                    return { b, ReadPagesStop::Exists, {} };
                // lru_cache_add(p): get_page() (charged with the rest), into this CPU's pagevec (file pages: the
                // inactive list)
                k.pages.set(p, PG_pagevec);
                pv.pages.push_back(p);
                if (pv.pages.size() >= pagevecSize) [[unlikely]] {
                    Sched::burnTime(t, c.lockedRmw);
                    return { b, ReadPagesStop::Drain, pagevec_lru_add(k, t, pv) };
                }
            }
            pending = read_page_done(k, t, m, p, index[b], mark, zeroNs, c.lockedRmw);
        }
        Sched::burnTime(t, pending);
        return { n, ReadPagesStop::End, {} };
    }
} // namespace

namespace {
    // Where alloc_window_run() stopped: at index i, whose allocation `page` is a coroutine still to be awaited (the
    // xa_load before it charged), or at the window's end.
    struct AllocStop {
        std::uint64_t i;
        ValueOrCo<Pfn> page;
        std::size_t n; // the batch's length now
    };

    // __do_page_cache_readahead()'s first loop over [i, end) as plain calls for as long as alloc_page() takes its
    // fast path: each index not cached gets a page, listed at batch[n++].
    // page_cache_alloc_readahead(): __GFP_NORETRY | __GFP_NOWARN. The batch is nobody's to reclaim until it is in
    // the page cache, so readahead must not wait for memory while holding it: when a round of direct reclaim frees
    // nothing, the window ends there and the pages so far are read.
    AllocStop alloc_window_run(Mm& k, Task& t, AddressSpace& m, std::uint64_t i, std::uint64_t end,
        std::uint64_t* batchIndex, Pfn* batchPage, std::size_t n)
    {
        // Above both watermarks alloc_page()'s fast path is a page off the per-CPU list and nothing else (NR_FREE_PAGES
        // does not count that list, so it stays above them): while the list lasts, take the pages in one loop and
        // charge the xa_loads and rmqueue_pcplist()s once (no event in between: the same picoseconds).
        PerCpuState& pc = k.pcpu[static_cast<std::size_t>(t.cpu)];
        const std::uint64_t free = k.zone.nrFree();
        if (free >= k.zone.watermarkMin && free >= k.zone.watermarkLow) {
            const FilemapCosts& c = m.costs;
            Time charge = 0;
            std::uint64_t taken = 0;
            for (; i < end; ++i) {
                charge += c.xarrayWalk; // xa_load under rcu_read_lock
                if (m.lookup(i) != kNoPage)
                    continue;
                if (pc.pcp.empty()) { // a refill: alloc_page()'s coroutine, below
                    charge -= c.xarrayWalk;
                    break;
                }
                Pfn p = pc.pcp.back(); // take_pcp_page()
                pc.pcp.pop_back();
                k.pages.setFlags(p, 0);
                charge += c.pageAlloc;
                ++taken;
                batchIndex[n] = i;
                batchPage[n++] = p;
            }
            k.vm.inc(Vm::PgAlloc, taken);
            Sched::burnTime(t, charge);
            if (i == end)
                return { end, kNoPage, n };
        }
        for (; i < end; ++i) {
            Sched::burnTime(t, m.costs.xarrayWalk); // xa_load under rcu_read_lock
            if (m.lookup(i) != kNoPage)
                continue;
            ValueOrCo<Pfn> page = alloc_page(k, t, GFP_NORETRY);
            if (!page.await_ready())
                return { i, std::move(page), n };
            Pfn p = page.await_resume();
            if (p == kNoPage)
                return { i, p, n };
            batchIndex[n] = i;
            batchPage[n++] = p;
        }
        return { end, kNoPage, n };
    }
} // namespace

Co<bool> do_page_cache_readahead(Mm& k, Task& t, AddressSpace& m, std::uint64_t index, int nr, std::uint64_t mark)
{
    FnScope fn(t, "__do_page_cache_readahead");
    const CostModel& c = k.cost;
    // ondemand_readahead + __do_page_cache_readahead: allocate a page for every index not cached yet...
    std::uint64_t end = std::min<std::uint64_t>(m.sizePages, index + static_cast<std::uint64_t>(nr));
    // read_pages()'s list, in the frame (no allocation per window) and left uninitialised: n says what is valid.
    // A write of more than one window at once (AIM7's disk tests fill 1 MiB through here) lists on the heap.
    std::uint64_t windowIndex[kMaxReadaheadBatch];
    Pfn windowPage[kMaxReadaheadBatch];
    std::uint64_t* batchIndex = windowIndex;
    Pfn* batchPage = windowPage;
    std::vector<std::uint64_t> bigIndex;
    std::vector<Pfn> bigPage;
    if (std::size_t want = end - std::min(end, index); want > kMaxReadaheadBatch) {
        bigIndex.resize(want);
        bigPage.resize(want);
        batchIndex = bigIndex.data();
        batchPage = bigPage.data();
    }
    std::size_t n = 0;
    bool whole = true;
    for (std::uint64_t i = index; i < end; ++i) {
        // The indices whose pages come off this CPU's free list at once are listed by a plain loop; it stops at
        // the first allocation that is a coroutine (a refill, reclaim), which is awaited here.
        AllocStop stop = alloc_window_run(k, t, m, i, end, batchIndex, batchPage, n);
        n = stop.n;
        i = stop.i;
        if (i == end)
            break;
        Pfn p = co_await stop.page;
        if (p == kNoPage) {
            whole = false;
            break;
        }
        batchIndex[n] = i;
        batchPage[n++] = p;
    }
    if (n == 0)
        co_return whole;
    // ... then read_pages() -> iomap_readpages(): one iomap_begin (xfs_bmapi_read finds a hole) for the batch,
    // and per page add_to_page_cache_lru, zero the hole, SetPageUptodate, unlock_page. read_pages_run() does the
    // pages for as long as none of them has to wait; the page it stops at is finished here.
    Sched::burn(t, c.bioSubmitNs * 0.5); // iomap_apply + xfs_bmapi_read + xfs_ilock: block mapping, no bio (GUESS)
    for (std::size_t b = 0; b < n; ++b) {
        ReadPagesStop stop = read_pages_run(k, t, m, batchIndex, batchPage, b, n, mark);
        b = stop.b;
        if (b == n)
            break;
        std::uint64_t i = batchIndex[b];
        Pfn p = batchPage[b];
        bool added = stop.why != ReadPagesStop::Exists;
        {
            FnScope add(t, "add_to_page_cache_lru");
            if (stop.why == ReadPagesStop::Lock) {
                co_await spin_lock(k.s, t, m.i_pages);
                added = page_cache_insert_locked(k, t, m, p, i);
                if (added)
                    co_await lru_cache_add(k, t, p, false); // file pages start on the inactive list
            } else if (stop.why == ReadPagesStop::Drain) {
                co_await stop.drain;
            }
        }
        if (!added) { // -EEXIST: the other reader of this file was faster
            co_await free_hot_cold_page(k, t, p);
            continue;
        }
        Sched::burnTime(t, read_page_done(k, t, m, p, i, mark, k.cost.zeroPageNs * k.memCostJitter, 0));
    }
    co_return whole;
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
        Sched::burn(t, k.cost.zeroPageNs * k.memCostJitter * t.rng.jitter(k.pageCostJitter)); // readpage: a hole
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
        cost += ns(copyNs * t.rng.jitter(k.pageCostJitter));
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
            Sched::burn(t, c.copyPageNs * k.memCostJitter * t.rng.jitter(k.pageCostJitter));
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

namespace {
    // mark_page_accessed()'s second touch of a page on an LRU list: activate it (the pagevec may drain).
    Co<> activate_referenced_page(Mm& k, Task& t, Pfn p)
    {
        co_await activate_page(k, t, p);
        Sched::burn(t, k.cost.lockedRmwNs); // ClearPageReferenced
        k.pages.clear(p, PG_referenced);
        k.touchLine(t, p);
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
    } else if (!(f & PG_referenced)) {
        Sched::burn(t, c.lockedRmwNs); // SetPageReferenced
        k.pages.set(p, PG_referenced);
        k.touchLine(t, p);
    }
    return {};
}

Co<> activate_page(Mm& k, Task& t, Pfn p)
{
    std::uint16_t f = k.pages.flags(p);
    if (!(f & PG_lru) || (f & PG_active) || (f & PG_unevictable))
        co_return;
    FnScope fn(t, "activate_page");
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
    lk.unlock();
    // release_pages(): drop the pagevec's references.
    for (Pfn p : pages) {
        Sched::burn(t, c.lockedRmwNs);
        k.unpin(p);
    }
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
    --m.nrpages;
    Sched::burn(t, k.cost.swapCacheOpNs);
    spin_unlock(k.s, t, m.i_pages);
    k.pages.setOwner(p, 0);
    k.pages.clear(p, PG_locked | PG_referenced | PG_active);
    wake_page_waiters(k, m);
    co_return true;
}

// --- mmap reads: filemap_fault, filemap_map_pages, and mm/memory.c's do_read_fault that calls them ---

namespace {
    constexpr std::uint32_t kFaultAroundPages = 16; // fault_around_bytes = 64 KiB (mm/memory.c)

    // lock_page(): sleep until the page lock is free, then take it.
    Co<> lock_page(Mm& k, Task& t, AddressSpace& m, Pfn p)
    {
        if (k.pages.test(p, PG_locked))
            co_await wait_on_page_locked(k, t, m, p);
        Sched::burn(t, k.cost.lockedRmwNs); // test_and_set_bit_lock
        k.pages.set(p, PG_locked);
    }

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

    // Maps `p` at `vpn` (the caller holds the PTE lock and checked the PTE is none): alloc_set_pte().
    void alloc_set_pte(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, Pfn p)
    {
        // The reader touches the page right away, so the hardware sets the accessed bit: the PTE is young.
        mm.pte[vpn] = pte::mkPresent(p, false, true);
        ++mm.fileRss; // inc_mm_counter_fast(MM_FILEPAGES)
        page_add_file_rmap(k, t, p);
        Sched::burn(t, k.cost.pteOpNs);
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

    // do_fault_around(): the fault_around_bytes-aligned window around the fault, clamped to the VMA and to the
    // page-table page. Returns true if the faulting PTE got mapped.
    Co<bool> do_fault_around(Mm& k, Task& t, MmStruct& mm, const Vma& v, std::uint32_t vpn)
    {
        std::uint32_t from = std::max(vpn / kFaultAroundPages * kFaultAroundPages, v.start);
        std::uint32_t end = v.start + v.pages;
        std::uint32_t to = std::min({ from + kFaultAroundPages, end, pmd_addr_end(from, end) });
        co_await filemap_map_pages(k, t, mm, v, from, to);
        co_return !pte::none(mm.pte[vpn]);
    }
} // namespace

Co<> do_read_fault(Mm& k, Task& t, MmStruct& mm, Vma v, std::uint32_t vpn)
{
    FnScope fn(t, "do_read_fault");
    bool mapped = co_await do_fault_around(k, t, mm, v, vpn);
    if (mapped)
        co_return;
    AddressSpace& m = *v.file;
    Pfn p = co_await filemap_fault(k, t, m, v.pgoff + (vpn - v.start)); // __do_fault
    if (p == kNoPage)
        co_return; // VM_FAULT_OOM
    // finish_fault(): map it unless another thread did meanwhile.
    SpinLock& ptl = mm.ptlFor(vpn);
    co_await spin_lock(k.s, t, ptl);
    if (pte::none(mm.pte[vpn]))
        alloc_set_pte(k, t, mm, vpn, p);
    spin_unlock(k.s, t, ptl);
    unlock_page(k, t, m, p);
    put_page(k, t, p); // the lookup's reference; a mapped page is held by its PTE (mapcount)
}

} // namespace mms

namespace mms {

Co<> generic_perform_write(Mm& k, Task& t, AddressSpace& m, std::uint64_t index, std::uint64_t nr)
{
    FnScope fn(t, "generic_perform_write");
    // New pages: allocated and added to the page cache as the read path adds them (a hole zero-filled), then
    // written over.
    co_await do_page_cache_readahead(k, t, m, index, static_cast<int>(nr), ~0ull);
    Sched::burn(t, static_cast<double>(nr) * k.cost.copyPageNs); // copy_from_user
}

} // namespace mms
