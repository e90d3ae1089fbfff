#include "mm/toggles.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>

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
    Setter integer(int Toggles::*field, int lo, int hi)
    {
        return [field, lo, hi](Toggles& t, const nlohmann::json& v) -> std::string {
            long long x = 0;
            if (v.is_number_integer())
                x = v.get<long long>();
            else if (v.is_string()) {
                try {
                    std::size_t used = 0;
                    x = std::stoll(v.get<std::string>(), &used);
                    if (used != v.get<std::string>().size())
                        return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
                } catch (...) {
                    return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
                }
            } else
                return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
            if (x < lo || x > hi)
                return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
            t.*field = static_cast<int>(x);
            return {};
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
            { "swap.page_cluster", integer(&Toggles::swapPageCluster, 0, 6) },
            { "migrate.skip_unmapped", boolean(&Toggles::skipUnmapped) },
            { "i_mmap.lock", choice(&Toggles::immapLock, { { "mutex", IMmapLock::Mutex }, { "rwsem", IMmapLock::Rwsem } }) },
            { "thp.fault_compaction", choice(&Toggles::thpSyncCompaction, { { "sync", true }, { "async", false } }) },
            { "thp.enabled", choice(&Toggles::thpEnabled, { { "always", true }, { "never", false } }) },
            { "fork.stack_order", integer(&Toggles::forkStackOrder, 0, 4) },
        };
        return m;
    }
} // namespace

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
        { "lru.page_evictable", pick(pageEvictable, { "none", "outofline", "inline" }) },
        { "lru.barrier", pick(lruBarrier, { "none", "smp_mb", "after_atomic" }) },
        { "lru.pagevec_size", pagevecSize },
        { "lru.lruvecs", lruvecs },
        { "swap.slots_cache", pick(slotsCache, { "off", "per_cpu", "per_cpu_per_device" }) },
        { "swap.sort_before_free", sortBeforeFree },
        { "swap.page_cluster", swapPageCluster },
        { "migrate.skip_unmapped", skipUnmapped },
        { "i_mmap.lock", pick(immapLock, { "mutex", "rwsem" }) },
        { "thp.fault_compaction", thpSyncCompaction ? "sync" : "async" },
        { "thp.enabled", thpEnabled ? "always" : "never" },
        { "fork.stack_order", forkStackOrder },
    };
}

} // namespace mms
