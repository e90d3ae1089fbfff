// mm/page_alloc.c: the buddy allocator (free_area[order] under zone->lock, split on allocation, merge on free; the
// list operations are in mmzone.cpp), order-0 allocation through the per-cpu lists, watermarks that wake kswapd
// (low) and send the allocator into direct reclaim (min), and for order > 0 the 3.x slow path: direct compaction
// first, then reclaim.
#include "mm/page_alloc.h"

#include "mm/compaction.h"
#include "mm/oom_kill.h"
#include "mm/mm.h"
#include "mm/vmscan.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>

namespace mms {

Pfn alloc_page_setup(Mm& k, int nid)
{
    for (int i = 0; i < k.nrNodes(); ++i)
        if (Pfn p = zonelist_node(k, nid, i).zone.rmqueueSmallest(k.pages, 0); p != kNoPage)
            return p;
    return kNoPage;
}

bool zone_watermark_ok(const Zone& z, int order, std::uint64_t mark)
{
    // __zone_watermark_ok(): enough free pages above the mark, and at each order below the request, enough in
    // blocks of at least that order (min halves per order).
    auto freePages = static_cast<std::int64_t>(z.nrFree()) - ((std::int64_t(1) << order) - 1);
    auto min = static_cast<std::int64_t>(mark);
    if (freePages <= min)
        return false;
    for (int o = 0; o < order; ++o) {
        freePages -= static_cast<std::int64_t>(z.nrFreeArea(o)) << o;
        min >>= 1;
        if (freePages <= min)
            return false;
    }
    return true;
}

namespace {
    // zone_batchsize(): the per-cpu lists hold about a thousandth of the zone, so that 32 CPUs' lists never strand
    // a small zone's memory (a 10 MiB zone gets batch 0, high 0: every free goes straight back to the buddy lists,
    // as the kernel's pageset_set_batch() does). The model keeps PCP_BATCH as the large-zone value, which every
    // scenario's full-size machine (1 GiB and up) reaches, so full-scale runs are unchanged.
    int zone_batchsize(const Mm& k)
    {
        std::uint64_t batch = k.s.machine().memoryBytes / kPageSize / 1024;
        batch = std::min<std::uint64_t>(batch, (1024 * 1024) / kPageSize) / 4; // "no more than a meg", *= 4 below
        batch = std::max<std::uint64_t>(batch, 1);
        batch = std::bit_floor(batch + batch / 2) - 1; // rounddown_pow_of_two(batch + batch / 2) - 1
        return std::min(static_cast<int>(batch), PCP_BATCH);
    }

    // pageset_set_batch(): high = 6 * batch; pages move to and from the buddy lists at least one at a time.
    int pcp_batch(const Mm& k) { return std::max(1, zone_batchsize(k)); }
    int pcp_high(const Mm& k) { return 6 * zone_batchsize(k); }

    // nr_pcp_free(): the pages a full per-cpu list gives back. pcp->batch, or, from 3b12e7e97938 "mm/page_alloc:
    // scale the number of pages that are batch freed" (5.14), batch << free_factor, which each bulk free raises and
    // each allocation halves (take_pcp_page), between batch and high - batch.
    int nr_pcp_free(Mm& k, Zone& z, int cpu)
    {
        const int batch = pcp_batch(k), high = pcp_high(k);
        if (!k.tg.pcpFreeScale)
            return batch;
        if (high < batch)
            return 1;
        std::uint8_t& factor = z.pcpFreeFactor[static_cast<std::size_t>(cpu)];
        const int maxFree = high - batch;
        const int n = batch << factor;
        if (n < maxFree)
            ++factor;
        return std::clamp(n, batch, maxFree);
    }

    // rmqueue_bulk(): refill this CPU's list of the zone with up to a batch of pages under zone->lock.
    Co<> rmqueue_bulk(Mm& k, Task& t, Zone& z, std::vector<Pfn>& pcp)
    {
        FnScope fn(t, "rmqueue_bulk");
        co_await spin_lock(k.s, t, z.lock);
        Pfn got[PCP_BATCH];
        // __rmqueue() x batch. The pages are still free: PG_buddy, and no buddy block's head (list_del() left
        // kNotBuddyHead in their index).
        std::size_t n = z.rmqueueBulk(k.pages, static_cast<std::size_t>(pcp_batch(k)), got, PG_buddy);
        const Time listOp = ns(k.cost.listOpNs);
        pcp.insert(pcp.end(), got, got + n); // list_add_tail, in the order taken
        Sched::burnTime(t, static_cast<Time>(n) * listOp);
        spin_unlock(k.s, t, z.lock);
    }

    // free_pcppages_bulk(): give up to `count` pages back to the buddy lists under zone->lock, the coldest (the
    // list's tail, freed longest ago) first; __free_one_page merges each with its free buddies.
    Co<> free_pcppages_bulk(Mm& k, Task& t, Zone& z, std::vector<Pfn>& pcp, std::size_t count)
    {
        FnScope fn(t, "free_pcppages_bulk");
        co_await spin_lock(k.s, t, z.lock);
        count = std::min(count, pcp.size());
        for (std::size_t i = 0; i < count; ++i) {
            z.freeOnePage(k.pages, pcp[i], 0);
            Sched::burn(t, k.cost.listOpNs);
        }
        pcp.erase(pcp.begin(), pcp.begin() + static_cast<std::ptrdiff_t>(count));
        spin_unlock(k.s, t, z.lock);
    }
} // namespace

namespace {
    // zone_reclaimable_pages(): what reclaim could still free -- the file LRU, and the anonymous LRU while there are
    // free swap slots to put it in (get_nr_swap_pages() > 0). Pages isolated by other reclaimers, in pagevecs or held
    // by tasks (kernel stacks, page tables, readahead batches not in the page cache yet) are not reclaimable.
    // Summed over the nodes (every zone of the zonelist).
    std::uint64_t zone_reclaimable_pages(const Mm& k)
    {
        std::uint64_t n = 0;
        for (const auto& d : k.nodes)
            n += mms::zone_reclaimable_pages(k, *d);
        return n;
    }
    std::uint64_t nr_writeback(const Mm& k)
    {
        std::uint64_t n = 0;
        for (const auto& d : k.nodes)
            n += d->zone.nrWriteback;
        return n;
    }

    // When the allocator gives up on reclaim and calls the OOM killer: direct reclaim freed nothing and found nothing
    // left it could reclaim (zone_reclaimable()), or, with oom.reclaim_retries (should_reclaim_retry(), 4.7+),
    // MAX_RECLAIM_RETRIES rounds in a row freed nothing.
    constexpr int MAX_RECLAIM_RETRIES = 16;
    bool may_oom(const Mm& k, const Task& t, std::uint64_t reclaimed, int noProgressLoops)
    {
        if (t.kthread || reclaimed > 0)
            return false;
        return zone_reclaimable_pages(k) == 0 || (k.tg.reclaimRetries && noProgressLoops >= MAX_RECLAIM_RETRIES);
    }

    // __alloc_pages_may_oom(): the OOM killer, then -- unless the caller is the victim, which retries at once below
    // the watermarks -- a jiffy's sleep (schedule_timeout_uninterruptible(1)) for the victim to exit. False when
    // there was no one to kill: the allocation fails.
    Co<bool> oom_and_wait(Mm& k, Task& t)
    {
        if (!out_of_memory(k, t)) {
            ++k.nrAllocFail;
            co_return false;
        }
        if (!fatal_signal_pending(t))
            co_await k.s.sleepFor(t, ms(1));
        co_return true;
    }

    // What an allocation that will retry does after a round of direct reclaim that did not get it its page (`got`:
    // the pages the round freed), before it tries again.
    // - before 2.6.37 (vmscan.nap): congestion_wait(WRITE, HZ/50) (2.6.20's __alloc_pages(): "if (do_retry) {
    //   congestion_wait(WRITE, HZ/50); goto rebalance; }"), the whole 20 ms unless a swap write completes meanwhile
    //   on a queue below its congestion-off threshold.
    // - 4.0 (mm/page_alloc.c, __alloc_pages_slowpath): should_alloc_retry() is true for every order up to
    //   PAGE_ALLOC_COSTLY_ORDER, and "Wait for some write requests to complete then retry" is
    //   wait_iff_congested(ac->preferred_zone, BLK_RW_ASYNC, HZ/50), whether or not the round freed pages (and after
    //   an OOM kill too): a sleep only on a ZONE_CONGESTED zone, here always a cond_resched().
    // - 4.7+ (oom.reclaim_retries): should_reclaim_retry() waits congestion_wait(BLK_RW_ASYNC, HZ/10) only when the
    //   round freed nothing and more than half of what is reclaimable is dirty or under writeback
    //   (2 * (NR_WRITEBACK + NR_FILE_DIRTY) > reclaimable; no file page is dirty here); otherwise cond_resched().
    //   After an OOM kill the allocation retries at once.
    Co<> reclaim_retry_wait(Mm& k, Task& t, std::uint64_t got)
    {
        if (!k.tg.reclaimRetries) {
            if (k.tg.reclaimNap == ReclaimNap::CongestionWait)
                co_await k.congestion_wait(t, ms(20)); // HZ/50
            else
                co_await k.wait_iff_congested(t, k.numa_node(t).zone, ms(20)); // HZ/50, the preferred zone
            co_return;
        }
        if (got == 0 && 2 * nr_writeback(k) > zone_reclaimable_pages(k)) {
            co_await k.congestion_wait(t, ms(100)); // HZ/10
            co_return;
        }
        co_await k.s.cond_resched(t);
    }
} // namespace

namespace {
    // get_page_from_freelist() for an order-0 page: the caller's CPU's list, refilled from the buddy lists when it is
    // empty, if the zone's free pages (the per-cpu lists not counted) are at the min watermark -- or regardless, for
    // PF_MEMALLOC (kswapd, and reclaim itself) and an OOM victim (TIF_MEMDIE: ALLOC_NO_WATERMARKS, so that it can
    // exit). kNoPage if not. The list is the one of the CPU the task runs on now: a sleep may have moved it.
    Co<Pfn> get_page_from_freelist(Mm& k, Task& t, bool wake)
    {
        PgData* d = alloc_zone(k, t, wake);
        if (!d)
            co_return kNoPage;
        std::vector<Pfn>& pcp = d->zone.pcp[static_cast<std::size_t>(t.cpu)];
        if (pcp.empty() && d->zone.nrFree() > 0)
            co_await rmqueue_bulk(k, t, d->zone, pcp);
        if (pcp.empty())
            co_return kNoPage;
        co_return take_pcp_page(k, t, pcp);
    }
} // namespace

Co<Pfn> alloc_page_memalloc(Mm& k, Task& t)
{
    FnScope fn(t, "__alloc_pages_nodemask");
    const int local = k.cpu_to_node(t.cpu);
    for (int i = 0; i < k.nrNodes(); ++i) {
        Zone& z = zonelist_node(k, local, i).zone;
        std::vector<Pfn>& pcp = z.pcp[static_cast<std::size_t>(t.cpu)];
        if (pcp.empty() && z.nrFree() > 0)
            co_await rmqueue_bulk(k, t, z, pcp);
        if (!pcp.empty())
            co_return take_pcp_page(k, t, pcp);
    }
    ++k.nrAllocFail;
    co_return kNoPage;
}

// alloc_page()'s slow path (its fast path is inline in page_alloc.h; both take the page with take_pcp_page()).
Co<Pfn> alloc_page_slowpath(Mm& k, Task& t, unsigned gfp)
{
    FnScope fn(t, "__alloc_pages_nodemask");
    bool reclaimed = false; // a round of direct reclaim has run
    int noProgressLoops = 0; // rounds of direct reclaim in a row that freed nothing
    for (;;) {
        if (Pfn p = co_await get_page_from_freelist(k, t, true); p != kNoPage)
            co_return p;
        bool memdie = fatal_signal_pending(t);
        // __alloc_pages_slowpath()'s ways out: a victim that found even the reserves empty ("Avoid allocations
        // with no watermarks from looping endlessly"), and __GFP_NORETRY once a round of direct reclaim and the
        // attempt after it have failed ("Do not loop if specifically requested"), whether or not that round freed
        // pages: others may have taken them first.
        if (memdie || ((gfp & GFP_NORETRY) && reclaimed)) {
            ++k.nrAllocFail;
            co_return kNoPage;
        }
        // Direct reclaim, then wait for writeback if it freed nothing -- or, with nothing left to reclaim, the
        // OOM killer (never for __GFP_NORETRY, which fails instead).
        k.vm.inc(Vm::AllocStall);
        std::uint64_t got = co_await try_to_free_pages(k, t);
        reclaimed = true;
        // __alloc_pages_direct_reclaim(): after a round that freed pages, try again; if that fails, "it could be
        // because pages are pinned on the per-cpu lists" -- reclaim frees onto its own CPU's list, which the
        // watermark does not count -- so drain_all_pages() and try once more.
        if (got > 0) {
            if (Pfn p = co_await get_page_from_freelist(k, t, false); p != kNoPage)
                co_return p;
            co_await drain_all_pages(k, t);
            if (Pfn p = co_await get_page_from_freelist(k, t, false); p != kNoPage)
                co_return p;
        }
        if (gfp & GFP_NORETRY)
            continue; // one attempt after the reclaim, then give up (never the OOM killer)
        noProgressLoops = got == 0 ? noProgressLoops + 1 : 0;
        if (may_oom(k, t, got, noProgressLoops)) {
            if (!co_await oom_and_wait(k, t))
                co_return kNoPage; // no one left to kill (the kernel panics here)
            noProgressLoops = 0;
            if (!k.tg.reclaimRetries)
                co_await k.wait_iff_congested(t, k.numa_node(t).zone, ms(20)); // 4.0: after an OOM kill too
            continue;
        }
        co_await reclaim_retry_wait(k, t, got);
    }
}

// get_page_from_freelist() for order > 0: high-order blocks come straight from the buddy lists under
// zone->lock (no per-cpu list above order 0).
Co<Pfn> rmqueue_order(Mm& k, Task& t, int order, Wmark mark)
{
    const int local = k.cpu_to_node(t.cpu);
    Zone* z = nullptr;
    for (int i = 0; i < k.nrNodes() && !z; ++i)
        if (Zone& c = zonelist_node(k, local, i).zone; zone_watermark_ok(c, order, wmark_pages(c, mark)))
            z = &c;
    if (!z)
        co_return kNoPage;
    co_await spin_lock(k.s, t, z->lock);
    Pfn p = z->rmqueueSmallest(k.pages, order);
    Sched::burn(t, k.cost.listOpNs * (1 + order)); // list_del + expand()'s list_adds
    spin_unlock(k.s, t, z->lock);
    co_return p;
}

// __alloc_pages_direct_compact(): compact, drain this CPU's list (the pages compaction freed sit there), and
// try again at the min watermark. kNoPage when compaction was skipped or deferred, or found no block; a failed
// `sync` (MIGRATE_SYNC_LIGHT) one defers the next compactions of this order (3.7+: only a sync failure does).
// `gaveUp`, if given, is set when the compaction was deferred or an async one gave up at a contended lock.
Co<Pfn> direct_compact(Mm& k, Task& t, int order, bool sync, bool* gaveUp)
{
    bool contended = false;
    const Time start = k.s.sim().now() + t.debt;
    CompactResult cr = co_await try_to_compact_pages(k, t, order, sync, &contended);
    k.compactStallTime += k.s.sim().now() + t.debt - start;
    if (gaveUp)
        *gaveUp = contended || cr == CompactResult::Deferred;
    if (cr == CompactResult::Skipped || cr == CompactResult::Deferred)
        co_return kNoPage;
    co_await drain_local_pages(k, t);
    Pfn p = co_await rmqueue_order(k, t, order, Wmark::Min);
    if (p != kNoPage) {
        compaction_defer_reset(k.page_zone(p), order);
        k.vm.inc(Vm::CompactSuccess);
        co_return p;
    }
    if (sync)
        defer_compaction(k.numa_node(t).zone, order); // the preferred zone
    k.vm.inc(Vm::CompactFail);
    co_return kNoPage;
}

// __alloc_pages_direct_reclaim(): reclaim; if it freed pages, try again at the min watermark, and once more
// after drain_all_pages() (the freed pages sit on the reclaimers' per-cpu lists). `got`: the pages reclaim freed.
Co<Pfn> direct_reclaim(Mm& k, Task& t, int order, std::uint64_t& got)
{
    k.vm.inc(Vm::AllocStall);
    got = co_await try_to_free_pages(k, t);
    if (got == 0)
        co_return kNoPage;
    Pfn p = co_await rmqueue_order(k, t, order, Wmark::Min);
    if (p != kNoPage)
        co_return p;
    co_await drain_all_pages(k, t);
    co_return co_await rmqueue_order(k, t, order, Wmark::Min);
}

// A plain function but for the drain of a full per-CPU list: freeing is once per page and seldom drains.
MaybeCo free_hot_cold_page(Mm& k, Task& t, Pfn p)
{
#ifndef NDEBUG
    if (k.pages.test(p, PG_lru | PG_buddy | PG_pagevec | PG_swapcache | PG_writeback) || k.pages.mapcount(p) != 0) {
        std::fprintf(stderr,
            "free_hot_cold_page: page %u is still in use (flags %x, owner %u, mapcount %u) in %s of %s\n", p,
            k.pages.flags(p), k.pages.owner(p), k.pages.mapcount(p), t.fn, t.name.c_str());
        std::abort();
    }
#endif
    k.pages.setFlags(p, PG_buddy);
    k.pages.setIndex(p, Zone::kNotBuddyHead); // on the per-cpu list: never merged by __free_one_page
    k.pages.setOwner(p, 0);
    k.pages.setMapcount(p, 0);
    k.pages.setPriv(p, 0);
    Zone& z = k.page_zone(p); // the page's own zone's list of this CPU
    std::vector<Pfn>& pcp = z.pcp[static_cast<std::size_t>(t.cpu)];
    pcp.push_back(p);
    k.vm.inc(Vm::PgFree);
    Sched::burn(t, k.cost.pageFreeNs);
    if (pcp.size() >= static_cast<std::size_t>(pcp_high(k)))
        return free_pcppages_bulk(k, t, z, pcp, static_cast<std::size_t>(nr_pcp_free(k, z, t.cpu)));
    return {};
}

namespace {
    bool cpu_has_pcps(const Mm& k, int cpu)
    {
        for (const auto& d : k.nodes)
            if (!d->zone.pcp[static_cast<std::size_t>(cpu)].empty())
                return true;
        return false;
    }
    // drain_pages(cpu): the CPU's list of every zone back to its zone's buddy lists, by the task `t`.
    Co<> drain_pages(Mm& k, Task& t, int cpu)
    {
        for (auto& d : k.nodes) {
            std::vector<Pfn>& pcp = d->zone.pcp[static_cast<std::size_t>(cpu)];
            if (!pcp.empty())
                co_await free_pcppages_bulk(k, t, d->zone, pcp, pcp.size());
        }
    }
    std::size_t nr_pcp_pages(const Mm& k, int cpu)
    {
        std::size_t n = 0;
        for (const auto& d : k.nodes)
            n += d->zone.pcp[static_cast<std::size_t>(cpu)].size();
        return n;
    }
} // namespace

Co<> drain_local_pages(Mm& k, Task& t) { co_await drain_pages(k, t, t.cpu); }

// drain_all_pages(NULL), 4.0 and 4.11 (mm/page_alloc.c), nothing before 2.6.36 (page_alloc.drain=none): cpus_with_pcps,
// the CPUs with pages on their lists, then
// - ipi: on_each_cpu_mask(cpus_with_pcps, drain_local_pages, wait): the caller's own list first (interrupts off),
//   an IPI to each other CPU, whose handler frees its list under zone->lock, and the caller spins until the last
//   has finished. The handlers run at once and contend on zone->lock; here the caller takes the lock for each list
//   in turn (the handlers' serialisation, its spin lasting until the last) and each target's current task pays the
//   interrupt and its list's frees.
// - workqueue: mutex_trylock(&pcpu_drain_mutex) -- a drain under way makes this one return at once --, then a work
//   item queued on each CPU with pages (the caller's too) and flush_work() on each. A remote CPU takes the
//   reschedule IPI that wakes its kworker; the kworkers' switches and frees (serialised on zone->lock as before) are
//   charged to the caller, which in the kernel sleeps in flush_work() while they preempt whatever runs there at its
//   next preemption point -- never inside a spinlock, so no lock hold grows by them.
Co<> drain_all_pages(Mm& k, Task& t)
{
    if (k.tg.pcpDrain == PcpDrain::None)
        co_return;
    FnScope fn(t, "drain_all_pages");
    const bool wq = k.tg.pcpDrain == PcpDrain::Workqueue;
    if (wq) {
        if (k.pcpDrainBusy)
            co_return;
        k.pcpDrainBusy = true;
    }
    std::vector<int> cpus;
    for (int c = 0; c < k.s.cpuCount(); ++c)
        if (cpu_has_pcps(k, c) && (wq || c != t.cpu))
            cpus.push_back(c);
    if (!wq) {
        co_await drain_local_pages(k, t);
        if (cpus.empty())
            co_return;
        Sched::burnWall(t, ns(k.ipiRoundNs(cpus.size()))); // spins for the acks: a PAUSE loop
    }
    for (int c : cpus) {
        const std::size_t n = nr_pcp_pages(k, c); // what is left when its turn comes
        if (wq) // the kworker's switch in and out, and the reschedule IPI that wakes a remote one
            Sched::burn(t, 2 * k.cost.contextSwitchNs);
        if (c != t.cpu && wq && k.cost.ipiSendExits > 0) { // in a guest, the reschedule IPI's trapped ICR write
            Sched::burn(t, k.cost.ipiSendExits * k.cost.vmExitNs);
            k.vmExits += k.cost.ipiVmExits(1);
        }
        if (c != t.cpu)
            k.s.interrupt(c, k.cost.ipiHandleNs + (wq ? 0.0 : static_cast<double>(n) * k.cost.listOpNs));
        if (n > 0)
            co_await drain_pages(k, t, c);
    }
    if (wq)
        k.pcpDrainBusy = false;
}

Co<Pfn> alloc_pages(Mm& k, Task& t, int order, unsigned gfp)
{
    if (order == 0)
        co_return co_await alloc_page(k, t);
    FnScope fn(t, "__alloc_pages_nodemask");
    Sched::burn(t, k.cost.pageAllocNs);
    Pfn p = co_await rmqueue_order(k, t, order, Wmark::Low);
    if (p != kNoPage) {
        k.vm.inc(Vm::PgAlloc, 1u << order);
        co_return p;
    }
    // __alloc_pages_slowpath() (3.x): wake kswapd, retry at the min watermark, then direct compaction, then
    // direct reclaim; up to PAGE_ALLOC_COSTLY_ORDER the allocation loops (should_alloc_retry) until reclaim finds
    // nothing left and the OOM killer kills the allocating task, which then takes the block below the watermarks
    // if there is one; a costly order fails after one round and one more compaction. The first compaction is
    // asynchronous, every later one MIGRATE_SYNC_LIGHT (sync_migration = true), and only a failed sync one defers.
    wake_all_kswapds(k, t);
    bool sync = false;
    int noProgressLoops = 0;
    for (;;) {
        bool memdie = fatal_signal_pending(t);
        p = co_await rmqueue_order(k, t, order, memdie ? Wmark::None : Wmark::Min);
        if (p != kNoPage)
            break;
        if (memdie) {
            ++k.nrAllocFail;
            co_return kNoPage;
        }
        p = co_await direct_compact(k, t, order, sync);
        if (p != kNoPage)
            break;
        sync = true;
        std::uint64_t got = 0;
        p = co_await direct_reclaim(k, t, order, got);
        if (p != kNoPage)
            break;
        // No retry (should_alloc_retry() is false for a costly order and for __GFP_NORETRY): one sync compaction
        // ("call [compaction] directly if necessary"), then fail.
        if (order > PAGE_ALLOC_COSTLY_ORDER || (gfp & GFP_NORETRY)) {
            p = co_await direct_compact(k, t, order, true);
            if (p != kNoPage)
                break;
            ++k.nrAllocFail;
            co_return kNoPage;
        }
        noProgressLoops = got == 0 ? noProgressLoops + 1 : 0;
        if (may_oom(k, t, got, noProgressLoops)) {
            if (!co_await oom_and_wait(k, t))
                co_return kNoPage;
            noProgressLoops = 0;
            if (!k.tg.reclaimRetries)
                co_await k.wait_iff_congested(t, k.numa_node(t).zone, ms(20));
            continue;
        }
        co_await reclaim_retry_wait(k, t, got);
    }
    k.vm.inc(Vm::PgAlloc, 1u << order);
    co_return p;
}

Co<> free_pages(Mm& k, Task& t, Pfn p, int order)
{
    if (order == 0) {
        k.pages.setOwner(p, 0);
        k.pages.setMapcount(p, 0);
        k.pages.setPriv(p, 0);
        co_return co_await free_hot_cold_page(k, t, p);
    }
    // __free_pages_ok() -> free_one_page() under zone->lock.
    FnScope fn(t, "__free_pages_ok");
#ifndef NDEBUG
    // free_pages_check() / bad_page(): a block freed twice would be merged into the free lists while its pages are
    // in use again (a later allocation hands out the same pages twice).
    for (Pfn q = p; q < p + (Pfn(1) << order); ++q)
        if (k.pages.test(q, PG_lru | PG_buddy | PG_pagevec | PG_swapcache | PG_writeback) || k.pages.owner(q) != 0
            || k.pages.mapcount(q) != 0) {
            std::fprintf(stderr,
                "__free_pages_ok: page %u of the order-%d block at %u is free or in use (flags %x, owner %u, mapcount "
                "%u) in %s of %s\n",
                q, order, p, k.pages.flags(q), k.pages.owner(q), k.pages.mapcount(q), t.fn, t.name.c_str());
            std::abort();
        }
#endif
    for (Pfn q = p; q < p + (Pfn(1) << order); ++q) {
        k.pages.setOwner(q, 0);
        k.pages.setMapcount(q, 0);
        k.pages.setPriv(q, 0);
    }
    Sched::burn(t, k.cost.pageFreeNs);
    Zone& z = k.page_zone(p);
    co_await spin_lock(k.s, t, z.lock);
    z.freeOnePage(k.pages, p, order);
    Sched::burn(t, k.cost.listOpNs * 2);
    spin_unlock(k.s, t, z.lock);
    k.vm.inc(Vm::PgFree, 1u << order);
}

} // namespace mms
