// mm/vmscan.c (4.0-4.5, anonymous pages): kswapd and direct reclaim share shrink_zone(), which ages the active list
// and reclaims from the tail of the inactive list in batches of SWAP_CLUSTER_MAX under lru_lock.
// shrink_page_list() adds anonymous pages to swap, unmaps them (try_to_unmap_anon, mm/rmap_anon.cpp: PTE -> swap
// entry, TLB flush with IPIs to CPUs running the owner), writes dirty ones out and frees clean ones. A page
// MADV_FREE'd and not redirtied is discarded without I/O (TTU_LZFREE). The file LRU follows 5.6 (shrink_file_lruvec
// and what it calls). Both put what they isolated back through move_pages_to_lru(), whose work a page is the same
// in every era.
#include "mm/vmscan.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/page_io.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/swapfile.h"
#include "mm/tlb.h"
#include "mm/zswap.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace mms {

namespace {
    // The inactive:active target ratio for a list of `bytes`: sqrt(10 * GB), 1 below 1 GB (inactive_list_is_low).
    double inactive_ratio(std::uint64_t bytes)
    {
        auto gb = static_cast<double>(bytes >> 30);
        return gb >= 1.0 ? std::floor(std::sqrt(10.0 * gb)) : 1.0;
    }

    // inactive_anon_is_low(): keep inactive * ratio >= active, the ratio from the zone's size. "If we don't have swap
    // space, anonymous page deactivation is pointless" (4.0: total_swap_pages == 0, no swap device; since Minchan
    // Kim's "Prevent shrinking of active anon lru list in case of no swap space", 2009).
    bool inactive_anon_is_low(const Mm& k, const PgData& d)
    {
        if (k.swap.empty())
            return false;
        double ratio = inactive_ratio(d.bytes);
        return static_cast<double>(d.lruvec.nr[LRU_INACTIVE_ANON]) * ratio < static_cast<double>(d.lruvec.nr[LRU_ACTIVE_ANON]);
    }

    // isolate_lru_pages() from the tail of list `l` of lruvec `v` (the caller holds its lru_lock): per page
    // __isolate_lru_page()'s get_page_unless_zero() and ClearPageLRU(), two atomics on a struct page another CPU wrote
    // last (the fault that mapped it, the reclaimer that put it back), and list_move() off the list, which writes
    // both neighbours. The anonymous callers count the batch in NR_ISOLATED_ANON until it is put back or freed
    // (__mod_node_page_state(pgdat, NR_ISOLATED_ANON + file, nr_taken) in shrink_{in,}active_list, 5.6).
    std::vector<Pfn> isolate_lru_pages(Mm& k, Task& t, Lruvec& v, LruList l, int nr)
    {
        std::vector<Pfn> out;
        out.reserve(static_cast<std::size_t>(std::max(nr, 0))); // one allocation per batch, not one per doubling
        for (int i = 0; i < nr; ++i) {
            Pfn p = k.pages.last(k.lruHead(v, l));
            if (p == kNoPage)
                break;
            k.touchLruDel(t, p, false);
            k.del_page_from_lru_list(p);
            k.pages.set(p, PG_isolated);
            out.push_back(p);
            Sched::burn(t, 2 * k.cost.lockedRmwNs + k.cost.listOpNs);
        }
        // The list's vmstat counters once for the batch (4.0: shrink_inactive_list()'s __mod_zone_page_state(zone,
        // NR_LRU_BASE + lru, -nr_taken); 5.6: update_lru_sizes()).
        k.lruVmstat(t, v, l, -static_cast<int>(out.size()));
        return out;
    }

    // A batch isolated from the LRU counts in NR_ISOLATED_ANON / NR_ISOLATED_FILE: the zone's count that
    // too_many_isolated() reads, and its vmstat counter.
    void accountIsolated(Mm& k, Task& t, PgData& d, bool file, std::size_t n)
    {
        (file ? d.zone.nrIsolatedFile : d.zone.nrIsolatedAnon) += n;
        k.isolatedVmstat(t, d, file, static_cast<int>(n));
    }

    // pageout() of a batch: contiguous swap slots of one device are merged into one request (the block plug).
    Co<> submit_writes(Mm& k, Task& t, std::vector<Pfn>& writes)
    {
        if (writes.empty())
            co_return;
        FnScope fn(t, "swap_writepage");
        std::sort(writes.begin(), writes.end(), [&](Pfn a, Pfn b) { return k.pages.priv(a) < k.pages.priv(b); });
        std::size_t i = 0;
        while (i < writes.size()) {
            std::size_t j = i + 1;
            while (j < writes.size() && k.pages.priv(writes[j]) == k.pages.priv(writes[j - 1]) + 1)
                ++j;
            SwapInfo& si = *k.swap[pte::swpType(k.pages.priv(writes[i]))];
            co_await si.dev->waitForSlot(t);
            Sched::burn(t, k.cost.bioSubmitNs);
            si.dev->submit(true, std::vector<Pfn>(writes.begin() + static_cast<std::ptrdiff_t>(i), writes.begin() + static_cast<std::ptrdiff_t>(j)));
            i = j;
        }
        writes.clear();
    }

    enum class Verdict : std::uint8_t { Keep, Free, Write };

    // activate_locked's "Not a candidate for swapping, so reclaim swap space" (vmscan.activate_free_swap): a
    // swap-cache page going back to the active list gives its slot up while swap is more than half used.
    MaybeCo freeSwapOnActivate(Mm& k, Task& t, Pfn p)
    {
        if (!k.tg.activateFreeSwap || !k.pages.test(p, PG_swapcache) || !vm_swap_full(k))
            return {};
        return [](Mm& k, Task& t, Pfn p) -> Co<> { co_await try_to_free_swap(k, t, p); }(k, t, p);
    }

    // The body of shrink_page_list() for one page, which the caller has locked (trylock_page).
    Co<Verdict> shrink_one(Mm& k, Task& t, Pfn p, ReclaimStat* stat)
    {
        if (k.pages.test(p, PG_writeback)) {
            // 3.11+ (vmscan.kswapd_nap=immediate), "Case 1": kswapd meets a page still under writeback that reclaim
            // marked for immediate reclaim before, in a zone flagged ZONE_WRITEBACK: the LRU is scanned faster than
            // pages are written. "Case 2": mark it for immediate reclaim and count it under writeback.
            if (stat && stat->kswapd && k.tg.kswapdNap == KswapdNap::Immediate && k.pages.test(p, PG_reclaim)
                && k.page_zone(p).reclaimWriteback) {
                ++stat->nrImmediate;
                co_return Verdict::Keep;
            }
            k.pages.set(p, PG_reclaim);
            if (stat)
                ++stat->nrWriteback;
            co_return Verdict::Keep;
        }
        int referenced = page_referenced_anon_now(k, t, p);
        if (referenced < 0) {
            bool young = co_await page_referenced_anon(k, t, p, referenced == -2);
            referenced = young ? 1 : 0;
        }
        if (referenced) { // PAGEREF_ACTIVATE for a swap-backed page
            co_await freeSwapOnActivate(k, t, p);
            k.pages.set(p, PG_active);
            k.vm.inc(Vm::PgActivate);
            co_return Verdict::Keep;
        }
        if (k.pages.test(p, PG_anon) && !k.pages.test(p, PG_swapcache)) {
            bool added = co_await add_to_swap(k, t, p);
            if (!added) { // swap full
                k.pages.set(p, PG_active);
                co_return Verdict::Keep;
            }
        }
        Unmap r = co_await try_to_unmap_anon(k, t, p);
        if (r == Unmap::Referenced) {
            co_await freeSwapOnActivate(k, t, p);
            k.pages.set(p, PG_active);
            k.vm.inc(Vm::PgActivate);
            co_return Verdict::Keep;
        }
        if (r == Unmap::Discarded) {
            co_await delete_from_swap_cache(k, t, p); // __remove_mapping + swapcache_free of the new slot
            k.vm.inc(Vm::PgLazyFreed);
            k.pages.setOwner(p, 0);
            co_return Verdict::Free;
        }
        if (k.pages.test(p, PG_dirty)) { // pageout()
            k.pages.clear(p, PG_dirty);
            if (k.zswap && k.pages.test(p, PG_swapcache) && co_await k.zswap->frontswap_store(t, p)) {
                // swap_writepage(): zswap took it, and the page is written, clean and off writeback, as with a
                // synchronous device (below); the device is not touched, nor counted in pswpout.
            } else if (k.pages.test(p, PG_swapcache) && swap_synchronous(*k.swap[pte::swpType(k.pages.priv(p))])) {
                // rw_page: written (or failed) before pageout() returns. Written, the page is clean and off
                // writeback, and shrink_page_list() frees it now ("A synchronous write - probably a ramdisk").
                if (!co_await swap_writepage(k, t, p))
                    co_return Verdict::Keep;
            } else {
                k.pages.set(p, PG_writeback | PG_reclaim);
                ++k.page_zone(p).nrWriteback;
                if (k.tg.swapWritebackTags && k.pages.test(p, PG_swapcache))
                    co_await swap_writeback_tags(k, t, p, true);
                k.vm.inc(Vm::PswpOut);
                if (const std::uint32_t e = k.pages.priv(p); k.pages.test(p, PG_swapcache)) // the bytes the device gets
                    k.swap[pte::swpType(e)]->slot[pte::swpOffset(e)].content = k.pages.content(p);
                co_return Verdict::Write;
            }
        }
        // Clean and unmapped: __remove_mapping() drops it from the swap cache, unless someone else holds a
        // reference (page_ref_freeze fails): an mmu_gather about to free it, or a fault about to map it.
        if (k.isPinned(p))
            co_return Verdict::Keep;
        if (k.pages.test(p, PG_swapcache))
            co_await delete_from_swap_cache(k, t, p);
        k.pages.setOwner(p, 0);
        co_return Verdict::Free;
    }

} // namespace

Co<std::uint64_t> shrink_page_list(Mm& k, Task& t, std::vector<Pfn>& list, ReclaimStat* stat)
{
    FnScope fn(t, "shrink_page_list");
    // The pages kept are compacted to the front of `list` as it is walked (slot `kept` is never ahead of the
    // page being looked at), so that a batch costs no vector of its own for them; the other two are sized once.
    std::vector<Pfn> toFree, writes;
    toFree.reserve(list.size());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        Pfn p = list[i];
        Sched::burn(t, k.cost.reclaimPerPageNs);
        if (k.orphan(p)) {
            toFree.push_back(p);
            continue;
        }
        if (k.isPinned(p) || k.pages.test(p, PG_locked)) { // an extra reference, or trylock_page() failed
            list[kept++] = p;
            continue;
        }
        k.pages.set(p, PG_locked);
        Verdict v = co_await shrink_one(k, t, p, stat);
        k.pages.clear(p, PG_locked);
        if (v == Verdict::Free)
            toFree.push_back(p);
        else
            list[kept++] = p;
        if (v == Verdict::Write) {
            if (writes.empty())
                writes.reserve(list.size());
            writes.push_back(p);
        }
    }
    list.resize(kept);
    co_await submit_writes(k, t, writes);
    for (Pfn p : toFree)
        co_await free_hot_cold_page(k, t, p);
    k.vm.inc(Vm::PgSteal, toFree.size());
    co_return toFree.size();
}

std::uint64_t move_pages_to_lru(Mm& k, Task& t, std::vector<Pfn>& list)
{
    std::size_t toFree = 0;
    std::uint64_t moved = 0;
    for (Pfn p : list) {
        k.pages.clear(p, PG_isolated);
        if (k.orphan(p)) { // put_page_testzero() dropped the last reference: list_add(&page->lru, &pages_to_free)
            list[toFree++] = p;
            continue;
        }
        LruList l = Mm::page_lru(k.pages.flags(p));
        k.touchLruAdd(t, p, l);
        k.add_page_to_lru_list(p, l);
        Sched::burn(t, 2 * k.cost.lockedRmwNs + k.cost.listOpNs); // SetPageLRU, put_page_testzero, list_add
        ++moved;
    }
    list.resize(toFree);
    return moved;
}

Co<> putbackIsolated(Mm& k, Task& t, PgData& d, Lruvec& v, std::vector<Pfn>& list, std::uint64_t isolated, bool file)
{
    co_await spin_lock(k.s, t, v.lru_lock);
    move_pages_to_lru(k, t, list);
    std::uint64_t& nrIsolated = file ? d.zone.nrIsolatedFile : d.zone.nrIsolatedAnon;
    nrIsolated -= std::min(isolated, nrIsolated);
    k.isolatedVmstat(t, d, file, -static_cast<int>(isolated));
    spin_unlock(k.s, t, v.lru_lock);
    for (Pfn p : list)
        co_await free_hot_cold_page(k, t, p);
    list.clear();
}

namespace {
    Co<> shrink_active_list(Mm& k, Task& t, PgData& d, int nr)
    {
        FnScope fn(t, "shrink_active_list");
        co_await lru_add_drain(k, t);
        co_await spin_lock(k.s, t, d.lruvec.lru_lock);
        std::vector<Pfn> list = isolate_lru_pages(k, t, d.lruvec, LRU_ACTIVE_ANON, nr);
        accountIsolated(k, t, d, false, list.size());
        spin_unlock(k.s, t, d.lruvec.lru_lock);
        const std::uint64_t isolated = list.size();
        for (Pfn p : list) {
            // anon pages are deactivated even when referenced
            if (int r = page_referenced_anon_now(k, t, p); r < 0)
                co_await page_referenced_anon(k, t, p, r == -2);
            k.pages.clear(p, PG_active | PG_referenced);
            k.vm.inc(Vm::PgDeactivate);
        }
        co_await putbackIsolated(k, t, d, d.lruvec, list, isolated, false);
    }

    // shrink_inactive_list() (4.0) for the anonymous list. A direct reclaimer first waits while too_many_isolated()
    // (from 2.6.32: vmscan.isolated_throttle): congestion_wait(BLK_RW_ASYNC, HZ/10) in a loop with no bound, left early
    // only by a fatal signal. Then one
    // batch: isolate under lru_lock, shrink_page_list, put back under lru_lock. The wait_iff_congested(HZ/10) that
    // follows for a direct reclaimer (from 3.11: vmscan.nap) sleeps only when the zone is ZONE_CONGESTED, which
    // anonymous pages never make it (page_check_dirty_writeback() reports them neither dirty nor under writeback): a
    // cond_resched().
    // reclaim_throttle(pgdat, VMSCAN_THROTTLE_ISOLATED) (5.16): sleep on the node's queue for HZ/50 at most; a
    // reclaimer that finds isolation back under the limit wakes the sleepers (wake_throttle_isolated).
    Co<> reclaim_throttle(Mm& k, Task& t, PgData& d)
    {
        co_await k.s.flush(t);
        d.isolatedWait.emplace_back(&t, t.sleepGen + 1);
        const Time since = k.s.sim().now();
        const int cpu = t.cpu;
        co_await k.s.sleepTimeout(t, ms(20)); // HZ/50
        k.s.traceSleep(cpu, since, SpanKind::IoWait, "reclaim_throttle");
    }

    // too_many_isolated() for a direct reclaimer. From 5.16 (vmscan.isolated_throttle=reclaim_throttle) a check that
    // finds isolation under the limit also wakes the tasks reclaim_throttle() put to sleep for it.
    bool tooManyIsolatedOrWake(Mm& k, PgData& d, bool file)
    {
        const bool tooMany = too_many_isolated(d, file);
        if (!tooMany && !d.isolatedWait.empty()) {
            auto waiters = std::move(d.isolatedWait);
            d.isolatedWait.clear();
            for (auto [w, gen] : waiters)
                k.s.wakeIf(*w, gen);
        }
        return tooMany;
    }

    Co<std::uint64_t> shrink_inactive_list(Mm& k, Task& t, PgData& d, int nr, bool kswapd)
    {
        FnScope fn(t, "shrink_inactive_list");
        bool stalled = false;
        while (!kswapd && k.tg.isolatedThrottle != IsolatedThrottle::None && tooManyIsolatedOrWake(k, d, false)) {
            // 5.16: one throttled sleep a call, then "return 0" and let the caller retry or fail.
            if (stalled)
                co_return 0;
            k.vm.inc(Vm::IsolateThrottle);
            if (k.tg.isolatedThrottle == IsolatedThrottle::ReclaimThrottle) {
                stalled = true;
                co_await reclaim_throttle(k, t, d);
            } else {
                co_await k.congestion_wait(t, ms(100));
            }
            if (fatal_signal_pending(t))
                co_return SWAP_CLUSTER_MAX; // "We are about to die and free our memory. Return now."
        }
        co_await lru_add_drain(k, t);
        co_await spin_lock(k.s, t, d.lruvec.lru_lock);
        std::vector<Pfn> list = isolate_lru_pages(k, t, d.lruvec, LRU_INACTIVE_ANON, nr);
        accountIsolated(k, t, d, false, list.size());
        spin_unlock(k.s, t, d.lruvec.lru_lock);
        const std::uint64_t isolated = list.size();
        k.vm.inc(kswapd ? Vm::PgScanKswapd : Vm::PgScanDirect, list.size());
        ReclaimStat stat { kswapd };
        std::uint64_t freed = co_await shrink_page_list(k, t, list, &stat);
        co_await putbackIsolated(k, t, d, d.lruvec, list, isolated, false);
        // 3.11+: a batch found wholly under writeback flags the zone ZONE_WRITEBACK, and kswapd that met pages it had
        // marked for immediate reclaim still under writeback stalls (current_may_throttle(): no task here writes
        // for a block device, PF_LESS_THROTTLE).
        if (k.tg.kswapdNap == KswapdNap::Immediate) {
            if (stat.nrWriteback != 0 && stat.nrWriteback == isolated)
                d.zone.reclaimWriteback = true;
            if (stat.nrImmediate != 0)
                co_await k.congestion_wait(t, ms(100));
        }
        if (!kswapd && k.tg.reclaimNap == ReclaimNap::ShrinkList)
            co_await k.wait_iff_congested(t, d.zone, ms(100));
        co_return freed;
    }

    // --- the file LRU, as 5.6 reclaims clean page cache (one node: the pgdat lru_lock of the root memcg's lruvec,
    // or with lru.lruvecs > 1 the lruvec and lock of each memcg) ---

    // inactive_list_is_low(file). 2.6.31-4.9 (lru.inactive_file_ratio=equal): inactive_file_is_low_global(),
    // "active > inactive". From 59dc76b0d4df (4.10) the same sqrt(10 * GB) ratio as for anon (5.6 without refaults).
    bool inactive_file_is_low(Mm& k, const Lruvec& v)
    {
        if (k.tg.inactiveFileRatio == InactiveFileRatio::Equal)
            return v.nr[LRU_ACTIVE_FILE] > v.nr[LRU_INACTIVE_FILE];
        std::uint64_t total = v.nr[LRU_INACTIVE_FILE] + v.nr[LRU_ACTIVE_FILE];
        double ratio = inactive_ratio(total * kPageSize);
        return static_cast<double>(v.nr[LRU_INACTIVE_FILE]) * ratio < static_cast<double>(v.nr[LRU_ACTIVE_FILE]);
    }

    // shrink_active_list() on the file list: an unmapped page-cache page has no PTE to be young in, so
    // page_referenced() finds nothing; a mapped one has its young bits tested and cleared by an rmap walk. Either
    // way it is deactivated (only mapped VM_EXEC pages stay active, and no workload here maps text).
    Co<> shrink_active_file_list(Mm& k, Task& t, PgData& d, Lruvec& v, int nr)
    {
        FnScope fn(t, "shrink_active_list");
        co_await lru_add_drain(k, t);
        co_await spin_lock(k.s, t, v.lru_lock);
        std::vector<Pfn> list = isolate_lru_pages(k, t, v, LRU_ACTIVE_FILE, nr);
        accountIsolated(k, t, d, true, list.size());
        spin_unlock(k.s, t, v.lru_lock);
        const std::uint64_t isolated = list.size();
        for (Pfn p : list) {
            if (page_mapped(k, p) && !k.pages.test(p, PG_locked) && !k.isPinned(p)) {
                k.pages.set(p, PG_locked); // trylock_page for the walk (page_referenced(page, 0, ...))
                if (k.pages.test(p, PG_anon)) { // lazily freed (madvise.lazyfree_lru=file): the anonymous rmap walk
                    if (const int young = page_referenced_anon_now(k, t, p); young < 0)
                        co_await page_referenced_anon(k, t, p, young == -2);
                    k.pages.clear(p, PG_locked);
                } else {
                    co_await page_referenced(k, t, p);
                    unlock_page(k, t, p);
                }
            }
            Sched::burn(t, k.cost.rmapOpNs + k.cost.lockedRmwNs); // page_referenced (mapcount 0), ClearPageActive
            k.pages.clear(p, PG_active);
            k.vm.inc(Vm::PgDeactivate);
        }
        co_await putbackIsolated(k, t, d, v, list, isolated, true);
    }

    enum class PageRef : std::uint8_t { Activate, Keep, Reclaim };

    // page_check_references() for a page-cache page: the young PTEs page_referenced() found and cleared, and
    // PG_referenced (test-and-cleared). A page only read() has no PTE, so PG_referenced alone never keeps it
    // (PAGEREF_RECLAIM_CLEAN); a mapped page used since the last scan gets one more trip round the inactive list
    // (PAGEREF_KEEP, PG_referenced set: 645747462435, "detect mapped file pages used only once"), and is activated
    // if it was used again or is mapped more than once (34dbc67a644f, "promote shared file mapped pages").
    // The caller has awaited page_referenced() for `referenced_ptes`: the rest never suspends, so it is a plain
    // call rather than a coroutine frame of its own per page scanned.
    PageRef page_check_references(Mm& k, Task& t, Pfn p, int referenced_ptes)
    {
        Sched::burn(t, k.cost.lockedRmwNs); // TestClearPageReferenced
        bool referenced_page = k.pages.test(p, PG_referenced);
        k.pages.clear(p, PG_referenced);
        if (referenced_ptes == 0)
            return PageRef::Reclaim;
        k.pages.set(p, PG_referenced); // SetPageReferenced
        if (referenced_page || referenced_ptes > 1)
            return PageRef::Activate;
        return PageRef::Keep;
    }

    // shrink_page_list() for a lazily freed anonymous page on the file list (madvise.lazyfree_lru=file, 4.12+),
    // locked by the caller: page_check_references() as for any page that is not swap-backed (kept once if used since
    // the last scan, activated if used again), then try_to_unmap(): a clean page is discarded -- no swap, its data
    // was given up -- and one written since MADV_FREE is activated, swap-backed again (activate_locked).
    Co<PageRef> shrink_lazyfree_one(Mm& k, Task& t, Pfn p)
    {
        int referenced = page_referenced_anon_now(k, t, p);
        if (referenced < 0)
            referenced = co_await page_referenced_anon(k, t, p, referenced == -2) ? 1 : 0;
        const PageRef ref = page_check_references(k, t, p, referenced);
        if (ref != PageRef::Reclaim)
            co_return ref;
        const Unmap r = co_await try_to_unmap_anon(k, t, p);
        const bool discard = r == Unmap::Discarded || (r == Unmap::Done && !k.pages.test(p, PG_dirty));
        if (!discard)
            co_return PageRef::Activate;
        if (k.isPinned(p)) // page_ref_freeze(page, 1) fails: a zap's gather that will free it, or a fault, holds it
            co_return PageRef::Keep;
        k.pages.clear(p, PG_lazyfree);
        k.pages.setOwner(p, 0);
        k.vm.inc(Vm::PgLazyFreed);
        co_return PageRef::Reclaim;
    }

    // shrink_page_list() for clean page-cache pages: trylock_page, page_check_references, try_to_unmap of a mapped
    // page (its TLB flushes batched: TTU_BATCH_FLUSH, with tlb.reclaim_batch), __remove_mapping, and one
    // try_to_unmap_flush() before the pages are freed.
    Co<std::uint64_t> shrink_file_page_list(Mm& k, Task& t, std::vector<Pfn>& list)
    {
        FnScope fn(t, "shrink_page_list");
        // As in shrink_page_list(): the pages kept are compacted to the front of `list` as it is walked.
        std::vector<Pfn> toFree;
        toFree.reserve(list.size());
        std::size_t kept = 0;
        TlbflushUnmapBatch tlb_ubc;
        for (std::size_t i = 0; i < list.size(); ++i) {
            Pfn p = list[i];
            Sched::burn(t, k.cost.reclaimPerPageNs);
            if (k.isPinned(p) || k.pages.test(p, PG_locked)) { // an extra reference, or trylock_page() failed
                list[kept++] = p;
                continue;
            }
            if (k.pages.test(p, PG_anon)) { // lazily freed (madvise.lazyfree_lru=file)
                k.pages.set(p, PG_locked);
                Sched::burn(t, k.cost.lockedRmwNs); // trylock_page
                const PageRef ref = co_await shrink_lazyfree_one(k, t, p);
                k.pages.clear(p, PG_locked); // unlock_page: no one waits on an anonymous page's lock here
                if (ref == PageRef::Reclaim) {
                    toFree.push_back(p);
                    continue;
                }
                if (ref == PageRef::Activate) {
                    k.pages.set(p, PG_active);
                    k.vm.inc(Vm::PgActivate);
                }
                list[kept++] = p;
                continue;
            }
            if (k.pages.test(p, PG_dirty | PG_writeback)) {
                // A dirty page-cache page (a filesystem's data or metadata not written back yet): 3.x's
                // shrink_page_list() leaves it to the flusher threads (keep_locked; only kswapd writes file pages,
                // and only from a zone flagged ZONE_TAIL_LRU_DIRTY, which these runs never reach).
                list[kept++] = p;
                continue;
            }
            k.pages.set(p, PG_locked);
            Sched::burn(t, k.cost.lockedRmwNs); // trylock_page
            int referenced_ptes = co_await page_referenced(k, t, p);
            PageRef ref = page_check_references(k, t, p, referenced_ptes);
            if (ref == PageRef::Reclaim && page_mapped(k, p)) {
                // TTU_BATCH_FLUSH from 72b252aed506 "mm: send one IPI per CPU to TLB flush all entries after
                // unmapping pages" (4.3); before it ptep_clear_flush() flushes for each page.
                const bool batch = k.tg.reclaimTlbBatch;
                bool unmapped
                    = co_await try_to_unmap(k, t, p, batch ? TTU_BATCH_FLUSH : 0u, batch ? &tlb_ubc : nullptr);
                if (!unmapped) // a young PTE: used again meanwhile (activate_locked)
                    ref = PageRef::Activate;
            }
            if (ref != PageRef::Reclaim) {
                if (ref == PageRef::Activate) {
                    k.pages.set(p, PG_active);
                    k.vm.inc(Vm::PgActivate);
                }
                unlock_page(k, t, p);
                list[kept++] = p;
                continue;
            }
            bool freed = co_await remove_mapping(k, t, p); // unlocks the page either way
            if (freed)
                toFree.push_back(p);
            else
                list[kept++] = p;
        }
        list.resize(kept);
        co_await try_to_unmap_flush(k, t, tlb_ubc); // no page is freed while a stale TLB entry may still map it
        for (Pfn p : toFree) {
            k.pages.clear(p, PG_isolated);
            co_await free_hot_cold_page(k, t, p); // free_unref_page_list
        }
        k.vm.inc(Vm::PgSteal, toFree.size());
        co_return toFree.size();
    }

    Co<std::uint64_t> shrink_inactive_file_list(Mm& k, Task& t, PgData& d, Lruvec& v, int nr, bool kswapd)
    {
        FnScope fn(t, "shrink_inactive_list");
        co_await lru_add_drain(k, t);
        co_await spin_lock(k.s, t, v.lru_lock);
        std::vector<Pfn> list = isolate_lru_pages(k, t, v, LRU_INACTIVE_FILE, nr);
        accountIsolated(k, t, d, true, list.size());
        spin_unlock(k.s, t, v.lru_lock);
        const std::uint64_t isolated = list.size();
        k.vm.inc(kswapd ? Vm::PgScanKswapd : Vm::PgScanDirect, list.size());
        std::uint64_t freed = co_await shrink_file_page_list(k, t, list);
        co_await putbackIsolated(k, t, d, v, list, isolated, true);
        co_return freed;
    }

    // shrink_lruvec() for the file lists. get_scan_count() in 5.6 scans only file pages while the inactive file
    // list is big enough (SCAN_FILE), which is always the case for the page-cache workloads here.
    //
    // The active file list is aged while inactive_file_is_low() (56e49d218890, "vmscan: evict use-once pages first",
    // 2.6.31). Before it (lru.evict_use_once=false) shrink_list() ages LRU_ACTIVE_FILE whenever get_scan_count() gives
    // it pages to scan, i.e. on every pass that finds it non-empty: SWAP_CLUSTER_MAX of it beside each batch of the
    // inactive list, as shrink_zone()'s loop takes min(nr[l], SWAP_CLUSTER_MAX) of every list in turn.
    Co<std::uint64_t> shrink_file_lruvec(Mm& k, Task& t, PgData& d, Lruvec& v, bool kswapd)
    {
        const bool age = k.tg.evictUseOnce ? inactive_file_is_low(k, v) || v.nr[LRU_INACTIVE_FILE] == 0
                                           : v.nr[LRU_ACTIVE_FILE] > 0;
        if (age)
            co_await shrink_active_file_list(k, t, d, v, SWAP_CLUSTER_MAX);
        // A batch can free nothing when every page in it is mapped and young (kept for another trip round the
        // list): the kernel then raises the scan priority and scans on (do_try_to_free_pages, balance_pgdat), so
        // scan further batches, at most the list's length, before reporting failure.
        std::uint64_t got = 0;
        for (std::uint64_t scanned = 0; got == 0 && scanned < v.nr[LRU_INACTIVE_FILE]; scanned += SWAP_CLUSTER_MAX) {
            got = co_await shrink_inactive_file_list(k, t, d, v, SWAP_CLUSTER_MAX, kswapd);
            if (got == 0 && v.nr[LRU_INACTIVE_FILE] == 0)
                break;
        }
        co_return got;
    }

    // shrink_node_memcgs(): each memcg's lruvec in turn, from where the last reclaimer left off. 5.6 visits every
    // memcg on every pass; a direct reclaimer here stops once it has its SWAP_CLUSTER_MAX pages, and the shared
    // starting point spreads concurrent reclaimers over the lruvecs (with one lruvec: shrink_file_lruvec).
    Co<std::uint64_t> shrink_file_memcgs(Mm& k, Task& t, PgData& d, bool kswapd)
    {
        std::size_t n = d.lruvecs.size();
        std::size_t first = d.reclaimRotor++ % n;
        std::uint64_t got = 0;
        for (std::size_t i = 0; i < n; ++i) {
            Lruvec& v = *d.lruvecs[(first + i) % n];
            if (v.nr[LRU_INACTIVE_FILE] + v.nr[LRU_ACTIVE_FILE] == 0)
                continue;
            got += co_await shrink_file_lruvec(k, t, d, v, kswapd);
            if (!kswapd && got >= SWAP_CLUSTER_MAX)
                break;
        }
        co_return got;
    }
} // namespace

bool too_many_isolated(const PgData& d, bool file)
{
    std::uint64_t inactive = file ? d.lruvec.nr[LRU_INACTIVE_FILE] : d.lruvec.nr[LRU_INACTIVE_ANON];
    std::uint64_t isolated = file ? d.zone.nrIsolatedFile : d.zone.nrIsolatedAnon;
    // Every allocation that reclaims here is GFP_IOFS (user pages, page cache, kernel GFP_KERNEL): such callers are
    // throttled at an eighth of the inactive list, so that GFP_NOIO/NOFS ones can still isolate.
    inactive >>= 3;
    return isolated > inactive;
}

std::uint64_t nrFileLru(const PgData& d)
{
    std::uint64_t n = 0;
    for (const Lruvec* v : d.lruvecs)
        n += v->nr[LRU_INACTIVE_FILE] + v->nr[LRU_ACTIVE_FILE];
    return n;
}

std::uint64_t zone_reclaimable_pages(const Mm& k, const PgData& d)
{
    std::uint64_t n = nrFileLru(d);
    if (si_swapinfo(k).free > 0)
        n += d.lruvec.nr[LRU_INACTIVE_ANON] + d.lruvec.nr[LRU_ACTIVE_ANON];
    return n;
}

Co<std::uint64_t> shrink_zone(Mm& k, Task& t, PgData& d, bool kswapd)
{
    FnScope fn(t, "shrink_zone");
    if (nrFileLru(d) > 0) { // page cache to reclaim first
        std::uint64_t got = co_await shrink_file_memcgs(k, t, d, kswapd);
        if (got > 0 || d.lruvec.nr[LRU_INACTIVE_ANON] + d.lruvec.nr[LRU_ACTIVE_ANON] == 0)
            co_return got;
    }
    // shrink_lruvec() (2.6.28-5.x) for the anonymous lists, one turn of its loop: shrink_list() ages
    // LRU_ACTIVE_ANON while the inactive list is low, and the inactive list gives a batch. After the loop, "even if we
    // did not try to evict anon pages at all, we want to rebalance the anon lru active/inactive ratio": a second batch
    // of the active list while it is still low. So a pass moves up to twice the pages it reclaims to the inactive
    // list, which grows back to its target (inactive_anon_is_low) as long as reclaim runs.
    if (inactive_anon_is_low(k, d))
        co_await shrink_active_list(k, t, d, SWAP_CLUSTER_MAX);
    std::uint64_t got = co_await shrink_inactive_list(k, t, d, SWAP_CLUSTER_MAX, kswapd);
    if (inactive_anon_is_low(k, d))
        co_await shrink_active_list(k, t, d, SWAP_CLUSTER_MAX);
    co_return got;
}

namespace {
    // DEF_PRIORITY (mm/vmscan.c, 2.6.x-5.x): a reclaim pass at priority p scans about 1/2^p of each LRU list
    // (get_scan_count()), from 12 down to 0, which scans every list whole.
    constexpr int DEF_PRIORITY = 12;
    // The passes a round of direct reclaim takes one batch of each node in: lru_size >> 12..9 is about one batch
    // of SWAP_CLUSTER_MAX on the machines of the scenarios.
    constexpr int kShallowPasses = 4;
} // namespace

Co<std::uint64_t> try_to_free_pages(Mm& k, Task& t)
{
    FnScope fn(t, "try_to_free_pages");
    std::uint64_t reclaimed = 0;
    // do_try_to_free_pages(): passes at falling priority until SWAP_CLUSTER_MAX pages are back (here also once memory
    // is above min again). shrink_zones() reclaims from every zone of the zonelist in turn, the local node's first
    // (zone_reclaim_mode is 0: no node is skipped). The first kShallowPasses take one batch of each node; a round
    // that they left with nothing freed goes on down to priority 0, each pass scanning lru_size >> priority pages of
    // a node in batches (shrink_lruvec()), so that a round frees nothing only where every list has been scanned
    // whole -- after which the allocator counts it as no progress (should_reclaim_retry(), 4.7+, calls the OOM
    // killer after MAX_RECLAIM_RETRIES of them). A round whose shallow passes freed fewer than a batch's worth
    // returns what they freed: the allocation tries again.
    // Before 3.11 (vmscan.nap), a pass below DEF_PRIORITY - 2 that scanned pages and left the round short of a batch
    // ends in a nap ("Take a nap, wait for some writeback to complete"): congestion_wait(WRITE, HZ/10) in 2.6.20's
    // try_to_free_pages(), the whole 100 ms unless a swap write completes on a queue below its congestion-off
    // threshold meanwhile; wait_iff_congested() on the first zone of the zonelist from 2.6.37.
    const int local = k.cpu_to_node(t.cpu);
    for (int prio = DEF_PRIORITY; prio >= 0 && reclaimed < SWAP_CLUSTER_MAX; --prio) {
        const bool shallow = prio > DEF_PRIORITY - kShallowPasses;
        if (!shallow && reclaimed > 0)
            break;
        const std::uint64_t scannedBefore = k.vm.get(Vm::PgScanDirect);
        for (int i = 0; i < k.nrNodes(); ++i) {
            PgData& d = k.node((local + i) % k.nrNodes());
            std::uint64_t batches = 1;
            if (!shallow) {
                const std::uint64_t lru = d.lruvec.nr[LRU_INACTIVE_ANON] + d.lruvec.nr[LRU_ACTIVE_ANON] + nrFileLru(d);
                batches = std::max<std::uint64_t>(1, (lru >> prio) / SWAP_CLUSTER_MAX);
            }
            for (std::uint64_t b = 0; b < batches && (shallow || reclaimed == 0); ++b)
                reclaimed += co_await shrink_zone(k, t, d, false);
        }
        if (first_zone_above(k, local, Wmark::Min))
            break;
        if (k.tg.reclaimNap != ReclaimNap::ShrinkList && prio < DEF_PRIORITY - 2 && reclaimed < SWAP_CLUSTER_MAX
            && k.vm.get(Vm::PgScanDirect) != scannedBefore) {
            if (k.tg.reclaimNap == ReclaimNap::CongestionWait)
                co_await k.congestion_wait(t, ms(100));
            else
                co_await k.wait_iff_congested(t, k.node(local).zone, ms(100));
        }
    }
    co_return reclaimed;
}

Co<> kswapd_main(Mm& k, PgData& d, Task& t)
{
    // balance_pgdat(), one batch a pass as try_to_free_pages() takes its shallow passes. Where kswapd naps after a
    // priority pass (vmscan.kswapd_nap before 3.9), `prio` is the pass's priority and `reclaimed` what the passes
    // since balance_pgdat() last started over freed: it starts over at DEF_PRIORITY once they have freed
    // SWAP_CLUSTER_MAX ("if (nr_reclaimed >= SWAP_CLUSTER_MAX) break", 2.6.20) or after priority 0. The model's
    // `batch` nap (HZ/10 after a batch that freed nothing) keeps kswapd from running when it cannot progress; with
    // the kernel's rules kswapd instead sleeps on a node with nothing left to reclaim (pgdat_balanced() skips a zone
    // that is not zone_reclaimable()), and until the next wake-up
    // when a pass finds nothing on the lists to take (what is left is isolated by direct reclaimers: the kernel's
    // balance_pgdat() would go round again at once, passes the model would run without time passing).
    // kswapd_shrink_zone() (3.11-4.7) clears ZONE_WRITEBACK after each shrink_zone(), which scans until it has
    // reclaimed high_wmark_pages() or scanned the priority's share: here after kswapd has taken that many pages.
    const bool kernelRules = k.tg.kswapdNap != KswapdNap::Batch;
    int prio = DEF_PRIORITY;
    std::uint64_t reclaimed = 0;
    std::uint64_t scannedSinceClear = 0;
    bool foundNothing = false; // the last pass took no page: sleep until the next wake-up
    for (;;) {
        if (foundNothing || d.zone.nrFree() >= d.zone.watermarkHigh || k.s.liveUserTasks() == 0
            || (kernelRules && zone_reclaimable_pages(k, d) == 0)) {
            foundNothing = false;
            d.kswapdWoken = false;
            d.zone.reclaimWriteback = false;
            scannedSinceClear = 0;
            prio = DEF_PRIORITY;
            reclaimed = 0;
            co_await k.s.flush(t);
            co_await k.s.sleep(t);
            continue;
        }
        // balance_pgdat(): age_active_anon() on each zone at every priority before the zone is shrunk.
        FnScope fn(t, "balance_pgdat");
        if (inactive_anon_is_low(k, d))
            co_await shrink_active_list(k, t, d, SWAP_CLUSTER_MAX);
        const std::uint64_t scannedBefore = k.vm.get(Vm::PgScanKswapd);
        const std::uint64_t got = co_await shrink_zone(k, t, d, true);
        if (k.tg.kswapdNap == KswapdNap::Immediate) {
            scannedSinceClear += k.vm.get(Vm::PgScanKswapd) - scannedBefore;
            if (scannedSinceClear >= std::max<std::uint64_t>(SWAP_CLUSTER_MAX, d.zone.watermarkHigh)) {
                d.zone.reclaimWriteback = false;
                scannedSinceClear = 0;
            }
        }
        if (!kernelRules) {
            if (got == 0)
                co_await k.congestion_wait(t, ms(100));
        } else if (k.vm.get(Vm::PgScanKswapd) == scannedBefore) {
            foundNothing = true;
            continue;
        } else if (k.tg.kswapdNap == KswapdNap::Priority || k.tg.kswapdNap == KswapdNap::PriorityUnlessMin) {
            // "OK, kswapd is getting into trouble. Take a nap, then take another pass across the zones": the whole
            // 100 ms unless a swap write completes meanwhile on a queue below its congestion-off threshold; from
            // 2.6.33 not while the zone is under its min watermark ("Hurry up!").
            reclaimed += got;
            const bool hurry = k.tg.kswapdNap == KswapdNap::PriorityUnlessMin && d.zone.nrFree() < d.zone.watermarkMin;
            if (prio < DEF_PRIORITY - 2 && d.zone.nrFree() < d.zone.watermarkHigh && !hurry)
                co_await k.congestion_wait(t, ms(100));
            if (reclaimed >= SWAP_CLUSTER_MAX || prio == 0) {
                prio = DEF_PRIORITY;
                reclaimed = 0;
            } else {
                --prio;
            }
        }
        co_await k.s.cond_resched(t);
    }
}

} // namespace mms
