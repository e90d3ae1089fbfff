// mm/slub.c: see slub.h.
#include "mm/slub.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"

#include <algorithm>

namespace mms {

namespace {
    constexpr std::uint64_t kMinPartial = 5; // MIN_PARTIAL: slabs a node keeps on its partial list

    int objectsOf(const KmemCache& c, int order) { return std::max(1, c.objects >> (c.order - order)); }

    int& cpuFree(KmemCache& c, const Mm& k, const Task& t)
    {
        if (c.cpuFree.size() < static_cast<std::size_t>(k.s.cpuCount()))
            c.cpuFree.resize(static_cast<std::size_t>(k.s.cpuCount()));
        return c.cpuFree[static_cast<std::size_t>(t.cpu)];
    }
} // namespace

Co<bool> kmem_cache_alloc(Mm& k, Task& t, KmemCache& c)
{
    Sched::burn(t, k.cost.lockedRmwNs); // slab_alloc_node: this_cpu_cmpxchg_double
    int& mine = cpuFree(c, k, t);
    if (mine > 0) {
        --mine;
        co_return true;
    }
    if (c.nodeFree > 0) { // get_partial_node: a partial slab under the node's list_lock
        const auto n = std::min<std::uint64_t>(c.nodeFree, static_cast<std::uint64_t>(c.objects));
        c.nodeFree -= n;
        mine += static_cast<int>(n) - 1;
        Sched::burn(t, 2 * k.cost.lockedRmwNs + k.cost.listOpNs);
        co_return true;
    }
    FnScope fn(t, "new_slab");
    int order = c.order;
    Pfn p = co_await alloc_pages(k, t, order, GFP_NORETRY);
    if (p == kNoPage && !fatal_signal_pending(t) && c.minOrder < c.order) {
        order = c.minOrder;
        p = co_await alloc_pages(k, t, order);
    }
    if (p == kNoPage) {
        ++c.allocFailed;
        co_return false;
    }
    c.slabs.emplace_back(p, order);
    ++c.newSlabs;
    cpuFree(c, k, t) += objectsOf(c, order) - 1;
    co_return true;
}

Co<> kmem_cache_free(Mm& k, Task& t, KmemCache& c)
{
    Sched::burn(t, k.cost.lockedRmwNs); // slab_free: this_cpu_cmpxchg_double, or __slab_free's cmpxchg
    int& mine = cpuFree(c, k, t);
    ++mine;
    if (mine <= 2 * c.objects)
        co_return;
    mine -= c.objects; // unfreeze_partials: a slab's worth to the node's partial list
    c.nodeFree += static_cast<std::uint64_t>(c.objects);
    Sched::burn(t, 2 * k.cost.lockedRmwNs + k.cost.listOpNs);
    while (!c.slabs.empty() && c.nodeFree >= (kMinPartial + 1) * static_cast<std::uint64_t>(c.objects)) {
        auto [p, order] = c.slabs.back(); // discard_slab of an empty slab
        c.slabs.pop_back();
        c.nodeFree -= std::min<std::uint64_t>(c.nodeFree, static_cast<std::uint64_t>(objectsOf(c, order)));
        co_await free_pages(k, t, p, order);
    }
}

} // namespace mms
