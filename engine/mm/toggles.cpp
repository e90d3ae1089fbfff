#include "mm/toggles.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>

namespace mms {

namespace {
    using Setter = std::function<std::string(Toggles&, const nlohmann::json&)>;

    template <typename E>
    Setter choice(E Toggles::*field, std::vector<std::pair<const char*, E>> options)
    {
        return [field, options](Toggles& t, const nlohmann::json& v) -> std::string {
            std::string expected;
            for (auto& [name, e] : options) {
                if (v.is_string() && v.get<std::string>() == name) {
                    t.*field = e;
                    return {};
                }
                expected += (expected.empty() ? "" : "|") + std::string(name);
            }
            return "one of " + expected;
        };
    }
    // Parses true or false (a JSON boolean, or a string from --set) into `out`; else what was expected.
    std::string booleanInto(bool& out, const nlohmann::json& v)
    {
        if (v.is_boolean() || (v.is_string() && (v == "true" || v == "false"))) {
            out = v.is_boolean() ? v.get<bool>() : v == "true";
            return {};
        }
        return "true or false";
    }
    Setter boolean(bool Toggles::*field)
    {
        return [field](Toggles& t, const nlohmann::json& v) -> std::string { return booleanInto(t.*field, v); };
    }
    // Parses an integer in [lo, hi] (a JSON number, or a string from --set) into `out`; else what was expected.
    std::string integerInto(int& out, const nlohmann::json& v, int lo, int hi)
    {
        const std::string expected = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        long long x = 0;
        if (v.is_number_integer())
            x = v.get<long long>();
        else if (v.is_string()) {
            try {
                std::size_t used = 0;
                x = std::stoll(v.get<std::string>(), &used);
                if (used != v.get<std::string>().size())
                    return expected;
            } catch (...) {
                return expected;
            }
        } else
            return expected;
        if (x < lo || x > hi)
            return expected;
        out = static_cast<int>(x);
        return {};
    }
    Setter integer(int Toggles::*field, int lo, int hi)
    {
        return [field, lo, hi](Toggles& t, const nlohmann::json& v) -> std::string { return integerInto(t.*field, v, lo, hi); };
    }
    // A field of a group of toggles (Toggles::zram, Toggles::zswap), as choice() does for a Toggles field.
    template <typename G, typename E>
    Setter groupChoice(G Toggles::*group, E G::*field, std::vector<std::pair<const char*, E>> options)
    {
        return [group, field, options](Toggles& t, const nlohmann::json& v) -> std::string {
            std::string expected;
            for (auto& [name, e] : options) {
                if (v.is_string() && v.get<std::string>() == name) {
                    (t.*group).*field = e;
                    return {};
                }
                expected += (expected.empty() ? "" : "|") + std::string(name);
            }
            return "one of " + expected;
        };
    }
    template <typename E>
    Setter zramChoice(E ZramConfig::*field, std::vector<std::pair<const char*, E>> options)
    {
        return groupChoice(&Toggles::zram, field, std::move(options));
    }
    Setter zramInteger(int ZramConfig::*field, int lo, int hi)
    {
        return [field, lo, hi](Toggles& t, const nlohmann::json& v) -> std::string { return integerInto(t.zram.*field, v, lo, hi); };
    }
    Setter zramBoolean(bool ZramConfig::*field)
    {
        return [field](Toggles& t, const nlohmann::json& v) -> std::string { return booleanInto(t.zram.*field, v); };
    }
    Setter zswapBoolean(bool ZswapConfig::*field)
    {
        return [field](Toggles& t, const nlohmann::json& v) -> std::string { return booleanInto(t.zswap.*field, v); };
    }
    Setter zswapInteger(int ZswapConfig::*field, int lo, int hi)
    {
        return [field, lo, hi](Toggles& t, const nlohmann::json& v) -> std::string { return integerInto(t.zswap.*field, v, lo, hi); };
    }
    // The compressors zram and zswap take, by name (the crypto API's).
    std::vector<std::pair<const char*, ZcompAlgo>> compressors()
    {
        return { { "lzo", ZcompAlgo::Lzo }, { "lzo-rle", ZcompAlgo::LzoRle }, { "lz4", ZcompAlgo::Lz4 } };
    }
    Setter configBoolean(bool KernelConfig::*field)
    {
        return [field](Toggles& t, const nlohmann::json& v) -> std::string { return booleanInto(t.config.*field, v); };
    }
    const std::map<std::string, Setter>& setters()
    {
        static const std::map<std::string, Setter> m = {
            { "madvise.advice", choice(&Toggles::advice, { { "dontneed", Advice::DontNeed }, { "free", Advice::Free } }) },
            { "madvise.free_swap_entries", boolean(&Toggles::freeSwapEntries) },
            { "madvise.tlb_batch", boolean(&Toggles::tlbBatch) },
            { "madvise.mmap_sem", choice(&Toggles::madviseMmapSem, { { "write", MmapSemMode::Write }, { "read", MmapSemMode::Read } }) },
            { "madvise.era",
                [](Toggles& t, const nlohmann::json& v) -> std::string {
                    if (v.is_string() && (v == "2007" || v == "4.5")) {
                        t.madviseEra = v.get<std::string>();
                        return {};
                    }
                    if (v.is_number() && (v.get<double>() == 2007.0 || v.get<double>() == 4.5)) { // --set madvise.era=2007
                        t.madviseEra = v.get<double>() == 4.5 ? "4.5" : "2007";
                        return {};
                    }
                    return "one of 2007|4.5";
                } },
            { "madvise.lazyfree_lru",
                choice(&Toggles::lazyfreeLru, { { "anon", LazyfreeLru::Anon }, { "file", LazyfreeLru::File } }) },
            { "glibc.trim", choice(&Toggles::glibcTrim, { { "mprotect", GlibcTrim::Mprotect }, { "madvise", GlibcTrim::Madvise } }) },
            { "rwsem.impl", choice(&Toggles::rwsemImpl, { { "spinlock", RwsemImplToggle::Spinlock }, { "xadd", RwsemImplToggle::Xadd } }) },
            { "lock.spinlock",
                choice(&Toggles::spinlock, { { "byte", SpinlockImpl::Byte }, { "ticket", SpinlockImpl::Ticket }, { "queued", SpinlockImpl::Queued } }) },
            { "lock.mutex_spin", boolean(&Toggles::mutexSpin) },
            { "lock.mutex_handoff", boolean(&Toggles::mutexHandoff) },
            { "lock.mutex_mcs", boolean(&Toggles::mutexMcs) },
            { "lock.rwsem_spin",
                choice(&Toggles::rwsemSpin, { { "none", RwsemSpin::None }, { "writer", RwsemSpin::Writer }, { "reader", RwsemSpin::Reader } }) },
            { "lock.rwsem_handoff", boolean(&Toggles::rwsemHandoff) },
            { "lock.rwsem_wake_all_readers", boolean(&Toggles::rwsemWakeAllReaders) },
            { "lru.page_evictable",
                choice(&Toggles::pageEvictable,
                    { { "none", EvictableCall::None }, { "outofline", EvictableCall::OutOfLine }, { "inline", EvictableCall::Inline } }) },
            { "lru.barrier",
                choice(&Toggles::lruBarrier,
                    { { "none", LruBarrier::None }, { "smp_mb", LruBarrier::SmpMb }, { "after_atomic", LruBarrier::AfterAtomic } }) },
            { "lru.pagevec_size", integer(&Toggles::pagevecSize, 1, 512) },
            { "lru.lruvecs", integer(&Toggles::lruvecs, 1, 64) }, // kMaxLruvecs
            { "lru.lock", choice(&Toggles::lruLock, { { "node", LruLockPlacement::Node }, { "lruvec", LruLockPlacement::Lruvec } }) },
            { "lru.activate_batch", boolean(&Toggles::activateBatch) },
            { "vmscan.activate_free_swap", boolean(&Toggles::activateFreeSwap) },
            { "lru.anon_new_inactive", boolean(&Toggles::anonNewInactive) },
            { "lru.evict_use_once", boolean(&Toggles::evictUseOnce) },
            { "sched.newidle_ratelimit", boolean(&Toggles::newidleRateLimit) },
            { "sched.select_idle_sibling", boolean(&Toggles::selectIdleSibling) },
            { "sched.o1", boolean(&Toggles::o1Scheduler) },
            { "lru.inactive_file_ratio",
                choice(&Toggles::inactiveFileRatio, { { "equal", InactiveFileRatio::Equal }, { "sqrt", InactiveFileRatio::Sqrt } }) },
            { "lru.workingset", boolean(&Toggles::workingset) },
            { "swap.slots_cache",
                choice(&Toggles::slotsCache,
                    { { "off", SlotsCache::Off }, { "per_cpu", SlotsCache::PerCpu }, { "per_cpu_per_device", SlotsCache::PerCpuPerDevice } }) },
            { "swap.sort_before_free", boolean(&Toggles::sortBeforeFree) },
            { "swap.percpu_cluster", boolean(&Toggles::swapPercpuCluster) },
            { "swap.page_cluster", integer(&Toggles::swapPageCluster, 0, 6) },
            { "swap.lock", choice(&Toggles::swapLock, { { "global", SwapLock::Global }, { "device", SwapLock::Device } }) },
            { "swap.cache_trunks", boolean(&Toggles::swapCacheTrunks) },
            { "swap.writeback_tags", boolean(&Toggles::swapWritebackTags) },
            { "swap.skip_swapcache", boolean(&Toggles::skipSwapcache) },
            { "swap.readahead", choice(&Toggles::swapReadahead, { { "cluster", SwapReadahead::Cluster }, { "vma", SwapReadahead::Vma } }) },
            { "vmscan.isolated_throttle",
                choice(&Toggles::isolatedThrottle,
                    { { "none", IsolatedThrottle::None }, { "congestion_wait", IsolatedThrottle::CongestionWait },
                        { "reclaim_throttle", IsolatedThrottle::ReclaimThrottle } }) },
            { "vmscan.nap",
                choice(&Toggles::reclaimNap,
                    { { "congestion_wait", ReclaimNap::CongestionWait },
                        { "wait_iff_congested", ReclaimNap::WaitIffCongested },
                        { "shrink_list", ReclaimNap::ShrinkList } }) },
            { "vmscan.kswapd_nap",
                choice(&Toggles::kswapdNap,
                    { { "priority", KswapdNap::Priority }, { "priority_unless_min", KswapdNap::PriorityUnlessMin },
                        { "batch", KswapdNap::Batch }, { "none", KswapdNap::None },
                        { "immediate", KswapdNap::Immediate } }) },
            { "vmstat.lru_counters",
                choice(&Toggles::vmstatLru, { { "fields", VmstatLru::Fields }, { "zone", VmstatLru::Zone }, { "node_zone", VmstatLru::NodeZone } }) },
            { "vmstat.isolated", boolean(&Toggles::vmstatIsolated) },
            { "vmstat.pressure_threshold", boolean(&Toggles::vmstatPressureThreshold) },
            { "tlb.lazy_ipi", boolean(&Toggles::tlbLazyIpi) },
            { "tlb.reclaim_batch", boolean(&Toggles::reclaimTlbBatch) },
            { "rmap.anon_vma_read", boolean(&Toggles::anonVmaRead) },
            { "migrate.skip_unmapped", boolean(&Toggles::skipUnmapped) },
            { "migrate.batch_flush", boolean(&Toggles::migrateBatchFlush) },
            { "i_mmap.lock",
                choice(&Toggles::immapLock,
                    { { "spinlock", IMmapLock::Spinlock }, { "mutex", IMmapLock::Mutex }, { "rwsem", IMmapLock::Rwsem } }) },
            { "thp.fault_compaction", choice(&Toggles::thpSyncCompaction, { { "sync", true }, { "async", false } }) },
            { "thp.enabled", choice(&Toggles::thpEnabled, { { "always", true }, { "never", false } }) },
            { "fault.around", boolean(&Toggles::faultAround) },
            { "fork.stack_order", integer(&Toggles::forkStackOrder, 0, 4) },
            { "oom.reclaim_retries", boolean(&Toggles::reclaimRetries) },
            { "oom.badness",
                choice(&Toggles::oomBadness, { { "total_vm", OomBadness::TotalVm }, { "rss", OomBadness::Rss } }) },
            { "oom.root_bonus",
                choice(&Toggles::oomRootBonus,
                    { { "total_pages", OomRootBonus::TotalPages }, { "usage", OomRootBonus::Usage },
                        { "none", OomRootBonus::None } }) },
            { "oom.sacrifice_child",
                choice(&Toggles::oomSacrifice,
                    { { "first_child", OomSacrifice::FirstChild }, { "worst_child", OomSacrifice::WorstChild },
                        { "none", OomSacrifice::None } }) },
            { "page_alloc.drain",
                choice(&Toggles::pcpDrain, { { "none", PcpDrain::None }, { "ipi", PcpDrain::Ipi }, { "workqueue", PcpDrain::Workqueue } }) },
            { "page_alloc.pcp_free_scale", boolean(&Toggles::pcpFreeScale) },
            { "overcommit",
                choice(&Toggles::overcommit,
                    { { "guess-free", Overcommit::GuessFree }, { "guess-total", Overcommit::GuessTotal }, { "always", Overcommit::Always } }) },
            { "zram.streams",
                zramChoice(&ZramConfig::streams,
                    { { "single", ZcompStreams::Single }, { "multi", ZcompStreams::Multi }, { "percpu", ZcompStreams::PerCpu } }) },
            { "zram.max_comp_streams", zramInteger(&ZramConfig::maxCompStreams, 1, 1024) },
            { "zram.comp", zramChoice(&ZramConfig::comp, compressors()) },
            { "zram.same_filled", zramBoolean(&ZramConfig::sameFilled) },
            { "zswap.enabled", zswapBoolean(&ZswapConfig::enabled) },
            { "zswap.max_pool_percent", zswapInteger(&ZswapConfig::maxPoolPercent, 1, 100) },
            { "zswap.compressor", groupChoice(&Toggles::zswap, &ZswapConfig::compressor, compressors()) },
            { "zswap.same_filled", zswapBoolean(&ZswapConfig::sameFilled) },
            { "zsmalloc.lock", zramChoice(&ZramConfig::zsLock, { { "class", ZsLock::Class }, { "pool", ZsLock::Pool } }) },
            { "kernel.config",
                [](Toggles& t, const nlohmann::json& v) -> std::string {
                    if (v.is_string() && t.config.setNamed(v.get<std::string>()))
                        return {};
                    std::string expected;
                    for (const std::string& n : KernelConfig::names())
                        expected += (expected.empty() ? "" : "|") + n;
                    return "one of " + expected;
                } },
            { "config.memcg", configBoolean(&KernelConfig::memcg) },
            { "config.ptl_in_struct_page", configBoolean(&KernelConfig::ptlInStructPage) },
            { "config.ptlock_alloc", configBoolean(&KernelConfig::ptlockAlloc) },
            { "config.memcg_stat_batch", configBoolean(&KernelConfig::memcgStatBatch) },
            { "config.debug_spinlock", configBoolean(&KernelConfig::debugSpinlock) },
            { "config.lockdep", configBoolean(&KernelConfig::lockdep) },
            { "config.lock_stat", configBoolean(&KernelConfig::lockStat) },
            { "config.debug_mutexes", configBoolean(&KernelConfig::debugMutexes) },
            { "config.debug_slab", configBoolean(&KernelConfig::debugSlab) },
            { "config.debug_vm", configBoolean(&KernelConfig::debugVm) },
            { "config.debug_list", configBoolean(&KernelConfig::debugList) },
            { "config.debug_pagealloc", configBoolean(&KernelConfig::debugPagealloc) },
            { "config.preempt_voluntary", configBoolean(&KernelConfig::preemptVoluntary) },
        };
        return m;
    }
} // namespace

std::optional<KernelVersion> KernelVersion::parse(const std::string& text)
{
    // As the kernel's git tags and its developers write it too: "v5.6", "5.6-rc4". A release candidate has what
    // its release merged (the merge window closes at -rc1), so its rules are the release's.
    static const std::regex re("v?([0-9]{1,3})\\.([0-9]{1,3})(?:\\.([0-9]{1,3}))?(?:-rc[0-9]{1,2})?");
    std::smatch m;
    if (!std::regex_match(text, m, re))
        return std::nullopt;
    KernelVersion v;
    v.major = std::stoi(m[1]);
    v.minor = std::stoi(m[2]);
    v.patch = m[3].matched ? std::stoi(m[3]) : 0;
    return v;
}

std::string KernelVersion::str() const
{
    return std::to_string(major) + "." + std::to_string(minor) + (patch ? "." + std::to_string(patch) : "");
}

// The era table: every change between 2.6.20 and 6.12 to the modelled paths that the survey found, in release
// order, each with the commit it comes from (docs/kernels.md is generated from it: `mmscope-cli kernels`). A
// modelled rule moves one toggle; a commit that moved two toggles has a rule for each. The x86 rules are those of
// x86-64. Releases later than 6.12 keep 6.12's rules: the swap-free rework of 6.14/6.15 (si->lock off the free path,
// no slots cache) is not in the table.
const std::vector<KernelRule>& kernelRules()
{
    static const std::vector<KernelRule> rules = {
        { "2.6.21", "c878538598d1", "[PATCH] Use ZVC for inactive and active counts", "vmstat.lru_counters", "fields",
            "zone",
            "a list change updates the zone's NR_ACTIVE / NR_INACTIVE vmstat item: a per-cpu delta, folded into the "
            "zone's and the global counter (two atomics on shared lines) past the zone's stat_threshold; before it "
            "zone->nr_active / nr_inactive sit beside the lists under lru_lock (the release is not verified "
            "against a tag)" },
        { "2.6.22", "not verified", "mm: madvise avoid exclusive mmap_sem", "madvise.mmap_sem", "write", "read",
            "sys_madvise takes mmap_sem for write for every advice before it; madvise_need_mmap_write() lets "
            "DONTNEED, WILLNEED and REMOVE take it for read" },
        { "2.6.23", "dd41f596cda0", "sched: cfs core code", "sched.o1", "true", "false",
            "the Completely Fair Scheduler replaces the O(1) one: no sleep_avg bonus, the woken task no longer "
            "preempts by dynamic priority and no longer moves to the waker's CPU by the two CPUs' tick-sampled loads "
            "(CFS's own wake-up preemption by vruntime and its wake_affine are not modelled: a woken task goes back "
            "to its CPU and waits for the running one to sleep, yield or use up its slice)" },
        { "2.6.25", "314cdbefd1fd", "x86: FIFO ticket spinlocks", "lock.spinlock", "byte", "ticket",
            "a contended spinlock is handed to the longest waiter instead of the CPU that wins the cache line" },
        { "2.6.25", "8cdea7c05454", "Memory controller: cgroups setup", "config.memcg", "false", "true",
            "CONFIG_MEMCG (CGROUP_MEM_RES_CTLR then) in the kernel: every LRU list change also writes the memcg's LRU "
            "size counters, a line that moves with lru_lock (a distribution config enables it from its merge)" },
        { "2.6.27", "not verified", "mm: lockless pagecache", "", "", "",
            "not modelled: before it find_get_page() takes mapping->tree_lock as a reader-writer spinlock, a lock "
            "kind the engine does not have (spinlock, mutex, rwsem); no built-in scenario reads files on a 2.6.2x "
            "kernel" },
        { "2.6.28", "4f98a2fee8ac", "vmscan: split LRU lists into anon & file sets", "", "", "",
            "not modelled: the model's LRU lists are split at every version; before it reclaim scans one mixed "
            "inactive list, which needs a reclaim path of its own (the 2.6.20 scenarios do not reclaim)" },
        { "2.6.28", "68a22394c286", "vmscan: free swap space on swap-in/activation", "vmscan.activate_free_swap",
            "false", "true",
            "a swap-cache page that reclaim puts back on the active list (referenced, or mapped again) gives its swap "
            "slot up while less than half of the swap space is free (vm_swap_full()): written out again, if ever, to a "
            "new slot. The swap-in half (do_swap_page() freeing the slot of a page read back in) is not modelled "
            "apart: the model's write fault on a swapped-in page takes it out of the swap cache (reuse_swap_page())" },
        { "2.6.28", "894bc310419a", "Unevictable LRU Infrastructure", "", "", "",
            "not modelled: no modelled workload mlocks a page or uses SHM_LOCK or ramfs, so no page would be "
            "unevictable; PG_unevictable and LRU_UNEVICTABLE exist at every version" },
        { "2.6.30", "0d66bf6d3514", "mutex: implement adaptive spinning", "lock.mutex_spin", "false", "true",
            "a mutex waiter spins while the owner runs instead of sleeping at once (a context switch each way)" },
        { "2.6.31", "56e49d218890", "vmscan: evict use-once pages first", "lru.evict_use_once", "false", "true",
            "shrink_zone() ages the active file list only while inactive_file_is_low(); before it every pass "
            "deactivates file pages in proportion, so pages read twice are demoted with the use-once ones" },
        { "2.6.32", "not verified", "sched: Rate-limit newidle", "sched.newidle_ratelimit", "false", "true",
            "idle_balance() runs only while the CPU's average idle spell (rq->avg_idle) is at least "
            "sysctl_sched_migration_cost (0.5 ms); before it a CPU about to go idle looks for a task to pull every "
            "time (the release is not verified against a tag)" },
        { "2.6.32", "not verified", "sched: Check for an idle shared cache in select_task_rq_fair()",
            "sched.select_idle_sibling", "false", "true",
            "a woken task whose CPU is busy goes to an idle CPU sharing its cache (select_idle_sibling()); before it "
            "try_to_wake_up() wakes it on the CPU it last ran on (or, under the O(1) scheduler, the waker's when "
            "the task's CPU has a task more: wake_affine; CFS's is not modelled), where it waits behind the running "
            "task until an idle CPU's balancing tick pulls it (every 1-4 ms) or that CPU goes idle; only SMT siblings "
            "were searched (SD_WAKE_IDLE) (the release is not verified against a tag)" },
        { "2.6.32", "35cd78156c49", "vmscan: throttle direct reclaim when too many pages are isolated already",
            "vmscan.isolated_throttle", "none", "congestion_wait",
            "a direct reclaimer waits (congestion_wait(HZ/10), in a loop) while more pages of the list it would "
            "isolate from are isolated than are left on its inactive list; before it any number of reclaimers isolate "
            "at once" },
        { "2.6.32", "not verified", "mm: vmstat: add isolate pages", "vmstat.isolated", "false", "true",
            "reclaim counts the pages it isolates in NR_ISOLATED_ANON / NR_ISOLATED_FILE, one vmstat change a batch "
            "each way, folded like the LRU counters" },
        { "2.6.33", "not verified", "mm: stop ptlock enlarging struct page", "config.ptl_in_struct_page", "true",
            "false",
            "with DEBUG_SPINLOCK or lockdep the split page-table locks are off (SPLIT_PTLOCK_CPUS 999999): every page "
            "table of an mm is guarded by mm->page_table_lock; before it the bloated lock sits in struct page, about "
            "88 bytes, two cache lines (the release is not verified against a tag)" },
        { "2.6.33", "bb3ab596832b", "vmscan: stop kswapd waiting on congestion when the min watermark is not being met",
            "vmscan.kswapd_nap", "priority", "priority_unless_min",
            "kswapd no longer naps after a pass below priority 10 while a zone of its node is under the min watermark "
            "(GFP_ATOMIC allocations would fail: \"Hurry up!\"); before it it naps congestion_wait(HZ/10) after every "
            "such pass that scanned pages (the release is not verified against a tag)" },
        { "2.6.34", "bafaecd11df1", "x86-64: support native xadd rwsem", "rwsem.impl", "spinlock", "xadd",
            "x86-64 used the generic rwsem (RWSEM_GENERIC_SPINLOCK=y): every down_read and up_read takes its "
            "wait_lock; the xadd rwsem's read fast path is one locked add" },
        { "2.6.34", "5beb49305251", "mm: change anon_vma linking to fix multi-process server scalability issue", "", "",
            "",
            "not modelled: the anon_vma chains link a child's anon_vma to its parent's for the pages fork shares; "
            "the model has one anon_vma a process and its forked children fault their pages anew" },
        { "2.6.36", "9ee493ce0a60", "mm: page allocator: drain per-cpu lists after direct reclaim allocation fails",
            "page_alloc.drain", "none", "ipi",
            "an allocation that fails after direct reclaim empties every CPU's per-cpu list (on_each_cpu_mask: an "
            "IPI to each CPU with pages) before it retries; from 2.6.24 high-order allocations drained after every "
            "reclaim, which is not distinguished" },
        { "2.6.36", "a63d83f427fb", "oom: badness heuristic rewrite", "oom.badness", "total_vm", "rss",
            "the OOM killer scores a process by the memory a kill gives back (RSS, swap entries, page tables; root "
            "3 % of RAM and swap less) instead of badness(): its virtual size and half its children's, divided by "
            "the roots of its CPU and run times, a quarter for root. The first releases' score in thousandths of RAM "
            "and swap (ties between processes closer than that) is not modelled: the score is in pages" },
        { "2.6.36", "5e9d834a0e0c", "oom: sacrifice child with highest badness score for parent",
            "oom.sacrifice_child", "first_child", "worst_child",
            "the chosen process's child with an mm of its own and the highest score dies in its place, where the "
            "first such child did before; the release (the series of a63d83f427fb) is not verified against a tag" },
        { "2.6.37", "0e093d99763e",
            "writeback: do not sleep on the congestion queue if there are no congested BDIs or if significant "
            "congestion is not being encountered in the current zone",
            "vmscan.nap", "congestion_wait", "wait_iff_congested",
            "an allocation that retries after a round of direct reclaim, and direct reclaim after each pass below "
            "priority 10 that scanned pages and left it short of a batch, sleep only while a swap device is congested "
            "and the zone is marked congested (wait_iff_congested(HZ/50), (HZ/10)); before it congestion_wait(): the "
            "whole timeout unless a swap write completes meanwhile on a queue below its congestion-off threshold" },
        { "2.6.37", "not verified", "mm: page allocator: adjust the per-cpu counter threshold when memory is low",
            "vmstat.pressure_threshold", "false", "true",
            "while kswapd is awake a zone whose CPUs' drift could pass the min watermark folds its vmstat deltas at "
            "(low - min) / CPUs instead of the normal threshold: more folds under memory pressure" },
        { "3.0", "out of tree", "mm: support madvise(MADV_FREE) (Minchan Kim's series in mmotm)", "madvise.era", "2007",
            "4.5",
            "MADV_FREE as a patch: on 2.6 Rik van Riel's v1 (PG_lazyfree, a TLB flush per dirty or young PTE), from "
            "3.x the series 4.5 merged" },
        { "3.0", "out of tree", "mm: support madvise(MADV_FREE) (Minchan Kim's series in mmotm)", "madvise.tlb_batch",
            "false", "true",
            "MADV_FREE gathers its TLB flushes into one per mmu_gather batch (Rik's follow-up on 2.6)" },
        { "3.0", "not verified", "mm: Convert i_mmap_lock to a mutex", "i_mmap.lock", "spinlock", "mutex",
            "i_mmap_mutex: a task waiting for a file's i_mmap lock (vma_link, unlink_file_vma, the rmap walks) "
            "spins on it (sys time, its CPU busy) before it, and sleeps once the owner is off its CPU after it" },
        { "3.0", "eb709b0d062e", "mm: batch activate_page() to reduce lock contention", "lru.activate_batch", "false",
            "true",
            "activate_page() queues the page in a per-CPU pagevec drained under one lru_lock round trip; before it "
            "every activation (mark_page_accessed's second touch) takes lru_lock" },
        { "3.6", "611ae8e3f520", "x86/tlb: enable tlb flush range support for x86", "", "", "",
            "not modelled: flush_tlb_range() flushes single pages with invlpg below a ceiling (tlb_flushall_shift) "
            "instead of the whole TLB; the model charges one local flush per flush and no TLB refills, so the choice "
            "moves nothing it counts; the release is not verified against a tag" },
        { "3.8", "4fc3f1d66b1e", "mm/rmap, migration: Make rmap_walk_anon() and try_to_unmap_anon() more scalable",
            "rmap.anon_vma_read", "false", "true",
            "the anon rmap walks (page_referenced, try_to_unmap) take the anon_vma's rwsem (5a505085f043 in the same "
            "release) shared; before it the anon_vma lock (a spinlock, a mutex from 3.0) is exclusive" },
        { "3.9", "ec8acf20afb8", "swap: add per-partition lock for swapfile", "swap.lock", "global", "device",
            "every device gets its si->lock for scan_swap_map() and swap_entry_free(); before it the one swap_lock "
            "serialises allocation and freeing on every device" },
        { "3.9", "not verified", "mm: don't wait on congested zones in balance_pgdat()", "vmscan.kswapd_nap",
            "priority_unless_min", "batch",
            "balance_pgdat() no longer naps after a priority pass: the kernel's kswapd sleeps only once its node is "
            "balanced (vmscan.kswapd_nap=none). The default from here, `batch`, is the model's stand-in for this and "
            "3.11's stall: HZ/10 after a batch that freed nothing, kept until the tables of seed 000 and seed 003 are "
            "re-baselined (docs/fidelity.md). Commit 258401a6 (the full hash not at hand), the release not verified "
            "against a tag; 3.8's wait_iff_congested() form of the nap is not modelled apart" },
        { "3.10", "0dc8c730c98a", "mutex: Queue mutex spinners with MCS lock to reduce cacheline contention",
            "lock.mutex_mcs", "false", "true",
            "a mutex's spinners queue on an MCS lock and only the first polls the owner: the release reaches it in one "
            "line transfer; before it every spinner polls, and the one that takes the mutex reloads the line behind "
            "the others" },
        { "3.11", "not verified", "mm: vmscan: move direct reclaim wait_iff_congested into shrink_list", "vmscan.nap",
            "wait_iff_congested", "shrink_list",
            "direct reclaim no longer naps after a priority pass: shrink_inactive_list() calls "
            "wait_iff_congested(HZ/10) after each batch a direct reclaimer takes (a sleep only on a congested zone, "
            "which anonymous reclaim never marks: a cond_resched()); before it the pass's nap, and 3.2-3.10's wait "
            "there only when the batch held pages under writeback (not modelled apart: it too sleeps only on a "
            "congested zone) (the release is not verified against a tag)" },
        { "3.11", "13f7f78981e4", "mm: pagevec: defer deciding which LRU to add a page to until pagevec drain time", "",
            "", "",
            "not modelled: before it each LRU list has its own lru_add pagevec; the model has one, which drains the "
            "same way when a CPU adds pages of one list (every modelled workload)" },
        { "3.11", "2b2811178e85", "zswap: add to mm/", "", "", "",
            "not modelled as a default: zswap is off unless the boot line enables it, in every release. "
            "zswap.enabled=true runs 4.0's zswap (zbud, writeback of the oldest zbud page when the pool is full; "
            "same-filled pages from 4.14) from 3.11 on and is refused before it (docs/presets.md, \"zswap\")" },
        { "3.11", "b1a6f21e3b23", "mm: vmscan: stall page reclaim after a list of pages have been processed", "", "",
            "",
            "not modelled as a default (vmscan.kswapd_nap=immediate runs it): kswapd that meets pages under writeback "
            "already marked for immediate reclaim, in a zone where a whole batch was found under writeback "
            "(ZONE_WRITEBACK, 283aba9f9e0e; cleared after each of kswapd's passes), waits congestion_wait(HZ/10) after "
            "the batch: pages are coming round the LRU faster than they are written. With it in place of the default "
            "`batch` nap, seed 000's MADV_FREE swaps in a sixth less and madvfree-patched / DONTNEED rises from 1.40 "
            "to 1.88 (docs/fidelity.md) (the release is not verified against a tag)" },
        { "3.13", "49076ec2ccaf", "mm: dynamically allocate page->ptl if it cannot be embedded to struct page",
            "config.ptlock_alloc", "false", "true",
            "with DEBUG_SPINLOCK or lockdep each page table has its split lock again, allocated apart (page->ptl "
            "points to it; 539edb5846c7 \"mm: properly separate the bloated ptl from the regular case\" makes it a "
            "build-time choice in the same release); before it every page table of an mm is guarded by "
            "mm->page_table_lock" },
        { "3.14", "ebc2a1a69111", "swap: make cluster allocation per-cpu", "swap.percpu_cluster", "false", "true",
            "on a non-rotational device each CPU allocates from a free 256-slot cluster of its own (on top of the "
            "cluster list of 2a8f94493432, 3.12) instead of interleaving with the others at cluster_next" },
        { "3.14", "778c14affaf9", "mm, oom: base root bonus on current usage", "oom.root_bonus", "total_pages",
            "usage",
            "a root process's score is 3 % less than its memory instead of 3 % of RAM and swap less (which left every "
            "root process smaller than that at the floor of 1, chosen in list order); the release is not verified "
            "against a tag" },
        { "3.15", "a528910e12ec", "mm: thrash detection-based file cache sizing", "lru.workingset", "false", "true",
            "__remove_mapping() leaves a shadow entry with the lruvec's inactive_age; a page-cache miss that finds one "
            "whose refault distance fits in the active file list adds the new page to the active list "
            "(workingset_refault), and activations advance inactive_age (workingset_activation)" },
        { "3.15", "8c6e50b0290c", "mm: introduce vm_ops->map_pages()", "fault.around", "false", "true",
            "a read fault on a file VMA maps the cached, uptodate pages of the 16-page window around it under one PTE "
            "lock (do_fault_around -> filemap_map_pages) before it waits for the faulting page; before it each page a "
            "program touches takes a fault of its own" },
        { "3.15", "6538b8ea886e", "x86_64: expand kernel stack to 16K", "fork.stack_order", "1", "2",
            "THREAD_SIZE_ORDER 2: fork allocates an order-2 kernel stack" },
        { "3.15", "a5102476a24b", "x86/mm: Set TLB flush tunable to sane value (33)", "", "", "",
            "not modelled: tlb_single_page_flush_ceiling 33 replaces the per-CPU tlb_flushall_shift of 3.6; like "
            "that rule it moves only TLB refills, which the model does not count" },
        { "3.16", "not verified", "mm, thp: avoid excessive compaction latency during fault", "thp.fault_compaction",
            "sync", "async",
            "a THP fault falls back to small pages after a failed async compaction instead of compacting "
            "synchronously" },
        { "3.16", "4fc828e24cd9", "locking/rwsem: Support optimistic spinning", "lock.rwsem_spin", "none", "writer",
            "a writer of an xadd rwsem (mmap_sem, anon_vma, i_mmap_rwsem) that finds a running writer holding it "
            "spins (rwsem_optimistic_spin) and takes it at the release, ahead of sleeping waiters it may find; before "
            "it every contended writer sleeps" },
        { "3.16", "4f9b16a64753", "mm: disable zone_reclaim_mode by default", "", "", "",
            "not modelled: before it the boot set zone_reclaim_mode only where a node lies further than "
            "RECLAIM_DISTANCE; the model's direct reclaim walks every node of the zonelist at every version "
            "(zone_reclaim_mode 0), which is what both eras do on such machines" },
        { "3.19", "c8c06efa8b55", "mm: convert i_mmap_mutex to rwsem", "i_mmap.lock", "mutex", "rwsem",
            "i_mmap_rwsem: the rmap walks (try_to_unmap, remove_migration_ptes, page_referenced) take it shared" },
        { "3.19", "2ebba6b7e1d9", "mm: unmapped page migration avoid unmap+remap overhead", "migrate.skip_unmapped",
            "false", "true",
            "__unmap_and_move() skips try_to_unmap() and remove_migration_ptes() of a page no PTE maps: no i_mmap "
            "round trip for an unmapped page-cache page" },
        { "4.2", "d73a33973f16", "locking/qspinlock, x86: Enable x86-64 to use queued spinlocks", "lock.spinlock",
            "ticket", "queued",
            "a contended spinlock's waiters spin on their own MCS node; the hand-off moves one line" },
        { "4.3", "72b252aed506", "mm: send one IPI per CPU to TLB flush all entries after unmapping pages",
            "tlb.reclaim_batch", "false", "true",
            "reclaim of mapped page-cache pages (shrink_page_list) defers the TLB flush of each unmapped page to one "
            "try_to_unmap_flush() per batch: one IPI round per batch instead of one per page. The anonymous path "
            "flushes per page at every version (its batching would move swap-free-sort's table at 4.11)" },
        { "4.5", "854e9ed09ded", "mm: support madvise(MADV_FREE)", "madvise.free_swap_entries", "false", "true",
            "MADV_FREE in mainline, freeing the swap entries of swapped-out pages in the range (seed 000's patch)" },
        { "4.7", "0a0337e0d1d1", "mm, oom: rework oom detection", "oom.reclaim_retries", "false", "true",
            "should_reclaim_retry(): MAX_RECLAIM_RETRIES rounds of direct reclaim without progress call the OOM "
            "killer" },
        { "4.7", "da9556a2367c", "zram: user per-cpu compression streams", "zram.streams", "single", "percpu",
            "each CPU compresses with its own stream instead of one stream under a mutex (max_comp_streams 1, "
            "fe8eb122c82b, 3.15)" },
        { "4.8", "599d0c954f91", "mm, vmscan: move LRU lists to node", "vmstat.lru_counters", "zone", "node_zone",
            "a list change updates the node's LRU vmstat item and the zone's (each a per-cpu delta, folded past its "
            "threshold; the node keeps the normal one under pressure), and NR_ISOLATED_* are node items. The lists "
            "and lru_lock moving to the node are not modelled apart: the model's nodes have one zone each" },
        { "4.9", "371a096edf43", "mm: don't use radix tree writeback tags for pages in swap cache",
            "swap.writeback_tags", "true", "false",
            "a swap-cache page's writeback no longer takes the swap cache's tree_lock: set_page_writeback() in the "
            "writer and end_page_writeback() at the write's completion each set or cleared the page's radix-tree tags "
            "under it before (two more round trips a page written out, besides the insertion and the deletion)" },
        { "4.10", "9d659ae14b54", "locking/mutex: Add lock handoff to avoid starvation", "lock.mutex_handoff",
            "false", "true",
            "a woken mutex waiter that finds the mutex taken again sets MUTEX_FLAG_HANDOFF, and the next unlock grants "
            "it the mutex (__mutex_handoff) instead of letting a spinner or a running task take it first" },
        { "4.10", "59dc76b0d4df", "mm: vmscan: reduce size of inactive file list", "lru.inactive_file_ratio",
            "equal", "sqrt",
            "inactive_list_is_low() keeps the inactive file list at 1/sqrt(10 * GB) of the active one, as the anon "
            "list; before it at the active list's size, so that reclaim deactivates file pages sooner (the release is "
            "not verified against a tag)" },
        { "4.11", "67afa38e012e", "mm/swap: add cache for swap slots allocation", "swap.slots_cache", "off", "per_cpu",
            "per-CPU caches of 64 swap slots for allocation and for freeing (swapcache_free_entries() every 64), "
            "with the per-cluster locks of 235b62176712 (same release)" },
        { "4.11", "0ccce3b92421", "mm, page_alloc: drain per-cpu pages from workqueue context", "page_alloc.drain",
            "ipi", "workqueue",
            "drain_all_pages() queues a work item on each CPU with pages, serialised by pcpu_drain_mutex (a "
            "reclaimer finding a drain under way skips its own)" },
        { "4.11", "8e19d540d107", "zram: extend zero pages to same element pages", "zram.same_filled", "false", "true",
            "zram stores a page filled with one repeated word as a flag, without compressing it (the release is "
            "not verified against a tag)" },
        { "4.11", "4b3ef9daa4fc", "mm/swap: split swap cache into 64MB trunks", "swap.cache_trunks", "false", "true",
            "swap_address_space(entry) is one of a device's address_spaces, one per 64 MiB of slots, each with its "
            "tree_lock: swap-cache insertions and deletions of slots far apart take different locks" },
        { "4.12", "f7ad2a6cb9f7", "mm: move MADV_FREE pages into LRU_INACTIVE_FILE list", "madvise.lazyfree_lru",
            "anon", "file",
            "MADV_FREE moves a page mapped once from either anonymous list to the head of the inactive file list and "
            "clears PG_swapbacked (mark_page_lazyfree(), a per-CPU pagevec drained under lru_lock), so reclaim, which "
            "takes the file lists first, finds it without swap: a clean one is discarded, one written since is "
            "given PG_swapbacked back and activated onto the anonymous list, not written to swap; before it the page "
            "is deactivated on the anonymous lists, put in the swap cache by reclaim and written out if dirty" },
        { "4.13", "not verified", "mm, swap: sort swap entries before free", "swap.sort_before_free", "false", "true",
            "swapcache_free_entries() sorts its 64 entries by device: at most one si->lock round trip per device" },
        { "4.14", "not verified", "mm: zswap: add same-filled pages support", "zswap.same_filled", "false", "true",
            "with zswap enabled, a page of one repeated word (a memset page, a zero page) is kept as that word in its "
            "zswap entry: no compression, no zbud object, no pool space, so it never fills the pool; a load writes the "
            "word over the page" },
        { "4.14", "ec560175c0b6", "mm, swap: VMA based swap readahead", "swap.readahead", "cluster", "vma",
            "do_swap_page() reads ahead the swap entries of the 2^page_cluster PTEs around the fault (its page-table "
            "page) instead of the slots around the faulting one, unless a swap device rotates; the window's "
            "adaptation to readahead hits is not modelled (always the largest, as for the slot-based readahead)" },
        { "4.15", "not verified", "mm, pagevec: remove cold parameter for pagevecs", "lru.pagevec_size", "14", "15",
            "PAGEVEC_SIZE 15: each pagevec drains to lru_lock after 15 pages instead of 14" },
        { "4.15", "0bcac06f27d7", "mm, swap: skip swapcache for swapin of synchronous device", "swap.skip_swapcache",
            "false", "true",
            "do_swap_page() on an entry of a synchronous device (zram, pmem) that only this PTE references allocates a "
            "page and reads it in the fault: no readahead, no swapcache_prepare() or tree_lock, and the slot is freed "
            "with the PTE's swap_free()" },
        { "4.16", "a983b5ebee57", "mm: memcontrol: fix excessive complexity in memory.stat reporting",
            "config.memcg_stat_batch", "false", "true",
            "a CPU's memcg statistics fold into the memcg's and the lruvec's shared counters with atomic_long_add() "
            "once its delta passes MEMCG_CHARGE_BATCH (32): under lru_lock for the LRU sizes; the release is not "
            "verified against a tag" },
        { "4.17", "d46078b28889", "mm, oom: remove 3% bonus for CAP_SYS_ADMIN processes", "oom.root_bonus", "usage",
            "none", "a root process is scored by its memory alone" },
        // Merged for 4.19 as ac0315896970 and reverted before 4.19-rc1 ("x86/mm/tlb: Revert the recent lazy TLB
        // patches", <20180822154046.717610121@infradead.org>); merged again as 145f573b89a6 for 4.20.
        { "4.20", "145f573b89a6", "x86/mm/tlb: Make lazy TLB mode lazier", "tlb.lazy_ipi", "true", "false",
            "a TLB flush no longer interrupts CPUs in lazy TLB mode for the mm (unless page tables are freed)" },
        { "5.1", "bbbe48029720", "mm, oom: remove 'prefer children over parent' heuristic", "oom.sacrifice_child",
            "worst_child", "none",
            "the OOM killer kills the process it chose, not one of its children; the release is not verified against "
            "a tag" },
        { "5.1", "ce82f19fd580", "zram: support lzo-rle compression", "zram.comp", "lzo", "lzo-rle",
            "zram compresses with lzo-rle by default. Modelled, no workload shows it: lzo-rle differs from lzo in "
            "coding runs of zero bytes (5ee4014af99f \"lib/lzo: implement run-length encoding\": \"with few zeros "
            "present, it makes no difference\"); the pages zram compresses here hold no zero runs (a zero page is "
            "caught before the compressor, program data is Silesia's), and the series' gains (\"1.1 - 4.8x "
            "(data-dependent)\") are given per zero-run density only in a graph, so lzo-rle costs what lzo does" },
        { "5.2", "8c7829b04c52", "mm: fix false-positive OVERCOMMIT_GUESS failures", "overcommit", "guess-free",
            "guess-total", "__vm_enough_memory() refuses only a mapping larger than RAM + swap" },
        { "5.3", "4f23dbc1e657", "locking/rwsem: Implement lock handoff to prevent lock starvation",
            "lock.rwsem_handoff", "false", "true",
            "a writer first in line for RWSEM_WAIT_TIMEOUT (4 ms) sets RWSEM_FLAG_HANDOFF: spinners and running "
            "writers no longer take the rwsem before it" },
        { "5.3", "d3681e269fff", "locking/rwsem: Wake up almost all readers in wait queue",
            "lock.rwsem_wake_all_readers", "false", "true",
            "a release that finds a reader first in the queue grants the rwsem to every reader queued, up to 256 "
            "(MAX_READERS_WAKEUP), the writers between them keeping their places; before it the wake-up stops at the "
            "first writer, and the readers behind it wait for that writer" },
        { "5.3", "cf69482d62d9", "locking/rwsem: Enable readers spinning on writer", "lock.rwsem_spin", "writer",
            "reader",
            "a reader (a page fault's down_read of mmap_sem) that finds a running writer holding the rwsem spins "
            "until the release and joins the readers then, instead of sleeping" },
        { "5.6", "9c4e6b1a7027", "mm, mlock, vmscan: no more skipping pagevecs", "lru.page_evictable", "none",
            "outofline", "__pagevec_lru_add_fn() calls page_evictable() (out of line, vmscan.c) under lru_lock" },
        { "5.6", "9c4e6b1a7027", "mm, mlock, vmscan: no more skipping pagevecs", "lru.barrier", "none", "smp_mb",
            "__pagevec_lru_add_fn() orders SetPageLRU before the PageMlocked test with smp_mb() under lru_lock" },
        { "5.7", "not verified", "mm: swap: make page_evictable() inline", "lru.page_evictable", "outofline", "inline",
            "page_evictable() is static inline (page_mapping() stays out of line)" },
        { "5.7", "not verified", "mm: swap: use smp_mb__after_atomic() to order LRU bit set", "lru.barrier", "smp_mb",
            "after_atomic", "the barrier after SetPageLRU is smp_mb__after_atomic(): a compiler barrier on x86" },
        { "5.9", "b518154e59aa", "mm/vmscan: protect the workingset on anonymous LRU", "lru.anon_new_inactive", "false",
            "true",
            "a new anonymous page starts on the inactive list; before it on the active list, whose growth makes "
            "shrink_active_list() demote older pages (pgdeactivate)" },
        { "5.11", "6168d0da2b47", "mm/lru: replace pgdat lru_lock with lruvec lock", "lru.lock", "node", "lruvec",
            "each memcg's lruvec has its own lru_lock (relock_page_lruvec); before it every memcg of a node shares "
            "the node's lru_lock. Only matters with lru.lruvecs > 1" },
        { "5.11", "617f3ef95177", "locking/rwsem: Remove reader optimistic spinning", "lock.rwsem_spin", "reader",
            "writer",
            "readers sleep again when a writer holds the rwsem; only writers spin (the release is not verified "
            "against a tag)" },
        { "5.13", "2d146aa3aa84", "mm: memcontrol: switch to rstat", "config.memcg_stat_batch", "true", "false",
            "the memcg statistics stay per-cpu and are aggregated when read (rstat): no shared atomics on the "
            "write side" },
        { "5.14", "3b12e7e97938", "mm/page_alloc: scale the number of pages that are batch freed",
            "page_alloc.pcp_free_scale", "false", "true",
            "free_pcppages_bulk() gives back batch << pcp->free_factor pages (up to high - batch), free_factor "
            "growing with each consecutive bulk free and halved by an allocation: fewer zone->lock round trips in a "
            "free storm" },
        { "5.16", "d818fca1cac3", "mm/vmscan: throttle reclaim and compaction when too may pages are isolated",
            "vmscan.isolated_throttle", "congestion_wait", "reclaim_throttle",
            "a direct reclaimer that finds too_many_isolated() sleeps in reclaim_throttle(VMSCAN_THROTTLE_ISOLATED): "
            "HZ/50 at most, woken as soon as a reclaimer finds isolation back under the limit, and only once a call; "
            "before it congestion_wait(HZ/10) in a loop, woken only by a device leaving congestion" },
        { "5.16", "8cd7c588decf", "mm/vmscan: throttle reclaim until some writeback completes if congested", "", "", "",
            "not modelled: reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK) replaces the congestion_wait() of a reclaimer "
            "that meets pages under writeback (woken as writeback completes); the model's anonymous reclaim keeps "
            "congestion_wait() there, and no modelled file workload writes back under reclaim" },
        { "6.0", "not verified", "mm/swap: convert lru_add to a folio_batch", "", "", "",
            "not modelled apart: a folio_batch holds and drains order-0 pages as the pagevec did (15 entries); its "
            "growth to 31 is the 6.9 rule" },
        { "6.1", "ec1c86b25f4b", "mm: multi-gen LRU: groundwork", "", "", "",
            "not modelled: CONFIG_LRU_GEN is off by default, and the active/inactive lists stay in use" },
        { "6.2", "c0547d0b6a4b", "zsmalloc: consolidate zs_pool's migrate_lock and size_class's locks",
            "zsmalloc.lock", "class", "pool",
            "zsmalloc's size classes share one pool->lock instead of a lock each, and zs_map_object() takes it where "
            "it took pool->migrate_lock for read" },
        { "6.3", "7e12beb8ca2a", "migrate_pages: batch flushing TLB", "", "", "",
            "not modelled as an era rule: the what-if toggle migrate.batch_flush unmaps a batch with TTU_BATCH_FLUSH, "
            "flushes once and then moves the pages, but the built-in workloads' compaction migrates almost no mapped "
            "page (their page cache is unmapped), so no run can show its one IPI round per batch; no kernel sets it" },
        { "6.4", "5e31275cc997", "mm: add per-VMA lock and helper functions to control it", "", "", "",
            "not modelled: page faults take mmap_sem for read at every version; per-VMA locks need a lock per VMA "
            "and the fault's fallback" },
        { "6.4", "0bff0aaea03e", "x86/mm: try VMA lock-based page fault handling first", "", "", "",
            "not modelled: a fault takes the VMA's lock (lock_vma_under_rcu) and falls back to mmap_sem; the model "
            "has no VMAs for anonymous memory, whose faults and mprotect calls would need them" },
        { "6.9", "not verified", "mm: increase folio batch size", "lru.pagevec_size", "15", "31",
            "PAGEVEC_SIZE (the folio batch) 31" },
        { "6.10", "not verified", "mm: swap: free_swap_and_cache_nr() as batched free_swap_and_cache()", "", "", "",
            "not modelled: zap_pte_range() frees a run of swap entries of one cluster under one lock round trip "
            "(swap_pte_batch); the model frees them one by one at every version: it has no detection of runs of "
            "consecutive entries in a PTE table" },
        { "6.11", "not verified", "mm: swap: mTHP swap allocator base on swap cluster order", "", "", "",
            "not modelled: the per-CPU cluster becomes one per order for mTHP swap-out; the model swaps order-0 "
            "pages only" },
    };
    return rules;
}

Toggles Toggles::forKernel(const KernelVersion& v)
{
    Toggles t;
    // zram's max_comp_streams: 1 from fe8eb122c82b "zram: add set_max_streams knob" (3.15) on; what zram.streams
    // single models before it too (one buffer under a mutex).
    t.zram.maxCompStreams = 1;
    // Each toggle a rule moves starts at its first rule's `from` (the 2.6.20 value), then takes every `to` up to v.
    std::vector<std::string> seen;
    for (const KernelRule& r : kernelRules()) {
        if (!r.modelled())
            continue;
        if (std::find(seen.begin(), seen.end(), r.toggle) == seen.end()) {
            seen.emplace_back(r.toggle);
            t.set(r.toggle, r.from);
        }
        if (!(v < *KernelVersion::parse(r.version)))
            t.set(r.toggle, r.to);
    }
    return t;
}

std::string Toggles::set(const std::string& name, const nlohmann::json& value)
{
    auto it = setters().find(name);
    if (it == setters().end())
        return "a known toggle";
    return it->second(*this, value);
}

bool Toggles::isToggle(const std::string& name) { return setters().count(name) != 0; }

std::pair<std::string, std::string> Toggles::eraError(const KernelVersion& kernel) const
{
    if (zswap.enabled && kernel < KernelVersion { 3, 11, 0 })
        return { "zswap.enabled", "false on kernel " + kernel.str() + " (zswap came in 3.11, 2b2811178e85)" };
    return {};
}

std::vector<std::string> Toggles::names()
{
    std::vector<std::string> n;
    for (auto& [k, v] : setters())
        n.push_back(k);
    return n;
}

nlohmann::json Toggles::toJson() const
{
    auto pick = [](auto v, std::initializer_list<const char*> names) { return *(names.begin() + static_cast<int>(v)); };
    return {
        { "madvise.advice", pick(advice, { "dontneed", "free" }) },
        { "madvise.free_swap_entries", freeSwapEntries },
        { "madvise.tlb_batch", tlbBatch },
        { "madvise.mmap_sem", pick(madviseMmapSem, { "write", "read" }) },
        { "madvise.era", madviseEra },
        { "madvise.lazyfree_lru", pick(lazyfreeLru, { "anon", "file" }) },
        { "glibc.trim", pick(glibcTrim, { "mprotect", "madvise" }) },
        { "rwsem.impl", pick(rwsemImpl, { "spinlock", "xadd" }) },
        { "lock.spinlock", pick(spinlock, { "byte", "ticket", "queued" }) },
        { "lock.mutex_spin", mutexSpin },
        { "lock.mutex_handoff", mutexHandoff },
        { "lock.mutex_mcs", mutexMcs },
        { "lock.rwsem_spin", pick(rwsemSpin, { "none", "writer", "reader" }) },
        { "lock.rwsem_handoff", rwsemHandoff },
        { "lock.rwsem_wake_all_readers", rwsemWakeAllReaders },
        { "lru.page_evictable", pick(pageEvictable, { "none", "outofline", "inline" }) },
        { "lru.barrier", pick(lruBarrier, { "none", "smp_mb", "after_atomic" }) },
        { "lru.pagevec_size", pagevecSize },
        { "lru.lruvecs", lruvecs },
        { "lru.lock", pick(lruLock, { "node", "lruvec" }) },
        { "lru.activate_batch", activateBatch },
        { "lru.anon_new_inactive", anonNewInactive },
        { "lru.evict_use_once", evictUseOnce },
        { "sched.newidle_ratelimit", newidleRateLimit },
        { "sched.select_idle_sibling", selectIdleSibling },
        { "sched.o1", o1Scheduler },
        { "lru.inactive_file_ratio", pick(inactiveFileRatio, { "equal", "sqrt" }) },
        { "lru.workingset", workingset },
        { "swap.slots_cache", pick(slotsCache, { "off", "per_cpu", "per_cpu_per_device" }) },
        { "swap.sort_before_free", sortBeforeFree },
        { "swap.percpu_cluster", swapPercpuCluster },
        { "swap.page_cluster", swapPageCluster },
        { "swap.lock", pick(swapLock, { "global", "device" }) },
        { "swap.cache_trunks", swapCacheTrunks },
        { "swap.writeback_tags", swapWritebackTags },
        { "swap.skip_swapcache", skipSwapcache },
        { "swap.readahead", pick(swapReadahead, { "cluster", "vma" }) },
        { "vmscan.activate_free_swap", activateFreeSwap },
        { "vmscan.isolated_throttle", pick(isolatedThrottle, { "none", "congestion_wait", "reclaim_throttle" }) },
        { "vmscan.nap", pick(reclaimNap, { "congestion_wait", "wait_iff_congested", "shrink_list" }) },
        { "vmscan.kswapd_nap", pick(kswapdNap, { "priority", "priority_unless_min", "batch", "none", "immediate" }) },
        { "vmstat.lru_counters", pick(vmstatLru, { "fields", "zone", "node_zone" }) },
        { "vmstat.isolated", vmstatIsolated },
        { "vmstat.pressure_threshold", vmstatPressureThreshold },
        { "tlb.lazy_ipi", tlbLazyIpi },
        { "tlb.reclaim_batch", reclaimTlbBatch },
        { "rmap.anon_vma_read", anonVmaRead },
        { "migrate.skip_unmapped", skipUnmapped },
        { "migrate.batch_flush", migrateBatchFlush },
        { "i_mmap.lock", pick(immapLock, { "mutex", "rwsem", "spinlock" }) },
        { "thp.fault_compaction", thpSyncCompaction ? "sync" : "async" },
        { "thp.enabled", thpEnabled ? "always" : "never" },
        { "fault.around", faultAround },
        { "fork.stack_order", forkStackOrder },
        { "oom.reclaim_retries", reclaimRetries },
        { "oom.badness", pick(oomBadness, { "total_vm", "rss" }) },
        { "oom.root_bonus", pick(oomRootBonus, { "total_pages", "usage", "none" }) },
        { "oom.sacrifice_child", pick(oomSacrifice, { "first_child", "worst_child", "none" }) },
        { "page_alloc.drain", pick(pcpDrain, { "none", "ipi", "workqueue" }) },
        { "page_alloc.pcp_free_scale", pcpFreeScale },
        { "overcommit", pick(overcommit, { "guess-free", "guess-total", "always" }) },
        { "zram.streams", pick(zram.streams, { "single", "multi", "percpu" }) },
        { "zram.max_comp_streams", zram.maxCompStreams },
        { "zram.comp", pick(zram.comp, { "lzo", "lzo-rle", "lz4" }) },
        { "zram.same_filled", zram.sameFilled },
        { "zsmalloc.lock", pick(zram.zsLock, { "class", "pool" }) },
        { "zswap.enabled", zswap.enabled },
        { "zswap.max_pool_percent", zswap.maxPoolPercent },
        { "zswap.compressor", pick(zswap.compressor, { "lzo", "lzo-rle", "lz4" }) },
        { "zswap.same_filled", zswap.sameFilled },
        { "kernel.config", config.name() },
        { "config.memcg", config.memcg },
        { "config.ptl_in_struct_page", config.ptlInStructPage },
        { "config.ptlock_alloc", config.ptlockAlloc },
        { "config.memcg_stat_batch", config.memcgStatBatch },
        { "config.debug_spinlock", config.debugSpinlock },
        { "config.lockdep", config.lockdep },
        { "config.lock_stat", config.lockStat },
        { "config.debug_mutexes", config.debugMutexes },
        { "config.debug_slab", config.debugSlab },
        { "config.debug_vm", config.debugVm },
        { "config.debug_list", config.debugList },
        { "config.debug_pagealloc", config.debugPagealloc },
        { "config.preempt_voluntary", config.preemptVoluntary },
    };
}

} // namespace mms
