#pragma once
// mm/page_alloc.c: order-0 allocation and freeing through the per-cpu lists, high-order allocation with direct
// compaction and reclaim, the watermarks. alloc_page()'s fast path is inline here and reads the
// memory-management state, hence mm/mm.h.

#include "mm/fastpath.h"
#include "mm/mm.h"

#include <cstddef>
#include <cstdint>

namespace mms {

// gfp: 0 (GFP_KERNEL: loops while reclaim makes progress; with nothing left to reclaim, or (oom.reclaim_retries)
// MAX_RECLAIM_RETRIES rounds without progress, the OOM killer kills the process with the highest oom_badness() and the allocation
// retries) or GFP_NORETRY (readahead: kNoPage after one round of direct reclaim and the attempt after it, never the
// OOM killer). kNoPage also when an OOM victim finds the reserves empty, or there is no one left to kill.
constexpr unsigned GFP_NORETRY = 1u << 0; // __GFP_NORETRY
// A coroutine only when the per-CPU list is empty or memory is low. The fast path is inline (a streaming read
// allocates every page through it): the slow path's first attempt when it needs neither a refill of the per-CPU
// list nor reclaim, decided before anything changes, then the same steps (kswapd woken below the low watermark,
// the page taken off the list).
Co<Pfn> alloc_page_slowpath(Mm& k, Task& t, unsigned gfp);

// The watermark an allocation attempt checks a zone against (ALLOC_WMARK_*; None: ALLOC_NO_WATERMARKS).
enum class Wmark : std::uint8_t { Min, Low, High, None };
inline std::uint64_t wmark_pages(const Zone& z, Wmark w)
{
    switch (w) {
    case Wmark::Min: return z.watermarkMin;
    case Wmark::Low: return z.watermarkLow;
    case Wmark::High: return z.watermarkHigh;
    case Wmark::None: break;
    }
    return 0;
}
// The zonelist of node `local` (build_zonelists(), zone_reclaim_mode 0): the local node, then the others by
// distance. Every remote node of a preset is one hop away (the SLIT's 21 between sockets), and for equal distances
// find_next_best_node() spreads the nodes' fallbacks (node_load): here node local + 1, local + 2, ... in turn.
inline PgData& zonelist_node(Mm& k, int local, int i) { return k.node((local + i) % k.nrNodes()); }
// get_page_from_freelist()'s zone for an order-0 page: the first of the zonelist with free pages at or above the
// watermark `w`, or nullptr.
inline PgData* first_zone_above(Mm& k, int local, Wmark w)
{
    for (int i = 0; i < k.nrNodes(); ++i) {
        PgData& d = zonelist_node(k, local, i);
        if (d.zone.nrFree() >= wmark_pages(d.zone, w))
            return &d;
    }
    return nullptr;
}
// The zone an order-0 allocation of `t` takes its page from, as __alloc_pages_nodemask() chooses it: the first zone
// of the zonelist above its low watermark; failing that (the slow path, which first wakes the kswapd of every node
// below its low watermark: wake_all_kswapds()) the first above min, and for PF_MEMALLOC (kswapd, reclaim) and an OOM
// victim (ALLOC_NO_WATERMARKS) the local one regardless. nullptr: none may give a page now. `wake`: whether to wake
// the kswapds (the slow path's first attempt; not its retries after reclaim).
inline PgData* alloc_zone(Mm& k, const Task& t, bool wake)
{
    const int local = k.cpu_to_node(t.cpu);
    if (PgData* d = first_zone_above(k, local, Wmark::Low))
        return d;
    if (wake)
        for (int i = 0; i < k.nrNodes(); ++i)
            if (PgData& d = zonelist_node(k, local, i); d.zone.nrFree() < d.zone.watermarkLow)
                k.wakeup_kswapd(d);
    if (t.kthread || fatal_signal_pending(t))
        return &k.node(local);
    return first_zone_above(k, local, Wmark::Min);
}
// wake_all_kswapds() of a high-order allocation's slow path: the kswapd of every node of the zonelist.
inline void wake_all_kswapds(Mm& k, const Task& t)
{
    for (int i = 0; i < k.nrNodes(); ++i)
        k.wakeup_kswapd(zonelist_node(k, k.cpu_to_node(t.cpu), i));
}
// rmqueue_pcplist(): the page on top of this CPU's list of the zone (both paths end here).
[[gnu::always_inline]] inline Pfn take_pcp_page(Mm& k, Task& t, std::vector<Pfn>& pcp)
{
    Pfn p = pcp.back();
    pcp.pop_back();
    if (k.tg.pcpFreeScale)
        k.page_zone(p).pcpFreeFactor[static_cast<std::size_t>(t.cpu)] >>= 1; // an allocation halves free_factor
    k.pages.setFlags(p, 0);
    k.vm.inc(Vm::PgAlloc);
    Sched::burn(t, k.cost.pageAllocNs);
    return p;
}
[[gnu::always_inline]] inline ValueOrCo<Pfn> alloc_page(Mm& k, Task& t, unsigned gfp = 0)
{
    PgData* d = alloc_zone(k, t, true);
    if (!d || d->zone.pcp[static_cast<std::size_t>(t.cpu)].empty()) [[unlikely]]
        return alloc_page_slowpath(k, t, gfp);
    return take_pcp_page(k, t, d->zone.pcp[static_cast<std::size_t>(t.cpu)]);
}
MaybeCo free_hot_cold_page(Mm& k, Task& t, Pfn p); // a coroutine only when the per-CPU list drains
// An order-0 page for memory that reclaim itself needs (zsmalloc's zspages under a zram swap-out): the reclaimer
// runs with PF_MEMALLOC (kswapd always, a direct reclaimer in __perform_reclaim), so its allocations take
// ALLOC_NO_WATERMARKS and never enter reclaim again ("Avoid recursion of direct reclaim", 4.0
// __alloc_pages_slowpath: PF_MEMALLOC goes to nopage). The first zone of the zonelist with a free page, the reserves
// below min included; kNoPage when every zone is empty.
Co<Pfn> alloc_page_memalloc(Mm& k, Task& t);
// alloc_pages(order) / __free_pages(order) for order > 0 (kernel stacks, slabs): zone->lock, the slow path with
// direct compaction (compaction.cpp) and reclaim. `unmovable`: a kernel allocation, not on any LRU. Up to
// PAGE_ALLOC_COSTLY_ORDER it loops like an order-0 allocation (the OOM killer included); above it, or with
// GFP_NORETRY (SLUB's first, high-order try), it fails after one round of compaction, reclaim and a sync
// compaction (kNoPage).
Co<Pfn> alloc_pages(Mm& k, Task& t, int order, unsigned gfp = 0);
Co<> free_pages(Mm& k, Task& t, Pfn p, int order);
// The slow path's steps for order > 0, which alloc_pages() and the THP allocation (huge_memory.cpp: alloc_hugepage)
// take in their own orders. rmqueue_order(): get_page_from_freelist() for one block of `order` from the buddy lists
// under zone->lock if the zone is above `mark` (pages), else kNoPage.
// The zones of the task's zonelist in turn, the first whose watermark check passes.
Co<Pfn> rmqueue_order(Mm& k, Task& t, int order, Wmark mark);
// __alloc_pages_direct_compact(): compaction (MIGRATE_SYNC_LIGHT if `sync`, else MIGRATE_ASYNC), then one attempt at
// the min watermark. `gaveUp`, if given, is set when the compaction was deferred or gave up at a contended lock.
Co<Pfn> direct_compact(Mm& k, Task& t, int order, bool sync, bool* gaveUp = nullptr);
// __alloc_pages_direct_reclaim(): a round of direct reclaim (`got`: the pages it freed), then attempts at the min
// watermark before and after drain_all_pages().
Co<Pfn> direct_reclaim(Mm& k, Task& t, int order, std::uint64_t& got);
// drain_local_pages(): this CPU's per-cpu list back to the buddy lists.
Co<> drain_local_pages(Mm& k, Task& t);
// drain_all_pages(NULL): every CPU's per-cpu list back to the buddy lists, as page_alloc.drain says (nothing, IPIs,
// or work items with one drain at a time).
Co<> drain_all_pages(Mm& k, Task& t);
// __zone_watermark_ok() for `order` against `mark` pages.
bool zone_watermark_ok(const Zone& z, int order, std::uint64_t mark);
// The buddy allocator outside simulated time (a workload's setup): one order-0 page from node `nid`, else from the
// next node with one, kNoPage if none.
Pfn alloc_page_setup(Mm& k, int nid = 0);

} // namespace mms
