#pragma once
// The simulated kernel's memory-management state and the functions that act on it. The state types have headers
// named after the kernel's own (mm/mmzone.h, mm/mm_types.h, mm/swapinfo.h). The functions are spread over files
// named after the kernel's own (page_alloc.cpp, swap.cpp, swapfile.cpp, vmscan.cpp, memory.cpp, madvise.cpp,
// tlb.cpp) and keep the kernel's snake_case names so they can be read beside the source.
//
// Era: the defaults model a 4.0-4.5 kernel (zone lru_lock, PAGEVEC_SIZE 14, no swap slots cache); toggles
// (mm/toggles.h) switch the posts' patches and later changes on and off.

#include "block/blkdev.h"
#include "mm/fastpath.h"
#include "mm/filemap.h"
#include "mm/mm_types.h"
#include "mm/mmzone.h"
#include "mm/page.h"
#include "mm/pinset.h"
#include "mm/swapinfo.h"
#include "mm/toggles.h"
#include "mm/vmstat.h"
#include "sched/sched.h"
#include "sim/flatmap.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mms {

constexpr int SWAP_CLUSTER_MAX = 32; // pages reclaimed per batch (include/linux/swap.h)
constexpr int MMU_GATHER_BATCH = 510; // pages per mmu_gather batch: (PAGE_SIZE - header) / sizeof(void*)

struct Process; // kernel/process.h

class Kernel {
public:
    Kernel(Sched& s, const Toggles& toggles, std::uint64_t reservedPages = 0);
    ~Kernel();
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;

    Sched& s;
    const CostModel& cost;
    Toggles tg;
    PageArray pages;
    Zone zone;
    Lruvec lruvec; // the node's lruvec (root memcg): every anonymous page, and the page cache with lru.lruvecs = 1
    // lru.lruvecs > 1 (what-if, per-memcg lruvecs and their own lru_lock, 5.11): lruvecs[0] is `lruvec`, the rest
    // belong to memcgs 1..N-1. Page-cache pages are charged to the memcg of the task that added them
    // (pageMemcg); tasks are put in memcgs by their workload (setTaskMemcg). Anonymous pages stay in the root.
    std::vector<Lruvec*> lruvecs;
    std::vector<std::uint8_t> pageMemcg; // by Pfn; empty with one lruvec
    std::vector<std::uint8_t> taskMemcg; // by task id; missing = root
    void setTaskMemcg(const Task& t, int memcg)
    {
        if (taskMemcg.size() <= t.id)
            taskMemcg.resize(t.id + 1u, 0);
        taskMemcg[t.id] = static_cast<std::uint8_t>(memcg % static_cast<int>(lruvecs.size()));
    }
    // mem_cgroup_try_charge() of a new page-cache page to the task's memcg.
    void chargeMemcg(const Task& t, Pfn p)
    {
        if (!pageMemcg.empty())
            pageMemcg[p] = t.id < taskMemcg.size() ? taskMemcg[t.id] : 0;
    }
    // mem_cgroup_page_lruvec()
    Lruvec& lruvecOf(Pfn p)
    {
        return pageMemcg.empty() || pages.test(p, PG_swapbacked) ? lruvec : *lruvecs[pageMemcg[p]];
    }
    const Lruvec& lruvecOf(Pfn p) const { return const_cast<Kernel*>(this)->lruvecOf(p); }
    Pfn lruHead(const Lruvec& v, LruList l) const { return pages.listHead(v.listBase + l); }
    std::uint64_t nrFileLru() const
    {
        std::uint64_t n = 0;
        for (const Lruvec* v : lruvecs)
            n += v->nr[LRU_INACTIVE_FILE] + v->nr[LRU_ACTIVE_FILE];
        return n;
    }
    std::size_t reclaimRotor = 0; // the lruvec the next reclaim pass starts at (mem_cgroup_iter's shared position)
    std::vector<PerCpuState> pcpu;
    std::vector<std::unique_ptr<SwapInfo>> swap;
    std::vector<std::unique_ptr<MmStruct>> mms;
    VmStat vm;
    std::size_t swapRotor = 0; // next equal-priority swap device to allocate from
    std::vector<std::unique_ptr<AddressSpace>> mappings; // page-cache files (mm/filemap.h)
    // The kernel's start, for a run (tests may use a bare kernel): kswapd0 on CPU 0, the scheduler's wake placement
    // (select_idle_sibling), cache-line ownership tracking, and this boot's draw of the memory noise. `seed` is the
    // boot's: the variants of one repetition boot the same machine, so they see the same draw.
    void boot(std::uint64_t seed);

    // Run-to-run noise on the memory-bound page costs (zeroing, copying): a factor drawn once per boot from the
    // seeded PRNG (where this boot's page cache and buffers landed in DRAM: CostModel::memRunSpread), and a per-page
    // multiplicative spread (CostModel::memPageSpread). 1 and 0 on a bare kernel.
    double memCostJitter = 1.0;
    double pageCostJitter = 0.0;

    // Cache-line ownership of struct pages and LRU list heads (index: Pfn; the list heads follow the pages): the
    // CPU that wrote each line last. Writing a line that another CPU wrote last costs a line transfer, which is what
    // stretches lru_lock hold times when many CPUs share one LRU. On from boot(); empty (off) on a bare kernel.
    std::vector<std::int16_t> lineOwner;
    void enableLineTracking() { lineOwner.assign(pages.size() + PageArray::kListHeads, -1); }
    void touchLine(Task& t, Pfn line)
    {
        if (lineOwner.empty())
            return;
        std::int16_t& o = lineOwner[line];
        if (o != t.cpu) {
            Sched::burn(t, s.lineTransferNs(o, t.cpu));
            o = static_cast<std::int16_t>(t.cpu);
        }
    }
    // The lines list_add() at the head of `l` writes: the head, its old first entry and the page.
    void touchLruAdd(Task& t, Pfn p, LruList l)
    {
        if (lineOwner.empty())
            return;
        Pfn h = lruHead(lruvecOf(p), l);
        touchLine(t, h);
        touchLine(t, pages.next(h));
        touchLine(t, p);
    }
    // The lines list_del() writes: the page and both neighbours.
    void touchLruDel(Task& t, Pfn p)
    {
        if (lineOwner.empty())
            return;
        touchLine(t, pages.prev(p));
        touchLine(t, pages.next(p));
        touchLine(t, p);
    }
    // Time initiators of TLB shootdowns spin in flush_tlb_others() until every target has acked: lockstat-style
    // (acquisitions = IPI rounds, wait = the ack wait, per CPU), so the lock views show IPI waits beside the locks.
    // Listed by lockStats() once a round has happened.
    LockStat tlbAckWait = [] {
        LockStat l;
        l.name = "flush_tlb_others (IPI ack wait)";
        l.kind = "ipi";
        return l;
    }();
    std::vector<SwapSlotsCache> swapSlots; // per CPU; empty when swap.slots_cache is off
    int nrSwapPagesLine = -1; // the CPU that last wrote nr_swap_pages (a global atomic_long_t); -1: none yet

    // The allocator's ways out when memory runs out (page_alloc.cpp): allocations that gave up (__GFP_NORETRY
    // after a round of direct reclaim that freed nothing, costly orders, an OOM victim with the reserves gone), and
    // the OOM killer's victims. A victim (TIF_MEMDIE) allocates below the min watermark until it exits; the
    // workload ends the killed process at its next step (fatal_signal_pending) and calls exit_oom_victim() once it
    // has exited.
    std::uint64_t nrAllocFail = 0;
    std::uint64_t nrOomKill = 0;
    std::vector<std::uint32_t> oomVictims; // task ids
    bool fatal_signal_pending(const Task& t) const;
    void exit_oom_victim(const Task& t);

    // mm_alloc() takes an mm from mm_struct's slab cache: one mmdrop() gave back (id, page-table locks and their lock
    // statistics kept, everything else as new), else a new one. A fork storm thus reuses the same few mms instead of
    // growing the kernel's tables (and page owner ids) without bound.
    MmStruct& mm_alloc();
    void mmdrop(MmStruct& mm);
    // The processes forked, exec'd and exited through kernel/process.h, by task id (null for a task that never did).
    std::vector<std::unique_ptr<Process>> procs;
    // mmap of anonymous memory: returns the first vpn of the new VMA.
    std::uint32_t do_mmap(MmStruct& mm, std::uint32_t nrPages);
    // mmap of `nrPages` of file `m` from page `pgoff` (MAP_SHARED or a read-only MAP_PRIVATE: no COW here); the VMA
    // goes on the file's i_mmap tree (vma_link). Set-up time, like do_mmap: no simulated time passes.
    std::uint32_t do_mmap_file(MmStruct& mm, AddressSpace& m, std::uint64_t pgoff, std::uint32_t nrPages);
    MmStruct* mmOf(Pfn p) { return pages.owner(p) ? mms[pages.owner(p) - 1u].get() : nullptr; }

    void startKswapd(int cpu);
    void wakeup_kswapd();
    Task* kswapd() const { return m_kswapd; }
    // congestion_wait(): sleep until some swap write completes, at most `timeout`.
    Co<> congestion_wait(Task& t, Time timeout);

    // LRU list helpers (the caller holds lru_lock). Inline: every page read or faulted in passes through them.
    void add_page_to_lru_list(Pfn p, LruList l, bool tail = false)
    {
        Lruvec& v = lruvecOf(p);
        pages.set(p, PG_lru);
        if (tail)
            pages.listAddTail(lruHead(v, l), p);
        else
            pages.listAdd(lruHead(v, l), p);
        ++v.nr[l];
    }
    void del_page_from_lru_list(Pfn p);
    static LruList page_lru(std::uint16_t flags)
    {
        if (flags & PG_unevictable)
            return LRU_UNEVICTABLE;
        bool file = !(flags & PG_swapbacked);
        bool active = flags & PG_active;
        return static_cast<LruList>((file ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON) + (active ? 1 : 0));
    }
    Pfn lruHead(LruList l) const { return pages.listHead(l); }

    // Pages under read I/O: the device and request a fault must wait for.
    FlatMap<std::pair<int, std::uint64_t>> pageReadIo;
    // Extra references held by a fault in progress (get_page): reclaim leaves such pages alone.
    PinSet pinned; // a gather pins thousands of consecutive frames: bits in 64-frame blocks (mm/pinset.h)
    void pin(Pfn p) { pinned.pin(p); }
    void unpin(Pfn p) { pinned.unpin(p); }
    bool isPinned(Pfn p) const { return pinned.contains(p); }
    // A page that lost every reference while reclaim or a pagevec held it.
    bool orphan(Pfn p) const
    {
        return pages.owner(p) == 0 && !pages.test(p, PG_swapcache) && pages.mapcount(p) == 0 && !pages.test(p, PG_buddy);
    }
    // CPUs other than `self` on which `mm` is live (its TLB entries may be cached there): the IPI targets.
    // Refreshes mm.cpuVmMask (mm_cpumask) with the CPUs running the mm now, `self` included. The list is the
    // kernel's scratch (no heap allocation per flush): valid until the next call, so use it before suspending.
    const std::vector<int>& tlbTargets(MmStruct& mm, int self);

    // Every lock, for lockstat (instances with the same name are summed by the reports).
    std::vector<const LockStat*> lockStats() const;
    // Checks the invariants (every page in one state, list lengths match flags, swap_map matches PTEs).
    // Returns an empty string when they hold, else the first violation.
    std::string checkInvariants() const;

private:
    std::vector<std::unique_ptr<Lruvec>> m_memcgLruvecs;
    std::vector<MmStruct*> m_freeMms; // mm_struct's slab cache (mmdrop -> mm_alloc)
    void endIo(BlockDevice& dev, IoRequest& r);
    Task* m_kswapd = nullptr;
    std::uint32_t m_kswapdGen = 0;
    bool m_kswapdWoken = false;
    std::vector<int> m_tlbTargets; // tlbTargets()' result
    std::vector<std::pair<Task*, std::uint32_t>> m_congested;
    friend Co<> kswapd_main(Kernel& k, Task& t);
};

// The lru_lock a run over a batch of pages holds: taken for the first page's lruvec and re-taken only when a page
// of another lruvec comes (relock_page_lruvec_irqsave, 5.11). With one lruvec it is one lock round trip per batch,
// as pagevec_lru_move_fn and release_pages have it.
class LruLock {
public:
    LruLock(Kernel& k, Task& t)
        : m_k(k)
        , m_t(t)
    {
    }
    LruLock(const LruLock&) = delete;
    LruLock& operator=(const LruLock&) = delete;
    // co_await lk.relock(p). An awaitable, not a coroutine: nearly every page of a batch is on the lruvec already
    // held, and that case should cost a compare, not a coroutine frame.
    struct Relock {
        LruLock& lk;
        Lruvec& v;
        SpinLock::Acquire acquire;
        bool await_ready()
        {
            if (&v == lk.m_held)
                return true;
            lk.unlock();
            lk.m_held = &v; // ours once the acquisition completes, before the caller carries on
            return acquire.await_ready();
        }
        bool await_suspend(std::coroutine_handle<> h) { return acquire.await_suspend(h); }
        void await_resume() { acquire.await_resume(); }
    };
    Relock relock(Pfn p)
    {
        Lruvec& v = m_k.lruvecOf(p);
        return Relock { *this, v, spin_lock(m_k.s, m_t, v.lru_lock) };
    }
    void unlock()
    {
        if (m_held)
            spin_unlock(m_k.s, m_t, m_held->lru_lock);
        m_held = nullptr;
    }

private:
    Kernel& m_k;
    Task& m_t;
    Lruvec* m_held = nullptr;
};

// --- the kernel paths (one line each here; the bodies sit in files named after the kernel's) ---
// page_alloc.cpp
// gfp: 0 (GFP_KERNEL: loops while reclaim makes progress; with nothing left to reclaim the OOM killer kills the
// allocating task) or GFP_NORETRY (readahead: kNoPage after a round of direct reclaim that freed nothing, never the
// OOM killer). kNoPage also when an OOM victim finds the reserves empty.
constexpr unsigned GFP_NORETRY = 1u << 0; // __GFP_NORETRY
// A coroutine only when the per-CPU list is empty or memory is low. The fast path is inline (a streaming read
// allocates every page through it): the slow path's first attempt when it needs neither a refill of the per-CPU
// list nor reclaim, decided before anything changes, then the same steps (kswapd woken below the low watermark,
// the page taken off the list).
Co<Pfn> alloc_page_slowpath(Kernel& k, Task& t, unsigned gfp);
// rmqueue_pcplist(): the page on top of this CPU's list (both paths end here).
[[gnu::always_inline]] inline Pfn take_pcp_page(Kernel& k, Task& t, PerCpuState& pc)
{
    Pfn p = pc.pcp.back();
    pc.pcp.pop_back();
    k.pages.setFlags(p, 0);
    k.vm.inc(Vm::PgAlloc);
    Sched::burn(t, k.cost.pageAllocNs);
    return p;
}
[[gnu::always_inline]] inline ValueOrCo<Pfn> alloc_page(Kernel& k, Task& t, unsigned gfp = 0)
{
    PerCpuState& pc = k.pcpu[static_cast<std::size_t>(t.cpu)];
    std::uint64_t free = k.zone.nrFree();
    bool mayTake = free >= k.zone.watermarkMin || t.kthread || k.fatal_signal_pending(t);
    if (pc.pcp.empty() || !mayTake) [[unlikely]]
        return alloc_page_slowpath(k, t, gfp);
    if (free < k.zone.watermarkLow)
        k.wakeup_kswapd();
    return take_pcp_page(k, t, pc);
}
MaybeCo free_hot_cold_page(Kernel& k, Task& t, Pfn p); // a coroutine only when the per-CPU list drains
// alloc_pages(order) / __free_pages(order) for order > 0 (kernel stacks, slabs): zone->lock, the slow path with
// direct compaction (compaction.cpp) and reclaim. `unmovable`: a kernel allocation, not on any LRU. Up to
// PAGE_ALLOC_COSTLY_ORDER it loops like an order-0 allocation (the OOM killer included); above it, or with
// GFP_NORETRY (SLUB's first, high-order try), it fails after one round of compaction, reclaim and a sync
// compaction (kNoPage).
Co<Pfn> alloc_pages(Kernel& k, Task& t, int order, unsigned gfp = 0);
Co<> free_pages(Kernel& k, Task& t, Pfn p, int order);
// alloc_hugepage_vma() for a THP fault (3.x, transparent_hugepage=always, defrag on): GFP_TRANSHUGE, order
// HPAGE_PMD_ORDER, __GFP_NO_KSWAPD | __GFP_NORETRY. kNoPage when it fails; the fault then falls back to 4 KiB pages.
Co<Pfn> alloc_hugepage(Kernel& k, Task& t);
constexpr int HPAGE_PMD_ORDER = 9;
// set_recommended_min_free_kbytes() (mm/huge_memory.c, when THP is enabled): enough free memory for
// anti-fragmentation to keep pageblocks free, raising the watermarks.
void set_recommended_min_free_kbytes(Kernel& k);
// drain_local_pages(): this CPU's per-cpu list back to the buddy lists.
Co<> drain_local_pages(Kernel& k, Task& t);
// __zone_watermark_ok() for `order` against `mark` pages.
bool zone_watermark_ok(const Kernel& k, int order, std::uint64_t mark);
// The buddy allocator outside simulated time (a workload's setup): one order-0 page, kNoPage if none.
Pfn alloc_page_setup(Kernel& k);
// swap.cpp
// lru_cache_add(): a coroutine only when the pagevec drains (__pagevec_lru_add). Inline: every page that enters an
// LRU list passes here, and nearly always only its pagevec takes it.
Co<> pagevec_lru_add(Kernel& k, Task& t, Pagevec& pv);
// `getPage`: ns(lockedRmwNs), for a caller that has it converted already (the readahead loop).
[[gnu::always_inline]] inline MaybeCo lru_cache_add(Kernel& k, Task& t, Pfn p, bool active, Time getPage)
{
    Sched::burnTime(t, getPage); // get_page()
    k.pages.set(p, PG_pagevec | (active ? PG_active : 0));
    Pagevec& pv = k.pcpu[static_cast<std::size_t>(t.cpu)].lruAdd;
    pv.pages.push_back(p);
    if (pv.pages.size() >= static_cast<std::size_t>(k.tg.pagevecSize))
        return pagevec_lru_add(k, t, pv);
    return {};
}
[[gnu::always_inline]] inline MaybeCo lru_cache_add(Kernel& k, Task& t, Pfn p, bool active)
{
    return lru_cache_add(k, t, p, active, ns(k.cost.lockedRmwNs));
}
Co<> lru_add_drain(Kernel& k, Task& t);
MaybeCo deactivate_page(Kernel& k, Task& t, Pfn p); // a coroutine only when the pagevec drains
// `gathered`: the pages come from an mmu_gather, which pinned them; the pins are dropped under lru_lock.
Co<> release_pages(Kernel& k, Task& t, std::vector<Pfn>& pages, bool gathered = false);
// swapfile.cpp
Co<std::uint32_t> get_swap_page(Kernel& k, Task& t);
Co<> swap_free(Kernel& k, Task& t, std::uint32_t entry);
Co<> free_swap_and_cache(Kernel& k, Task& t, std::uint32_t entry);
// Host-side only (no simulated effect): starts loading what free_swap_and_cache(entry) will read, for a caller that
// knows the entry it frees next (zap_pte_range looks a few PTEs ahead).
void prefetch_swap_entry(Kernel& k, std::uint32_t entry);
Co<> swapcache_free(Kernel& k, Task& t, std::uint32_t entry);
Co<bool> add_to_swap(Kernel& k, Task& t, Pfn p);
Co<> delete_from_swap_cache(Kernel& k, Task& t, Pfn p);
Co<bool> try_to_free_swap(Kernel& k, Task& t, Pfn p);
// swap_slots.cpp
Co<std::uint32_t> get_swap_page_slots(Kernel& k, Task& t, Pfn p);
Co<> free_swap_slot(Kernel& k, Task& t, std::uint32_t entry);
// free_swap_slot() with this CPU's free_lock taken, which it drops: a coroutine only when the buffer is full and goes
// to swapcache_free_entries() first (1 in SWAP_SLOTS_CACHE_SIZE). For free_swap_and_cache(), which frees an entry at
// every swap PTE of an exiting process and so takes the lock itself rather than pay a coroutine frame per entry.
MaybeCo free_swap_slot_locked(Kernel& k, Task& t, std::uint32_t entry);
Co<> swapcache_free_entries(Kernel& k, Task& t, std::vector<std::uint32_t>& entries);
// The prefault twin of get_swap_page() (no time passes): a slot from `cpu`'s cache, or kNoSwapEntry.
std::uint32_t swap_slots_alloc_prefault(Kernel& k, int cpu);
// vmscan.cpp
Co<> kswapd_main(Kernel& k, Task& t);
Co<std::uint64_t> try_to_free_pages(Kernel& k, Task& t);
Co<std::uint64_t> shrink_zone(Kernel& k, Task& t, bool kswapd);
// memory.cpp
Co<> handle_mm_fault(Kernel& k, Task& t, MmStruct& mm, std::uint32_t vpn, bool write);
Co<> do_anonymous_page(Kernel& k, Task& t, MmStruct& mm, std::uint32_t vpn);
Co<> do_swap_page(Kernel& k, Task& t, MmStruct& mm, std::uint32_t vpn, Pte orig);
Co<> zap_page_range(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages);
Co<> exit_mmap(Kernel& k, Task& t, MmStruct& mm);
// __pte_alloc() and friends, pgd_alloc(): one zeroed page-table page for `mm` (mm->pgtables). False when none could be
// had (an OOM victim with the reserves gone: it exits next).
Co<bool> pte_alloc_one(Kernel& k, Task& t, MmStruct& mm);
// mmap.cpp: the brk heap (MmStruct::heap)
// sys_brk(): the heap becomes `pages` long. Growing maps nothing; shrinking zaps the pages above the new break, a
// huge page among them split first (split_huge_page), each page freed through this CPU's per-cpu list.
Co<> sys_brk(Kernel& k, Task& t, MmStruct& mm, std::uint32_t pages);
// A store to each heap page, in order: every one not yet faulted in faults (handle_mm_fault), a 2 MiB-aligned range
// inside the heap through do_huge_pmd_anonymous_page when thp.enabled.
Co<> heap_touch(Kernel& k, Task& t, MmStruct& mm);
// huge_memory.cpp
// do_huge_pmd_anonymous_page(): alloc_hugepage() and clear_huge_page(); the 512 subpages appended to mm.heap. False
// (thp_fault_fallback) when no huge page could be had: the caller faults the range 4 KiB at a time.
Co<bool> do_huge_pmd_anonymous_page(Kernel& k, Task& t, MmStruct& mm);
// split_huge_page() of the huge page at mm.heap[first]: its PMD becomes a page table of 512 PTEs, each page then freed
// on its own.
void split_huge_page(Kernel& k, Task& t, MmStruct& mm, std::uint32_t first);
// filemap.cpp: a read fault on a file VMA (fault-around, filemap_fault, finish_fault)
Co<> do_read_fault(Kernel& k, Task& t, MmStruct& mm, Vma v, std::uint32_t vpn);
// mprotect.cpp (seed 001: glibc's per-thread heap shrink and regrow: mmap(PROT_NONE, MAP_FIXED) and mprotect)
Co<> sys_mmap_prot_none(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages);
Co<> sys_mprotect(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages);
// futex.cpp (2.6.20 kernel/futex.c, for user-space mutexes of seed 001's threads)
struct FutexQueue {
    SpinLock hbLock { "futex_hash_bucket.lock" };
    std::deque<std::pair<Task*, std::uint32_t>> waiters; // task and its sleep generation
    std::set<Task*> wokenEarly; // woken between queueing and going to sleep
};
// FUTEX_WAIT: sleeps unless `word` no longer holds `expected`. FUTEX_WAKE: wakes up to `nr` waiters.
Co<> futex_wait(Kernel& k, Task& t, MmStruct& mm, FutexQueue& q, const int& word, int expected);
Co<> futex_wake(Kernel& k, Task& t, MmStruct& mm, FutexQueue& q, int nr);
// madvise.cpp
Co<> sys_madvise(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages, Advice advice);
// tlb.cpp
struct MmuGather {
    MmStruct* mm = nullptr;
    std::vector<Pfn> pages; // pages to free after the flush
    bool needFlush = false;
    std::uint32_t flushes = 0;
};
Co<> flush_tlb_mm_range(Kernel& k, Task& t, MmStruct& mm);
Co<> flush_tlb_page(Kernel& k, Task& t, MmStruct& mm);
Co<> tlb_flush_mmu(Kernel& k, Task& t, MmuGather& tlb);
Co<> tlb_finish_mmu(Kernel& k, Task& t, MmuGather& tlb);

} // namespace mms
