// Set-up fast-forward of an anonymous fill that swaps (mm/prefault.h; sys::fast_forward_touch_swapping): the state N
// processes leave after writing every page of their mapping once in a random order, interleaved, on a machine whose
// reclaim swaps out the page touched longest ago. Simulating the fill itself (16 x 6 GiB through reclaim at full
// size) would cost far more host time than the exit that usemem measures after it.
//
// Once RAM is full, the page touched longest ago is swapped out by the CPU of the process that needs a page, taking
// a slot from that CPU's swap slots cache (refilled 64 at a time from the devices in turn), exactly as
// get_swap_page() would hand them out. What exit then frees -- the order of swap entries along each address space
// and so how often consecutive entries change device -- comes from that mechanism, not from a constant.
#include "mm/prefault.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/swap_slots.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace mms {

namespace {
    // The state after the fill (see prefault_swapping() in mm/prefault.h).
    //
    // Host-side shortcuts (the state built is the same): a touch does not write its PTE, since every touched
    // page's PTE is rewritten later anyway, by its eviction (the swap entry) or by the pass that gives the
    // resident pages their frames. When the fill completes every page has been touched, so a PTE still none
    // after it is a resident page.
    void prefault(Mm& k, const std::vector<MmStruct*>& mms, const std::vector<int>& cpus,
        const std::vector<std::vector<std::uint32_t>>& order, std::uint64_t budget, Rng rng)
    {
        std::vector<std::uint64_t> ring(static_cast<std::size_t>(budget) + 1); // resident pages, oldest first
        std::size_t head = 0, tail = 0, resident = 0;
        auto next = [n = ring.size()](std::size_t r) { return r + 1 < n ? r + 1 : 0; }; // no division per step
        // Host-side only: the PTEs are evicted in random order, each a host cache and TLB miss; start loading
        // them a burst at a time, a burst ahead, so that the host's page walks overlap (a ring slot not filled yet
        // holds 0, a valid process and page). The prefetch is written out where it is used: GCC 12 at -O2 deleted
        // the call of a lambda holding only the prefetch (its mod-ref analysis finds no side effect), so the
        // prefetch never ran.
        constexpr std::size_t kPrefetchBurst = 16;
        // Direct reclaim: the CPU that needs a page swaps out the oldest one, whoever owns it, taking the slot
        // from its own slots cache.
        auto evictOldest = [&](int reclaimCpu) {
            std::uint32_t entry = swap_slots_alloc_prefault(k, reclaimCpu);
            if (entry == kNoSwapEntry)
                return false;
            std::uint64_t v = ring[head];
            head = next(head);
            if (head % kPrefetchBurst == 0)
                for (std::size_t ahead = head + kPrefetchBurst; ahead < head + 2 * kPrefetchBurst; ++ahead) {
                    std::uint64_t w = ring[ahead < ring.size() ? ahead : ahead % ring.size()];
                    __builtin_prefetch(mms[w >> 32]->pte.data() + static_cast<std::uint32_t>(w), 1);
                }
            --resident;
            std::size_t i = v >> 32;
            auto vpn = static_cast<std::uint32_t>(v);
            MmStruct& mm = *mms[i];
            SwapSlot& slot = k.swap[pte::swpType(entry)]->slot[pte::swpOffset(entry)];
            ++slot.swapMap;
            slot.content = PageContent::Data; // the fill's stores
            mm.pte[vpn] = pte::mkSwap(entry);
            --mm.rss;
            ++mm.swapents;
            k.vm.inc(Vm::PswpOut);
            return true;
        };
        // A resident page's frame, from the node of its task's CPU (local allocation), on the LRU (written once:
        // inactive anon after aging).
        auto giveFrame = [&](std::size_t i, std::uint32_t vpn) {
            MmStruct* mm = mms[i];
            Pfn p = alloc_page_setup(k, k.cpu_to_node(cpus[i]));
            k.pages.setFlags(p, PG_anon | PG_swapbacked);
            k.pages.setOwner(p, static_cast<std::uint16_t>(mm->id + 1));
            k.pages.setIndex(p, vpn);
            k.pages.setMapcount(p, 1);
            mm->pte[vpn] = pte::mkPresent(p, true, true);
            k.add_page_to_lru_list(p, LRU_INACTIVE_ANON);
        };
        // The processes run side by side at slightly different speeds: each next touch is by a random one of
        // those still filling (a strict round-robin would lock the slot-cache refills into a fixed device
        // pattern per CPU that no real run has).
        std::vector<std::size_t> active(order.size()), done(order.size(), 0);
        std::iota(active.begin(), active.end(), std::size_t { 0 });
        while (!active.empty()) {
            std::size_t a = static_cast<std::size_t>(rng.below(active.size()));
            std::size_t i = active[a];
            if (resident >= budget && !evictOldest(cpus[i])) {
                // Swap is full (the real fill would end in the OOM killer): the rest stays untouched, and the pages
                // still resident -- no more than the budget's frames -- get theirs, in address order.
                std::vector<std::uint64_t> left;
                for (std::size_t r = head; r != tail; r = next(r))
                    left.push_back(ring[r]);
                std::sort(left.begin(), left.end());
                for (std::uint64_t v : left)
                    giveFrame(static_cast<std::size_t>(v >> 32), static_cast<std::uint32_t>(v));
                return;
            }
            std::uint32_t vpn = order[i][done[i]];
            if (++done[i] == order[i].size()) {
                active[a] = active.back();
                active.pop_back();
            }
            ++mms[i]->rss; // the PTE is written later (see above)
            k.vm.inc(Vm::PgFault);
            k.vm.inc(Vm::PgAlloc);
            ring[tail] = (static_cast<std::uint64_t>(i) << 32) | vpn;
            tail = next(tail);
            ++resident;
        }
        // The pages still resident get their frames now, in address order: which frame holds which page
        // changes no simulated cost, and the host walks memory in order at exit.
        for (std::size_t i = 0; i < mms.size(); ++i) {
            const Vma& v = mms[i]->vmas[0];
            for (std::uint32_t vpn = v.start; vpn < v.start + v.pages; ++vpn)
                if (pte::none(mms[i]->pte[vpn])) // not swapped out
                    giveFrame(i, vpn);
        }
    }

} // namespace

void prefault_swapping(
    Mm& k, const std::vector<Task*>& tasks, const std::vector<std::vector<std::uint32_t>>& order, std::uint64_t seed)
{
    // A zram device, or zswap in front of any device, would hold what the fill swapped out in RAM, in a pool this
    // shortcut does not build (its pages would come out of the very budget below): the fast-forward is for queued
    // devices only.
    for (const auto& si : k.swap)
        if (si->zram)
            throw std::invalid_argument("the fast-forward of a swapping fill does not model a zram swap device; use "
                                        "a queued device (ssd-2015, hdd-2007, pmem-ram, nvme-2020)");
    if (k.zswap)
        throw std::invalid_argument("the fast-forward of a swapping fill does not model zswap; set zswap.enabled=false");
    // Resident limit: reclaim keeps the free pages above the high watermark (plus the per-cpu lists' slack).
    std::uint64_t free = k.nrFreePages();
    std::uint64_t budget = std::max<std::uint64_t>(
        1, free - std::min(free, k.highWatermarks() + static_cast<std::uint64_t>(PCP_HIGH)));
    std::vector<MmStruct*> mms;
    std::vector<int> cpus;
    for (Task* t : tasks) {
        mms.push_back(t->mm);
        cpus.push_back(t->cpu);
    }
    prefault(k, mms, cpus, order, budget, Rng(seed));
}

} // namespace mms
