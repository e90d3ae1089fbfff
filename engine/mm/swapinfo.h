#pragma once
// The swap devices' state (struct swap_info_struct, include/linux/swap.h): by slot, the swap_map count, the swap
// cache's page and the slots-cache mark; the device's locks and block device; and the per-CPU swap slots caches
// (include/linux/swap_slots.h).

#include "block/blkdev.h"
#include "block/zram_drv.h"
#include "mm/page.h"
#include "sim/podvector.h"
#include "sync/spinlock.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mms {

// swap_slots.c (4.11): per-CPU caches of swap slots, SWAP_SLOTS_CACHE_SIZE (= SWAP_BATCH) entries each way.
constexpr int SWAP_SLOTS_CACHE_SIZE = 64;
constexpr std::uint32_t SWAPFILE_CLUSTER = 256; // slots per swap cluster (ci->lock)
// SWAP_ADDRESS_SPACE_PAGES (4.11, 4b3ef9daa4fc): the slots of one swap-cache address_space, 64 MiB of swap.
constexpr std::uint32_t SWAP_ADDRESS_SPACE_PAGES = 1u << 14;
constexpr std::uint32_t kNoSwapEntry = 0xffffffffu;
// SwapSlot::slotCached: a slot reserved by a slots cache (SWAP_HAS_CACHE with no page behind it).
constexpr std::uint8_t kSlotFree = 0, kSlotInAllocCache = 1, kSlotInFreeBuffer = 2;

struct SwapSlotsCache {
    SpinLock allocLock { "swp_slots.alloc_lock" }; // a mutex in the kernel; per CPU, only its own tasks take it
    SpinLock freeLock { "swp_slots.free_lock" }; // spin_lock_irq
    std::vector<std::uint32_t> slots; // entries for allocation, handed out from `cur`
    std::size_t cur = 0;
    std::vector<std::uint32_t> slotsRet; // freed entries waiting for swapcache_free_entries() (per_cpu)
    std::vector<std::vector<std::uint32_t>> slotsRetDev; // ... one buffer per device (per_cpu_per_device)
};

// One swap slot's state, side by side: freeing an entry reads and writes all three, and exit frees entries in
// random order, so three arrays cost three host cache misses per entry where this costs one (8 bytes a slot). A free
// slot is all zero bytes, so that the map comes zeroed from the host (PodVector::assignZeroed) and the parts of a
// large swap device a run never uses take no host memory.
struct SwapSlot {
    // swap cache: the page, kNoPage if none
    Pfn cache() const { return m_cacheNext - 1; }
    void setCache(Pfn p) { m_cacheNext = p + 1; }
    std::uint8_t swapMap = 0; // references from PTEs (SWAP_HAS_CACHE kept in the cache page)
    std::uint8_t slotCached = kSlotFree; // with swap.slots_cache: held by a slots cache (always kSlotFree without)
    PageContent content = PageContent::Zero; // what the page written to the slot held (its bytes, on the device)

private:
    Pfn m_cacheNext = 0; // the page + 1: kNoPage (all ones) is kept as 0
};
static_assert(kNoPage + 1 == 0 && kSlotFree == 0 && static_cast<int>(PageContent::Zero) == 0, "a free slot is zero bytes");

struct SwapInfo {
    int type = 0;
    SpinLock lock; // swap_info_struct->lock
    SpinLock treeLock; // swapper_spaces[type].tree_lock (the swap cache radix tree)
    // With swap.cache_trunks (empty otherwise): swapper_spaces[type][off >> SWAP_ADDRESS_SPACE_SHIFT].tree_lock.
    std::vector<SpinLock> trunkLocks;
    PodVector<SwapSlot> slot; // by offset: swap_map, the swap cache and the slots-cache mark
    std::uint32_t inuse = 0; // slots with a PTE reference or a cached page
    std::uint32_t clusterNext = 1; // next offset to try (slot 0 is the header)
    std::unique_ptr<BlockDevice> dev;
    // A zram device: its driver, which swap_writepage()/swap_readpage() call in the task instead of queueing on
    // `dev` (mm/page_io.h); nullptr for any other (pmem's rw_page, a copy, is page_io.cpp's).
    std::unique_ptr<ZramDevice> zram;
    // With swap.slots_cache only (empty otherwise): the clusters' ci->lock.
    std::vector<SpinLock> clusterLocks;
    // si->percpu_cluster (swap.percpu_cluster, non-rotational device, no slots cache; empty otherwise): by CPU, the
    // next offset to try in the cluster that CPU allocates from, 0 when it has none.
    std::vector<std::uint32_t> percpuCluster;
    std::uint32_t freeClusterNext = 1; // where the search for a free cluster resumes (cluster 0 holds the header)

    std::uint32_t nrSlots() const { return static_cast<std::uint32_t>(slot.size()); }
    bool slotUsed(std::uint32_t off) const
    {
        const SwapSlot& s = slot[off];
        return s.swapMap != 0 || s.cache() != kNoPage || s.slotCached != kSlotFree;
    }
    // lock_cluster_or_swap_info(): the cluster's lock where clusters exist (SSD, pmem), else si->lock.
    SpinLock& clusterLockFor(std::uint32_t off) { return clusterLocks.empty() ? lock : clusterLocks[off / SWAPFILE_CLUSTER]; }
    // swap_address_space(entry)'s tree_lock: the device's one, or (swap.cache_trunks) the 64 MiB trunk's.
    SpinLock& treeLockFor(std::uint32_t off)
    {
        return trunkLocks.empty() ? treeLock : trunkLocks[off / SWAP_ADDRESS_SPACE_PAGES];
    }
};

} // namespace mms
