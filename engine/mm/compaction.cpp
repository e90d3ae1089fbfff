// mm/compaction.c (3.x), direct compaction, MIGRATE_ASYNC:
//
//   try_to_compact_pages             compaction_deferred? -> skip
//     compact_zone_order
//       compact_zone                 compaction_suitable (watermarks); scanners from the cached pfns
//         isolate_migratepages       one pageblock from the migrate scanner, under zone->lru_lock (released every
//                                    SWAP_CLUSTER_MAX pfns): LRU page-cache pages, up to COMPACT_CLUSTER_MAX
//         migrate_pages(compaction_alloc)   -> migrate.cpp
//           compaction_alloc -> isolate_freepages   pageblocks from the free scanner, under zone->lock,
//                                                   free blocks split to order 0 (split_free_page)
//         compact_finished           scanners met (COMPLETE) or a free block of the order (PARTIAL)
//       release_freepages
#include "mm/compaction.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/swap.h"

#include <algorithm>
#include <optional>

namespace mms {

namespace {
    constexpr int COMPACT_CLUSTER_MAX = SWAP_CLUSTER_MAX;
    constexpr unsigned COMPACT_MAX_DEFER_SHIFT = 6;

    bool compaction_deferred(Zone& z, int order)
    {
        if (order < z.compactOrderFailed)
            return false;
        if (++z.compactConsidered > (1u << z.compactDeferShift))
            z.compactConsidered = 1u << z.compactDeferShift;
        return z.compactConsidered < (1u << z.compactDeferShift);
    }

    // compaction_suitable(): PARTIAL if the allocation would succeed already, SKIPPED if there is too little free
    // memory to migrate into (low watermark + 2 << order; reclaim must run first).
    CompactResult compaction_suitable(const Zone& z, int order)
    {
        if (!zone_watermark_ok(z, 0, z.watermarkLow + (2u << order)))
            return CompactResult::Skipped;
        if (zone_watermark_ok(z, order, z.watermarkLow))
            return CompactResult::Partial;
        return CompactResult::Continue;
    }

    CompactResult compact_finished(CompactControl& cc)
    {
        Zone& z = *cc.zone;
        if (cc.freePfn <= cc.migratePfn) {
            // The scanners met: start over from the zone's ends next time (__reset_isolation_suitable).
            z.compactCachedMigratePfn = z.start();
            z.compactCachedFreePfn = z.end();
            return CompactResult::Complete;
        }
        if (!zone_watermark_ok(z, cc.order, z.watermarkLow))
            return CompactResult::Continue;
        for (int o = cc.order; o < MAX_ORDER; ++o)
            if (z.nrFreeArea(o) > 0)
                return CompactResult::Partial;
        return CompactResult::Continue;
    }

    // need_resched() for async compaction (compact_checklock_irqsave / compact_should_abort, 3.x): another task
    // waits for this CPU, so MIGRATE_ASYNC gives up instead of rescheduling.
    bool should_abort(Mm& k, Task& t, CompactControl& cc)
    {
        // need_resched: someone waits for this CPU and the task has used up its slice (the tick's check).
        if (k.s.cpu(t.cpu).runq.empty() || k.s.sim().now() - t.sliceStart < k.s.timeSlice())
            return false;
        if (!cc.contended)
            cc.abort = CompactControl::Abort::Resched;
        cc.contended = true;
        return true;
    }

    // compact_checklock_irqsave() (3.7-3.16, "mm: compaction: abort async compaction if locks are contended or
    // taking too long"): before taking (or while holding) zone->lock or the lru_lock, should_release_lock() --
    // need_resched() or spin_is_contended() -- makes MIGRATE_ASYNC drop the lock and give up rather than queue
    // behind the other compactors. Returns whether the caller holds `lock` now; the caller has flushed.
    Co<bool> compact_checklock(Mm& k, Task& t, SpinLock& lock, bool locked, CompactControl& cc)
    {
        if (cc.sync) {
            // MIGRATE_SYNC_LIGHT: when should_release_lock() (need_resched or contended) it drops the lock and
            // cond_resched()s; then it takes the lock again, queueing behind the others.
            if (k.s.need_resched(t) || lock.contended(k.s.sim().now())) {
                if (locked)
                    spin_unlock(k.s, t, lock);
                locked = false;
                co_await k.s.cond_resched(t);
            }
            if (!locked)
                co_await spin_lock(k.s, t, lock);
            co_return true;
        }
        if (should_abort(k, t, cc) || lock.contended(k.s.sim().now())) {
            if (locked)
                spin_unlock(k.s, t, lock);
            if (!cc.contended)
                cc.abort = &lock == &cc.zone->lock ? CompactControl::Abort::ZoneLock : CompactControl::Abort::LruLock;
            cc.contended = true;
            co_return false;
        }
        if (!locked)
            co_await spin_lock(k.s, t, lock);
        co_return true;
    }

    // Migration can handle this page: a page-cache page on an LRU list, not under writeback, not unevictable.
    // Anonymous pages are left alone here (see migrate.cpp).
    bool isolatable(std::uint16_t f)
    {
        return (f & PG_lru) && !(f & (PG_anon | PG_swapbacked | PG_writeback | PG_unevictable));
    }

    // isolate_migratepages(): the pageblock at the migrate scanner. Each page is taken off its LRU under the
    // lru_lock of its own lruvec (with lru.lruvecs > 1 pages of one block belong to several memcgs: the lock is
    // re-taken when the lruvec changes, as compact_lock_irqsave / relock_page_lruvec do in 5.11).
    Co<> isolate_migratepages(Mm& k, Task& t, CompactControl& cc)
    {
        FnScope fn(t, "isolate_migratepages");
        Pfn low = std::max(cc.migratePfn, cc.zone->start());
        Pfn end = std::min<Pfn>((low / pageblock_nr_pages + 1) * pageblock_nr_pages, cc.freePfn);
        Lruvec* locked = nullptr;
        Pfn pfn = low;
        for (; pfn < end && cc.migratepages.size() < static_cast<std::size_t>(COMPACT_CLUSTER_MAX); ++pfn) {
            // compact_checklock_irqsave(): drop lru_lock every SWAP_CLUSTER_MAX pfns so others get in.
            if (locked && (pfn - low) % SWAP_CLUSTER_MAX == 0) {
                spin_unlock(k.s, t, locked->lru_lock);
                locked = nullptr;
                co_await k.s.flush(t);
                if (cc.sync)
                    co_await k.s.cond_resched(t);
                else if (should_abort(k, t, cc))
                    break;
            }
            Sched::burn(t, k.cost.pteOpNs); // pfn_to_page, PageBuddy / PageLRU tests
            std::uint16_t f = k.pages.flags(pfn);
            if (f & PG_buddy) {
                int order = Zone::freeBlockOrder(k.pages, pfn);
                if (order > 0)
                    pfn += (Pfn(1) << order) - 1; // skip the free block
                continue;
            }
            if (!isolatable(f))
                continue;
            // The unlocked test above may be stale once the lock is ours (the page may have been isolated by
            // reclaim, freed, or moved to another memcg's lruvec while we waited): test again under the lock.
            if (locked && &locked->lru_lock != &k.lruvecOf(pfn).lru_lock) {
                spin_unlock(k.s, t, locked->lru_lock);
                locked = nullptr;
            }
            co_await k.s.flush(t);
            Lruvec& lruvec = k.lruvecOf(pfn);
            bool held = co_await compact_checklock(k, t, lruvec.lru_lock, locked != nullptr, cc);
            locked = held ? &lruvec : nullptr;
            if (!held)
                break;
            if (!isolatable(k.pages.flags(pfn)))
                continue;
            // __isolate_lru_page() + del_page_from_lru_list()
            k.touchLruDel(t, pfn);
            k.del_page_from_lru_list(pfn);
            k.pages.set(pfn, PG_isolated);
            Sched::burn(t, k.cost.listOpNs + k.cost.lockedRmwNs); // list_del, get_page
            cc.migratepages.push_back(pfn);
            k.vm.inc(Vm::CompactIsolated);
        }
        if (locked)
            spin_unlock(k.s, t, locked->lru_lock);
        cc.migratePfn = pfn;
        cc.zone->compactCachedMigratePfn = pfn;
    }

    void count_compact_abort(Mm& k, const CompactControl& cc)
    {
        switch (cc.abort) {
        case CompactControl::Abort::None:
            break;
        case CompactControl::Abort::Resched:
            k.vm.inc(Vm::CompactAbortResched);
            break;
        case CompactControl::Abort::ZoneLock:
            k.vm.inc(Vm::CompactAbortZoneLock);
            break;
        case CompactControl::Abort::LruLock:
            k.vm.inc(Vm::CompactAbortLruLock);
            break;
        }
    }

    Co<> putback_movable_pages(Mm& k, Task& t, CompactControl& cc)
    {
        for (Pfn p : cc.migratepages)
            co_await putback_lru_page(k, t, p);
        cc.migratepages.clear();
    }

    Co<> release_freepages(Mm& k, Task& t, CompactControl& cc)
    {
        for (Pfn p : cc.freepages) {
            k.pages.setFlags(p, 0);
            co_await free_hot_cold_page(k, t, p);
        }
        cc.freepages.clear();
    }
} // namespace

Co<> isolate_freepages(Mm& k, Task& t, CompactControl& cc)
{
    FnScope fn(t, "isolate_freepages");
    Zone& z = *cc.zone;
    std::size_t want = std::max<std::size_t>(cc.migratepages.size(), 1);
    // The free scanner starts at the pageblock below its position and walks down, stopping at the migrate
    // scanner's pageblock.
    Pfn blockEnd = cc.freePfn;
    while (cc.freepages.size() < want) {
        Pfn blockStart = (blockEnd - 1) / pageblock_nr_pages * pageblock_nr_pages;
        if (blockEnd == 0 || blockStart <= cc.migratePfn || blockStart < z.start())
            break;
        // isolate_freepages_block(): PageBuddy is tested without the lock; zone->lock is taken at the first free
        // page of the block, through compact_checklock_irqsave(), which is asked again at every free page.
        bool locked = false;
        for (Pfn pfn = blockStart; pfn < blockEnd; ++pfn) {
            Sched::burn(t, k.cost.pteOpNs * 0.25); // PageBuddy test per pfn
            if (Zone::freeBlockOrder(k.pages, pfn) < 0)
                continue;
            co_await k.s.flush(t);
            locked = co_await compact_checklock(k, t, z.lock, locked, cc);
            if (!locked)
                break;
            int order = Zone::freeBlockOrder(k.pages, pfn); // again, under the lock
            if (order < 0)
                continue;
            // split_free_page(): only while the zone stays above the low watermark (+ the block).
            if (!zone_watermark_ok(z, 0, z.watermarkLow + (Pfn(1) << order)))
                break;
            z.delFreeBlock(k.pages, pfn);
            for (Pfn q = pfn; q < pfn + (Pfn(1) << order); ++q)
                cc.freepages.push_back(q);
            Sched::burn(t, k.cost.listOpNs * (1 + (1 << order) / 8.0));
            pfn += (Pfn(1) << order) - 1;
        }
        if (locked)
            spin_unlock(k.s, t, z.lock);
        if (cc.contended)
            break;
        blockEnd = blockStart;
        if (!zone_watermark_ok(z, 0, z.watermarkLow))
            break;
    }
    cc.freePfn = blockEnd;
    z.compactCachedFreePfn = blockEnd;
}

Co<CompactResult> compact_zone(Mm& k, Task& t, CompactControl& cc)
{
    FnScope fn(t, "compact_zone");
    Zone& z = *cc.zone;
    CompactResult ret = compaction_suitable(z, cc.order);
    if (ret != CompactResult::Continue)
        co_return ret;
    cc.migratePfn = std::max(z.compactCachedMigratePfn, z.start());
    cc.freePfn = std::min(z.compactCachedFreePfn, z.end());
    if (cc.freePfn <= cc.migratePfn) {
        cc.migratePfn = z.compactCachedMigratePfn = z.start();
        cc.freePfn = z.compactCachedFreePfn = z.end();
    }
    co_await lru_add_drain(k, t); // migrate_prep_local()
    while ((ret = compact_finished(cc)) == CompactResult::Continue) {
        co_await isolate_migratepages(k, t, cc);
        if (cc.contended) { // ISOLATE_ABORT: put the isolated pages back and give up
            co_await putback_movable_pages(k, t, cc);
            ret = CompactResult::Partial;
            break;
        }
        if (cc.migratepages.empty())
            continue;
        co_await migrate_pages(k, t, cc);
        if (cc.contended) {
            ret = CompactResult::Partial;
            break;
        }
        // The old pages went to this CPU's per-cpu list; once it is over its high mark they reach the buddy
        // lists, where compact_finished() can see the blocks they complete.
        co_await k.s.cond_resched(t);
    }
    co_await release_freepages(k, t, cc);
    count_compact_abort(k, cc);
    co_return ret;
}

Co<CompactResult> try_to_compact_pages(Mm& k, Task& t, int order, bool sync, bool* contended)
{
    if (contended)
        *contended = false;
    if (order == 0)
        co_return CompactResult::Deferred;
    std::optional<FnScope> fn; // from the first zone compacted
    CompactResult rc = CompactResult::Deferred;
    const int local = k.cpu_to_node(t.cpu);
    for (int i = 0; i < k.nrNodes(); ++i) {
        Zone& z = zonelist_node(k, local, i).zone;
        if (compaction_deferred(z, order))
            continue;
        if (!fn) {
            fn.emplace(t, "try_to_compact_pages");
            k.vm.inc(Vm::CompactStall);
            k.vm.inc(Vm::CompactSyncStall, sync ? 1 : 0);
        }
        CompactControl cc;
        cc.zone = &z;
        cc.order = order;
        cc.sync = sync;
        rc = std::max(rc, co_await compact_zone(k, t, cc));
        if (contended)
            *contended = *contended || cc.contended;
        // "If a normal allocation would succeed, stop compacting" (3.12)
        if (zone_watermark_ok(z, order, z.watermarkLow))
            break;
    }
    co_return rc;
}

void defer_compaction(Zone& z, int order)
{
    z.compactConsidered = 0;
    if (++z.compactDeferShift > COMPACT_MAX_DEFER_SHIFT)
        z.compactDeferShift = COMPACT_MAX_DEFER_SHIFT;
    if (order < z.compactOrderFailed)
        z.compactOrderFailed = order;
}

void compaction_defer_reset(Zone& z, int order)
{
    z.compactConsidered = 0;
    z.compactDeferShift = 0;
    if (order >= z.compactOrderFailed)
        z.compactOrderFailed = order + 1;
}

} // namespace mms
