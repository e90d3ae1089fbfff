#pragma once
// The zoned VM counters (ZVC, mm/vmstat.c) that LRU list changes and reclaim's isolation update. Each counter is a
// shared atomic_long_t in the zone's (or, from 4.8, the node's) vm_stat array plus one in the global array
// (vm_zone_stat / vm_node_stat). A CPU does not write them at every change: __mod_zone_page_state() and
// __mod_node_page_state() add the change to the CPU's s8 delta of the item and fold it into the two shared counters,
// an atomic_long_add() each, only once the delta passes the CPU's stat_threshold for that zone or node. The
// counters' lines are written by every CPU that folds, so a fold costs two locked RMWs on lines another CPU wrote
// last; LRU changes happen under lru_lock, so the folds lengthen its hold.
//
// stat_threshold (calculate_normal_threshold(), mm/vmstat.c since 2.6.18):
//   min(125, 2 * fls(online CPUs) * (1 + fls(the zone's managed pages in 128 MiB units)))
// and, while kswapd is awake, for a zone whose CPUs' drift could reach past the min watermark (CPUs * threshold >
// low - min: zone->percpu_drift_mark), calculate_pressure_threshold(): min(125, max(1, (low - min) / CPUs))
// (set_pgdat_percpu_threshold(), 2.6.37; zones only: a node keeps the largest normal threshold of its zones).
//
// Lines: an array's LRU items (NR_LRU_BASE.., NR_ZONE_LRU_BASE..) share one cache line, the isolated items
// (NR_ISOLATED_ANON/FILE) another, in the zone's array, the node's and each global one. Which CPU wrote a line last
// decides the fold's two transfers; a line that left the caches meanwhile is not distinguished.

#include "mm/page.h"

#include <cstdint>
#include <vector>

namespace mms {

enum class ZvcArray : std::uint8_t { Zone, Node };

// The items: an LRU list's page count (one per LruList) and the pages reclaim has isolated (anon, file).
constexpr int kZvcItems = NR_LRU_LISTS + 2;
constexpr int zvcIsolatedItem(bool file) { return NR_LRU_LISTS + (file ? 1 : 0); }

// fls(): the position of the most significant set bit, 1-based; 0 for 0 (include/asm-generic/bitops/fls.h).
constexpr int fls(std::uint64_t x)
{
    int n = 0;
    while (x) {
        ++n;
        x >>= 1;
    }
    return n;
}

// calculate_normal_threshold() of a zone of `managedPages` on a machine of `cpus` CPUs.
constexpr int zvcNormalThreshold(int cpus, std::uint64_t managedPages)
{
    const int t = 2 * fls(static_cast<std::uint64_t>(cpus)) * (1 + fls(managedPages >> (27 - 12)));
    return t < 125 ? t : 125;
}

// calculate_pressure_threshold() of a zone with watermarks `minPages` and `lowPages`.
constexpr int zvcPressureThreshold(int cpus, std::uint64_t minPages, std::uint64_t lowPages)
{
    const auto distance = static_cast<long long>(lowPages) - static_cast<long long>(minPages);
    const long long t = distance / cpus;
    return t < 1 ? 1 : (t < 125 ? static_cast<int>(t) : 125);
}

// Per-cpu counters folded into shared ones, as the kernel keeps its statistics: a CPU adds its changes to an item up
// in a delta of its own, and only a delta past the threshold either way is folded into the item's two shared
// counters, an atomic_long_add() each, on lines the CPUs that folded last wrote. The ZVCs below, and memcg's
// statistics batched by MEMCG_CHARGE_BATCH (Mm::memcgStatAdd).
class FoldedCounters {
public:
    // `items` counters for each of `cpus` CPUs, whose shared counters lie on `lines` cache lines.
    void init(int cpus, std::size_t items, std::size_t lines)
    {
        m_items = items;
        m_delta.assign(static_cast<std::size_t>(cpus) * items, 0);
        m_lineOwner.assign(lines, -1);
    }
    bool enabled() const { return m_items != 0; }

    // What a change did to the shared counters: nothing (the delta stayed within the threshold), or a fold, with the
    // CPUs that had written the two counters' lines last (-1: nobody yet).
    struct Fold {
        bool folded = false;
        int lineOwner[2] = { -1, -1 };
    };
    // `delta` to item `item` by `cpu`; past `threshold` either way the delta is folded into the item's counters on
    // lines `line0` and `line1` (one line for both where they are equal), which this CPU then owns.
    Fold add(int cpu, std::size_t item, std::size_t line0, std::size_t line1, int delta, int threshold)
    {
        std::int16_t& x = m_delta[static_cast<std::size_t>(cpu) * m_items + item];
        const int sum = x + delta;
        Fold f;
        if (sum > threshold || sum < -threshold) {
            f.folded = true;
            f.lineOwner[0] = m_lineOwner[line0];
            f.lineOwner[1] = m_lineOwner[line1];
            m_lineOwner[line0] = cpu;
            m_lineOwner[line1] = cpu;
            x = 0;
            return f;
        }
        x = static_cast<std::int16_t>(sum);
        return f;
    }

private:
    std::size_t m_items = 0;
    std::vector<std::int16_t> m_delta; // by CPU, item
    std::vector<int> m_lineOwner; // by line
};

// The ZVCs of the model's nodes (one zone each): for each node a zone array and a node array of kZvcItems, folded
// into the node's (zone's) counter and the global one.
class Zvc {
public:
    void init(int cpus, int nodes)
    {
        m_nodes = nodes;
        m_counters.init(cpus, static_cast<std::size_t>(nodes) * 2 * kZvcItems, static_cast<std::size_t>(nodes + 1) * 2 * 2);
    }
    bool enabled() const { return m_counters.enabled(); }
    // __mod_zone_page_state() / __mod_node_page_state(): `delta` to item `item` of node `nid`'s `array` by `cpu`; a
    // fold writes the array's line and the global array's.
    FoldedCounters::Fold add(int cpu, int nid, ZvcArray array, int item, int delta, int threshold)
    {
        const std::size_t index
            = (static_cast<std::size_t>(nid) * 2 + static_cast<std::size_t>(array)) * kZvcItems + static_cast<std::size_t>(item);
        const int line = item < NR_LRU_LISTS ? 0 : 1;
        return m_counters.add(cpu, index, lineIndex(nid, array, line), lineIndex(m_nodes, array, line), delta, threshold);
    }

private:
    // Node `nid`'s arrays, then (nid == nodes) the global ones.
    static std::size_t lineIndex(int nid, ZvcArray a, int line)
    {
        return (static_cast<std::size_t>(nid) * 2 + static_cast<std::size_t>(a)) * 2 + static_cast<std::size_t>(line);
    }
    int m_nodes = 0;
    FoldedCounters m_counters;
};

} // namespace mms
