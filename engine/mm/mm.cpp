#include "mm/mm.h"
#include "mm/huge_memory.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/vmscan.h"
#include "mm/writeback.h"
#include "mm/zsmalloc.h"
#include "mm/zswap.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mms {

Mm::Mm(Sched& sched, const Toggles& toggles, std::uint64_t reservedPages)
    : s(sched)
    , cost(kernelCostModel(toggles.config, sched.cost()))
    , tg(toggles)
{
    const MachineSpec& m = s.machine();
    auto nr = static_cast<std::uint32_t>(m.memoryPages());
    pages.resize(nr);
    pcpu.resize(static_cast<std::size_t>(s.cpuCount()));
    // The lock implementations and what a debug kernel adds to them (mm/kconfig.h). A debug spinlock's waiters spin
    // with trylock's xchg whatever the arch lock: the release and the next owner race for the line as with the byte
    // lock. DEBUG_MUTEXES turns off spinning on the owner (MUTEX_SPIN_ON_OWNER depends on !DEBUG_MUTEXES).
    const DebugCosts dbg = debugCosts(tg.config, sched.cost());
    Locking locking { tg.config.debugSpinlock ? SpinlockImpl::Byte : tg.spinlock, tg.mutexSpin && !tg.config.debugMutexes };
    locking.acquireNs = dbg.lockAcquireNs;
    locking.releaseNs = dbg.lockReleaseNs;
    locking.contendedNs = dbg.contendedNs;
    locking.mutexOpNs = dbg.mutexOpNs;
    locking.mutexHandoff = tg.mutexHandoff;
    locking.mutexMcs = tg.mutexMcs;
    locking.rwsemSpin = tg.rwsemSpin; // RWSEM_SPIN_ON_OWNER: SMP && RWSEM_XCHGADD_ALGORITHM (the xadd rwsem)
    locking.rwsemHandoff = tg.rwsemHandoff;
    locking.rwsemWakeAllReaders = tg.rwsemWakeAllReaders;
    locking.waitersRmw = tg.config.debugSpinlock;
    s.setLocking(locking);
    m_structPageLines = tg.config.structPageLines();
    if (tg.config.memcg && tg.config.memcgStatBatch)
        m_memcgStat.init(s.cpuCount(), PageArray::kLruListHeads, PageArray::kLruListHeads);
    initNodes(reservedPages);
    for (std::size_t i = 0; i < m.swap.size(); ++i) {
        auto si = std::make_unique<SwapInfo>();
        si->type = static_cast<int>(i);
        si->lock.setName("swap_info[" + std::to_string(i) + "].lock");
        si->treeLock.setName("swapper_spaces[" + std::to_string(i) + "].tree_lock");
        auto slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(m.swap[i].sizeBytes / kPageSize, pte::kOffsetMask));
        si->slot.assignZeroed(slots);
        si->dev = std::make_unique<BlockDevice>(s, m.swap[i].device, static_cast<int>(i));
        si->dev->setCompletion([this](BlockDevice& d, IoRequest& r) { endIo(d, r); });
        if (m.swap[i].device.kind == DeviceKind::Zram) { // zramN, numbered among the zram devices
            const int n = static_cast<int>(std::count_if(swap.begin(), swap.end(), [](const auto& o) { return o->zram != nullptr; }));
            auto pool = std::make_unique<ZsPoolAllocator>(*this, tg.zram, "zram" + std::to_string(n));
            si->zram = std::make_unique<ZramDevice>(s, tg.zram, n, slots, std::move(pool));
        }
        // SWP_SOLIDSTATE: every device kind here but the rotating disk.
        if (tg.swapPercpuCluster && tg.slotsCache == SlotsCache::Off && !m.swap[i].device.rotational())
            si->percpuCluster.assign(static_cast<std::size_t>(s.cpuCount()), 0);
        if (tg.swapCacheTrunks) { // init_swap_address_space(): one address_space per SWAP_ADDRESS_SPACE_PAGES slots
            si->trunkLocks.reserve((slots + SWAP_ADDRESS_SPACE_PAGES - 1) / SWAP_ADDRESS_SPACE_PAGES);
            for (std::uint32_t a = 0; a < slots; a += SWAP_ADDRESS_SPACE_PAGES)
                si->trunkLocks.emplace_back("swapper_spaces[" + std::to_string(i) + "].tree_lock");
        }
        if (tg.slotsCache != SlotsCache::Off) {
            si->clusterLocks.reserve((slots + SWAPFILE_CLUSTER - 1) / SWAPFILE_CLUSTER);
            for (std::uint32_t c = 0; c < slots; c += SWAPFILE_CLUSTER)
                si->clusterLocks.emplace_back("swap_cluster_info[" + std::to_string(i) + "].lock");
        }
        swap.push_back(std::move(si));
    }
    if (tg.zswap.enabled && !swap.empty())
        zswap = std::make_unique<Zswap>(*this, tg.zswap);
    if (tg.swapLock == SwapLock::Global && tg.slotsCache == SlotsCache::Off)
        swapAvailLock.setName("swap_lock"); // before 3.9 the one lock of every device (swapInfoLock)
    if (tg.slotsCache != SlotsCache::Off) {
        swapSlots.resize(static_cast<std::size_t>(s.cpuCount()));
        for (auto& c : swapSlots)
            c.slotsRetDev.resize(swap.size());
    }
    if (tg.thpEnabled)
        set_recommended_min_free_kbytes(*this); // hugepage_init()
}

Mm::~Mm() = default;

namespace {
    // A node's lock, named for the lock views: "zone->lock" on a machine of one node, "node1 zone->lock" on others.
    std::string nodeLockName(int nodes, int nid, const std::string& name)
    {
        return nodes == 1 ? name : "node" + std::to_string(nid) + " " + name;
    }
} // namespace

void Mm::initNodes(std::uint64_t reservedPages)
{
    const MachineSpec& m = s.machine();
    const auto nr = static_cast<Pfn>(pages.size());
    const int nrNodes = std::clamp(m.nodes(), 1, static_cast<int>(PageArray::kMaxNodes));
    const Pfn perNode = nr / static_cast<Pfn>(nrNodes);
    m_framesPerNode = nrNodes == 1 ? 0 : perNode;
    // Per node the root memcg's lruvec and lru.lruvecs - 1 memcgs', as many as the list heads allow.
    const int memcgs = std::clamp(tg.lruvecs, 1, std::min(kMaxMemcgLruvecs, kMaxLruvecs / nrNodes));
    // Reserved frames (kernel text, page tables, slab) are allocated and on no list, at the bottom of node 0.
    reservedPages = std::min<std::uint64_t>(reservedPages, perNode / 2);
    // init_per_zone_wmark_min(): min_free_kbytes = sqrt(lowmem_kbytes * 16), clamped to [128, 65536];
    // __setup_per_zone_wmarks() gives each zone its share by size (min), low = min * 5/4, high = min * 3/2.
    double kbytes = static_cast<double>(m.memoryBytes) / 1024.0;
    auto minPages = static_cast<std::uint64_t>(std::clamp(std::sqrt(kbytes * 16.0), 128.0, 65536.0) / 4.0);
    const std::uint64_t managed = nr - reservedPages;
    for (int nid = 0; nid < nrNodes; ++nid) {
        auto d = std::make_unique<PgData>();
        d->nid = nid;
        Pfn first = nid == 0 ? static_cast<Pfn>(reservedPages) : static_cast<Pfn>(nid) * perNode;
        Pfn end = nid + 1 == nrNodes ? nr : static_cast<Pfn>(nid + 1) * perNode;
        d->bytes = nrNodes == 1 ? m.memoryBytes : static_cast<std::uint64_t>(end - (nid == 0 ? 0 : first)) * kPageSize;
        d->zone.init(pages, nid, first, end, s.cpuCount());
        d->zone.lock.setName(nodeLockName(nrNodes, nid, "zone->lock"));
        d->zone.watermarkMin = nrNodes == 1 ? minPages : minPages * (end - first) / managed;
        d->zone.watermarkLow = d->zone.watermarkMin * 5 / 4;
        d->zone.watermarkHigh = d->zone.watermarkMin * 3 / 2;
        d->lruvec.listBase = static_cast<std::uint32_t>(nid * memcgs * NR_LRU_LISTS);
        d->lruvec.nid = nid;
        d->lruvec.lru_lock.setName(nodeLockName(nrNodes, nid, "zone->lru_lock"));
        d->lruvecs.push_back(&d->lruvec);
        for (int i = 1; i < memcgs; ++i) {
            // 6168d0da2b47 "mm/lru: replace pgdat lru_lock with lruvec lock" (5.11): before it every memcg's lruvec
            // of a node is under the node's lru_lock.
            if (tg.lruLock == LruLockPlacement::Node)
                m_memcgLruvecs.push_back(std::make_unique<Lruvec>(d->lruvec.lru_lock));
            else
                m_memcgLruvecs.push_back(std::make_unique<Lruvec>());
            Lruvec& v = *m_memcgLruvecs.back();
            v.listBase = d->lruvec.listBase + static_cast<std::uint32_t>(i * NR_LRU_LISTS);
            v.nid = nid;
            if (v.ownsLock())
                v.lru_lock.setName(nodeLockName(nrNodes, nid, "memcg[" + std::to_string(i) + "] lruvec->lru_lock"));
            d->lruvecs.push_back(&v);
        }
        lruvecs.insert(lruvecs.end(), d->lruvecs.begin(), d->lruvecs.end());
        nodes.push_back(std::move(d));
    }
    if (memcgs > 1)
        pageMemcg.assign(nr, 0);
}

std::uint64_t Mm::nrFreePages() const
{
    std::uint64_t n = 0;
    for (const auto& d : nodes)
        n += d->zone.nrFree();
    return n;
}

std::uint64_t Mm::highWatermarks() const
{
    std::uint64_t n = 0;
    for (const auto& d : nodes)
        n += d->zone.watermarkHigh;
    return n;
}

MmStruct& Mm::mm_alloc()
{
    if (!m_freeMms.empty()) {
        MmStruct& mm = *m_freeMms.back();
        m_freeMms.pop_back();
        mm.pid = ++m_lastPid;
        return mm;
    }
    auto mm = std::make_unique<MmStruct>();
    mm->pid = ++m_lastPid;
    mm->id = static_cast<std::uint16_t>(mms.size());
    mm->cpuVmMask.assign(static_cast<std::size_t>(s.cpuCount()), 0);
    mm->mmap_sem.setImpl(tg.rwsemImpl == RwsemImplToggle::Spinlock ? RwsemImpl::Spinlock : RwsemImpl::Xadd);
    mm->splitPtlocks = tg.config.splitPtlocks();
    mms.push_back(std::move(mm));
    return *mms.back();
}

void Mm::mmdrop(MmStruct& mm)
{
    for (int c = 0; c < s.cpuCount(); ++c)
        if (s.cpu(c).activeMm == &mm)
            s.cpu(c).activeMm = nullptr;
    // What the next mm_alloc() gets: a new mm but for its id and its locks (which keep their lock statistics).
    mm.pte.clear();
    mm.vmas.clear();
    std::fill(mm.cpuVmMask.begin(), mm.cpuVmMask.end(), 0);
    mm.rss = mm.fileRss = mm.swapents = 0;
    mm.pgtables.clear();
    mm.brkPages = 0;
    mm.heap.clear();
    mm.heapHuge.clear();
    mm.ppid = 0;
    mm.forkedAt = -1;
    mm.cpuAtFork = 0;
    m_freeMms.push_back(&mm);
}

std::uint32_t Mm::do_mmap(MmStruct& mm, std::uint32_t nrPages)
{
    auto start = static_cast<std::uint32_t>(mm.pte.size());
    // Keep VMAs page-table aligned, like a 2 MiB-aligned mmap of a large region.
    start = (start + PTRS_PER_PTE - 1) / PTRS_PER_PTE * PTRS_PER_PTE;
    mm.pte.resize(start + nrPages); // value-initialised (pte_none); with no fill value the zeroing is a memset
    while (mm.ptl.size() * PTRS_PER_PTE < mm.pte.size())
        mm.ptl.push_back(std::make_unique<SpinLock>("ptl"));
    mm.vmas.push_back(Vma { start, nrPages });
    return start;
}

std::uint32_t Mm::do_mmap_file(MmStruct& mm, AddressSpace& m, std::uint64_t pgoff, std::uint32_t nrPages)
{
    std::uint32_t start = do_mmap(mm, nrPages);
    Vma& v = mm.vmas.back();
    v.file = &m;
    v.pgoff = pgoff;
    vma_link_file(m, FileVma { &mm, start, nrPages, pgoff });
    return start;
}

void Mm::boot(std::uint64_t seed)
{
    startKswapd();
    s.setWakeIdleSibling(tg.selectIdleSibling);
    s.setIdleBalance({ true, tg.newidleRateLimit, !tg.selectIdleSibling });
    s.setO1(tg.o1Scheduler, tg.config.preemptVoluntary);
    enableLineTracking();
    // refresh_zone_stat_thresholds() at boot; the per-cpu deltas start at zero.
    const int cpus = s.cpuCount();
    for (auto& d : nodes) {
        const Zone& z = d->zone;
        d->statThreshold = zvcNormalThreshold(cpus, z.end() - z.start());
        const bool drift = static_cast<std::uint64_t>(cpus) * static_cast<std::uint64_t>(d->statThreshold)
            > z.watermarkLow - z.watermarkMin;
        d->statPressureThreshold = drift ? zvcPressureThreshold(cpus, z.watermarkMin, z.watermarkLow) : 0;
    }
    m_zvc.init(cpus, nrNodes());
    Rng rng(Rng::mix(seed, 0xb007u));
    memCostJitter = rng.jitter(cost.memRunSpread);
    s.seedHost(Rng::mix(seed, 0x9e57u));
    pageCostJitter = cost.memPageSpread;
}

void Mm::zvcMod(Task& t, int nid, ZvcArray array, int item, int delta)
{
    const PgData& d = node(nid);
    // A zone's threshold drops to the pressure one while kswapd is awake (set_pgdat_percpu_threshold() around its
    // sleep, vmstat.pressure_threshold); a node keeps its normal one.
    const bool pressure = array == ZvcArray::Zone && tg.vmstatPressureThreshold && d.kswapdWoken && d.statPressureThreshold;
    const FoldedCounters::Fold f
        = m_zvc.add(t.cpu, nid, array, item, delta, pressure ? d.statPressureThreshold : d.statThreshold);
    if (!f.folded)
        return;
    vm.inc(Vm::ZvcFold);
    chargeFold(t, f); // zone_page_state_add() / node_page_state_add(): the zone's or node's counter, the global one
}

double Mm::ipiRoundNs(std::size_t targets)
{
    vmExits += cost.ipiVmExits(targets);
    double waitNs = cost.ipiRoundNs(targets);
    if (s.host()) {
        double late = 0;
        for (std::size_t i = 0; i < targets; ++i)
            late = std::max(late, s.hostResidualNs()); // the initiator spins for its acknowledgement
        waitNs += late;
    }
    return waitNs;
}

void Mm::startKswapd()
{
    for (auto& d : nodes) {
        if (d->kswapd)
            continue;
        int cpu = 0;
        while (cpu + 1 < s.cpuCount() && cpu_to_node(cpu) < d->nid)
            ++cpu;
        d->kswapd = &s.spawn("kswapd" + std::to_string(d->nid), cpu, true, nullptr, 0);
        s.start(*d->kswapd, kswapd_main(*this, *d, *d->kswapd));
    }
}

void Mm::wakeup_kswapd(PgData& d)
{
    if (!d.kswapd || d.kswapdWoken)
        return;
    d.kswapdWoken = true;
    vm.inc(Vm::KswapdWakeup);
    s.wake(*d.kswapd);
}

// congestion_wait(BLK_RW_ASYNC, timeout) (mm/backing-dev.c, 4.0): prepare_to_wait() on congestion_wqh[BLK_RW_ASYNC]
// and io_schedule_timeout(); only clear_bdi_congested() or the timeout ends the sleep.
Co<> Mm::congestion_wait(Task& t, Time timeout)
{
    co_await s.flush(t);
    m_congested.emplace_back(&t, t.sleepGen + 1);
    const Time since = s.sim().now();
    const int cpu = t.cpu;
    co_await s.sleepTimeout(t, timeout);
    s.traceSleep(cpu, since, SpanKind::IoWait, "congestion_wait"); // waiting for writeback to make progress
}

Co<> Mm::wait_iff_congested(Task& t, const Zone& zone, Time timeout)
{
    bool devCongested = false;
    for (const auto& si : swap)
        devCongested = devCongested || si->dev->asyncCongested();
    if (!devCongested || !zone.congested) {
        co_await s.cond_resched(t);
        co_return;
    }
    co_await congestion_wait(t, timeout);
}

void Mm::del_page_from_lru_list(Pfn p)
{
    LruList l = page_lru(pages.flags(p));
    pages.listDel(p);
    pages.clear(p, PG_lru);
    --lruvecOf(p).nr[l];
}

void Mm::endIo(BlockDevice& dev, IoRequest& r)
{
    // end_swap_bio_read / end_swap_bio_write run in the device's interrupt on one CPU; before 4.9
    // (swap.writeback_tags) end_page_writeback() clears each written page's tags there, under the swap cache's
    // tree_lock, whose wait the interrupt does not model (its cost only).
    const double perPage = cost.ioCompleteNs + (r.write && tg.swapWritebackTags ? endWritebackTagsNs(cost) : 0.0);
    s.interrupt(dev.index() % s.cpuCount(), perPage * static_cast<double>(r.pages.size()));
    for (Pfn p : r.pages) {
        if (!r.write) {
            pages.clear(p, PG_locked);
            pageReadIo.erase(p);
            continue;
        }
        pages.clear(p, PG_writeback);
        --page_zone(p).nrWriteback;
        // rotate_reclaimable_page(): a page written for reclaim goes to the tail, to be freed by the next scan.
        if (pages.test(p, PG_reclaim) && pages.test(p, PG_lru) && !pages.test(p, PG_active)) {
            pages.clear(p, PG_reclaim);
            LruList l = page_lru(pages.flags(p));
            pages.listDel(p);
            pages.listAddTail(lruHead(lruvecOf(p), l), p);
            vm.inc(Vm::PgRotated);
        }
    }
    // The request is freed after its bio's end_io (blk_finish_request -> __blk_put_request -> freed_request,
    // block/blk-core.c, 4.0). __freed_request() calls blk_clear_queue_congested(q, BLK_RW_ASYNC) ->
    // clear_bdi_congested() (mm/backing-dev.c) for every async request freed while the async count is below
    // queue_congestion_off_threshold(), whether or not the queue was marked congested, and clear_bdi_congested()
    // wakes the whole congestion_wqh[BLK_RW_ASYNC] queue. A write completing on a queue still at or above the off
    // threshold wakes no one; a read is sync and wakes only the BLK_RW_SYNC queue, on which no one here waits.
    if (r.write && dev.asyncBelowCongestionOff())
        clear_bdi_congested();
}

void Mm::clear_bdi_congested()
{
    for (auto [t, gen] : m_congested)
        s.wakeIf(*t, gen);
    m_congested.clear();
}

const std::vector<int>& Mm::tlbTargets(MmStruct& mm, int self)
{
    std::vector<int>& targets = m_tlbTargets;
    targets.clear();
    // The count, the toggle and the mask's storage read once: a store through the byte mask may alias anything, which
    // would otherwise reload them on every CPU (one flush per reclaimed anonymous page).
    const int n = s.cpuCount();
    const bool lazyIpi = tg.tlbLazyIpi;
    std::uint8_t* mask = mm.cpuVmMask.data();
    for (int c = 0; c < n; ++c) {
        Cpu& cpu = s.cpu(c);
        const Task* cur = cpu.current;
        bool live = cur && cur->mm == &mm;
        bool lazy = lazyIpi && c != self && !live && cpu.activeMm == &mm;
        mask[c] = live || c == self;
        if (c != self && (live || lazy))
            targets.push_back(c);
        if (lazy)
            cpu.activeMm = nullptr; // flush_tlb_func() finds the CPU lazy: leave_mm()
    }
    return targets;
}

void Mm::lockStats(LockStats& v) const
{
    for (const auto& d : nodes) {
        v.push_back(&d->zone.lock.stat());
        for (const Lruvec* lv : d->lruvecs)
            if (lv->ownsLock()) // a memcg's lruvec under the node's lock has none of its own
                v.push_back(&lv->lru_lock.stat());
    }
    if (tlbAckWait.acquisitions)
        v.push_back(&tlbAckWait);
    if (swapAvailLock.stat().acquisitions)
        v.push_back(&swapAvailLock.stat());
    for (auto& si : swap) {
        v.push_back(&si->lock.stat());
        v.push_back(&si->treeLock.stat());
        for (auto& l : si->trunkLocks)
            v.push_back(&l.stat());
        for (auto& l : si->clusterLocks)
            v.push_back(&l.stat());
        if (si->zram)
            si->zram->lockStats(v);
    }
    if (zswap)
        zswap->lockStats(v);
    for (auto& c : swapSlots) {
        v.push_back(&c.allocLock.stat());
        v.push_back(&c.freeLock.stat());
    }
    for (auto& m : mappings) {
        v.push_back(&m->i_pages.stat());
        // The i_mmap lock (the kind i_mmap.lock names) of a file that is or was mapped: once listed, a lock stays
        // listed, so the recording's per-frame rows stay aligned after the last munmap.
        const LockStat& immap = m->i_mmap_kind == IMmapLock::Mutex ? m->i_mmap_mutex.stat()
            : m->i_mmap_kind == IMmapLock::Spinlock                ? m->i_mmap_lock.stat()
                                                                   : m->i_mmap_rwsem.stat();
        if (!m->i_mmap.empty() || immap.acquisitions > 0)
            v.push_back(&immap);
    }
    for (auto& mm : mms) {
        v.push_back(&mm->mmap_sem.stat());
        if (mm->anon_vma.stat().acquisitions)
            v.push_back(&mm->anon_vma.stat());
        if (mm->mmap_sem.impl() == RwsemImpl::Spinlock)
            v.push_back(&mm->mmap_sem.waitLock().stat());
        for (auto& l : mm->ptl)
            v.push_back(&l->stat());
        if (mm->page_table_lock.stat().acquisitions)
            v.push_back(&mm->page_table_lock.stat());
    }
}

} // namespace mms
