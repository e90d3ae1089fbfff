#include "mm/toggles.h"

#include <nlohmann/json.hpp>

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
    Setter boolean(bool Toggles::*field)
    {
        return [field](Toggles& t, const nlohmann::json& v) -> std::string {
            if (v.is_boolean()) {
                t.*field = v.get<bool>();
                return {};
            }
            if (v.is_string() && (v == "true" || v == "false")) {
                t.*field = v == "true";
                return {};
            }
            return "true or false";
        };
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
    // A field of the zram toggles (Toggles::zram), as choice() and integer() do for a Toggles field.
    template <typename E>
    Setter zramChoice(E ZramConfig::*field, std::vector<std::pair<const char*, E>> options)
    {
        return [field, options](Toggles& t, const nlohmann::json& v) -> std::string {
            std::string expected;
            for (auto& [name, e] : options) {
                if (v.is_string() && v.get<std::string>() == name) {
                    t.zram.*field = e;
                    return {};
                }
                expected += (expected.empty() ? "" : "|") + std::string(name);
            }
            return "one of " + expected;
        };
    }
    Setter zramInteger(int ZramConfig::*field, int lo, int hi)
    {
        return [field, lo, hi](Toggles& t, const nlohmann::json& v) -> std::string { return integerInto(t.zram.*field, v, lo, hi); };
    }
    Setter zramBoolean(bool ZramConfig::*field)
    {
        return [field](Toggles& t, const nlohmann::json& v) -> std::string {
            if (v.is_boolean() || (v.is_string() && (v == "true" || v == "false"))) {
                t.zram.*field = v.is_boolean() ? v.get<bool>() : v == "true";
                return {};
            }
            return "true or false";
        };
    }
    Setter configBoolean(bool KernelConfig::*field)
    {
        return [field](Toggles& t, const nlohmann::json& v) -> std::string {
            if (v.is_boolean() || (v.is_string() && (v == "true" || v == "false"))) {
                t.config.*field = v.is_boolean() ? v.get<bool>() : v == "true";
                return {};
            }
            return "true or false";
        };
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
            { "glibc.trim", choice(&Toggles::glibcTrim, { { "mprotect", GlibcTrim::Mprotect }, { "madvise", GlibcTrim::Madvise } }) },
            { "rwsem.impl", choice(&Toggles::rwsemImpl, { { "spinlock", RwsemImplToggle::Spinlock }, { "xadd", RwsemImplToggle::Xadd } }) },
            { "lock.spinlock",
                choice(&Toggles::spinlock, { { "byte", SpinlockImpl::Byte }, { "ticket", SpinlockImpl::Ticket }, { "queued", SpinlockImpl::Queued } }) },
            { "lock.mutex_spin", boolean(&Toggles::mutexSpin) },
            { "lru.page_evictable",
                choice(&Toggles::pageEvictable,
                    { { "none", EvictableCall::None }, { "outofline", EvictableCall::OutOfLine }, { "inline", EvictableCall::Inline } }) },
            { "lru.barrier",
                choice(&Toggles::lruBarrier,
                    { { "none", LruBarrier::None }, { "smp_mb", LruBarrier::SmpMb }, { "after_atomic", LruBarrier::AfterAtomic } }) },
            { "lru.pagevec_size", integer(&Toggles::pagevecSize, 1, 512) },
            { "lru.lruvecs", integer(&Toggles::lruvecs, 1, 64) }, // kMaxLruvecs
            { "swap.slots_cache",
                choice(&Toggles::slotsCache,
                    { { "off", SlotsCache::Off }, { "per_cpu", SlotsCache::PerCpu }, { "per_cpu_per_device", SlotsCache::PerCpuPerDevice } }) },
            { "swap.sort_before_free", boolean(&Toggles::sortBeforeFree) },
            { "swap.percpu_cluster", boolean(&Toggles::swapPercpuCluster) },
            { "swap.page_cluster", integer(&Toggles::swapPageCluster, 0, 6) },
            { "tlb.lazy_ipi", boolean(&Toggles::tlbLazyIpi) },
            { "migrate.skip_unmapped", boolean(&Toggles::skipUnmapped) },
            { "i_mmap.lock", choice(&Toggles::immapLock, { { "mutex", IMmapLock::Mutex }, { "rwsem", IMmapLock::Rwsem } }) },
            { "thp.fault_compaction", choice(&Toggles::thpSyncCompaction, { { "sync", true }, { "async", false } }) },
            { "thp.enabled", choice(&Toggles::thpEnabled, { { "always", true }, { "never", false } }) },
            { "fork.stack_order", integer(&Toggles::forkStackOrder, 0, 4) },
            { "oom.reclaim_retries", boolean(&Toggles::reclaimRetries) },
            { "page_alloc.drain",
                choice(&Toggles::pcpDrain, { { "none", PcpDrain::None }, { "ipi", PcpDrain::Ipi }, { "workqueue", PcpDrain::Workqueue } }) },
            { "overcommit",
                choice(&Toggles::overcommit,
                    { { "guess-free", Overcommit::GuessFree }, { "guess-total", Overcommit::GuessTotal }, { "always", Overcommit::Always } }) },
            { "zram.streams",
                zramChoice(&ZramConfig::streams,
                    { { "single", ZcompStreams::Single }, { "multi", ZcompStreams::Multi }, { "percpu", ZcompStreams::PerCpu } }) },
            { "zram.max_comp_streams", zramInteger(&ZramConfig::maxCompStreams, 1, 1024) },
            { "zram.comp", zramChoice(&ZramConfig::comp, { { "lzo", ZcompAlgo::Lzo }, { "lzo-rle", ZcompAlgo::LzoRle }, { "lz4", ZcompAlgo::Lz4 } }) },
            { "zram.same_filled", zramBoolean(&ZramConfig::sameFilled) },
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
            { "config.debug_spinlock", configBoolean(&KernelConfig::debugSpinlock) },
            { "config.lockdep", configBoolean(&KernelConfig::lockdep) },
            { "config.lock_stat", configBoolean(&KernelConfig::lockStat) },
            { "config.debug_mutexes", configBoolean(&KernelConfig::debugMutexes) },
            { "config.debug_slab", configBoolean(&KernelConfig::debugSlab) },
            { "config.debug_vm", configBoolean(&KernelConfig::debugVm) },
            { "config.debug_list", configBoolean(&KernelConfig::debugList) },
            { "config.debug_pagealloc", configBoolean(&KernelConfig::debugPagealloc) },
        };
        return m;
    }
} // namespace

std::optional<KernelVersion> KernelVersion::parse(const std::string& text)
{
    static const std::regex re("([0-9]{1,3})\\.([0-9]{1,3})(?:\\.([0-9]{1,3}))?");
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

// The era table: what each kernel version does by default, one rule per toggle, each with the change that moved it
// (docs/presets.md lists the scenarios' kernels). Kernels later than the last rule keep it: the swap-free rework of
// 6.14/6.15 (si->lock off the free path, no slots cache) and per-VMA locks are not modelled.
Toggles Toggles::forKernel(const KernelVersion& v)
{
    auto before = [&v](int major, int minor, int patch = 0) { return v < KernelVersion { major, minor, patch }; };
    Toggles t;
    // x86-64 used the generic spinlock rwsem (RWSEM_GENERIC_SPINLOCK=y) until bafaecd11df1 "x86-64: support native
    // xadd rwsem" (2.6.34).
    t.rwsemImpl = before(2, 6, 34) ? RwsemImplToggle::Spinlock : RwsemImplToggle::Xadd;
    // x86 spinlocks: the byte lock until 314cdbefd1fd "x86: FIFO ticket spinlocks" (2.6.25), queued spinlocks from
    // d73a33973f16 "locking/qspinlock, x86: Enable x86-64 to use queued spinlocks" (4.2). Mutexes spin on a running
    // owner from 0d66bf6d3514 "mutex: implement adaptive spinning" (2.6.30).
    t.spinlock = before(2, 6, 25) ? SpinlockImpl::Byte : before(4, 2) ? SpinlockImpl::Ticket : SpinlockImpl::Queued;
    t.mutexSpin = !before(2, 6, 30);
    // sys_madvise took mmap_sem for write for every advice until Nick Piggin's "mm: madvise avoid exclusive
    // mmap_sem" (madvise_need_mmap_write, 2.6.22).
    t.madviseMmapSem = before(2, 6, 22) ? MmapSemMode::Write : MmapSemMode::Read;
    // MADV_FREE: mainline has it from 854e9ed09ded (4.5), freeing swap entries included. Earlier kernels have it
    // only as a patch: on 2.6 Rik van Riel's v1 (PG_lazyfree, a TLB flush per dirty or young PTE; the batched
    // flush came as a follow-up), from 3.x Minchan Kim's series that 4.5 merged (mmotm).
    t.madviseEra = before(3, 0) ? "2007" : "4.5";
    t.tlbBatch = !before(3, 0);
    t.freeSwapEntries = !before(4, 5);
    // PAGEVEC_SIZE 14 until Mel Gorman's pagevec rework (4.15), then 15; the folio batch grew to 31 in 6.9.
    t.pagevecSize = before(4, 15) ? 14 : before(6, 9) ? 15 : 31;
    // __pagevec_lru_add_fn: page_evictable() moved under lru_lock behind SetPageLRU + smp_mb() with 9c4e6b1a7027
    // "mm, mlock, vmscan: no more skipping pagevecs" (5.6); 5.7 inlined page_evictable() and relaxed the barrier
    // to smp_mb__after_atomic() (Yang Shi).
    t.pageEvictable = before(5, 6) ? EvictableCall::None : before(5, 7) ? EvictableCall::OutOfLine : EvictableCall::Inline;
    t.lruBarrier = before(5, 6) ? LruBarrier::None : before(5, 7) ? LruBarrier::SmpMb : LruBarrier::AfterAtomic;
    // Per-CPU swap slots caches: 67afa38e012e "mm/swap: add cache for swap slots allocation" (4.11); sorting a
    // batch by device before freeing it: Huang Ying's "mm, swap: sort swap entries before free" (4.13).
    t.slotsCache = before(4, 11) ? SlotsCache::Off : SlotsCache::PerCpu;
    t.sortBeforeFree = !before(4, 13);
    // Per-CPU swap clusters on SSDs: ebc2a1a69111 "swap: make cluster allocation per-cpu" (3.14), on top of the
    // cluster list of 2a8f94493432 (3.12).
    t.swapPercpuCluster = !before(3, 14);
    // i_mmap: a mutex (a spinlock before 3.0, which the model does not distinguish) until c8c06efa8b55 made it
    // i_mmap_rwsem (3.19); in the same release 2ebba6b7e1d9 let migration skip the rmap walks of unmapped pages.
    t.immapLock = before(3, 19) ? IMmapLock::Mutex : IMmapLock::Rwsem;
    t.skipUnmapped = !before(3, 19);
    // THP faults stopped compacting synchronously after a failed async attempt with David Rientjes's "mm, thp:
    // avoid excessive compaction latency during fault" (3.16).
    t.thpSyncCompaction = before(3, 16);
    // x86-64's THREAD_SIZE_ORDER: 1 (8 KiB stacks) until 6538b8ea886e "x86_64: expand kernel stack to 16K" (3.15).
    t.forkStackOrder = before(3, 15) ? 1 : 2;
    // x86 flush_tlb_others() interrupted CPUs in lazy TLB mode (flush_tlb_func() then calls leave_mm()) until Rik van
    // Riel's "x86/mm/tlb: make lazy TLB mode lazier" (2018, 4.19) skipped them where no page table is freed.
    t.tlbLazyIpi = before(4, 19);
    // should_reclaim_retry() and MAX_RECLAIM_RETRIES: 0a0337e0d1d1 "mm, oom: rework oom detection" (4.7).
    t.reclaimRetries = !before(4, 7);
    // The drain after a failed allocation following direct reclaim: 9ee493ce0a60 "mm: page allocator: drain per-cpu
    // lists after direct reclaim allocation fails" (2.6.36; from 2.6.24 high-order allocations drained after every
    // reclaim, which is not distinguished). From a workqueue, serialised by pcpu_drain_mutex with a trylock for
    // drains of every zone: 0ccce3b92421 "mm, page_alloc: drain per-cpu pages from workqueue context" (4.11).
    t.pcpDrain = before(2, 6, 36) ? PcpDrain::None : before(4, 11) ? PcpDrain::Ipi : PcpDrain::Workqueue;
    // 8c7829b04c52 "mm: fix false-positive OVERCOMMIT_GUESS failures" (5.2).
    t.overcommit = before(5, 2) ? Overcommit::GuessFree : Overcommit::GuessTotal;
    // zram (block/zram_config.h). Compression streams: one under a mutex (max_comp_streams defaults to 1 from
    // beca3ec71fe5 and fe8eb122c82b "zram: add set_max_streams knob", 3.15; 3.14 has one buffer under a mutex), per
    // CPU from da9556a2367c "zram: user per-cpu compression streams" (4.7). The compressor: lzo, lzo-rle from
    // ce82f19fd580 (5.1). Same-filled pages as a flag: 8e19d540d107 "zram: extend zero pages to same element pages"
    // (posted January 2017 and in the -mm tree for the next merge window: 4.11; the release is not verified against
    // a tag). zsmalloc's class locks became one pool->lock with c0547d0b6a4b (6.2).
    t.zram.streams = before(4, 7) ? ZcompStreams::Single : ZcompStreams::PerCpu;
    t.zram.maxCompStreams = 1;
    t.zram.comp = before(5, 1) ? ZcompAlgo::Lzo : ZcompAlgo::LzoRle;
    t.zram.sameFilled = !before(4, 11);
    t.zram.zsLock = before(6, 2) ? ZsLock::Class : ZsLock::Pool;
    // The kernel's config (mm/kconfig.h): memcg from its merge, 8cdea7c05454 "Memory controller: cgroups setup"
    // (2.6.25); the split page-table lock in struct page until 539edb5846c7 (3.13); memcg's batched statistics from
    // 4.16 to 5.13. The debug options are off: a release kernel.
    t.config.memcg = !before(2, 6, 25);
    t.config.ptlInStructPage = before(3, 13);
    t.config.memcgStatBatch = !before(4, 16) && before(5, 13);
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
        { "glibc.trim", pick(glibcTrim, { "mprotect", "madvise" }) },
        { "rwsem.impl", pick(rwsemImpl, { "spinlock", "xadd" }) },
        { "lock.spinlock", pick(spinlock, { "byte", "ticket", "queued" }) },
        { "lock.mutex_spin", mutexSpin },
        { "lru.page_evictable", pick(pageEvictable, { "none", "outofline", "inline" }) },
        { "lru.barrier", pick(lruBarrier, { "none", "smp_mb", "after_atomic" }) },
        { "lru.pagevec_size", pagevecSize },
        { "lru.lruvecs", lruvecs },
        { "swap.slots_cache", pick(slotsCache, { "off", "per_cpu", "per_cpu_per_device" }) },
        { "swap.sort_before_free", sortBeforeFree },
        { "swap.percpu_cluster", swapPercpuCluster },
        { "swap.page_cluster", swapPageCluster },
        { "tlb.lazy_ipi", tlbLazyIpi },
        { "migrate.skip_unmapped", skipUnmapped },
        { "i_mmap.lock", pick(immapLock, { "mutex", "rwsem" }) },
        { "thp.fault_compaction", thpSyncCompaction ? "sync" : "async" },
        { "thp.enabled", thpEnabled ? "always" : "never" },
        { "fork.stack_order", forkStackOrder },
        { "oom.reclaim_retries", reclaimRetries },
        { "page_alloc.drain", pick(pcpDrain, { "none", "ipi", "workqueue" }) },
        { "overcommit", pick(overcommit, { "guess-free", "guess-total", "always" }) },
        { "zram.streams", pick(zram.streams, { "single", "multi", "percpu" }) },
        { "zram.max_comp_streams", zram.maxCompStreams },
        { "zram.comp", pick(zram.comp, { "lzo", "lzo-rle", "lz4" }) },
        { "zram.same_filled", zram.sameFilled },
        { "zsmalloc.lock", pick(zram.zsLock, { "class", "pool" }) },
        { "kernel.config", config.name() },
        { "config.memcg", config.memcg },
        { "config.debug_spinlock", config.debugSpinlock },
        { "config.lockdep", config.lockdep },
        { "config.lock_stat", config.lockStat },
        { "config.debug_mutexes", config.debugMutexes },
        { "config.debug_slab", config.debugSlab },
        { "config.debug_vm", config.debugVm },
        { "config.debug_list", config.debugList },
        { "config.debug_pagealloc", config.debugPagealloc },
    };
}

} // namespace mms
