#pragma once
// The memory-management subsystem's state (class Mm): the page frames, the zone and its free lists, the LRU lists,
// the per-CPU lists, the swap devices, the mm_structs and the page cache. Its state types have headers named after
// the kernel's own (mm/mmzone.h, mm/mm_types.h, mm/swapinfo.h). The functions that act on it are spread over files
// named after the kernel's own (page_alloc.cpp, swap.cpp, swapfile.cpp, vmscan.cpp, memory.cpp, madvise.cpp,
// tlb.cpp, oom_kill.cpp), each declared in the header of the same name, and keep the kernel's snake_case names so
// they can be read beside the source. The whole kernel of a run (kernel/kernel.h) is this and the subsystems above
// it: processes, sockets, directories.
//
// Era: the scenario's kernel version sets the toggles (mm/toggles.h, the rule table; docs/kernels.md) and its
// config the debug options (mm/kconfig.h); a bare kernel's member defaults are 3.12's. Variants switch the posts'
// patches and later changes on and off.

#include "block/blkdev.h"
#include "hw/cacheline.h"
#include "mm/filemap.h"
#include "mm/mm_types.h"
#include "mm/mmzone.h"
#include "mm/oom_kill.h"
#include "mm/page.h"
#include "mm/pinset.h"
#include "mm/swapinfo.h"
#include "mm/toggles.h"
#include "mm/vmstat.h"
#include "mm/zvc.h"
#include "sched/sched.h"
#include "sched/signal.h"
#include "sim/reuse.h"
#include "sim/rng.h"
#include "sim/flatmap.h"
#include "sync/mutex.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mms {

class Zswap;

class Mm {
public:
    Mm(Sched& s, const Toggles& toggles, std::uint64_t reservedPages = 0);
    ~Mm();
    Mm(const Mm&) = delete;
    Mm& operator=(const Mm&) = delete;

    Sched& s;
    const CostModel cost; // the machine's, with what the kernel's config adds (mm/kconfig.h)
    Toggles tg;
    PageArray pages;
    // The nodes (pglist_data), one per socket (one in all with interleaved memory: MachineSpec::numa), each with its zone and LRU lists over a contiguous range of frames
    // (node 0 first; the reserved frames at the bottom belong to it).
    std::vector<std::unique_ptr<PgData>> nodes;
    int nrNodes() const { return static_cast<int>(nodes.size()); }
    PgData& node(int nid) { return *nodes[static_cast<std::size_t>(nid)]; }
    const PgData& node(int nid) const { return *nodes[static_cast<std::size_t>(nid)]; }
    // page_to_nid(): the node a frame belongs to.
    int page_to_nid(Pfn p) const
    {
        return m_framesPerNode == 0 ? 0 : std::min(static_cast<int>(p / m_framesPerNode), nrNodes() - 1);
    }
    PgData& page_pgdat(Pfn p) { return node(page_to_nid(p)); }
    Zone& page_zone(Pfn p) { return page_pgdat(p).zone; }
    // cpu_to_node(): the node of a CPU's socket (node 0 for every CPU when the memory is interleaved); numa_node_id()
    // of a task is that of the CPU it runs on now.
    int cpu_to_node(int cpu) const { return s.machine().nodeOf(cpu); }
    PgData& numa_node(const Task& t) { return node(cpu_to_node(t.cpu)); }
    // Sums over the nodes' zones: NR_FREE_PAGES (per-CPU lists not counted) and the high watermarks
    // (totalreserve_pages, near enough).
    std::uint64_t nrFreePages() const;
    std::uint64_t highWatermarks() const;
    // Every lruvec of every node (node-major: node n's are lruvecs[n * memcgs ...]); with lru.lruvecs > 1 the memcgs'
    // (per-memcg lruvecs and their own lru_lock, 5.11): page-cache pages are charged to the memcg of the task that
    // added them (pageMemcg); tasks are put in memcgs by their workload (setTaskMemcg). Anonymous pages stay in
    // the root.
    std::vector<Lruvec*> lruvecs;
    int memcgs() const { return static_cast<int>(nodes.front()->lruvecs.size()); }
    ReusedVector<std::uint8_t> pageMemcg; // by Pfn; empty with one lruvec a node
    std::vector<std::uint8_t> taskMemcg; // by task id; missing = root
    void setTaskMemcg(const Task& t, int memcg)
    {
        if (taskMemcg.size() <= t.id)
            taskMemcg.resize(t.id + 1u, 0);
        taskMemcg[t.id] = static_cast<std::uint8_t>(memcg % memcgs());
    }
    // mem_cgroup_try_charge() of a new page-cache page to the task's memcg.
    void chargeMemcg(const Task& t, Pfn p)
    {
        if (!pageMemcg.empty())
            pageMemcg[p] = t.id < taskMemcg.size() ? taskMemcg[t.id] : 0;
    }
    // mem_cgroup_page_lruvec(): the lruvec of the page's node and memcg. Anonymous pages, a lazily freed one on the
    // file list too, are charged to no memcg here: the node's root lruvec.
    Lruvec& lruvecOf(Pfn p)
    {
        PgData& d = page_pgdat(p);
        return pageMemcg.empty() || pages.test(p, PG_swapbacked | PG_anon) ? d.lruvec : *d.lruvecs[pageMemcg[p]];
    }
    const Lruvec& lruvecOf(Pfn p) const { return const_cast<Mm*>(this)->lruvecOf(p); }
    Pfn lruHead(const Lruvec& v, LruList l) const { return pages.listHead(v.listBase + l); }
    std::uint64_t nrFileLru() const
    {
        std::uint64_t n = 0;
        for (const Lruvec* v : lruvecs)
            n += v->nr[LRU_INACTIVE_FILE] + v->nr[LRU_ACTIVE_FILE];
        return n;
    }
    std::vector<PerCpuState> pcpu;
    bool pcpDrainBusy = false; // pcpu_drain_mutex (page_alloc.drain=workqueue)
    std::vector<std::unique_ptr<SwapInfo>> swap;
    // zswap in front of the swap devices (zswap.enabled; mm/zswap.h), nullptr when off.
    std::unique_ptr<Zswap> zswap;
    std::vector<std::unique_ptr<MmStruct>> mms;
    VmStat vm;
    std::size_t swapRotor = 0; // next equal-priority swap device to allocate from
    std::vector<std::unique_ptr<AddressSpace>> mappings; // page-cache files (mm/filemap.h)
    // How many of `mappings` hold pages (nrpages != 0): sync(2)'s walk of the superblock's inodes charges those apart
    // from the empty ones, and counting them at every sync was a fifth of a filesystem-heavy run's host time.
    std::uint64_t mappingsWithPages = 0;
    // A page into or out of m's page cache: nrpages, and mappingsWithPages when m becomes or stops being empty.
    void mappingPageAdded(AddressSpace& m) { mappingsWithPages += m.nrpages++ == 0; }
    void mappingPageRemoved(AddressSpace& m) { mappingsWithPages -= --m.nrpages == 0; }
    // The kernel's start, for a run (tests may use a bare kernel): kswapd0 on CPU 0, the scheduler's wake placement
    // (select_idle_sibling), cache-line ownership tracking, and this boot's draw of the memory noise. `seed` is the
    // boot's: the variants of one repetition boot the same machine, so they see the same draw.
    void boot(std::uint64_t seed);

    // Run-to-run noise on the memory-bound page costs (zeroing, copying): a factor drawn once per boot from the
    // seeded PRNG (where this boot's page cache and buffers landed in DRAM: CostModel::memRunSpread), and a per-page
    // multiplicative spread (CostModel::memPageSpread). 1 and 0 on a bare kernel.
    double memCostJitter = 1.0;
    double pageCostJitter = 0.0;

    // A memory stream on page p's node (clearing, copying or reading it): `aloneNs` is what it takes one core alone
    // (the cost model's zeroPageNs, copyPageNs, ...: bytes at CostModel::memCoreGBps); what it takes now, with the
    // socket's and the core's bandwidth shared (hw/membw.h), at the task's time plus `ahead` not yet charged.
    Time streamNs(const Task& t, Pfn p, double aloneNs, Time ahead = 0)
    {
        return s.memTransfer(t, page_to_nid(p), aloneNs * cost.memCoreGBps, ahead);
    }
    void burnStream(Task& t, Pfn p, double aloneNs, Acct acct = Acct::Sys)
    {
        Sched::burnTime(t, streamNs(t, p, aloneNs), acct);
    }

    // Cache-line ownership of struct pages and LRU list heads (index: Pfn; the list heads follow the pages).
    // Writing a line that another CPU wrote last costs a line transfer, which is what stretches lru_lock hold times
    // when many CPUs share one LRU; writing one that has left every cache since (the tail of a long LRU list, a
    // page not touched since boot) reads it from its node's memory first. Tracked from boot(); not on a bare kernel.
    CacheLines lines;
    void enableLineTracking() { lines.track(pages.size() + PageArray::kListHeads + kMaxLruvecs); }
    // The line of a lruvec's memcg LRU size counters (mem_cgroup_per_node::lru_zone_size, written by
    // mem_cgroup_update_lru_size() on every list change under lru_lock): after the pages and the list heads.
    Pfn lruSizeLine(const Lruvec& v) const { return pages.size() + PageArray::kListHeads + v.listBase / NR_LRU_LISTS; }
    // An LRU list's size changed by `delta` pages under lru_lock: its vmstat counters (lruVmstat; `vmstat` false
    // where the caller counts a batch at once), and with CONFIG_MEMCG (mm/kconfig.h) the write of the memcg's size
    // counter, whose line moves with the lock, and in the eras that batch the memcg statistics the per-cpu delta,
    // folded into the shared counters past MEMCG_CHARGE_BATCH.
    void lruSizeChanged(Task& t, const Lruvec& v, LruList l, int delta, bool vmstat = true)
    {
        if (vmstat)
            lruVmstat(t, v, l, delta);
        if (!tg.config.memcg)
            return;
        touchLine(t, lruSizeLine(v));
        if (tg.config.memcgStatBatch)
            memcgStatAdd(t, v.listBase + l, delta);
    }
    // __mod_memcg_state() and __mod_memcg_lruvec_state() (5.6) of LRU size item `item` (a lruvec's list): the
    // per-cpu delta, and past the batch an atomic_long_add() on memcg->vmstats[idx] and one on
    // pn->lruvec_stat[idx], lines the last CPU to fold the item wrote.
    void memcgStatAdd(Task& t, std::uint32_t item, int delta)
    {
        constexpr int MEMCG_CHARGE_BATCH = 32;
        const FoldedCounters::Fold f = m_memcgStat.add(t.cpu, item, item, item, delta, MEMCG_CHARGE_BATCH);
        if (f.folded) [[unlikely]]
            chargeFold(t, f);
    }
    // A fold's two atomic_long_add()s, each on a line its last writer may hold.
    void chargeFold(Task& t, const FoldedCounters::Fold& f)
    {
        Sched::burn(t, (cost.lockedRmwNs + s.lineTransferNs(f.lineOwner[0], t.cpu))
                + (cost.lockedRmwNs + s.lineTransferNs(f.lineOwner[1], t.cpu)));
    }
    // update_lru_size()'s vmstat part (vmstat.lru_counters, mm/zvc.h): list `l` of lruvec `v` changed by `delta`
    // pages. Before 2.6.21 the zone's nr_active / nr_inactive sit beside the list heads under lru_lock (nothing
    // more to write); then the zone's counter, and from 4.8 the node's and the zone's.
    void lruVmstat(Task& t, const Lruvec& v, LruList l, int delta)
    {
        if (!m_zvc.enabled() || tg.vmstatLru == VmstatLru::Fields)
            return;
        if (tg.vmstatLru == VmstatLru::NodeZone)
            zvcMod(t, v.nid, ZvcArray::Node, l, delta);
        zvcMod(t, v.nid, ZvcArray::Zone, l, delta);
    }
    // NR_ISOLATED_ANON / NR_ISOLATED_FILE by `delta` pages (vmstat.isolated): a zone item, a node item from 4.8.
    void isolatedVmstat(Task& t, const PgData& d, bool file, int delta)
    {
        if (!m_zvc.enabled() || !tg.vmstatIsolated)
            return;
        zvcMod(t, d.nid, tg.vmstatLru == VmstatLru::NodeZone ? ZvcArray::Node : ZvcArray::Zone, zvcIsolatedItem(file), delta);
    }
    // __mod_zone_page_state() / __mod_node_page_state() on this CPU; a fold is two atomic_long_add()s on lines other
    // CPUs wrote last (mm/zvc.h).
    void zvcMod(Task& t, int nid, ZvcArray array, int item, int delta);
    void touchLine(Task& t, Pfn line)
    {
        if (!lines.tracking())
            return;
        CacheLines::Line& l = lines.line(line);
        const CacheLines::Stamp now = s.cacheClock(s.cpu(t.cpu).llc);
        if (l.owner == t.cpu && !CacheLines::evicted(now, l.stamp)) [[likely]] {
            l.stamp = now;
            return;
        }
        touchLineSlow(t, line, l, now);
    }
    void touchLineSlow(Task& t, Pfn line, CacheLines::Line& l, CacheLines::Stamp now)
    {
        if (l.owner < 0 || CacheLines::evicted(s.cacheClock(s.cpu(l.owner).llc), l.stamp)) {
            // A struct page lives in its node's memory. A list head is written too often to leave a cache but at
            // its first write, charged as local.
            const int node = line < pages.size() ? page_to_nid(line) : cpu_to_node(t.cpu);
            Sched::burn(t, s.lineMissNs(t.cpu, node) * linesOf(line));
        } else {
            Sched::burn(t, s.lineTransferNs(l.owner, t.cpu) * linesOf(line));
        }
        l.owner = static_cast<std::int16_t>(t.cpu);
        l.stamp = now;
    }
    // The cache lines of tracked line `line`: a struct page may span two (KernelConfig::structPageLines()).
    double linesOf(Pfn line) const { return line < pages.size() ? m_structPageLines : 1.0; }
    // The lines list_add() at the head of `l` writes: the head, its old first entry and the page (and the list's
    // size counter).
    void touchLruAdd(Task& t, Pfn p, LruList l)
    {
        if (!lines.tracking())
            return;
        const Lruvec& v = lruvecOf(p);
        Pfn h = lruHead(v, l);
        lruSizeChanged(t, v, l, 1);
        touchLine(t, h);
        touchLine(t, pages.next(h));
        touchLine(t, p);
    }
    // The lines list_del() from an LRU list writes: the page and both neighbours (and the list's size counter).
    void touchLruDel(Task& t, Pfn p, bool vmstat = true)
    {
        if (!lines.tracking())
            return;
        lruSizeChanged(t, lruvecOf(p), page_lru(pages.flags(p)), -1, vmstat);
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
    // swap_avail_lock (4.0-4.10): guards the plist of swap devices with free slots; get_swap_page() takes it for
    // every slot before the device's own si->lock. Listed by lockStats() once taken.
    SpinLock swapAvailLock { "swap_avail_lock" };

    // The allocator's ways out when memory runs out (page_alloc.cpp): allocations that gave up (__GFP_NORETRY
    // after a round of direct reclaim, costly orders, an OOM victim with the reserves gone), and the OOM killer
    // (mm/oom_kill.h).
    std::uint64_t nrAllocFail = 0;
    OomState oom;
    // The time tasks spent in direct compaction (__alloc_pages_direct_compact, its lock waits included), in
    // picoseconds: where a job's time goes (kernel/syscalls.h's time_breakdown). Not a /proc/vmstat field.
    Time compactStallTime = 0;

    // A synchronous IPI round to `targets` CPUs (at least one), as flush_tlb_others() and on_each_cpu_mask() send
    // it: what the initiator waits until the last has acknowledged (CostModel::ipiRoundNs), plus, in a guest whose
    // vCPUs the host deschedules (Sched::hostResidualNs), the longest wait for a descheduled target to run again.
    // Counts the round's VM exits (vmExits).
    double ipiRoundNs(std::size_t targets);
    // In a guest: the VM exits the model charged (CostModel::ipiVmExits), what the host's kvm_stat calls "exits".
    std::uint64_t vmExits = 0;

    // mm_alloc() takes an mm from mm_struct's slab cache: one mmdrop() gave back (id, page-table locks and their lock
    // statistics kept, everything else as new), else a new one. A fork storm thus reuses the same few mms instead of
    // growing the kernel's tables (and page owner ids) without bound.
    MmStruct& mm_alloc();
    void mmdrop(MmStruct& mm);
    // mmap of anonymous memory: returns the first vpn of the new VMA.
    std::uint32_t do_mmap(MmStruct& mm, std::uint32_t nrPages);
    // mmap of `nrPages` of file `m` from page `pgoff` (MAP_SHARED or a read-only MAP_PRIVATE: no COW here); the VMA
    // goes on the file's i_mmap tree (vma_link). Set-up time, like do_mmap: no simulated time passes.
    std::uint32_t do_mmap_file(MmStruct& mm, AddressSpace& m, std::uint64_t pgoff, std::uint32_t nrPages);
    MmStruct* mmOf(Pfn p) { return pages.owner(p) ? mms[pages.owner(p) - 1u].get() : nullptr; }

    // kswapd<nid> of every node, each on the first CPU of its node (kthread_run + set_cpus_allowed to the node).
    void startKswapd();
    // wakeup_kswapd(): wakes the node's kswapd (once until it sleeps again).
    void wakeup_kswapd(PgData& d);
    // congestion_wait(BLK_RW_ASYNC, timeout): sleep until a swap write completes on a device whose async request
    // count it leaves below the congestion-off threshold (clear_bdi_congested), at most `timeout`. A write
    // completing on a deeply congested queue does not end the sleep.
    Co<> congestion_wait(Task& t, Time timeout);
    // wait_iff_congested(zone, BLK_RW_ASYNC, timeout) (mm/backing-dev.c, 3.2-4.x): congestion_wait() only while some
    // swap device is async-congested (nr_wb_congested[BLK_RW_ASYNC] > 0) and the zone is ZONE_CONGESTED; otherwise
    // a cond_resched().
    Co<> wait_iff_congested(Task& t, const Zone& zone, Time timeout);

    // LRU list operations (the caller holds lru_lock). Inline: every page read or faulted in passes through them.
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

    // Pages under read I/O: the device and request a fault must wait for.
    FlatMap<std::pair<int, std::uint64_t>> pageReadIo;
    // Pages swap readahead read beyond the faulting entry, each with the entry it was read for (PG_readahead on a
    // swap-cache page, 4.14): a fault that finds one counts Vm::SwapRaHit. A frame freed and reused is told apart by
    // its entry.
    FlatMap<std::uint32_t> swapReadahead;
    // Extra references held by a fault in progress (get_page): reclaim leaves such pages alone.
    PinSet pinned; // a gather pins thousands of consecutive frames: bits in 64-frame blocks (mm/pinset.h)
    void pin(Pfn p) { pinned.pin(p); }
    void unpin(Pfn p) { pinned.unpin(p); }
    bool isPinned(Pfn p) const { return pinned.contains(p); }
    // A page that lost every reference while reclaim or a pagevec held it. A pinned page still has one (the
    // get_page() of a lookup that has not yet put it) and is freed by that put, not here.
    bool orphan(Pfn p) const
    {
        return pages.owner(p) == 0 && !pages.test(p, PG_swapcache) && pages.mapcount(p) == 0 && !pages.test(p, PG_buddy)
            && !isPinned(p);
    }
    // CPUs other than `self` on which `mm` is live (its TLB entries may be cached there): the IPI targets. With
    // tlb.lazy_ipi, also those in lazy TLB mode for it (Cpu::activeMm), which the IPI makes leave it.
    // Refreshes mm.cpuVmMask (mm_cpumask) with the CPUs running the mm now, `self` included. The list is the
    // kernel's scratch (no heap allocation per flush): valid until the next call, so use it before suspending.
    const std::vector<int>& tlbTargets(MmStruct& mm, int self);

    // Every lock of memory management, appended to `out` for lockstat (instances with the same name are summed by
    // the reports).
    void lockStats(LockStats& out) const;
    // Checks the invariants (every page in one state, list lengths match flags, swap_map matches PTEs).
    // Returns an empty string when they hold, else the first violation.
    std::string checkInvariants() const;

private:
    void initNodes(std::uint64_t reservedPages);
    std::vector<std::unique_ptr<Lruvec>> m_memcgLruvecs;
    Pfn m_framesPerNode = 0; // every node's frames but the last's (which takes the remainder); 0 with one node
    double m_structPageLines = 1; // KernelConfig::structPageLines()
    // The memcg LRU size statistics (memcg->vmstats_percpu / pn->lruvec_stat_cpu; KernelConfig::memcgStatBatch): an
    // item per lruvec and list, its memcg's and lruvec's counters sharing the item's line.
    FoldedCounters m_memcgStat;
    Zvc m_zvc; // the per-cpu vmstat deltas and their counters' lines, from boot()
    std::vector<MmStruct*> m_freeMms; // mm_struct's slab cache (mmdrop -> mm_alloc)
    std::uint32_t m_lastPid = 0; // the pid mm_alloc() gave last (pids are never reused here)
    void endIo(BlockDevice& dev, IoRequest& r);
    // Wakes every congestion_wait() sleeper (the one congestion_wqh[BLK_RW_ASYNC] wait queue of all devices).
    void clear_bdi_congested();
    std::vector<int> m_tlbTargets; // tlbTargets()' result
    std::vector<std::pair<Task*, std::uint32_t>> m_congested;
};

// The lru_lock a run over a batch of pages holds: taken for the first page's lruvec and re-taken only when a page
// of a lruvec under another lock comes (relock_page_lruvec_irqsave, 5.11; before it the node's one lock). With one
// lruvec it is one lock round trip per batch, as pagevec_lru_move_fn and release_pages have it.
class LruLock {
public:
    LruLock(Mm& k, Task& t)
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
            if (lk.m_held && &v.lru_lock == &lk.m_held->lru_lock) // the same lruvec, or (lru.lock=node) its node's
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
    Mm& m_k;
    Task& m_t;
    Lruvec* m_held = nullptr;
};

} // namespace mms
