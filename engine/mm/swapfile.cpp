// mm/swapfile.c and mm/swap_state.c (4.0): slot allocation under swap_info_struct->lock, the swap cache under the
// swapper space tree_lock (one per device, or from 4.11 one per 64 MiB trunk: swap.cache_trunks), and freeing of
// entries.
#include "mm/swapfile.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/page_io.h"
#include "mm/swap_slots.h"

#include <algorithm>
#include <cassert>

namespace mms {

namespace {
    SwapInfo& swapInfo(Mm& k, std::uint32_t entry) { return *k.swap[pte::swpType(entry)]; }

    // atomic_long_inc/dec(&nr_swap_pages): one locked RMW on a global line, plus its transfer when another CPU
    // wrote it last.
    void nr_swap_pages_add(Mm& k, Task& t)
    {
        Sched::burn(t, k.cost.lockedRmwNs + k.s.lineTransferNs(k.nrSwapPagesLine, t.cpu));
        k.nrSwapPagesLine = t.cpu;
    }

    // swap_entry_free() (4.0), under si->lock: a slot left with no reference is free again (inuse_pages--,
    // nr_swap_pages++). True when it was: the caller then calls swap_slot_free_notify() before it unlocks.
    bool maybeReleaseSlot(Mm& k, Task& t, SwapInfo& si, std::uint32_t off)
    {
        if (si.slotUsed(off))
            return false;
        --si.inuse;
        nr_swap_pages_add(k, t);
        return true;
    }

    // With the slots cache (4.11), a slot whose last reference went is not freed but kept (SWAP_HAS_CACHE) for
    // free_swap_slot(). Returns true when the caller must hand it over, after dropping its lock. `freed`: the slot
    // was freed here (no slots cache), and its device must hear of it (swap_slot_free_notify()).
    bool releaseSlot(Mm& k, Task& t, SwapInfo& si, std::uint32_t off, bool& freed)
    {
        freed = false;
        if (k.tg.slotsCache == SlotsCache::Off) {
            freed = maybeReleaseSlot(k, t, si, off);
            return false;
        }
        if (si.slotUsed(off))
            return false;
        si.slot[off].slotCached = kSlotInFreeBuffer;
        return true;
    }
    // The lock that guards a slot's swap_map byte: si->lock in 4.0; lock_cluster_or_swap_info() with the slots cache.
    SpinLock& mapLock(Mm& k, SwapInfo& si, std::uint32_t off)
    {
        return k.tg.slotsCache == SlotsCache::Off ? swapInfoLock(k, si) : si.clusterLockFor(off);
    }

    // page_cache_release() of the reference find_get_page() took, for a page nothing else references any more: off
    // the LRU (under lru_lock) and back to the allocator. The pin is dropped and the page's state read under the
    // lock: reclaim may have isolated it, or a pagevec may still hold it, and then their put is the last one. Until
    // the pin goes, reclaim and the pagevec drain see a page with a reference (Mm::orphan() is false) and keep
    // it.
    Co<> put_page_last(Mm& k, Task& t, Pfn p)
    {
        Lruvec& lruvec = k.lruvecOf(p);
        co_await spin_lock(k.s, t, lruvec.lru_lock);
        k.unpin(p);
        if (k.pages.test(p, PG_pagevec) || k.pages.test(p, PG_isolated)) {
            if (k.pages.test(p, PG_pagevec))
                k.pages.set(p, PG_reclaim);
            k.pages.setOwner(p, 0);
            spin_unlock(k.s, t, lruvec.lru_lock);
            co_return;
        }
        if (k.pages.test(p, PG_lru)) {
            k.lruVmstat(t, lruvec, Mm::page_lru(k.pages.flags(p)), -1);
            k.del_page_from_lru_list(p);
        }
        spin_unlock(k.s, t, lruvec.lru_lock);
        co_await free_hot_cold_page(k, t, p);
    }
    // A cluster none of whose slots is in use (cluster_is_free()).
    bool clusterFree(const SwapInfo& si, std::uint32_t c)
    {
        std::uint32_t end = std::min(si.nrSlots(), (c + 1) * SWAPFILE_CLUSTER);
        for (std::uint32_t off = c * SWAPFILE_CLUSTER; off < end; ++off)
            if (si.slotUsed(off))
                return false;
        return true;
    }

    // scan_swap_map_try_ssd_cluster() (3.14-4.10), the caller holding si->lock: the next free slot of this CPU's
    // cluster; when it has none or has used it up, a free cluster becomes its own (the head of si->free_clusters:
    // here the next free one from where the last search ended, the header's cluster 0 never being free). 0 when the
    // device has no per-CPU clusters or no free cluster is left, and scan_swap_map() falls back to its linear scan.
    // `scanned`: swap_map bytes looked at in the cluster.
    std::uint32_t scan_swap_map_try_ssd_cluster(SwapInfo& si, int cpu, std::uint32_t& scanned)
    {
        if (si.percpuCluster.empty())
            return 0;
        std::uint32_t& next = si.percpuCluster[static_cast<std::size_t>(cpu)];
        const std::uint32_t nrClusters = si.nrSlots() / SWAPFILE_CLUSTER; // a partial last cluster is not used
        if (nrClusters < 2)
            return 0;
        for (int fresh = 0; fresh < 2; ++fresh) {
            if (next == 0) {
                std::uint32_t c = 0;
                for (std::uint32_t tries = 0; tries < nrClusters; ++tries) {
                    std::uint32_t cand = si.freeClusterNext >= nrClusters ? 1 : si.freeClusterNext;
                    si.freeClusterNext = cand + 1;
                    if (cand != 0 && clusterFree(si, cand)) {
                        c = cand;
                        break;
                    }
                }
                if (c == 0)
                    return 0;
                next = c * SWAPFILE_CLUSTER;
            }
            std::uint32_t end = (next / SWAPFILE_CLUSTER + 1) * SWAPFILE_CLUSTER;
            while (next < end && si.slotUsed(next)) {
                ++next;
                ++scanned;
            }
            if (next < end) {
                std::uint32_t off = next++;
                if (next == end)
                    next = 0;
                return off;
            }
            next = 0; // used up by frees and allocations of others: take another
        }
        return 0;
    }
} // namespace

SpinLock& swapInfoLock(Mm& k, SwapInfo& si)
{
    return k.tg.swapLock == SwapLock::Global && k.tg.slotsCache == SlotsCache::Off ? k.swapAvailLock : si.lock;
}

// get_swap_page() + scan_swap_map(): round-robin over equal-priority devices, first free slot from cluster_next.
// The slot is reserved for `p` at once (SWAP_HAS_CACHE).
static Co<std::uint32_t> get_swap_page_for(Mm& k, Task& t, Pfn p)
{
    if (k.tg.slotsCache != SlotsCache::Off) {
        std::uint32_t entry = co_await get_swap_page_slots(k, t, p);
        co_return entry;
    }
    FnScope fn(t, "get_swap_page");
    static constexpr std::uint32_t kNone = 0xffffffffu;
    std::size_t n = k.swap.size();
    // 4.0: atomic_long_dec(&nr_swap_pages), then swap_avail_lock while the device is picked from swap_avail_head
    // and requeued behind its equal-priority siblings; the lock is dropped before the device's si->lock is taken.
    // Before 3.9 (swap.lock=global) swap_lock is held from the choice of the device through scan_swap_map(): the
    // allocations of every device are serialised.
    const bool global = k.tg.swapLock == SwapLock::Global;
    nr_swap_pages_add(k, t);
    co_await spin_lock(k.s, t, k.swapAvailLock);
    Sched::burn(t, k.cost.listOpNs); // plist_requeue()
    if (!global)
        spin_unlock(k.s, t, k.swapAvailLock);
    for (std::size_t tries = 0; tries < n; ++tries) {
        std::size_t idx = (k.swapRotor + tries) % n;
        SwapInfo& si = *k.swap[idx];
        if (si.inuse + 1 >= si.nrSlots())
            continue;
        if (!global)
            co_await spin_lock(k.s, t, si.lock);
        std::uint32_t scanned = 0;
        std::uint32_t off = scan_swap_map_try_ssd_cluster(si, t.cpu, scanned);
        if (off == 0) { // no per-CPU clusters, or no free cluster left: the linear scan from cluster_next
            off = si.clusterNext;
            while (si.slotUsed(off) || off == 0) {
                off = off + 1 >= si.nrSlots() ? 1 : off + 1;
                if (++scanned > si.nrSlots())
                    break;
            }
        }
        Sched::burn(t, k.cost.swapAllocNs + scanned * k.cost.swapScanPerSlotNs);
        if (scanned > si.nrSlots()) {
            if (!global)
                spin_unlock(k.s, t, si.lock);
            continue;
        }
        si.slot[off].setCache(p);
        ++si.inuse;
        si.clusterNext = off + 1 >= si.nrSlots() ? 1 : off + 1;
        spin_unlock(k.s, t, global ? k.swapAvailLock : si.lock);
        k.swapRotor = idx + 1; // plist_requeue(): equal-priority devices take turns
        co_return pte::swpEntry(static_cast<unsigned>(si.type), off);
    }
    if (global)
        spin_unlock(k.s, t, k.swapAvailLock);
    co_return kNone;
}

Co<std::uint32_t> get_swap_page(Mm& k, Task& t) { return get_swap_page_for(k, t, kNoPage); }

Co<bool> add_to_swap(Mm& k, Task& t, Pfn p)
{
    FnScope fn(t, "add_to_swap");
    std::uint32_t entry = co_await get_swap_page_for(k, t, p);
    if (entry == 0xffffffffu)
        co_return false;
    SwapInfo& si = swapInfo(k, entry);
    SpinLock& tree = si.treeLockFor(pte::swpOffset(entry)); // swap_address_space(entry)
    co_await spin_lock(k.s, t, tree); // __add_to_swap_cache: radix_tree_insert
    Sched::burn(t, k.cost.swapCacheOpNs);
    k.pages.set(p, PG_swapcache);
    k.pages.setPriv(p, entry);
    spin_unlock(k.s, t, tree);
    co_return true;
}

Co<> swapcache_free(Mm& k, Task& t, std::uint32_t entry)
{
    FnScope fn(t, "swapcache_free");
    SwapInfo& si = swapInfo(k, entry);
    std::uint32_t off = pte::swpOffset(entry);
    SpinLock& l = mapLock(k, si, off);
    co_await spin_lock(k.s, t, l);
    Sched::burn(t, k.cost.swapFreeNs);
    si.slot[off].setCache(kNoPage);
    bool freed = false;
    bool toSlots = releaseSlot(k, t, si, off, freed);
    if (freed)
        co_await swap_slot_free_notify(k, t, si, off);
    spin_unlock(k.s, t, l);
    if (toSlots)
        co_await free_swap_slot(k, t, entry);
}

Co<> delete_from_swap_cache(Mm& k, Task& t, Pfn p)
{
    FnScope fn(t, "delete_from_swap_cache");
    std::uint32_t entry = k.pages.priv(p);
    SwapInfo& si = swapInfo(k, entry);
    SpinLock& tree = si.treeLockFor(pte::swpOffset(entry)); // swap_address_space(entry)
    co_await spin_lock(k.s, t, tree);
    assert(k.pages.test(p, PG_swapcache) && si.slot[pte::swpOffset(entry)].cache() == p);
    Sched::burn(t, k.cost.swapCacheOpNs);
    k.pages.clear(p, PG_swapcache);
    k.pages.setPriv(p, 0);
    spin_unlock(k.s, t, tree);
    co_await swapcache_free(k, t, entry);
}

SwapSpace si_swapinfo(const Mm& k)
{
    SwapSpace s;
    for (const auto& si : k.swap) {
        s.total += si->nrSlots() - 1u; // slot 0 holds the swap header
        s.free += si->nrSlots() - 1u - si->inuse;
    }
    return s;
}

// The caller holds the page lock (PG_locked), so nobody else can take the page out of the swap cache meanwhile.
Co<bool> try_to_free_swap(Mm& k, Task& t, Pfn p)
{
    if (!k.pages.test(p, PG_swapcache) || k.pages.test(p, PG_writeback))
        co_return false;
    std::uint32_t entry = k.pages.priv(p);
    if (swapInfo(k, entry).slot[pte::swpOffset(entry)].swapMap > 0) // page_swapcount(): other PTEs still use the slot
        co_return false;
    co_await delete_from_swap_cache(k, t, p);
    k.pages.set(p, PG_dirty); // the only copy is in memory now
    co_return true;
}

Co<> swap_free(Mm& k, Task& t, std::uint32_t entry)
{
    FnScope fn(t, "swap_free");
    SwapInfo& si = swapInfo(k, entry);
    std::uint32_t off = pte::swpOffset(entry);
    SpinLock& l = mapLock(k, si, off);
    co_await spin_lock(k.s, t, l);
    Sched::burn(t, k.cost.swapFreeNs);
    assert(si.slot[off].swapMap > 0);
    --si.slot[off].swapMap;
    bool freed = false;
    bool toSlots = releaseSlot(k, t, si, off, freed);
    if (freed)
        co_await swap_slot_free_notify(k, t, si, off);
    spin_unlock(k.s, t, l);
    if (toSlots)
        co_await free_swap_slot(k, t, entry);
}

// The slot's state (swap_map byte, swap-cache entry, slots-cache mark: one SwapSlot) and its lock. Exit frees
// slots in the random order the fill handed them out, so each of these is a host cache and TLB miss; the callers
// prefetch several entries at once, ahead of use, so that the misses overlap.
void prefetch_swap_entry(Mm& k, std::uint32_t entry)
{
    SwapInfo& si = *k.swap[pte::swpType(entry)];
    std::uint32_t off = pte::swpOffset(entry);
    if (off >= si.nrSlots())
        return;
    __builtin_prefetch(si.slot.data() + off, 1);
    mapLock(k, si, off).prefetch();
}

Co<> free_swap_and_cache(Mm& k, Task& t, std::uint32_t entry)
{
    FnScope fn(t, "free_swap_and_cache");
    SwapInfo& si = swapInfo(k, entry);
    std::uint32_t off = pte::swpOffset(entry);
    SpinLock& l = mapLock(k, si, off);
    co_await spin_lock(k.s, t, l); // swap_info_get() (4.0); __swap_entry_free()'s cluster lock (4.12)
    Sched::burn(t, k.cost.swapFreeNs); // swap_entry_free()
    assert(si.slot[off].swapMap > 0);
    --si.slot[off].swapMap;
    Pfn page = si.slot[off].swapMap == 0 ? si.slot[off].cache() : kNoPage;
    bool freed = false;
    bool toSlots = releaseSlot(k, t, si, off, freed);
    if (freed)
        co_await swap_slot_free_notify(k, t, si, off);
    // find_get_page(): the page the swap cache holds for this entry (one whose deletion from the cache has begun is
    // no longer found), with a reference (get_page) that keeps anyone else from freeing it until page_cache_release()
    // below; trylock_page(): a page under read I/O is locked and stays in the cache, its reference dropped at once.
    if (page != kNoPage
        && (!k.pages.test(page, PG_swapcache) || k.pages.priv(page) != entry || k.pages.test(page, PG_locked)))
        page = kNoPage;
    if (page != kNoPage)
        k.pin(page);
    spin_unlock(k.s, t, l);
    if (toSlots) { // the count reached 0 with no page in the swap cache: free_swap_slot(), inline (see swap_slots.h)
        FnScope slotFn(t, "free_swap_slot");
        co_await spin_lock(k.s, t, k.swapSlots[static_cast<std::size_t>(t.cpu)].freeLock);
        co_await free_swap_slot_locked(k, t, entry);
    }
    if (page == kNoPage)
        co_return;
    if (k.pages.test(page, PG_swapcache) && !k.pages.test(page, PG_writeback) && k.pages.mapcount(page) == 0) {
        k.pages.set(page, PG_locked); // trylock_page() succeeded
        co_await delete_from_swap_cache(k, t, page);
        k.pages.clear(page, PG_locked);
        co_await put_page_last(k, t, page);
        co_return;
    }
    // page_cache_release(): the swap cache or a mapping still holds the page, so this is not the last reference,
    // unless both went while it was pinned here.
    if (!k.pages.test(page, PG_swapcache) && k.pages.mapcount(page) == 0 && k.pages.owner(page) == 0)
        co_await put_page_last(k, t, page);
    else
        k.unpin(page);
}

} // namespace mms
