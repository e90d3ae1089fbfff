// mm/readahead.c (5.6): __do_page_cache_readahead() -- allocate the window's pages (__GFP_NORETRY), then
// read_pages() -> iomap_readpages(): per page add_to_page_cache_lru (i_pages xa_lock, memcg charge, lru_cache_add),
// a hole zero-filled, SetPageUptodate, unlock_page -- and page_cache_async_readahead(), the next window.
#include "mm/readahead.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/pagemap.h"
#include "mm/swap.h"

#include <algorithm>
#include <vector>

namespace mms {

namespace {
    // __do_page_cache_readahead() reads at most one window at a time (ra->size <= ra_pages).
    constexpr std::size_t kMaxReadaheadBatch = VM_READAHEAD_PAGES;
} // namespace

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

namespace {
    // The end of read_pages()' work on one page once it is in the page cache: zero_user_segments (a hole),
    // SetPageUptodate (smp_wmb + set_bit), PG_readahead on the marked page, unlock_page(). Returns the three
    // atomics' and the zeroing's charges added up with the caller's `pending` ones, for the caller to charge before
    // its next event (the same picoseconds). `zeroNs` is zeroPageNs * memCostJitter, the product's first two factors,
    // taken once per window.
    [[gnu::always_inline]] inline Time read_page_done(Mm& k, Task& t, AddressSpace& m, Pfn p, std::uint64_t index,
        std::uint64_t mark, double zeroNs, Time pending)
    {
        Time cost = pending + k.streamNs(t, p, zeroNs * t.rng.jitter(k.pageCostJitter), pending) + 2 * m.costs.lockedRmw;
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
        // The zone alloc_page() would take from above the low watermark, without waking anyone: the local node's
        // while it is above, then the next node's.
        PgData* d = first_zone_above(k, k.cpu_to_node(t.cpu), Wmark::Low);
        if (d) {
            std::vector<Pfn>& pcp = d->zone.pcp[static_cast<std::size_t>(t.cpu)];
            const FilemapCosts& c = m.costs;
            Time charge = 0;
            std::uint64_t taken = 0;
            for (; i < end; ++i) {
                charge += c.xarrayWalk; // xa_load under rcu_read_lock
                if (m.lookup(i) != kNoPage)
                    continue;
                if (pcp.empty()) { // a refill: alloc_page()'s coroutine, below
                    charge -= c.xarrayWalk;
                    break;
                }
                Pfn p = pcp.back(); // take_pcp_page()
                pcp.pop_back();
                k.pages.setFlags(p, 0);
                charge += c.pageAlloc;
                ++taken;
                batchIndex[n] = i;
                batchPage[n++] = p;
            }
            k.vm.inc(Vm::PgAlloc, taken);
            if (k.tg.pcpFreeScale) // take_pcp_page()'s halving of pcp->free_factor, once per page
                d->zone.pcpFreeFactor[static_cast<std::size_t>(t.cpu)] >>= std::min<std::uint64_t>(taken, 7);
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

} // namespace mms
