// mm/swap_slots.c (4.11) and the batch free of mm/swapfile.c (4.11-4.13): per-CPU caches of swap slots.
//
// Allocation: get_swap_page() takes a slot from this CPU's cache under the per-CPU alloc_lock; an empty cache is
// refilled with SWAP_SLOTS_CACHE_SIZE slots from one device (get_swap_pages() + scan_swap_map_slots() under
// swap_info_struct->lock), and equal-priority devices take turns refill by refill (plist_requeue). A slot in a
// cache is reserved: swap_map says SWAP_HAS_CACHE, no page (SwapSlot::slotCached = kSlotInAllocCache).
//
// Free: an entry whose last reference goes away is not freed at once; free_swap_slot() appends it to this CPU's
// buffer under free_lock (kSlotInFreeBuffer), and a full buffer goes to swapcache_free_entries(), which takes
// swap_info_struct->lock of each entry's device, dropping and re-taking it whenever the next entry belongs to
// another device (swap_info_get_cont()). swap.sort_before_free sorts the batch by device first (4.13, Huang Ying);
// swap.slots_cache=per_cpu_per_device keeps one buffer per CPU and device (Andrew Morton's suggestion), so a batch
// never changes device.
#include "mm/swap_slots.h"

#include "mm/page_io.h"

#include "mm/mm.h"
#include "mm/swapfile.h"

#include <cassert>

namespace mms {

namespace {
    // scan_swap_map_slots(): up to `n` free slots from cluster_next on, reserved for the slots cache. Returns the
    // number of swap_map bytes looked at. The caller holds si->lock (or no time passes: the prefault twin).
    std::uint32_t scan_swap_map_slots(SwapInfo& si, std::uint32_t n, std::vector<std::uint32_t>& out)
    {
        std::uint32_t scanned = 0;
        std::uint32_t off = si.clusterNext;
        while (n > 0 && si.inuse + 1 < si.nrSlots() && scanned <= si.nrSlots()) {
            ++scanned;
            if (off != 0 && !si.slotUsed(off)) {
                si.slot[off].slotCached = kSlotInAllocCache;
                ++si.inuse;
                out.push_back(pte::swpEntry(static_cast<unsigned>(si.type), off));
                --n;
            }
            off = off + 1 >= si.nrSlots() ? 1 : off + 1;
        }
        si.clusterNext = off;
        return scanned;
    }

    // The next device in round-robin order that has room, or nullptr.
    SwapInfo* nextDevice(Mm& k)
    {
        std::size_t n = k.swap.size();
        for (std::size_t tries = 0; tries < n; ++tries) {
            std::size_t idx = (k.swapRotor + tries) % n;
            SwapInfo& si = *k.swap[idx];
            if (si.inuse + 1 < si.nrSlots()) {
                k.swapRotor = idx + 1; // plist_requeue()
                return &si;
            }
        }
        return nullptr;
    }

    // atomic_long_add(&nr_swap_pages): one locked RMW, plus the line's transfer if another CPU wrote it last.
    void nr_swap_pages_add(Mm& k, Task& t)
    {
        Sched::burn(t, k.cost.lockedRmwNs + k.s.lineTransferNs(k.nrSwapPagesLine, t.cpu));
        k.nrSwapPagesLine = t.cpu;
    }

    // get_swap_pages(): one refill of a CPU's cache, from one device.
    Co<> get_swap_pages(Mm& k, Task& t, SwapSlotsCache& cache)
    {
        FnScope fn(t, "get_swap_pages");
        SwapInfo* si = nextDevice(k);
        if (!si)
            co_return;
        co_await spin_lock(k.s, t, si->lock);
        cache.slots.clear();
        cache.cur = 0;
        std::uint32_t scanned = scan_swap_map_slots(*si, SWAP_SLOTS_CACHE_SIZE, cache.slots);
        Sched::burn(t, k.cost.swapAllocNs + scanned * k.cost.swapScanPerSlotNs);
        spin_unlock(k.s, t, si->lock);
        nr_swap_pages_add(k, t); // atomic_long_sub(n_ret, &nr_swap_pages)
        k.vm.inc(Vm::SwapSlotsRefill);
    }

    // lib/sort.c: the kernel's heapsort, with a compare callback per comparison and a swap callback per move.
    // Returns the number of callbacks made, which is what the sort costs.
    std::uint64_t heapsortByType(std::vector<std::uint32_t>& a)
    {
        std::uint64_t calls = 0;
        auto less = [&](std::size_t i, std::size_t j) {
            ++calls;
            return pte::swpType(a[i]) < pte::swpType(a[j]); // swp_entry_cmp()
        };
        auto swap = [&](std::size_t i, std::size_t j) {
            ++calls;
            std::swap(a[i], a[j]);
        };
        std::size_t n = a.size();
        if (n < 2)
            return 0;
        auto sift = [&](std::size_t r, std::size_t end) {
            for (std::size_t c; (c = 2 * r + 1) < end; r = c) {
                if (c + 1 < end && less(c, c + 1))
                    ++c;
                if (!less(r, c))
                    break;
                swap(r, c);
            }
        };
        for (std::size_t i = n / 2; i-- > 0;)
            sift(i, n);
        for (std::size_t i = n - 1; i > 0; --i) {
            swap(0, i);
            sift(0, i);
        }
        return calls;
    }
} // namespace

Co<std::uint32_t> get_swap_page_slots(Mm& k, Task& t, Pfn p)
{
    FnScope fn(t, "get_swap_page");
    SwapSlotsCache& cache = k.swapSlots[static_cast<std::size_t>(t.cpu)];
    co_await spin_lock(k.s, t, cache.allocLock); // mutex_lock(&cache->alloc_lock): per CPU, never contended here
    if (cache.cur >= cache.slots.size())
        co_await get_swap_pages(k, t, cache);
    std::uint32_t entry = kNoSwapEntry;
    if (cache.cur < cache.slots.size()) {
        entry = cache.slots[cache.cur++];
        SwapInfo& si = *k.swap[pte::swpType(entry)];
        std::uint32_t off = pte::swpOffset(entry);
        assert(si.slot[off].slotCached == kSlotInAllocCache);
        si.slot[off].slotCached = kSlotFree; // still reserved: the page takes over SWAP_HAS_CACHE
        si.slot[off].setCache(p);
        Sched::burn(t, k.cost.listOpNs);
    }
    spin_unlock(k.s, t, cache.allocLock);
    co_return entry;
}

std::uint32_t swap_slots_alloc_prefault(Mm& k, int cpu)
{
    if (k.swapSlots.empty()) { // swap.slots_cache=off: get_swap_page() takes one slot of the next device
        std::vector<std::uint32_t> one;
        if (SwapInfo* si = nextDevice(k))
            scan_swap_map_slots(*si, 1, one);
        if (one.empty())
            return kNoSwapEntry;
        k.swap[pte::swpType(one[0])]->slot[pte::swpOffset(one[0])].slotCached = kSlotFree;
        return one[0];
    }
    SwapSlotsCache& cache = k.swapSlots[static_cast<std::size_t>(cpu)];
    if (cache.cur >= cache.slots.size()) {
        cache.slots.clear();
        cache.cur = 0;
        if (SwapInfo* si = nextDevice(k)) {
            scan_swap_map_slots(*si, SWAP_SLOTS_CACHE_SIZE, cache.slots);
            k.vm.inc(Vm::SwapSlotsRefill);
        }
    }
    if (cache.cur >= cache.slots.size())
        return kNoSwapEntry;
    std::uint32_t entry = cache.slots[cache.cur++];
    k.swap[pte::swpType(entry)]->slot[pte::swpOffset(entry)].slotCached = kSlotFree;
    return entry;
}

Co<> swapcache_free_entries(Mm& k, Task& t, std::vector<std::uint32_t>& entries)
{
    FnScope fn(t, "swapcache_free_entries");
    if (entries.empty())
        co_return;
    Time start = k.s.sim().now() + t.debt;
    if (k.tg.sortBeforeFree && k.swap.size() > 1) // if (nr_swapfiles > 1) sort(...)
        Sched::burn(t, static_cast<double>(heapsortByType(entries)) * k.cost.functionCallNs);
    // Host-side only: the entries are random slots, freed long after their zap prefetched them; start every
    // slot's load at once, so that the host's page walks overlap (see prefetch_swap_entry).
    for (std::uint32_t entry : entries)
        prefetch_swap_entry(k, entry);
    SwapInfo* prev = nullptr;
    for (std::uint32_t entry : entries) {
        SwapInfo& si = *k.swap[pte::swpType(entry)];
        // swap_info_get_cont(): keep the lock while the device stays the same.
        if (&si != prev) {
            if (prev)
                spin_unlock(k.s, t, prev->lock);
            co_await spin_lock(k.s, t, si.lock);
            prev = &si;
        }
        // swap_entry_free(): lock_cluster(), swap_map = 0, dec_cluster_info_page(), unlock_cluster(), then the
        // device's counters (lowest/highest_bit, inuse_pages), nr_swap_pages and swap_slot_free_notify().
        std::uint32_t off = pte::swpOffset(entry);
        SpinLock& ci = si.clusterLockFor(off);
        co_await spin_lock(k.s, t, ci);
        assert(si.slot[off].slotCached == kSlotInFreeBuffer && si.slot[off].swapMap == 0 && si.slot[off].cache() == kNoPage);
        si.slot[off].slotCached = kSlotFree;
        Sched::burn(t, k.cost.listOpNs);
        spin_unlock(k.s, t, ci);
        --si.inuse;
        Sched::burn(t, k.cost.swapFreeNs);
        nr_swap_pages_add(k, t); // atomic_long_inc(&nr_swap_pages)
        co_await swap_slot_free_notify(k, t, si, off);
    }
    spin_unlock(k.s, t, prev->lock);
    k.vm.inc(Vm::SwapFreeEntriesCalls);
    k.vm.inc(Vm::SwapFreeEntriesSlots, entries.size());
    k.vm.inc(Vm::SwapFreeEntriesPs, static_cast<std::uint64_t>(k.s.sim().now() + t.debt - start));
}

namespace {
    // The buffer a freed entry goes to.
    std::vector<std::uint32_t>& slotsRetFor(Mm& k, SwapSlotsCache& cache, std::uint32_t entry)
    {
        return k.tg.slotsCache == SlotsCache::PerCpuPerDevice ? cache.slotsRetDev[pte::swpType(entry)] : cache.slotsRet;
    }

    void free_swap_slot_add(
        Mm& k, Task& t, SwapSlotsCache& cache, std::vector<std::uint32_t>& ret, std::uint32_t entry)
    {
        ret.push_back(entry);
        Sched::burn(t, k.cost.listOpNs);
        spin_unlock(k.s, t, cache.freeLock);
    }

    Co<> free_swap_slot_full(
        Mm& k, Task& t, SwapSlotsCache& cache, std::vector<std::uint32_t>& ret, std::uint32_t entry)
    {
        co_await swapcache_free_entries(k, t, ret);
        ret.clear();
        free_swap_slot_add(k, t, cache, ret, entry);
    }
} // namespace

MaybeCo free_swap_slot_locked(Mm& k, Task& t, std::uint32_t entry)
{
    SwapSlotsCache& cache = k.swapSlots[static_cast<std::size_t>(t.cpu)];
    std::vector<std::uint32_t>& ret = slotsRetFor(k, cache, entry);
    if (ret.size() >= static_cast<std::size_t>(SWAP_SLOTS_CACHE_SIZE))
        return free_swap_slot_full(k, t, cache, ret, entry);
    free_swap_slot_add(k, t, cache, ret, entry);
    return {};
}

Co<> free_swap_slot(Mm& k, Task& t, std::uint32_t entry)
{
    FnScope fn(t, "free_swap_slot");
    SwapSlotsCache& cache = k.swapSlots[static_cast<std::size_t>(t.cpu)];
    co_await spin_lock(k.s, t, cache.freeLock); // spin_lock_irq(&cache->free_lock)
    co_await free_swap_slot_locked(k, t, entry);
}

} // namespace mms
