#pragma once
// A node and its zone (include/linux/mmzone.h: pglist_data, struct zone): the buddy allocator's free areas, its
// watermarks and each CPU's list of free pages, the lruvec (the LRU lists and their lru_lock), kswapd; and each CPU's
// pagevecs. Sizes in pages. A machine has one node per socket (or one for interleaved memory), each with one zone (ZONE_NORMAL: the DMA zones of
// the first node, 16 MiB and 4 GiB, are left out) holding a contiguous range of page frames.

#include "mm/page.h"
#include "sync/spinlock.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mms {

constexpr int PCP_BATCH = 31; // per-cpu page list batch (zone_batchsize for a large zone)
constexpr int PCP_HIGH = 6 * PCP_BATCH; // per-cpu list high mark (pageset high = 6 * batch)

struct Pagevec {
    std::vector<Pfn> pages;
};

struct PerCpuState {
    Pagevec lruAdd; // lru_add_pvec
    Pagevec deactivate; // lru_deactivate_pvecs (MADV_FREE, 4.5)
    Pagevec lazyfree; // lru_lazyfree_pvecs (MADV_FREE, 4.12)
    Pagevec activate; // activate_page_pvecs
};

constexpr int MAX_ORDER = 11; // free blocks of 2^0 .. 2^10 pages (include/linux/mmzone.h)
constexpr int PAGE_ALLOC_COSTLY_ORDER = 3; // up to this order the allocator retries (until the OOM killer)
constexpr std::uint32_t pageblock_nr_pages = 512; // pageblock_order 9: the unit compaction scans

// struct zone's buddy allocator: free_area[order] lists of free blocks under `lock`. As in the kernel, a free
// block costs no memory of its own: its head is linked into the free_area list through the page's LRU links (a
// free page is on no LRU: page->lru), and its order sits in the head's index field (page_private with PageBuddy
// in the kernel; a free page has no file offset or virtual address). Every page of a free block carries PG_buddy
// (the page map shows them free); the other pages of a block, and the free pages parked on the per-cpu lists,
// hold kNotBuddyHead there, so page_is_buddy() only matches a head. One migratetype: anti-fragmentation grouping
// is not modelled, so unmovable allocations (kernel stacks, page tables) land among page-cache pages as on a
// kernel that fell back. The caller holds `lock` for every list operation (the functions only touch host state).
struct Zone {
    static constexpr std::uint32_t kNotBuddyHead = 0xffffffffu;

    SpinLock lock { "zone->lock" };
    // zone->pageset: each CPU's per_cpu_pages list of this zone's order-0 free pages (by CPU).
    std::vector<std::vector<Pfn>> pcp;
    // pcp->free_factor by CPU (page_alloc.pcp_free_scale, 5.14): how far the next bulk free doubles pcp->batch.
    std::vector<std::uint8_t> pcpFreeFactor;
    std::uint64_t watermarkMin = 0, watermarkLow = 0, watermarkHigh = 0; // pages
    // NR_ISOLATED_ANON / NR_ISOLATED_FILE: pages reclaim has taken off the LRU lists and not yet put back or freed
    // (too_many_isolated() compares them with the inactive lists).
    std::uint64_t nrIsolatedAnon = 0, nrIsolatedFile = 0;
    // NR_WRITEBACK: pages under writeback (PG_writeback), here the swap-outs pageout() has started and the device has
    // not completed.
    std::uint64_t nrWriteback = 0;
    // ZONE_CONGESTED (3.2-4.7): shrink_inactive_list() sets it when every dirty page it took was backed by a congested
    // device (nr_dirty && nr_dirty == nr_congested); page_check_dirty_writeback() reports anonymous pages neither
    // dirty nor under writeback and the file pages reclaimed here are clean, so no reclaim here sets it and
    // wait_iff_congested() never sleeps.
    bool congested = false;
    // ZONE_WRITEBACK (283aba9f9e0e, 3.11-4.7; vmscan.kswapd_nap=immediate): a batch of reclaim found every page it
    // took under writeback; kswapd then counts the pages under writeback it meets again as nr_immediate, and clears
    // the flag after each of its passes over the zone (kswapd_shrink_zone()).
    bool reclaimWriteback = false;
    std::uint64_t nrFree() const { return m_nrFree; } // NR_FREE_PAGES (the per-cpu lists not included)
    std::uint64_t nrFreeArea(int order) const { return m_nrArea[static_cast<std::size_t>(order)]; }
    // compaction's scanner positions (zone->compact_cached_migrate_pfn / free_pfn) and deferral (3.x)
    Pfn compactCachedMigratePfn = 0;
    Pfn compactCachedFreePfn = 0;
    unsigned compactConsidered = 0, compactDeferShift = 0;
    int compactOrderFailed = MAX_ORDER;

    // The zone of node `nid` over frames [first, end): its free-area list heads are the node's (PageArray), and
    // every frame is freed into them (memblock_free_all). `cpus`: the per-CPU lists, empty.
    void init(PageArray& pages, int nid, Pfn first, Pfn end, int cpus);
    // __rmqueue_smallest(): the first block of at least `order`, split down (expand()); kNoPage if none.
    Pfn rmqueueSmallest(PageArray& pages, int order);
    // rmqueueSmallest(pages, 0) called up to `n` times, stopping at the first kNoPage: the pages in `out`, their
    // number returned, every list, counter and page word left exactly as those calls leave them. Faster: a block
    // split for the first of its pages is handed out whole in one go instead of split again for each. `flags`: the
    // flags word the pages get (rmqueueSmallest leaves 0; rmqueue_bulk's per-CPU list wants PG_buddy).
    std::size_t rmqueueBulk(PageArray& pages, std::size_t n, Pfn* out, std::uint16_t flags = 0);
    // __free_one_page(): give back a block of 2^order pages at `p`, merging with free buddies.
    void freeOnePage(PageArray& pages, Pfn p, int order);
    // page_order() of a free block's head (PageBuddy), -1 for any other page.
    static int freeBlockOrder(const PageArray& pages, Pfn p)
    {
        return pages.test(p, PG_buddy) && pages.index(p) < static_cast<std::uint32_t>(MAX_ORDER) ? static_cast<int>(pages.index(p)) : -1;
    }
    // Takes a specific free block off its list (compaction's isolate_freepages / split_free_page).
    void delFreeBlock(PageArray& pages, Pfn p);
    Pfn start() const { return m_start; }
    Pfn end() const { return m_end; }
    // Invariant check: every list walked, blocks aligned and PG_buddy, counts right. Empty string if they hold.
    std::string check(const PageArray& pages) const;

private:
    Pfn areaHead(const PageArray& pages, int order) const { return pages.listHead(m_areaBase + static_cast<std::uint32_t>(order)); }
    // set_page_order() + list_add(&page->lru, &area->free_list). Inline: an order-0 allocation takes one block off
    // a list and, on average, puts one split-off half back.
    void listAdd(PageArray& pages, Pfn p, int order)
    {
        pages.setIndex(p, static_cast<std::uint32_t>(order));
        pages.listAdd(areaHead(pages, order), p);
        ++m_nrArea[static_cast<std::size_t>(order)];
        m_nrFree += Pfn(1) << order;
    }
    // list_del(&page->lru) + rmv_page_order()
    void listDel(PageArray& pages, Pfn p)
    {
        auto o = static_cast<std::size_t>(pages.index(p));
        pages.listDel(p);
        pages.setIndex(p, kNotBuddyHead);
        --m_nrArea[o];
        m_nrFree -= Pfn(1) << o;
    }
    Pfn m_start = 0, m_end = 0;
    std::uint32_t m_areaBase = PageArray::kLruListHeads; // the first of this zone's MAX_ORDER free-area list heads
    std::uint64_t m_nrFree = 0;
    std::uint64_t m_nrArea[MAX_ORDER] = {};
};
static_assert(PageArray::kFreeAreaHeads == MAX_ORDER * PageArray::kMaxNodes);

struct Lruvec {
    Lruvec()
        : lru_lock(m_ownLock)
    {
    }
    // A memcg's lruvec under its node's lru_lock (lru.lock=node: every kernel before 5.11).
    explicit Lruvec(SpinLock& nodeLock)
        : lru_lock(nodeLock)
    {
    }
    Lruvec(const Lruvec&) = delete;
    Lruvec& operator=(const Lruvec&) = delete;
    bool ownsLock() const { return &lru_lock == &m_ownLock; }

private:
    SpinLock m_ownLock { "zone->lru_lock" };

public:
    SpinLock& lru_lock; // its own lock, or (lru.lock=node) the node's
    std::uint64_t nr[NR_LRU_LISTS] = {};
    std::uint32_t listBase = 0; // this lruvec's lists are PageArray lists listBase + LruList
    int nid = 0; // its node
    // lru.workingset: lruvec->inactive_age (3.15), advanced by each eviction and each activation of a file page.
    std::uint64_t inactiveAge = 0;
};

constexpr int kMaxLruvecs = 256; // every node's lruvecs together: PageArray::kLruListHeads / NR_LRU_LISTS
static_assert(PageArray::kLruListHeads == NR_LRU_LISTS * kMaxLruvecs);
constexpr int kMaxMemcgLruvecs = 64; // lru.lruvecs: a node's lruvecs (root and memcgs), at most kMaxLruvecs / nodes

struct Task;

// pglist_data: a NUMA node -- its zone, its LRU lists (the root memcg's lruvec and, with lru.lruvecs > 1, one per
// memcg), and its kswapd. The zone and the lruvec are one lock each per node: the kernel's per-zone lru_lock (up to
// 4.7) and per-node one (4.8, "mm, vmscan: move LRU lists to node", a9dd0a831) are the same lock with one zone a node.
struct PgData {
    int nid = 0;
    Zone zone;
    Lruvec lruvec; // the root memcg's
    std::vector<Lruvec*> lruvecs; // this node's: lruvecs[0] is `lruvec`, the rest belong to memcgs 1..N-1
    std::size_t reclaimRotor = 0; // the lruvec the next reclaim pass starts at (mem_cgroup_iter's shared position)
    std::uint64_t bytes = 0; // the node's memory (node_present_pages), for the inactive:active ratios
    Task* kswapd = nullptr; // kswapd<nid>, from boot on a CPU of the node
    bool kswapdWoken = false;
    // The zone's vmstat thresholds (mm/zvc.h): calculate_normal_threshold() (the node's too: its one zone's), and
    // calculate_pressure_threshold() where the CPUs' drift could pass the min watermark (percpu_drift_mark), 0
    // where it could not. Set at boot.
    int statThreshold = 0;
    int statPressureThreshold = 0;
    // vmscan.isolated_throttle=reclaim_throttle: the tasks asleep on pgdat->reclaim_wait[VMSCAN_THROTTLE_ISOLATED],
    // with the sleep generation that wakes them.
    std::vector<std::pair<Task*, std::uint32_t>> isolatedWait;
};

} // namespace mms
