#pragma once
// mm/slub.c (3.x) as far as the allocations that need pages: a kmem_cache's objects come from slabs of 2^order
// pages; an allocation takes a free object from this CPU's slab (the this_cpu_cmpxchg_double fast path), else a
// partial slab of the node (get_partial_node, under the node's list_lock), else a new slab -- allocate_slab() tries
// the cache's order with __GFP_NORETRY | __GFP_NOWARN, then the smallest order that holds an object, each an
// alloc_pages() whose slow path compacts when no block of the order is free. A free goes back to the freeing CPU's
// slab; past two slabs' worth there, a slab's worth moves to the node's partial list, and past min_partial (5) slabs
// there, an empty slab is discarded (its pages freed). Objects are counted, not placed: which slab holds which object
// is not modelled, only how many objects each CPU and the node have free.

#include "hw/pfn.h"
#include "sched/sched.h"
#include "sim/co.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace mms {

class Mm;
struct Task;

struct KmemCache {
    KmemCache(const char* n, int o, int minO, int objsPerSlab)
        : name(n)
        , order(o)
        , minOrder(minO)
        , objects(objsPerSlab)
    {
    }
    const char* name;
    int order; // oo: the cache's order (calculate_order)
    int minOrder; // min: the smallest order that holds one object
    int objects; // objects in a slab of `order`
    std::vector<int> cpuFree; // free objects in each CPU's slabs
    std::uint64_t nodeFree = 0; // free objects in the node's partial slabs
    std::vector<std::pair<Pfn, int>> slabs; // the slabs' pages and orders
    std::uint64_t newSlabs = 0, allocFailed = 0;
};

// kmem_cache_alloc(): may allocate a new slab (and compact for it). A failed slab allocation fails the object's.
Co<bool> kmem_cache_alloc(Mm& k, Task& t, KmemCache& c);
// kmem_cache_free().
Co<> kmem_cache_free(Mm& k, Task& t, KmemCache& c);

} // namespace mms
