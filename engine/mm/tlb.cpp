// arch/x86/mm/tlb.c and mm/memory.c's mmu_gather: a local flush, and a synchronous IPI round to every other CPU
// on which the mm is live; the initiator spins until all have acknowledged.
#include "mm/tlb.h"

#include "mm/mm.h"
#include "mm/swap.h"
#include "mm/swapfile.h"

namespace mms {

namespace {
    // flush_tlb_others() up to its wait: the IPIs to `targets` and the acknowledgement spin charged; the caller
    // then flushes the spin onto the clock. A plain call, so that a TLB flush is one coroutine frame rather than
    // two (reclaim of anonymous pages flushes once per page).
    void send_tlb_ipis(Mm& k, Task& t, const std::vector<int>& targets)
    {
        for (int c : targets)
            k.s.interrupt(c, k.cost.ipiHandleNs);
        k.vm.inc(Vm::TlbRemoteIpi, targets.size());
        // The initiator waits for every ack: it spins, so the CPU stays busy (sys time), in a PAUSE loop that a
        // computing SMT sibling does not slow.
        double waitNs = k.ipiRoundNs(targets.size());
        Sched::burnWall(t, ns(waitNs));
        Time begin = k.s.sim().now() + t.debt - ns(waitNs);
        k.tlbAckWait.noteAcquire(t.cpu, -1, ns(waitNs), true);
        k.tlbAckWait.noteHold(ns(waitNs));
        k.tlbAckWait.addToBuckets(k.tlbAckWait.waitPerBucket, begin, begin + ns(waitNs));
    }

    // The local flush, then flush_tlb_others(): a synchronous IPI round to the CPUs where the mm is live.
    Co<> flush_tlb_local_and_others(Mm& k, Task& t, MmStruct& mm, const char* name)
    {
        FnScope fn(t, name);
        Sched::burn(t, k.cost.tlbFlushLocalNs);
        k.vm.inc(Vm::TlbLocalFlush);
        const std::vector<int>& targets = k.tlbTargets(mm, t.cpu); // used before the flush suspends
        if (targets.empty())
            co_return;
        FnScope others(t, "flush_tlb_others");
        send_tlb_ipis(k, t, targets);
        co_await k.s.flush(t);
    }
} // namespace

Co<> flush_tlb_mm_range(Mm& k, Task& t, MmStruct& mm)
{
    return flush_tlb_local_and_others(k, t, mm, "flush_tlb_mm_range");
}

Co<> flush_tlb_page(Mm& k, Task& t, MmStruct& mm) { return flush_tlb_local_and_others(k, t, mm, "flush_tlb_page"); }

Co<> tlb_flush_mmu(Mm& k, Task& t, MmuGather& tlb)
{
    if (tlb.needFlush) {
        co_await flush_tlb_mm_range(k, t, *tlb.mm);
        tlb.needFlush = false;
        ++tlb.flushes;
    }
    if (tlb.pages.empty())
        co_return;
    // free_pages_and_swap_cache(): drop the swap cache of pages nobody maps, then release_pages().
    FnScope fn(t, "free_pages_and_swap_cache");
    for (Pfn p : tlb.pages)
        if (k.pages.test(p, PG_swapcache) && k.pages.mapcount(p) == 0 && !k.pages.test(p, PG_locked)) {
            k.pages.set(p, PG_locked); // trylock_page()
            co_await try_to_free_swap(k, t, p);
            k.pages.clear(p, PG_locked);
        }
    co_await release_pages(k, t, tlb.pages, true);
}

Co<> tlb_finish_mmu(Mm& k, Task& t, MmuGather& tlb) { co_await tlb_flush_mmu(k, t, tlb); }

} // namespace mms
