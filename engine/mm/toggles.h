#pragma once
// The named toggles a variant sets (README.md, "Scenarios"): the posts' patches and what came later. A scenario's
// kernel version sets every toggle's default (Toggles::forKernel); a variant's toggles and --set override them.

#include "block/zram_config.h"
#include "mm/kconfig.h"
#include "mm/zswap_config.h"
#include "sched/locking.h"

#include <nlohmann/json_fwd.hpp>

#include <compare>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mms {

enum class Advice : std::uint8_t { DontNeed, Free };
enum class MmapSemMode : std::uint8_t { Write, Read };
enum class GlibcTrim : std::uint8_t { Mprotect, Madvise };
// Where MADV_FREE puts a lazily freed page: deactivated on the anonymous lists (4.5) or moved to the inactive file
// list with PG_swapbacked cleared (4.12: f7ad2a6cb9f7).
enum class LazyfreeLru : std::uint8_t { Anon, File };
enum class RwsemImplToggle : std::uint8_t { Spinlock, Xadd };
enum class EvictableCall : std::uint8_t { None, OutOfLine, Inline };
enum class LruBarrier : std::uint8_t { None, SmpMb, AfterAtomic };
enum class SlotsCache : std::uint8_t { Off, PerCpu, PerCpuPerDevice };
enum class Overcommit : std::uint8_t { GuessFree, GuessTotal, Always };
enum class IMmapLock : std::uint8_t { Mutex, Rwsem, Spinlock };
enum class PcpDrain : std::uint8_t { None, Ipi, Workqueue };
enum class LruLockPlacement : std::uint8_t { Node, Lruvec };
enum class SwapLock : std::uint8_t { Global, Device };
enum class SwapReadahead : std::uint8_t { Cluster, Vma };
enum class InactiveFileRatio : std::uint8_t { Equal, Sqrt };
enum class IsolatedThrottle : std::uint8_t { None, CongestionWait, ReclaimThrottle };
enum class ReclaimNap : std::uint8_t { CongestionWait, WaitIffCongested, ShrinkList };
enum class KswapdNap : std::uint8_t { Priority, PriorityUnlessMin, Batch, None, Immediate };
enum class VmstatLru : std::uint8_t { Fields, Zone, NodeZone };
enum class OomBadness : std::uint8_t { TotalVm, Rss };
enum class OomRootBonus : std::uint8_t { TotalPages, Usage, None };
enum class OomSacrifice : std::uint8_t { FirstChild, WorstChild, None };

// A kernel version "X.Y" or "X.Y.Z" (2.6.20, 3.12, 4.11, 5.6, ...).
struct KernelVersion {
    int major = 0, minor = 0, patch = 0;
    auto operator<=>(const KernelVersion&) const = default;
    // Parses "X.Y" or "X.Y.Z" (decimal numbers), optionally with a leading "v" and an "-rcN" (a release candidate
    // is read as its release); nullopt for anything else.
    static std::optional<KernelVersion> parse(const std::string& text);
    std::string str() const;
};

// The kernel of a scenario that names none: the one whose toggles are the member defaults below.
inline constexpr const char* kDefaultKernel = "3.12";

struct Toggles {
    // madvise (seeds 000, 001)
    Advice advice = Advice::DontNeed; // madvise.advice: dontneed|free
    bool freeSwapEntries = false; // madvise.free_swap_entries: MADV_FREE frees swap PTEs (seed 000's patch)
    bool tlbBatch = true; // madvise.tlb_batch: MADV_FREE flushes once per mmu_gather batch (seed 001's patch)
    MmapSemMode madviseMmapSem = MmapSemMode::Read; // madvise.mmap_sem: write (<2.6.22) | read
    std::string madviseEra = "4.5"; // madvise.era: "2007" (Rik's v1: per-page flushes, PG_lazyfree) | "4.5"
    LazyfreeLru lazyfreeLru = LazyfreeLru::Anon; // madvise.lazyfree_lru: anon (4.5-4.11) | file (4.12+)
    GlibcTrim glibcTrim = GlibcTrim::Madvise; // glibc.trim: mprotect|madvise (seed 001)
    RwsemImplToggle rwsemImpl = RwsemImplToggle::Xadd; // rwsem.impl: spinlock|xadd
    // locks (every seed): lock.spinlock: byte (before 2.6.25) | ticket (2.6.25-4.1) | queued (4.2+), how a contended
    // spinlock is handed off (sched/locking.h); lock.mutex_spin: a mutex spins on its running owner (2.6.30+).
    SpinlockImpl spinlock = SpinlockImpl::Ticket;
    bool mutexSpin = true;
    // lock.mutex_handoff: a woken mutex waiter that finds the mutex taken again marks it for hand-off, and the next
    // unlock gives it the mutex instead of letting a spinner or a running task take it first (9d659ae14b54, 4.10).
    bool mutexHandoff = false;
    // lock.mutex_mcs: a mutex's spinners queue on an MCS lock, only the first polling the owner (0dc8c730c98a, 3.10).
    bool mutexMcs = true;
    // lock.rwsem_spin: none|writer|reader, who spins on an rwsem held by a running writer instead of sleeping
    // (sched/locking.h: 3.16 writers, 5.3 readers too, 5.11 writers again).
    RwsemSpin rwsemSpin = RwsemSpin::None;
    // lock.rwsem_handoff: a waiter first in line for 4 ms gets the rwsem before spinners and stealers (5.3).
    bool rwsemHandoff = false;
    // lock.rwsem_wake_all_readers: a release that wakes readers wakes every reader queued, up to 256, past the
    // writers, not only those before the first writer (5.3).
    bool rwsemWakeAllReaders = false;
    // LRU (seed 002)
    EvictableCall pageEvictable = EvictableCall::None; // lru.page_evictable: none (pre-5.6: checked outside lru_lock)|outofline|inline
    LruBarrier lruBarrier = LruBarrier::None; // lru.barrier: none (pre-9c4e6b1a7027)|smp_mb|after_atomic
    int pagevecSize = 14; // lru.pagevec_size: PAGEVEC_SIZE (14 until 4.15, 15, 31 in 6.9)
    int lruvecs = 1; // lru.lruvecs: what-if, the tasks spread over this many memcgs, each with its lruvec, 1..64
    // lru.lock: where a memcg's lruvec takes its lru_lock: `node` (the node's one lock for every memcg, before 5.11)
    // or `lruvec` (each lruvec its own, 6168d0da2b47). Only matters with lru.lruvecs > 1.
    LruLockPlacement lruLock = LruLockPlacement::Node;
    // lru.activate_batch: activate_page() queues the page in a per-CPU pagevec drained under one lru_lock round trip
    // (744ed1442757, 2.6.39); off: it takes lru_lock for every page it activates.
    bool activateBatch = true;
    // vmscan.activate_free_swap: shrink_page_list()'s activate_locked gives a swap-cache page's slot back
    // (try_to_free_swap) while vm_swap_full(), less than half of the swap space free ("Not a candidate for swapping,
    // so reclaim swap space": 68a22394c286, 2.6.28); off: the page keeps its slot.
    bool activateFreeSwap = true;
    // lru.anon_new_inactive: a new anonymous page (fault or swap-in) starts on the inactive anon list (b518154e59aa,
    // 5.9); off: on the active list, so that keeping the ratio demotes older pages (shrink_active_list).
    bool anonNewInactive = false;
    // lru.evict_use_once: shrink_zone() deactivates file pages only while the inactive file list is the smaller
    // (inactive_file_is_low, 56e49d218890, 2.6.31); off: the active file list is aged on every pass, as the anon one.
    bool evictUseOnce = true;
    // sched.newidle_ratelimit: a CPU about to go idle skips idle_balance() while its avg_idle is under
    // sysctl_sched_migration_cost (IdleBalance::rateLimit, 2.6.32); off: it looks for a task to pull every time.
    bool newidleRateLimit = true;
    // sched.select_idle_sibling: a woken task whose CPU is busy goes to an idle CPU (Sched::setWakeIdleSibling,
    // 2.6.32); off: it queues on the CPU it last ran on, where an idle CPU's tick pulls it (IdleBalance::tick).
    bool selectIdleSibling = true;
    // sched.o1: the O(1) scheduler's dynamic priorities and wake-up preemption (Sched::setO1, 2.6.0-2.6.22); off:
    // CFS (2.6.23), whose run queue the model keeps first come, first served, without wake-up preemption.
    bool o1Scheduler = false;
    // lru.inactive_file_ratio: how big inactive_file_is_low() keeps the inactive file list: `equal` to the active one
    // (2.6.31-4.9), or 1/sqrt(10 * GB) of it as the anon list (59dc76b0d4df, 4.10).
    InactiveFileRatio inactiveFileRatio = InactiveFileRatio::Equal;
    // lru.workingset: an evicted page-cache page leaves a shadow entry with the node's eviction counter; a refault
    // whose distance fits in the active file list starts active (workingset_refault, a528910e12ec, 3.15).
    bool workingset = false;
    // swap (seed 003)
    SlotsCache slotsCache = SlotsCache::Off; // swap.slots_cache: off|per_cpu|per_cpu_per_device
    bool sortBeforeFree = false; // swap.sort_before_free
    // swap.percpu_cluster: scan_swap_map() on a non-rotational device gives each CPU a free 256-slot cluster of its
    // own to allocate from (scan_swap_map_try_ssd_cluster, 3.14); off: every CPU allocates from the device's one
    // cluster_next, so concurrent reclaimers interleave their slots.
    bool swapPercpuCluster = false;
    int swapPageCluster = 3; // swap.page_cluster: readahead 2^n pages
    // swap.lock: `global`, the one swap_lock held across scan_swap_map() and every swap_entry_free() (before 3.9);
    // `device`, each device's si->lock (ec8acf20afb8 "swap: add per-partition lock for swapfile"). Applies where
    // there is no slots cache (swap.slots_cache=off).
    SwapLock swapLock = SwapLock::Device;
    // swap.cache_trunks: the swap cache has one address_space, and tree_lock, per 64 MiB of each device
    // (4b3ef9daa4fc, 4.11); off: one per device.
    bool swapCacheTrunks = false;
    // swap.writeback_tags: a swap-cache page's writeback sets and clears the swap cache's radix-tree tags under its
    // tree_lock, as every mapping's does (__test_set_page_writeback, test_clear_page_writeback); off: the swap cache
    // keeps no writeback tags (AS_NO_WRITEBACK_TAGS, 371a096edf43, 4.9).
    bool swapWritebackTags = true;
    // swap.readahead: swapin_readahead() reads the aligned 2^page_cluster slots around the faulting one (`cluster`),
    // or the entries the 2^page_cluster PTEs around the fault hold (`vma`, swap_vma_readahead, ec560175c0b6, 4.14;
    // `cluster` still while any swap device rotates).
    SwapReadahead swapReadahead = SwapReadahead::Cluster;
    // swap.skip_swapcache: a fault on an entry of a synchronous device (zram, pmem) with one reference reads the page
    // straight into a new page, without the swap cache or readahead, and frees the slot (0bcac06f27d7, 4.15).
    bool skipSwapcache = false;
    // vmscan.isolated_throttle: how a direct reclaimer waits while too_many_isolated(): `none` (before 2.6.32: it
    // does not wait), `congestion_wait` (35cd78156c49: HZ/10, woken only by a device leaving congestion) or
    // `reclaim_throttle` (d818fca1cac3, 5.16: HZ/50 on the node's VMSCAN_THROTTLE_ISOLATED queue, woken when
    // isolation drops back, and at most once per call).
    IsolatedThrottle isolatedThrottle = IsolatedThrottle::CongestionWait;
    // vmscan.nap: where direct reclaim and the allocation after it nap, and how. `congestion_wait` (before 2.6.37):
    // a direct reclaim pass below DEF_PRIORITY - 2 that scanned pages and left the round short of SWAP_CLUSTER_MAX
    // ends in congestion_wait(HZ/10) ("Take a nap, wait for some writeback to complete"), and an allocation that
    // retries after a round of reclaim sleeps congestion_wait(HZ/50): each the whole timeout unless a swap write
    // completes meanwhile on a queue below its congestion-off threshold. `wait_iff_congested` (0e093d99763e, 2.6.37):
    // both become wait_iff_congested(), a sleep only while a device is congested and the zone is marked congested,
    // else cond_resched(). `shrink_list` (3.11): the priority pass's nap moves into shrink_inactive_list(), after each
    // batch a direct reclaimer takes ("mm: vmscan: Move direct reclaim wait_iff_congested into shrink_list").
    ReclaimNap reclaimNap = ReclaimNap::ShrinkList;
    // vmscan.kswapd_nap: when kswapd sleeps while its node is still short of free pages. `priority` (before 2.6.33):
    // balance_pgdat() naps congestion_wait(HZ/10) after each pass below DEF_PRIORITY - 2 that scanned pages ("OK,
    // kswapd is getting into trouble. Take a nap"); `priority_unless_min` (bb3ab596832b, 2.6.33): not while a zone is
    // under its min watermark. From 3.9 (258401a6) the kernel's kswapd naps no more (`none`), and from 3.11
    // (b1a6f21e3b23, 283aba9f9e0e) only after a batch in which it met pages still under writeback that reclaim had
    // marked for immediate reclaim, in a zone where a whole batch was found under writeback (`immediate`). The
    // default from 3.9, `batch`, is the model's own: HZ/10 after a batch that freed nothing, which the tables of the
    // built-in scenarios of 3.12 and 4.0 were made with; `none` and `immediate` run the kernel's rules.
    KswapdNap kswapdNap = KswapdNap::Batch;
    // vmstat.lru_counters: where an LRU list's page count lives. `fields`: zone->nr_active / nr_inactive, plain
    // fields beside the lists under lru_lock (2.6.20). `zone`: the zone's vmstat item (a ZVC, c878538598d1, 2.6.21):
    // each CPU adds its changes up in a per-cpu delta and folds it into the zone's and the global counter, two
    // atomic_long_add()s on lines every CPU writes, once it passes the zone's stat_threshold. `node_zone` (LRU lists
    // on the node, 599d0c954f91, 4.8): a node item and a zone item, each folded so (mm/zvc.h).
    VmstatLru vmstatLru = VmstatLru::Zone;
    // vmstat.isolated: reclaim counts the pages it isolates in the vmstat item NR_ISOLATED_ANON / NR_ISOLATED_FILE
    // (zone, node from 4.8), batch by batch, folded like the LRU counters; off: no counter (before 2.6.32).
    bool vmstatIsolated = true;
    // vmstat.pressure_threshold: while kswapd is awake a zone whose per-cpu drift could breach the min watermark
    // folds at calculate_pressure_threshold(), (low - min) / CPUs, instead of the normal threshold (2.6.37); off:
    // the normal one always.
    bool vmstatPressureThreshold = true;
    // tlb.lazy_ipi: a TLB flush also interrupts the CPUs in lazy TLB mode for the mm (idle, or in a kernel thread,
    // with the mm still loaded since its task left), which leave the mm on receipt; off: it skips them (they switch
    // mm before they could use a stale entry).
    bool tlbLazyIpi = true;
    // tlb.reclaim_batch: reclaim of mapped page-cache pages defers their TLB flushes to one try_to_unmap_flush() per
    // shrink_page_list() batch (72b252aed506, 4.3); off: ptep_clear_flush() flushes (an IPI round) for every page.
    bool reclaimTlbBatch = false;
    // migration (seed 004)
    bool skipUnmapped = false; // migrate.skip_unmapped
    // migrate.batch_flush: migrate_pages() unmaps a batch of pages with their TLB flushes deferred, flushes once,
    // then moves them (7e12beb8ca2a, 6.3); off: each page is unmapped, flushed and moved in turn.
    bool migrateBatchFlush = false;
    IMmapLock immapLock = IMmapLock::Mutex; // i_mmap.lock: spinlock (before 3.0)|mutex|rwsem
    // thp.fault_compaction: after a failed, uncontended async compaction a THP fault reclaims and compacts again
    // synchronously (sync, 3.x before 3.16) or falls back at once (async, Rientjes's 3.16 change)
    bool thpSyncCompaction = true;
    // thp.enabled: /sys/kernel/mm/transparent_hugepage/enabled, always|never (madvise is not modelled). With always,
    // an anonymous fault of a 2 MiB-aligned range tries a huge page first (do_huge_pmd_anonymous_page), and
    // hugepage_init() raises min_free_kbytes at boot (set_recommended_min_free_kbytes). Default never: the other
    // posts' workloads fault 4 KiB pages and their watermarks are the plain ones; the SLE kernels of seed 004 say
    // always.
    bool thpEnabled = false;
    // fault.around: a read fault on a file VMA first maps the cached, uptodate pages of the 16-page window around it
    // under one PTE lock (do_fault_around -> filemap_map_pages, 8c6e50b0290c, 3.15); off: it maps the faulting page
    // only (__do_fault -> filemap_fault), so a program takes a fault for each text page it touches.
    bool faultAround = false;
    // fork.stack_order: THREAD_SIZE_ORDER, the order of the kernel stack fork allocates (x86-64: 1, 8 KiB, before
    // 3.15; 2, 16 KiB, since 6538b8ea886e).
    int forkStackOrder = 1;
    // oom.reclaim_retries: should_reclaim_retry()'s bound (4.7+, Michal Hocko's OOM detection rework): an allocation
    // whose MAX_RECLAIM_RETRIES rounds of direct reclaim in a row freed nothing calls the OOM killer. Before it (off),
    // the OOM killer runs only when nothing is left that reclaim could free (zone_reclaimable()).
    bool reclaimRetries = false;
    // oom.badness: what the OOM killer scores a candidate by (mm/oom_kill.c). `total_vm` (before 2.6.36): badness(),
    // the process's virtual size plus half of each child's with an mm of its own, divided by the square root of its
    // CPU time in units of about 8 s and the fourth root of its run time in units of 1024 s, and by 4 for root.
    // `rss`: oom_badness() (a63d83f427fb), the memory a kill gives back -- RSS, swap entries and page tables.
    OomBadness oomBadness = OomBadness::Rss;
    // oom.root_bonus: the `rss` score's discount for a CAP_SYS_ADMIN process: `total_pages`, 3 % of RAM and swap
    // (oom_score_adj -30, 2.6.36); `usage`, 3 % of its own score (778c14affaf9); `none` (d46078b28889, 4.17).
    OomRootBonus oomRootBonus = OomRootBonus::TotalPages;
    // oom.sacrifice_child: whom oom_kill_process() kills for the chosen process. `first_child`: its first child
    // with an mm of its own, if any (before 2.6.36); `worst_child`: that child with the highest score
    // (5e9d834a0e0c); `none`: the chosen process itself (bbbe48029720, 5.1).
    OomSacrifice oomSacrifice = OomSacrifice::WorstChild;
    // page_alloc.drain: whether and how drain_all_pages() empties every CPU's per-cpu list when an allocation after
    // direct reclaim still fails. `none` (before 2.6.36): no drain, the allocation goes round reclaim again. `ipi`
    // (2.6.36-4.10): on_each_cpu_mask(), an IPI to every CPU with pages on its list, each freeing them under
    // zone->lock in the interrupt while the caller spins for the last; any number of reclaimers drain at once.
    // `workqueue` (4.11+): a work item on each such CPU, and pcpu_drain_mutex taken with mutex_trylock(), so that a
    // reclaimer finding a drain under way skips its own.
    PcpDrain pcpDrain = PcpDrain::Ipi;
    // page_alloc.pcp_free_scale: a CPU that frees page after page without allocating gives back a growing batch to
    // the buddy lists at each zone->lock round trip (pcp->free_factor, 3b12e7e97938, 5.14); off: pcp->batch each time.
    bool pcpFreeScale = false;
    // rmap.anon_vma_read: the rmap walks of anonymous pages (page_referenced, try_to_unmap) take the anon_vma's rwsem
    // shared (4fc3f1d66b1e, 3.9); off: exclusively, as the anon_vma lock (a spinlock, then a mutex) was before.
    bool anonVmaRead = true;
    // overcommit: vm.overcommit_memory and how __vm_enough_memory() decides whether a new private mapping can be
    // backed. The default 0 (OVERCOMMIT_GUESS) guesses as the kernel version does: `guess-free` (before 5.2) counts
    // free pages, page cache and free swap less the high watermarks; `guess-total` (8c7829b04c52, 5.2) refuses only
    // a mapping larger than RAM + swap. `always` is vm.overcommit_memory=1: every mapping is granted, and memory
    // runs out at fault time instead (the OOM killer).
    Overcommit overcommit = Overcommit::GuessFree;
    // zram (a swap device of kind "zram", block/zram_config.h): zram.streams single|multi|percpu,
    // zram.max_comp_streams (the streams of `multi`), zram.comp lzo|lzo-rle|lz4, zram.same_filled, zsmalloc.lock
    // class|pool.
    ZramConfig zram;
    // zswap (mm/zswap.h), in front of every swap device: zswap.enabled, zswap.max_pool_percent (its pool's share of
    // RAM), zswap.compressor lzo|lzo-rle|lz4.
    ZswapConfig zswap;
    // The kernel's build configuration (mm/kconfig.h): kernel.config production|fedora-rawhide-2007-04|fedora-debug
    // sets every debug option at once; config.memcg, config.debug_spinlock, config.lockdep, config.lock_stat,
    // config.debug_mutexes, config.debug_slab, config.debug_vm, config.debug_list and config.debug_pagealloc one each;
    // config.ptl_in_struct_page, config.ptlock_alloc and config.memcg_stat_batch are the era's (docs/kernels.md).
    KernelConfig config;

    // The defaults of a kernel version: the toggles that kernelRules() sets up to and including it.
    static Toggles forKernel(const KernelVersion& v);

    // Sets one toggle by its dotted name. Returns an empty string on success, else what was expected.
    std::string set(const std::string& name, const nlohmann::json& value);
    static bool isToggle(const std::string& name);
    // A toggle set to what `kernel` does not have, and what it expects instead ("false on kernel ..."); empty strings
    // when there is none.
    std::pair<std::string, std::string> eraError(const KernelVersion& kernel) const;
    static std::vector<std::string> names();
    nlohmann::json toJson() const;
};

// One change to a modelled path between 2.6.20 and 6.12 (docs/kernels.md is generated from the table). A modelled
// rule sets `toggle` from `from` to `to` in `version` and every later release; a rule with no toggle is surveyed but
// not modelled, and `note` says why. Values are as --set takes them.
struct KernelRule {
    const char* version; // the first release with the change, "X.Y" or "X.Y.Z"
    const char* commit; // the commit id (12 hex digits), or what stands for one ("not verified", "out of tree")
    const char* subject; // the commit's subject line
    const char* toggle; // the toggle it sets (Toggles::set), "" when not modelled
    const char* from; // the toggle's value before `version`
    const char* to; // its value from `version` on
    const char* note; // what it changes in the model's terms; for a rule not modelled, why not
    bool modelled() const { return toggle[0] != '\0'; }
};

// Every rule, ordered by version; forKernel() applies the modelled ones.
const std::vector<KernelRule>& kernelRules();

// The releases the rules cover, first and last.
inline constexpr KernelVersion kFirstKernel { 2, 6, 20 };
inline constexpr KernelVersion kLastKernel { 6, 12, 0 };

} // namespace mms
