// mm/memory.c (4.0): page faults (do_anonymous_page, do_swap_page with swapin readahead, do_read_fault with
// fault-around), zap_pte_range with mmu_gather batching, exit_mmap.
#include "mm/memory.h"

#include "mm/filemap.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/page_io.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/swapfile.h"
#include "mm/tlb.h"
#include "mm/zswap.h"

#include <algorithm>
#include <optional>

namespace mms {

Co<std::optional<Pfn>> read_swap_cache_async(Mm& k, Task& t, SwapInfo& si, std::uint32_t o, bool memalloc)
{
    if (si.slot[o].swapMap == 0 || si.slot[o].cache() != kNoPage)
        co_return kNoPage;
    Pfn p = memalloc ? co_await alloc_page_memalloc(k, t) : co_await alloc_page(k, t);
    if (p == kNoPage)
        co_return std::nullopt;
    SpinLock& lock = swapInfoLock(k, si);
    co_await spin_lock(k.s, t, lock);
    Sched::burn(t, k.cost.swapFreeNs);
    spin_unlock(k.s, t, lock);
    SpinLock& tree = si.treeLockFor(o); // swap_address_space()
    co_await spin_lock(k.s, t, tree);
    if (si.slot[o].swapMap == 0 || si.slot[o].cache() != kNoPage) {
        spin_unlock(k.s, t, tree);
        co_await free_hot_cold_page(k, t, p);
        co_return kNoPage;
    }
    Sched::burn(t, k.cost.swapCacheOpNs);
    si.slot[o].setCache(p); // the slot is in use already (swap_map > 0): inuse does not change
    spin_unlock(k.s, t, tree);
    k.pages.setFlags(p, PG_swapcache | PG_swapbacked | PG_anon | PG_locked);
    k.pages.setPriv(p, pte::swpEntry(static_cast<unsigned>(si.type), o));
    k.pages.setContent(p, si.slot[o].content); // what the device holds (a queued read fills it later)
    k.pages.setOwner(p, 0);
    co_await lru_cache_add(k, t, p, false);
    co_return p;
}

namespace {
    constexpr std::uint32_t kZapBatchPages = 10000; // MAX_GATHER_BATCH_COUNT * MAX_GATHER_BATCH: force a flush
    // Host-side only (no simulated effect): the swap slots the PTEs of a zap free are random ones, each a host cache
    // and TLB miss (see prefetch_swap_entry). Their loads start this many PTEs at a time, a burst ahead of use, so
    // that the host's page walks for them overlap: a prefetch retires only once its address is translated, and a
    // lone one between two PTEs' work stalls the host CPU for a whole walk.
    constexpr std::uint32_t kZapPrefetchBurst = 8;

    // The pages of a readahead batch other than the faulting entry's: counted (swap_ra) and marked with their entry
    // (SetPageReadahead), for the fault that finds one in the swap cache (swap_ra_hit).
    void markReadahead(Mm& k, const std::vector<Pfn>& batch, Pfn target)
    {
        for (Pfn p : batch)
            if (p != target) {
                k.vm.inc(Vm::SwapRa);
                k.swapReadahead[p] = k.pages.priv(p);
            }
    }

    // swap_readpage()'s frontswap_load() for each page of a readahead batch: the pages zswap holds are read here
    // (decompressed, unlocked) and leave the batch, which the device reads.
    Co<> frontswapLoadBatch(Mm& k, Task& t, std::vector<Pfn>& batch)
    {
        std::size_t kept = 0;
        for (Pfn p : batch)
            if (!co_await k.zswap->frontswap_load(t, p))
                batch[kept++] = p;
        batch.resize(kept);
    }

    // swapin_readahead(): read the aligned cluster of 2^page_cluster slots around `entry` that are in use and not
    // cached yet, as one request. Returns the page for `entry` (locked, under I/O) or kNoPage.
    Co<Pfn> swapin_readahead(Mm& k, Task& t, std::uint32_t entry)
    {
        FnScope fn(t, "swapin_readahead");
        SwapInfo& si = *k.swap[pte::swpType(entry)];
        std::uint32_t off = pte::swpOffset(entry);
        std::uint32_t n = 1u << k.tg.swapPageCluster;
        std::uint32_t first = off & ~(n - 1);
        std::vector<Pfn> batch;
        Pfn target = kNoPage;
        for (std::uint32_t o = std::max(first, 1u); o < std::min(first + n, si.nrSlots()); ++o) {
            const std::optional<Pfn> p = co_await read_swap_cache_async(k, t, si, o);
            if (!p)
                break; // an OOM victim with the reserves gone: read what was allocated
            if (*p == kNoPage)
                continue;
            batch.push_back(*p);
            if (o == off)
                target = *p;
        }
        if (batch.empty())
            co_return si.slot[off].cache();
        markReadahead(k, batch, target);
        if (k.zswap) {
            co_await frontswapLoadBatch(k, t, batch);
            if (batch.empty())
                co_return target != kNoPage ? target : si.slot[off].cache();
        }
        k.vm.inc(Vm::PswpIn, batch.size());
        if (swap_synchronous(si)) { // zram: each page decompressed here, in the faulting task
            for (Pfn p : batch)
                co_await swap_readpage(k, t, p);
            co_return target != kNoPage ? target : si.slot[off].cache();
        }
        co_await si.dev->waitForSlot(t);
        Sched::burn(t, k.cost.bioSubmitNs);
        std::uint64_t handle = si.dev->submit(false, batch);
        for (Pfn p : batch)
            k.pageReadIo[p] = { si.type, handle };
        co_return target != kNoPage ? target : si.slot[off].cache();
    }

    // swap_vma_readahead() (ec560175c0b6, 4.14): the window is the 2^page_cluster PTEs around the fault, aligned
    // and kept within its page-table page, and every swap entry they hold that is not cached yet is read, wherever
    // its slot lies. The window does not adapt to readahead hits here (swap_ra_info() shrinks it after misses): it
    // is always the largest, as the slot-based readahead is. The reads go to each device in runs of consecutive
    // slots (the block plug merging them). Returns the page for the faulting entry (locked, under I/O) or kNoPage.
    Co<Pfn> swap_vma_readahead(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, std::uint32_t entry)
    {
        FnScope fn(t, "swap_vma_readahead");
        const std::uint32_t n = 1u << k.tg.swapPageCluster;
        const std::uint32_t first = vpn & ~(n - 1);
        const std::uint32_t end = std::min({ first + n, pmd_addr_end(first, static_cast<std::uint32_t>(mm.pte.size())) });
        std::vector<Pfn> batch;
        Pfn target = kNoPage;
        for (std::uint32_t v = first; v < end; ++v) {
            Sched::burn(t, k.cost.pteOpNs); // the PTE copied out under the page-table lock
            const Pte e = mm.pte[v];
            if (!pte::isSwap(e))
                continue;
            const std::uint32_t ent = pte::toSwpEntry(e);
            SwapInfo& si = *k.swap[pte::swpType(ent)];
            const std::optional<Pfn> p = co_await read_swap_cache_async(k, t, si, pte::swpOffset(ent));
            if (!p)
                break;
            if (*p == kNoPage)
                continue;
            batch.push_back(*p);
            if (ent == entry)
                target = *p;
        }
        SwapInfo& fsi = *k.swap[pte::swpType(entry)];
        const Pfn cached = fsi.slot[pte::swpOffset(entry)].cache();
        if (batch.empty())
            co_return cached;
        markReadahead(k, batch, target);
        if (k.zswap)
            co_await frontswapLoadBatch(k, t, batch);
        k.vm.inc(Vm::PswpIn, batch.size());
        std::sort(batch.begin(), batch.end(), [&](Pfn a, Pfn b) { return k.pages.priv(a) < k.pages.priv(b); });
        for (std::size_t i = 0; i < batch.size();) {
            SwapInfo& si = *k.swap[pte::swpType(k.pages.priv(batch[i]))];
            std::size_t j = i + 1;
            while (j < batch.size() && k.pages.priv(batch[j]) == k.pages.priv(batch[j - 1]) + 1)
                ++j;
            if (swap_synchronous(si)) {
                for (std::size_t b = i; b < j; ++b)
                    co_await swap_readpage(k, t, batch[b]);
            } else {
                co_await si.dev->waitForSlot(t);
                Sched::burn(t, k.cost.bioSubmitNs);
                std::vector<Pfn> run(batch.begin() + static_cast<std::ptrdiff_t>(i), batch.begin() + static_cast<std::ptrdiff_t>(j));
                std::uint64_t handle = si.dev->submit(false, run);
                for (Pfn p : run)
                    k.pageReadIo[p] = { si.type, handle };
            }
            i = j;
        }
        co_return target != kNoPage ? target : fsi.slot[pte::swpOffset(entry)].cache();
    }

    // swap_use_vma_readahead() (4.14): the VMA-based window unless a rotating disk is among the swap devices
    // (nr_rotate_swap), where the slot-based one keeps the head's seeks short.
    bool swap_use_vma_readahead(const Mm& k)
    {
        if (k.tg.swapReadahead != SwapReadahead::Vma)
            return false;
        for (const auto& si : k.swap)
            if (si->dev->spec().rotational())
                return false;
        return true;
    }

    Co<> zap_pte_range(Mm& k, Task& t, MmuGather& tlb, MmStruct& mm, std::uint32_t vpn, std::uint32_t end)
    {
        FnScope fn(t, "zap_pte_range");
        std::uint32_t prefetched = vpn; // the PTEs below it have had their swap slots prefetched
        while (vpn < end) {
            SpinLock& ptl = mm.ptlFor(vpn);
            co_await spin_lock(k.s, t, ptl);
            bool forceFlush = false;
            for (; vpn < end; ++vpn) {
                Pte e = mm.pte[vpn];
                if (pte::none(e)) {
                    // A run of empty PTEs: each one read and skipped, charged together (the same picoseconds).
                    std::uint32_t next = vpn + 1;
                    while (next < end && pte::none(mm.pte[next]))
                        ++next;
                    Sched::burnCompute(t, ns(k.cost.pteOpNs) * static_cast<Time>(next - vpn));
                    prefetched = std::max(prefetched, next);
                    vpn = next - 1;
                    continue;
                }
                Sched::burn(t, k.cost.pteOpNs);
                if (vpn + kZapPrefetchBurst >= prefetched) {
                    const std::uint32_t last = std::min(end, prefetched + kZapPrefetchBurst);
                    for (; prefetched < last; ++prefetched)
                        if (pte::isSwap(mm.pte[prefetched]))
                            prefetch_swap_entry(k, pte::toSwpEntry(mm.pte[prefetched]));
                }
                if (pte::isMigration(e)) {
                    // A page being migrated (try_to_unmap left this entry; the mapping's count already went with
                    // the PTE): the entry goes, so remove_migration_ptes() finds nothing to restore here.
                    mm.pte[vpn] = 0;
                    continue;
                }
                if (pte::present(e) && page_is_file_cache(k, pte::pfn(e))) {
                    // A page-cache page stays in its file: drop the mapping only. (The kernel gathers it too, to
                    // put_page after the flush; its refcount never reaches zero there, so nothing is freed.)
                    mm.pte[vpn] = 0;
                    --mm.fileRss;
                    page_remove_file_rmap(k, t, pte::pfn(e));
                    tlb.needFlush = true;
                    continue;
                }
                if (pte::present(e)) {
                    Pfn p = pte::pfn(e);
                    mm.pte[vpn] = 0; // ptep_get_and_clear_full
                    --mm.rss;
                    k.pages.setMapcount(p, 0); // page_remove_rmap
                    k.pages.clear(p, PG_lazyfree);
                    Sched::burn(t, k.cost.rmapOpNs);
                    tlb.needFlush = true;
                    k.pin(p); // the gather holds a reference until tlb_flush_mmu() frees it
                    tlb.pages.push_back(p); // tlb_remove_page
                    if (tlb.pages.size() >= kZapBatchPages) {
                        forceFlush = true;
                        ++vpn;
                        break;
                    }
                    continue;
                }
                if (pte::isSwap(e)) {
                    mm.pte[vpn] = 0;
                    --mm.swapents;
                    k.vm.inc(Vm::ZapSwapEntries);
                    co_await free_swap_and_cache(k, t, pte::toSwpEntry(e));
                }
            }
            spin_unlock(k.s, t, ptl);
            if (forceFlush)
                co_await tlb_flush_mmu(k, t, tlb);
            co_await k.s.cond_resched(t);
        }
    }
} // namespace

Co<> do_anonymous_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn)
{
    FnScope fn(t, "do_anonymous_page");
    if (k.s.mightSleepPreempts(t)) // alloc_zeroed_user_highpage(): __alloc_pages()' might_sleep_if(__GFP_WAIT)
        co_await k.s.preempt(t);
    Pfn p = co_await alloc_page(k, t);
    if (p == kNoPage)
        co_return; // VM_FAULT_OOM: an OOM victim found the reserves empty; it exits at its return to user space
    k.burnStream(t, p, k.cost.zeroPageNs); // clear_user_highpage
    k.pages.setContent(p, PageContent::Zero);
    SpinLock& ptl = mm.ptlFor(vpn);
    co_await spin_lock(k.s, t, ptl);
    if (!pte::none(mm.pte[vpn])) { // raced with another fault
        spin_unlock(k.s, t, ptl);
        co_await free_hot_cold_page(k, t, p);
        co_return;
    }
    k.pages.setFlags(p, PG_anon | PG_swapbacked);
    k.pages.setOwner(p, static_cast<std::uint16_t>(mm.id + 1));
    k.pages.setIndex(p, vpn);
    k.pages.setMapcount(p, 1); // page_add_new_anon_rmap
    mm.pte[vpn] = pte::mkPresent(p, true, true);
    ++mm.rss;
    Sched::burn(t, k.cost.rmapOpNs + k.cost.pteOpNs);
    spin_unlock(k.s, t, ptl);
    // lru_cache_add_active_or_unevictable; lru_cache_add_inactive_or_unevictable from b518154e59aa "mm/vmscan: protect
    // the workingset on anonymous LRU" (5.9)
    co_await lru_cache_add(k, t, p, !k.tg.anonNewInactive);
}

namespace {
    // do_swap_page()'s path for a synchronous device (0bcac06f27d7, 4.15: SWP_SYNCHRONOUS_IO and __swap_count() == 1):
    // a new page, locked and swap-backed with the entry in page_private, goes on the LRU and is read in the fault
    // (swap_readpage(page, true)); no readahead, no swapcache_prepare(), no tree_lock. Mapped, the entry is freed
    // with swap_free() and, no page holding it in the swap cache, the slot with it.
    Co<> swapinSkipSwapcache(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, Pte orig)
    {
        const std::uint32_t entry = pte::toSwpEntry(orig);
        Pfn p = co_await alloc_page(k, t); // alloc_page_vma()
        if (p == kNoPage)
            co_return; // VM_FAULT_OOM; a task that is not dying faults again
        k.pin(p);
        k.pages.setFlags(p, PG_swapbacked | PG_anon | PG_locked); // __SetPageLocked, __SetPageSwapBacked
        k.pages.setPriv(p, entry); // set_page_private()
        k.pages.setOwner(p, 0);
        co_await lru_cache_add(k, t, p, false); // lru_cache_add_anon
        k.vm.inc(Vm::SwapinSkipCache);
        if (!k.zswap || !co_await k.zswap->frontswap_load(t, p)) {
            k.vm.inc(Vm::PswpIn);
            co_await swap_readpage(k, t, p); // unlocks the page
        }
        SpinLock& ptl = mm.ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        k.pages.setPriv(p, 0);
        if (mm.pte[vpn] != orig) { // out_nomap: someone else mapped it meanwhile; our page is left to reclaim
            spin_unlock(k.s, t, ptl);
            k.unpin(p);
            co_return;
        }
        k.pages.setOwner(p, static_cast<std::uint16_t>(mm.id + 1));
        k.pages.setIndex(p, vpn);
        k.pages.setMapcount(p, 1); // page_add_new_anon_rmap
        mm.pte[vpn] = pte::mkPresent(p, true, true);
        ++mm.rss;
        --mm.swapents;
        Sched::burn(t, k.cost.rmapOpNs + k.cost.pteOpNs);
        spin_unlock(k.s, t, ptl);
        co_await swap_free(k, t, entry);
        k.unpin(p);
    }
} // namespace

Co<> do_swap_page(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, Pte orig)
{
    FnScope fn(t, "do_swap_page");
    std::uint32_t entry = pte::toSwpEntry(orig);
    SwapInfo& si = *k.swap[pte::swpType(entry)];
    std::uint32_t off = pte::swpOffset(entry);
    for (;;) {
        // lookup_swap_cache(), which counts a hit on a page readahead brought in (TestClearPageReadahead)
        Pfn p = si.slot[off].cache();
        Sched::burn(t, k.cost.swapCacheOpNs);
        if (p != kNoPage) {
            const std::uint32_t* readFor = k.swapReadahead.find(p);
            if (readFor && *readFor == entry) {
                k.vm.inc(Vm::SwapRaHit);
                k.swapReadahead.erase(p);
            }
        }
        if (p == kNoPage) {
            k.vm.inc(Vm::PgMajFault);
            if (k.tg.skipSwapcache && swap_synchronous(si) && si.slot[off].swapMap == 1) {
                co_await swapinSkipSwapcache(k, t, mm, vpn, orig);
                co_return;
            }
            if (swap_use_vma_readahead(k))
                p = co_await swap_vma_readahead(k, t, mm, vpn, entry);
            else
                p = co_await swapin_readahead(k, t, entry);
            if (mm.pte[vpn] != orig) // someone else resolved the fault while we allocated
                co_return;
            if (p == kNoPage && fatal_signal_pending(t))
                co_return; // VM_FAULT_OOM for a killed task
            if (p == kNoPage)
                continue;
        }
        k.pin(p);
        // lock_page_or_retry(): wait for the read to complete, or for whoever holds the page lock.
        while (k.pages.test(p, PG_locked)) {
            if (const auto* io = k.pageReadIo.find(p))
                co_await k.swap[static_cast<std::size_t>(io->first)]->dev->waitFor(t, io->second);
            else
                co_await k.s.sleepFor(t, us(2)); // the lock holder (reclaim) is short; poll like a wait_on_page_bit
        }
        SpinLock& ptl = mm.ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        if (mm.pte[vpn] != orig) {
            spin_unlock(k.s, t, ptl);
            k.unpin(p);
            co_return;
        }
        if (si.slot[off].cache() != p) { // reclaimed before we got here: look up again
            spin_unlock(k.s, t, ptl);
            k.unpin(p);
            continue;
        }
        k.pages.set(p, PG_anon | PG_swapbacked);
        k.pages.setOwner(p, static_cast<std::uint16_t>(mm.id + 1));
        k.pages.setIndex(p, vpn);
        k.pages.setMapcount(p, 1); // do_page_add_anon_rmap
        mm.pte[vpn] = pte::mkPresent(p, true, true); // write fault: reuse_swap_page + pte_mkdirty
        ++mm.rss;
        --mm.swapents;
        Sched::burn(t, k.cost.rmapOpNs + k.cost.pteOpNs);
        spin_unlock(k.s, t, ptl);
        co_await swap_free(k, t, entry);
        // reuse_swap_page() on the write fault: the only user takes the page out of the swap cache.
        co_await try_to_free_swap(k, t, p);
        k.unpin(p);
        co_return;
    }
}

// --- read faults on a file VMA: fault-around, then filemap_fault (filemap.cpp) ---

namespace {
    // FAULT_AROUND_ORDER 4 (3.15), then fault_around_bytes = 64 KiB (3.16 on; mm/memory.c).
    constexpr std::uint32_t kFaultAroundPages = 16;

    // do_fault_around(): the fault_around_bytes-aligned window around the fault, clamped to the VMA and to the
    // page-table page. Returns true if the faulting PTE got mapped.
    Co<bool> do_fault_around(Mm& k, Task& t, MmStruct& mm, const Vma& v, std::uint32_t vpn)
    {
        std::uint32_t from = std::max(vpn / kFaultAroundPages * kFaultAroundPages, v.start);
        std::uint32_t end = v.start + v.pages;
        std::uint32_t to = std::min({ from + kFaultAroundPages, end, pmd_addr_end(from, end) });
        co_await filemap_map_pages(k, t, mm, v, from, to);
        co_return !pte::none(mm.pte[vpn]);
    }
} // namespace

void alloc_set_pte(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, Pfn p)
{
    // The reader touches the page right away, so the hardware sets the accessed bit: the PTE is young.
    mm.pte[vpn] = pte::mkPresent(p, false, true);
    ++mm.fileRss; // inc_mm_counter_fast(MM_FILEPAGES)
    page_add_file_rmap(k, t, p);
    Sched::burn(t, k.cost.pteOpNs);
}

Co<> do_read_fault(Mm& k, Task& t, MmStruct& mm, Vma v, std::uint32_t vpn)
{
    FnScope fn(t, "do_read_fault");
    // Before 3.15 (fault.around off) __do_fault() maps the faulting page alone: no ->map_pages.
    if (k.tg.faultAround && co_await do_fault_around(k, t, mm, v, vpn))
        co_return;
    AddressSpace& m = *v.file;
    Pfn p = co_await filemap_fault(k, t, m, v.pgoff + (vpn - v.start)); // __do_fault
    if (p == kNoPage)
        co_return; // VM_FAULT_OOM
    // finish_fault(): map it unless another thread did meanwhile.
    SpinLock& ptl = mm.ptlFor(vpn);
    co_await spin_lock(k.s, t, ptl);
    if (pte::none(mm.pte[vpn]))
        alloc_set_pte(k, t, mm, vpn, p);
    spin_unlock(k.s, t, ptl);
    unlock_page(k, t, m, p);
    put_page(k, t, p); // the lookup's reference; a mapped page is held by its PTE (mapcount)
}

Co<> handle_mm_fault(Mm& k, Task& t, MmStruct& mm, std::uint32_t vpn, bool write)
{
    FnScope fn(t, "__do_page_fault");
    Sched::burn(t, k.cost.faultEntryNs + k.cost.eptFaultWalkNs); // in a guest, the faulting and retried walks' EPT part
    k.vm.inc(Vm::PgFault);
    // down_read()'s first step, the flush, awaited in this frame: the rwsem is then a plain call unless it has to
    // wait.
    co_await k.s.flush(t);
    co_await mm.mmap_sem.down_read_flushed(k.s, t);
    Pte e = mm.pte[vpn];
    const Vma* file = pte::none(e) ? mm.file_vma_at(vpn) : nullptr;
    if (file)
        co_await do_read_fault(k, t, mm, *file, vpn); // do_fault(): read faults only, no COW of file pages here
    else if (pte::none(e))
        co_await do_anonymous_page(k, t, mm, vpn);
    else if (pte::isSwap(e))
        co_await do_swap_page(k, t, mm, vpn, e);
    else if (pte::present(e))
        mm.pte[vpn] = e | pte::kYoung | (write ? pte::kDirty : 0);
    co_await k.s.flush(t); // up_read(), likewise
    co_await mm.mmap_sem.up_read_flushed(k.s, t);
}

Co<> zap_page_range(Mm& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages)
{
    FnScope fn(t, "zap_page_range");
    co_await lru_add_drain(k, t);
    MmuGather tlb;
    tlb.mm = &mm;
    std::uint32_t end = start + pages;
    for (std::uint32_t pmd = start; pmd < end; pmd = pmd_addr_end(pmd, end))
        co_await zap_pte_range(k, t, tlb, mm, pmd, pmd_addr_end(pmd, end));
    co_await tlb_finish_mmu(k, t, tlb);
}

Co<bool> pte_alloc_one(Mm& k, Task& t, MmStruct& mm)
{
    Pfn p = co_await alloc_page(k, t);
    if (p == kNoPage)
        co_return false;
    k.burnStream(t, p, k.cost.zeroPageNs); // a page table starts empty
    mm.pgtables.push_back(p);
    co_return true;
}

Co<> exit_mmap(Mm& k, Task& t, MmStruct& mm)
{
    FnScope fn(t, "exit_mmap");
    for (const Vma& v : mm.vmas)
        co_await zap_page_range(k, t, mm, v.start, v.pages);
    co_await unlink_file_vmas(k, t, mm); // free_pgtables -> unlink_file_vma
    mm.vmas.clear();
}

} // namespace mms
