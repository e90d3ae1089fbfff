#include "mm/kernel.h"
#include "kernel/process.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/vmscan.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mms {

Kernel::Kernel(Sched& sched, const Toggles& toggles, std::uint64_t reservedPages)
    : s(sched)
    , cost(sched.cost())
    , tg(toggles)
{
    const MachineSpec& m = s.machine();
    auto nr = static_cast<std::uint32_t>(m.memoryPages());
    pages.resize(nr);
    pcpu.resize(static_cast<std::size_t>(s.cpuCount()));
    lruvecs.push_back(&lruvec);
    for (int i = 1; i < std::clamp(tg.lruvecs, 1, kMaxLruvecs); ++i) {
        m_memcgLruvecs.push_back(std::make_unique<Lruvec>());
        Lruvec& v = *m_memcgLruvecs.back();
        v.listBase = static_cast<std::uint32_t>(i * NR_LRU_LISTS);
        v.lru_lock.setName("memcg[" + std::to_string(i) + "] lruvec->lru_lock");
        lruvecs.push_back(&v);
    }
    if (lruvecs.size() > 1)
        pageMemcg.assign(nr, 0);
    reservedPages = std::min<std::uint64_t>(reservedPages, nr / 2);
    // Reserved pages (kernel text, page tables, slab) are allocated and on no list; the rest is one zone.
    zone.init(pages, static_cast<Pfn>(reservedPages), nr);
    // init_per_zone_wmark_min(): min_free_kbytes = sqrt(lowmem_kbytes * 16), clamped to [128, 65536].
    double kbytes = static_cast<double>(m.memoryBytes) / 1024.0;
    double minKb = std::clamp(std::sqrt(kbytes * 16.0), 128.0, 65536.0);
    zone.watermarkMin = static_cast<std::uint64_t>(minKb / 4.0);
    zone.watermarkLow = zone.watermarkMin * 5 / 4;
    zone.watermarkHigh = zone.watermarkMin * 3 / 2;

    for (std::size_t i = 0; i < m.swap.size(); ++i) {
        auto si = std::make_unique<SwapInfo>();
        si->type = static_cast<int>(i);
        si->lock.setName("swap_info[" + std::to_string(i) + "].lock");
        si->treeLock.setName("swapper_spaces[" + std::to_string(i) + "].tree_lock");
        auto slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(m.swap[i].sizeBytes / kPageSize, pte::kOffsetMask));
        si->slot.assign(slots, SwapSlot {});
        si->dev = std::make_unique<BlockDevice>(s, m.swap[i].device, static_cast<int>(i));
        si->dev->setCompletion([this](BlockDevice& d, IoRequest& r) { endIo(d, r); });
        // SWP_SOLIDSTATE: every device kind here but the rotating disk.
        if (tg.swapPercpuCluster && tg.slotsCache == SlotsCache::Off && m.swap[i].device.kind != "hdd-2007")
            si->percpuCluster.assign(static_cast<std::size_t>(s.cpuCount()), 0);
        if (tg.slotsCache != SlotsCache::Off) {
            si->clusterLocks.reserve((slots + SWAPFILE_CLUSTER - 1) / SWAPFILE_CLUSTER);
            for (std::uint32_t c = 0; c < slots; c += SWAPFILE_CLUSTER)
                si->clusterLocks.emplace_back("swap_cluster_info[" + std::to_string(i) + "].lock");
        }
        swap.push_back(std::move(si));
    }
    if (tg.slotsCache != SlotsCache::Off) {
        swapSlots.resize(static_cast<std::size_t>(s.cpuCount()));
        for (auto& c : swapSlots)
            c.slotsRetDev.resize(swap.size());
    }
    if (tg.thpEnabled)
        set_recommended_min_free_kbytes(*this); // hugepage_init()
}

Kernel::~Kernel() = default;

MmStruct& Kernel::mm_alloc()
{
    if (!m_freeMms.empty()) {
        MmStruct& mm = *m_freeMms.back();
        m_freeMms.pop_back();
        return mm;
    }
    auto mm = std::make_unique<MmStruct>();
    mm->id = static_cast<std::uint16_t>(mms.size());
    mm->cpuVmMask.assign(static_cast<std::size_t>(s.cpuCount()), 0);
    mm->mmap_sem.setImpl(tg.rwsemImpl == RwsemImplToggle::Spinlock ? RwsemImpl::Spinlock : RwsemImpl::Xadd);
    mms.push_back(std::move(mm));
    return *mms.back();
}

void Kernel::mmdrop(MmStruct& mm)
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
    m_freeMms.push_back(&mm);
}

std::uint32_t Kernel::do_mmap(MmStruct& mm, std::uint32_t nrPages)
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

std::uint32_t Kernel::do_mmap_file(MmStruct& mm, AddressSpace& m, std::uint64_t pgoff, std::uint32_t nrPages)
{
    std::uint32_t start = do_mmap(mm, nrPages);
    Vma& v = mm.vmas.back();
    v.file = &m;
    v.pgoff = pgoff;
    vma_link_file(m, FileVma { &mm, start, nrPages, pgoff });
    return start;
}

void Kernel::boot(std::uint64_t seed)
{
    startKswapd(0);
    s.setWakeIdleSibling(true);
    enableLineTracking();
    Rng rng(Rng::mix(seed, 0xb007u));
    memCostJitter = rng.jitter(cost.memRunSpread);
    pageCostJitter = cost.memPageSpread;
}

void Kernel::startKswapd(int cpu)
{
    if (m_kswapd)
        return;
    m_kswapd = &s.spawn("kswapd0", cpu, true, nullptr, 0);
    s.start(*m_kswapd, kswapd_main(*this, *m_kswapd));
}

void Kernel::wakeup_kswapd()
{
    if (!m_kswapd || m_kswapdWoken)
        return;
    m_kswapdWoken = true;
    vm.inc(Vm::KswapdWakeup);
    s.wake(*m_kswapd);
}

// congestion_wait(BLK_RW_ASYNC, timeout) (mm/backing-dev.c, 4.0): prepare_to_wait() on congestion_wqh[BLK_RW_ASYNC]
// and io_schedule_timeout(); only clear_bdi_congested() or the timeout ends the sleep.
Co<> Kernel::congestion_wait(Task& t, Time timeout)
{
    co_await s.flush(t);
    m_congested.emplace_back(&t, t.sleepGen + 1);
    const Time since = s.sim().now();
    const int cpu = t.cpu;
    co_await s.sleepTimeout(t, timeout);
    s.traceSleep(cpu, since, SpanKind::IoWait, "congestion_wait"); // waiting for writeback to make progress
}

Co<> Kernel::wait_iff_congested(Task& t, Time timeout)
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

void Kernel::del_page_from_lru_list(Pfn p)
{
    LruList l = page_lru(pages.flags(p));
    pages.listDel(p);
    pages.clear(p, PG_lru);
    --lruvecOf(p).nr[l];
}

void Kernel::endIo(BlockDevice& dev, IoRequest& r)
{
    // end_swap_bio_read / end_swap_bio_write run in the device's interrupt on one CPU.
    s.interrupt(dev.index() % s.cpuCount(), cost.ioCompleteNs * static_cast<double>(r.pages.size()));
    for (Pfn p : r.pages) {
        if (!r.write) {
            pages.clear(p, PG_locked);
            pageReadIo.erase(p);
            continue;
        }
        pages.clear(p, PG_writeback);
        --zone.nrWriteback;
        // rotate_reclaimable_page(): a page written for reclaim goes to the tail, to be freed by the next scan.
        if (pages.test(p, PG_reclaim) && pages.test(p, PG_lru) && !pages.test(p, PG_active)) {
            pages.clear(p, PG_reclaim);
            LruList l = page_lru(pages.flags(p));
            pages.listDel(p);
            pages.listAddTail(lruHead(l), p);
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

void Kernel::clear_bdi_congested()
{
    for (auto [t, gen] : m_congested)
        s.wakeIf(*t, gen);
    m_congested.clear();
}

const std::vector<int>& Kernel::tlbTargets(MmStruct& mm, int self)
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

std::vector<const LockStat*> Kernel::lockStats() const
{
    std::vector<const LockStat*> v { &zone.lock.stat(), &lruvec.lru_lock.stat() };
    for (auto& lv : m_memcgLruvecs)
        v.push_back(&lv->lru_lock.stat());
    if (tlbAckWait.acquisitions)
        v.push_back(&tlbAckWait);
    if (swapAvailLock.stat().acquisitions)
        v.push_back(&swapAvailLock.stat());
    for (auto& si : swap) {
        v.push_back(&si->lock.stat());
        v.push_back(&si->treeLock.stat());
        for (auto& l : si->clusterLocks)
            v.push_back(&l.stat());
    }
    for (auto& c : swapSlots) {
        v.push_back(&c.allocLock.stat());
        v.push_back(&c.freeLock.stat());
    }
    for (auto& m : mappings) {
        v.push_back(&m->i_pages.stat());
        // The i_mmap lock (the kind i_mmap.lock names) of a file that is or was mapped: once listed, a lock stays
        // listed, so the recording's per-frame rows stay aligned after the last munmap.
        const LockStat& immap = m->i_mmap_kind == IMmapLock::Mutex ? m->i_mmap_mutex.stat() : m->i_mmap_rwsem.stat();
        if (!m->i_mmap.empty() || immap.acquisitions > 0)
            v.push_back(&immap);
    }
    for (auto& d : dirs)
        v.push_back(&d->i_mutex.stat());
    for (auto& mm : mms) {
        v.push_back(&mm->mmap_sem.stat());
        if (mm->anon_vma.stat().acquisitions)
            v.push_back(&mm->anon_vma.stat());
        if (mm->mmap_sem.impl() == RwsemImpl::Spinlock)
            v.push_back(&mm->mmap_sem.waitLock().stat());
        for (auto& l : mm->ptl)
            v.push_back(&l->stat());
    }
    return v;
}

std::string Kernel::checkInvariants() const
{
    std::ostringstream err;
    std::uint32_t n = pages.size();
    // LRU lists: walk each, check flags and counts.
    std::vector<std::uint8_t> onList(n, 0);
    for (const Lruvec* v : lruvecs)
        for (int l = 0; l < NR_LRU_LISTS; ++l) {
            std::uint64_t count = 0;
            for (Pfn p = pages.first(lruHead(*v, static_cast<LruList>(l))); p != kNoPage && p < n; p = pages.next(p)) {
                if (onList[p]++)
                    return "page " + std::to_string(p) + " is on two LRU lists";
                if (!pages.test(p, PG_lru) || page_lru(pages.flags(p)) != l)
                    return "page " + std::to_string(p) + " on list " + lruListName(static_cast<LruList>(l)) + " has flags that say otherwise";
                if (&lruvecOf(p) != v)
                    return "page " + std::to_string(p) + " is on the lists of another memcg's lruvec";
                ++count;
            }
            if (count != v->nr[l])
                return std::string("list ") + lruListName(static_cast<LruList>(l)) + " holds " + std::to_string(count)
                    + " pages but its counter says " + std::to_string(v->nr[l]);
        }
    std::uint64_t buddy = 0;
    for (Pfn p = 0; p < n; ++p) {
        bool lru = pages.test(p, PG_lru);
        if (lru != (onList[p] != 0))
            return "page " + std::to_string(p) + " has PG_lru " + (lru ? "set" : "clear") + " but is " + (onList[p] ? "" : "not ") + "on a list";
        if (pages.test(p, PG_buddy)) {
            ++buddy;
            if (pages.flags(p) != PG_buddy || pages.owner(p) != 0)
                return "free page " + std::to_string(p) + " has other flags or an owner";
        }
    }
    std::uint64_t pcpPages = 0;
    for (auto& c : pcpu)
        pcpPages += c.pcp.size();
    if (std::string e = zone.check(pages); !e.empty())
        return e;
    if (buddy != zone.nrFree() + pcpPages)
        return "PG_buddy pages " + std::to_string(buddy) + " != free list " + std::to_string(zone.nrFree()) + " + per-cpu lists " + std::to_string(pcpPages);
    // The page cache: every file page (owner set, not anon) sits in its mapping at its index, and back.
    {
        std::vector<std::uint64_t> found(mappings.size(), 0);
        for (Pfn p = 0; p < n; ++p) {
            if (pages.owner(p) == 0 || pages.test(p, PG_anon | PG_buddy | PG_swapbacked))
                continue;
            std::size_t id = pages.owner(p) - 1u;
            if (id >= mappings.size() || mappings[id]->lookup(pages.index(p)) != p)
                return "file page " + std::to_string(p) + " (mapping " + std::to_string(id) + ", index " + std::to_string(pages.index(p)) + ") is not in its mapping";
            ++found[id];
        }
        for (std::size_t id = 0; id < mappings.size(); ++id) {
            const AddressSpace& m = *mappings[id];
            std::uint64_t entries = 0;
            for (std::size_t i = 0; i < m.pages.size(); ++i) {
                Pfn p = m.pages[i];
                if (p == kNoPage)
                    continue;
                ++entries;
                if (p >= n || pages.owner(p) != id + 1u || pages.index(p) != i || pages.test(p, PG_buddy))
                    return "mapping " + std::to_string(id) + " index " + std::to_string(i) + " points to page " + std::to_string(p) + " that does not point back";
            }
            if (!m.pageWaiters.empty())
                return "mapping " + std::to_string(id) + " still has tasks sleeping on a page lock";
            if (entries != m.nrpages || found[id] != m.nrpages)
                return "mapping " + std::to_string(id) + " nrpages " + std::to_string(m.nrpages) + " != entries " + std::to_string(entries) + " / owned pages " + std::to_string(found[id]);
        }
    }
    // PTEs against pages and swap_map.
    std::vector<std::vector<std::uint32_t>> refs(swap.size());
    for (std::size_t i = 0; i < swap.size(); ++i)
        refs[i].assign(swap[i]->nrSlots(), 0);
    std::vector<std::uint32_t> fileMaps(n, 0); // present PTEs mapping each page-cache page (the reverse map)
    for (auto& mm : mms) {
        std::uint64_t rss = 0, swapents = 0, fileRss = 0;
        for (std::uint32_t vpn = 0; vpn < mm->pte.size(); ++vpn) {
            Pte e = mm->pte[vpn];
            if (pte::present(e)) {
                Pfn p = pte::pfn(e);
                const Vma* v = mm->file_vma_at(vpn);
                if (v) { // a file mapping: the page of that file at the VMA's offset
                    ++fileRss;
                    if (p >= n || pages.owner(p) != v->file->id + 1u || pages.index(p) != v->pgoff + (vpn - v->start) || pages.test(p, PG_buddy | PG_anon | PG_swapbacked))
                        return "PTE of mm " + std::to_string(mm->id) + " vpn " + std::to_string(vpn) + " maps page " + std::to_string(p) + " that is not its file's page";
                    ++fileMaps[p];
                    continue;
                }
                ++rss;
                if (pages.owner(p) != mm->id + 1u || pages.index(p) != vpn || pages.test(p, PG_buddy))
                    return "PTE of mm " + std::to_string(mm->id) + " vpn " + std::to_string(vpn) + " maps page " + std::to_string(p) + " owned by someone else";
            } else if (pte::isSwap(e)) {
                ++swapents;
                auto entry = pte::toSwpEntry(e);
                auto type = pte::swpType(entry);
                if (type >= swap.size() || pte::swpOffset(entry) >= swap[type]->nrSlots())
                    return "swap PTE out of range";
                ++refs[type][pte::swpOffset(entry)];
            }
        }
        if (rss != mm->rss)
            return "mm " + std::to_string(mm->id) + " rss counter " + std::to_string(mm->rss) + " != present PTEs " + std::to_string(rss);
        if (swapents != mm->swapents)
            return "mm " + std::to_string(mm->id) + " swapents counter " + std::to_string(mm->swapents) + " != swap PTEs " + std::to_string(swapents);
        if (fileRss != mm->fileRss)
            return "mm " + std::to_string(mm->id) + " file rss counter " + std::to_string(mm->fileRss) + " != present file PTEs " + std::to_string(fileRss);
        for (const Vma& v : mm->vmas)
            if (v.file && std::find_if(v.file->i_mmap.begin(), v.file->i_mmap.end(), [&](const FileVma& f) { return f.mm == mm.get() && f.start == v.start && f.pgoff == v.pgoff && f.pages == v.pages; }) == v.file->i_mmap.end())
                return "file VMA of mm " + std::to_string(mm->id) + " at vpn " + std::to_string(v.start) + " is not on its mapping's i_mmap tree";
    }
    for (Pfn p = 0; p < n; ++p)
        if (pages.owner(p) != 0 && !pages.test(p, PG_anon | PG_swapbacked | PG_buddy) && pages.mapcount(p) != fileMaps[p])
            return "page-cache page " + std::to_string(p) + " has mapcount " + std::to_string(pages.mapcount(p)) + " but " + std::to_string(fileMaps[p]) + " PTEs map it";
    // Slots held by the swap slots caches: each is in exactly one cache, reserved, with no reference and no page.
    std::vector<std::vector<std::uint8_t>> held(swap.size());
    for (std::size_t i = 0; i < swap.size(); ++i)
        held[i].assign(tg.slotsCache != SlotsCache::Off ? swap[i]->nrSlots() : 0, kSlotFree);
    auto hold = [&](std::uint32_t entry, std::uint8_t state) {
        auto type = pte::swpType(entry);
        auto off = pte::swpOffset(entry);
        if (type >= swap.size() || off >= held[type].size() || held[type][off] != kSlotFree)
            return "swap slot " + std::to_string(type) + ":" + std::to_string(off) + " is in two slots caches or out of range";
        held[type][off] = state;
        return std::string();
    };
    for (auto& c : swapSlots) {
        for (std::size_t j = c.cur; j < c.slots.size(); ++j)
            if (auto e = hold(c.slots[j], kSlotInAllocCache); !e.empty())
                return e;
        for (std::uint32_t entry : c.slotsRet)
            if (auto e = hold(entry, kSlotInFreeBuffer); !e.empty())
                return e;
        for (auto& buf : c.slotsRetDev)
            for (std::uint32_t entry : buf)
                if (auto e = hold(entry, kSlotInFreeBuffer); !e.empty())
                    return e;
    }
    for (std::size_t i = 0; i < swap.size(); ++i)
        for (std::uint32_t off = 0; off < held[i].size(); ++off) {
            if (held[i][off] != swap[i]->slot[off].slotCached)
                return "swap slot " + std::to_string(i) + ":" + std::to_string(off) + " slotCached " + std::to_string(swap[i]->slot[off].slotCached) + " but the slots caches say " + std::to_string(held[i][off]);
            if (held[i][off] != kSlotFree && (swap[i]->slot[off].swapMap != 0 || swap[i]->slot[off].cache != kNoPage))
                return "swap slot " + std::to_string(i) + ":" + std::to_string(off) + " is in a slots cache but still referenced";
        }
    for (std::size_t i = 0; i < swap.size(); ++i) {
        std::uint32_t inuse = 0;
        for (std::uint32_t off = 0; off < swap[i]->nrSlots(); ++off) {
            if (swap[i]->slot[off].swapMap != refs[i][off])
                return "swap_map[" + std::to_string(i) + "][" + std::to_string(off) + "] = " + std::to_string(swap[i]->slot[off].swapMap) + " but " + std::to_string(refs[i][off]) + " PTEs refer to it";
            Pfn c = swap[i]->slot[off].cache;
            if (c != kNoPage && (!pages.test(c, PG_swapcache) || pages.priv(c) != pte::swpEntry(static_cast<unsigned>(i), off)))
                return "swap cache slot " + std::to_string(off) + " points to a page that does not point back";
            inuse += swap[i]->slotUsed(off);
        }
        if (inuse != swap[i]->inuse)
            return "swap device " + std::to_string(i) + " inuse " + std::to_string(swap[i]->inuse) + " != used slots " + std::to_string(inuse);
    }
    return err.str();
}

const char* vmName(Vm v)
{
    switch (v) {
    case Vm::PgFault: return "pgfault";
    case Vm::PgMajFault: return "pgmajfault";
    case Vm::PgAlloc: return "pgalloc";
    case Vm::PgFree: return "pgfree";
    case Vm::PswpIn: return "pswpin";
    case Vm::PswpOut: return "pswpout";
    case Vm::SwapRa: return "swap_ra";
    case Vm::PgScanKswapd: return "pgscan_kswapd";
    case Vm::PgScanDirect: return "pgscan_direct";
    case Vm::PgSteal: return "pgsteal";
    case Vm::PgLazyFreed: return "pglazyfreed";
    case Vm::PgActivate: return "pgactivate";
    case Vm::PgDeactivate: return "pgdeactivate";
    case Vm::PgRotated: return "pgrotated";
    case Vm::AllocStall: return "allocstall";
    case Vm::IsolateThrottle: return "too_many_isolated_waits";
    case Vm::KswapdWakeup: return "kswapd_wakeup";
    case Vm::TlbLocalFlush: return "tlb_local_flush";
    case Vm::TlbRemoteIpi: return "tlb_remote_ipi";
    case Vm::ZapSwapEntries: return "zap_swap_entries";
    case Vm::SwapSlotsRefill: return "swap_slots_refill";
    case Vm::SwapFreeEntriesCalls: return "swapcache_free_entries_calls";
    case Vm::SwapFreeEntriesSlots: return "swapcache_free_entries_slots";
    case Vm::SwapFreeEntriesPs: return "swapcache_free_entries_ps";
    case Vm::RmapUnmap: return "rmap_unmap";
    case Vm::CompactStall: return "compact_stall";
    case Vm::CompactSuccess: return "compact_success";
    case Vm::CompactFail: return "compact_fail";
    case Vm::CompactIsolated: return "compact_isolated";
    case Vm::PgMigrateSuccess: return "pgmigrate_success";
    case Vm::PgMigrateFail: return "pgmigrate_fail";
    case Vm::ThpFaultAlloc: return "thp_fault_alloc";
    case Vm::ThpFaultFallback: return "thp_fault_fallback";
    case Vm::CompactAbortResched: return "compact_abort_resched";
    case Vm::CompactAbortZoneLock: return "compact_abort_zone_lock";
    case Vm::CompactAbortLruLock: return "compact_abort_lru_lock";
    case Vm::CompactSyncStall: return "compact_sync_stall";
    case Vm::MigrateUnmappedRmapWalks: return "migrate_unmapped_rmap_walks";
    case Vm::MigrateUnmappedRmapNs: return "migrate_unmapped_rmap_ns";
    case Vm::MigrateRmapWalks: return "migrate_rmap_walks";
    case Vm::MigrateRmapVmas: return "migrate_rmap_vmas";
    case Vm::RmapPmdWalks: return "rmap_pmd_walks";
    case Vm::Count: break;
    }
    return "?";
}

} // namespace mms
