// mm/page_alloc.c: order-0 allocation through the per-cpu lists, zone->lock for the buddy lists, watermarks that
// wake kswapd (low) and send the allocator into direct reclaim (min).
#include "mm/kernel.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>

namespace mms {

namespace {
    // zone_batchsize(): the per-cpu lists hold about a thousandth of the zone, so that 32 CPUs' lists never strand
    // a small zone's memory (a 10 MiB zone gets batch 0, high 0: every free goes straight back to the buddy lists,
    // as the kernel's pageset_set_batch() does). The model keeps PCP_BATCH as the large-zone value, which every
    // scenario's full-size machine (1 GiB and up) reaches, so full-scale runs are unchanged.
    int zone_batchsize(const Kernel& k)
    {
        std::uint64_t batch = k.s.machine().memoryBytes / kPageSize / 1024;
        batch = std::min<std::uint64_t>(batch, (1024 * 1024) / kPageSize) / 4; // "no more than a meg", *= 4 below
        batch = std::max<std::uint64_t>(batch, 1);
        batch = std::bit_floor(batch + batch / 2) - 1; // rounddown_pow_of_two(batch + batch / 2) - 1
        return std::min(static_cast<int>(batch), PCP_BATCH);
    }

    // pageset_set_batch(): high = 6 * batch; pages move to and from the buddy lists at least one at a time.
    int pcp_batch(const Kernel& k) { return std::max(1, zone_batchsize(k)); }
    int pcp_high(const Kernel& k) { return 6 * zone_batchsize(k); }

    // rmqueue_bulk(): refill this CPU's list with up to a batch of pages under zone->lock.
    Co<> rmqueue_bulk(Kernel& k, Task& t, PerCpuState& pc)
    {
        FnScope fn(t, "rmqueue_bulk");
        co_await spin_lock(k.s, t, k.zone.lock);
        for (int i = 0, n = pcp_batch(k); i < n && !k.zone.freeList.empty(); ++i) {
            pc.pcp.push_back(k.zone.freeList.back());
            k.zone.freeList.pop_back();
            Sched::burn(t, k.cost.listOpNs);
        }
        spin_unlock(k.s, t, k.zone.lock);
    }

    // free_pcppages_bulk(): give a batch back to the buddy lists under zone->lock.
    Co<> free_pcppages_bulk(Kernel& k, Task& t, PerCpuState& pc)
    {
        FnScope fn(t, "free_pcppages_bulk");
        co_await spin_lock(k.s, t, k.zone.lock);
        for (int i = 0, n = pcp_batch(k); i < n && !pc.pcp.empty(); ++i) {
            k.zone.freeList.push_back(pc.pcp.back());
            pc.pcp.pop_back();
            Sched::burn(t, k.cost.listOpNs);
        }
        spin_unlock(k.s, t, k.zone.lock);
    }
} // namespace

Co<Pfn> alloc_page(Kernel& k, Task& t)
{
    FnScope fn(t, "__alloc_pages_nodemask");
    PerCpuState& pc = k.pcpu[static_cast<std::size_t>(t.cpu)];
    for (int attempt = 0;; ++attempt) {
        std::uint64_t free = k.zone.nrFree();
        if (free < k.zone.watermarkLow)
            k.wakeup_kswapd();
        bool belowMin = free < k.zone.watermarkMin;
        // PF_MEMALLOC (kswapd, and reclaim itself) may dip below min; everyone else reclaims first.
        if (!belowMin || t.kthread) {
            if (pc.pcp.empty() && free > 0)
                co_await rmqueue_bulk(k, t, pc);
            if (!pc.pcp.empty()) {
                Pfn p = pc.pcp.back();
                pc.pcp.pop_back();
                k.pages.setFlags(p, 0);
                k.vm.inc(Vm::PgAlloc);
                Sched::burn(t, k.cost.pageAllocNs);
                co_return p;
            }
        }
        // __alloc_pages_slowpath(): direct reclaim, then wait for writeback if it freed nothing.
        k.vm.inc(Vm::AllocStall);
        std::uint64_t got = co_await try_to_free_pages(k, t);
        if (got == 0)
            co_await k.congestion_wait(t, ms(100)); // HZ/10
    }
}

Co<> free_hot_cold_page(Kernel& k, Task& t, Pfn p)
{
#ifndef NDEBUG
    if (k.pages.test(p, PG_lru | PG_buddy | PG_pagevec | PG_swapcache | PG_writeback) || k.pages.mapcount(p) != 0) {
        std::fprintf(stderr, "free_hot_cold_page: page %u is still in use (flags %x, owner %u, mapcount %u) in %s of %s\n", p,
            k.pages.flags(p), k.pages.owner(p), k.pages.mapcount(p), t.fn, t.name.c_str());
        std::abort();
    }
#endif
    k.pages.setFlags(p, PG_buddy);
    k.pages.setOwner(p, 0);
    k.pages.setMapcount(p, 0);
    k.pages.setPriv(p, 0);
    PerCpuState& pc = k.pcpu[static_cast<std::size_t>(t.cpu)];
    pc.pcp.push_back(p);
    k.vm.inc(Vm::PgFree);
    Sched::burn(t, k.cost.pageFreeNs);
    if (pc.pcp.size() >= static_cast<std::size_t>(pcp_high(k)))
        co_await free_pcppages_bulk(k, t, pc);
}

} // namespace mms
