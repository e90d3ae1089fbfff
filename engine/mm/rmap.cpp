// mm/rmap.c (5.6), the file half: rmap_walk_file over the mapping's i_mmap tree, page_referenced_one and
// try_to_unmap_one, and the batched TLB flush reclaim uses (mm/rmap.c's tlbflush_unmap_batch, 4.3+).
//
//   try_to_unmap(page, flags)
//     rmap_walk_file                  i_mmap_lock_read (mutex: mutex_lock), vma_interval_tree_foreach
//       try_to_unmap_one              page_vma_mapped_walk: pte_offset_map_lock (ptl), pte maps this page?
//                                     young and !TTU_IGNORE_ACCESS -> fail; ptep_get_and_clear (+ flush, or
//                                     set_tlb_ubc_flush_pending), migration entry if TTU_MIGRATION,
//                                     dec_mm_counter(MM_FILEPAGES), page_remove_rmap, put_page
//     i_mmap_unlock_read
//
//   remove_migration_ptes(old, new)   (mm/migrate.c, 3.x)
//     rmap_walk_file                  i_mmap_lock_read, vma_interval_tree_foreach: every VMA covering the index
//       remove_migration_pte          mm_find_pmd (pgd, pud, pmd), pte_offset_map, spin_lock(ptl) -- 3.x takes the
//                                     ptl before it looks ("we can race mremap's move_ptes"), so a VMA that never
//                                     mapped the page costs the walk and a ptl round trip -- is_swap_pte? unlock
//
// try_to_unmap_one's page_check_address (3.x; page_vma_mapped_walk's map_pte in 4.13+) looks at the PTE before it
// takes the ptl: a PTE that is not present costs the pmd walk only.
#include "mm/rmap.h"

#include "mm/mm.h"
#include "mm/tlb.h"

#include <algorithm>
#include <bit>

namespace mms {

namespace {
    struct UnmapArg {
        unsigned flags;
        TlbflushUnmapBatch* batch;
        bool failed = false;
    };

    bool page_not_mapped(const Mm& k, Pfn p) { return !page_mapped(k, p); }

    // mm_find_pmd(): the pgd, pud and pmd entries of another process's page tables, three dependent loads of lines
    // that the CPU running that mm wrote (its faults, fork, exec); a line last written on this CPU is a hit. An mm
    // no CPU has run since its last flush (mm_cpumask empty) has its lines in memory: a remote-socket fetch.
    // Every process in the model has faulted in each file it maps, so the pmd is present.
    void mm_find_pmd(Mm& k, Task& t, const MmStruct& mm)
    {
        const auto& mask = mm.cpuVmMask;
        auto it = std::find(mask.begin(), mask.end(), std::uint8_t { 1 });
        double load = it == mask.end() ? k.cost.lineCrossSocketNs
                                       : k.s.lineTransferNs(static_cast<int>(it - mask.begin()), t.cpu);
        Sched::burn(t, 3 * (k.cost.pteOpNs + load));
        k.vm.inc(Vm::RmapPmdWalks);
    }

    // page_referenced_one()'s work under the ptl: test and clear the young bit of the PTE at `vpn` if it maps the
    // page. Releases the ptl.
    void page_referenced_pte(Mm& k, Task& t, Pfn p, MmStruct& mm, std::uint32_t vpn, SpinLock& ptl, int& referenced)
    {
        Pte e = mm.pte[vpn];
        Sched::burn(t, k.cost.pteOpNs);
        if (pte::present(e) && pte::pfn(e) == p && pte::young(e)) {
            mm.pte[vpn] = e & ~pte::kYoung; // ptep_clear_flush_young: no flush on x86 since 3.18
            ++referenced;
        }
        spin_unlock(k.s, t, ptl);
    }

    // page_referenced_one(): test and clear the young bit of the PTE at `vpn` if it maps the page.
    Co<bool> page_referenced_one(Mm& k, Task& t, Pfn p, const FileVma& vma, std::uint32_t vpn, void* arg)
    {
        MmStruct& mm = *vma.mm;
        SpinLock& ptl = mm.ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        page_referenced_pte(k, t, p, mm, vpn, ptl, *static_cast<int*>(arg));
        co_return true;
    }

    // page_referenced_one() when the ptl is granted at once (SpinLock::Acquire's await_ready fast path; a refused
    // await_ready changes nothing).
    int page_referenced_one_now(Mm& k, Task& t, Pfn p, const FileVma& vma, std::uint32_t vpn, void* arg)
    {
        MmStruct& mm = *vma.mm;
        SpinLock& ptl = mm.ptlFor(vpn);
        SpinLock::Acquire acquire = spin_lock(k.s, t, ptl);
        if (!acquire.await_ready())
            return -1;
        page_referenced_pte(k, t, p, mm, vpn, ptl, *static_cast<int*>(arg));
        return 1;
    }

    // try_to_unmap_one()'s work under the ptl before the TLB flush. NotMapped and Young release the ptl (the walk
    // goes on, or ends); Cleared leaves it held with the PTE cleared and its old value in `e`.
    enum class UnmapStep : std::uint8_t { NotMapped, Young, Cleared };

    UnmapStep unmap_pte(Mm& k, Task& t, Pfn p, MmStruct& mm, std::uint32_t vpn, UnmapArg& ua, SpinLock& ptl, Pte& e)
    {
        e = mm.pte[vpn];
        Sched::burn(t, k.cost.pteOpNs); // page_vma_mapped_walk: check_pte
        if (!pte::present(e) || pte::pfn(e) != p) {
            spin_unlock(k.s, t, ptl);
            return UnmapStep::NotMapped; // this VMA does not map the page (not faulted in, or already unmapped)
        }
        if (!(ua.flags & TTU_IGNORE_ACCESS) && pte::young(e)) {
            // ptep_clear_flush_young_notify(): used since the last scan, keep it mapped; the walk ends.
            mm.pte[vpn] = e & ~pte::kYoung;
            spin_unlock(k.s, t, ptl);
            ua.failed = true;
            return UnmapStep::Young;
        }
        mm.pte[vpn] = (ua.flags & TTU_MIGRATION) ? pte::mkMigration(p) : 0;
        return UnmapStep::Cleared;
    }

    bool batches_flush(const UnmapArg& ua) { return ua.batch && (ua.flags & TTU_BATCH_FLUSH); }

    // set_tlb_ubc_flush_pending(): remember the mm; the stale TLB entries are flushed before the page is freed.
    void set_tlb_ubc_flush_pending(TlbflushUnmapBatch& batch, MmStruct& mm)
    {
        if (std::find(batch.mms.begin(), batch.mms.end(), &mm) == batch.mms.end())
            batch.mms.push_back(&mm);
    }

    // try_to_unmap_one() after the flush (or its batching): the page loses this mapping. Releases the ptl.
    void unmap_pte_done(Mm& k, Task& t, Pfn p, MmStruct& mm, Pte e, SpinLock& ptl)
    {
        if (pte::dirty(e))
            k.pages.set(p, PG_dirty); // set_page_dirty
        --mm.fileRss; // dec_mm_counter(mm, MM_FILEPAGES)
        page_remove_file_rmap(k, t, p);
        Sched::burn(t, k.cost.lockedRmwNs); // put_page: the PTE's reference
        k.vm.inc(Vm::RmapUnmap);
        spin_unlock(k.s, t, ptl);
    }

    // try_to_unmap_one() for a file page at `vpn` of one VMA.
    Co<bool> try_to_unmap_one(Mm& k, Task& t, Pfn p, const FileVma& vma, std::uint32_t vpn, void* arg)
    {
        auto& ua = *static_cast<UnmapArg*>(arg);
        MmStruct& mm = *vma.mm;
        mm_find_pmd(k, t, mm);
        if (!pte::present(mm.pte[vpn])) // the look before the lock: nothing mapped here
            co_return true;
        SpinLock& ptl = mm.ptlFor(vpn);
        co_await spin_lock(k.s, t, ptl);
        Pte e = 0;
        UnmapStep step = unmap_pte(k, t, p, mm, vpn, ua, ptl, e);
        if (step != UnmapStep::Cleared)
            co_return step == UnmapStep::NotMapped;
        if (batches_flush(ua))
            set_tlb_ubc_flush_pending(*ua.batch, mm);
        else
            co_await flush_tlb_page(k, t, mm); // ptep_clear_flush: while holding the ptl, like the kernel
        unmap_pte_done(k, t, p, mm, e, ptl);
        co_return true;
    }

    // try_to_unmap_one() when it would not suspend: the flush is batched and the ptl is granted at once.
    int try_to_unmap_one_now(Mm& k, Task& t, Pfn p, const FileVma& vma, std::uint32_t vpn, void* arg)
    {
        auto& ua = *static_cast<UnmapArg*>(arg);
        MmStruct& mm = *vma.mm;
        if (!pte::present(mm.pte[vpn])) { // the look before the lock: nothing mapped here
            mm_find_pmd(k, t, mm);
            return 1;
        }
        if (!batches_flush(ua))
            return -1;
        SpinLock& ptl = mm.ptlFor(vpn);
        SpinLock::Acquire acquire = spin_lock(k.s, t, ptl);
        if (!acquire.await_ready())
            return -1;
        mm_find_pmd(k, t, mm);
        Pte e = 0;
        UnmapStep step = unmap_pte(k, t, p, mm, vpn, ua, ptl, e);
        if (step != UnmapStep::Cleared)
            return step == UnmapStep::NotMapped ? 1 : 0;
        set_tlb_ubc_flush_pending(*ua.batch, mm);
        unmap_pte_done(k, t, p, mm, e, ptl);
        return 1;
    }

    // vma_interval_tree_foreach: the descent of an augmented rbtree of `n` VMAs, one dependent load per level.
    double intervalTreeDescentNs(const CostModel& c, std::size_t n)
    {
        return c.pteOpNs * static_cast<double>(std::bit_width(n + 1));
    }
} // namespace

bool page_mapped(const Mm& k, Pfn p) { return k.pages.mapcount(p) > 0; }

bool page_is_file_cache(const Mm& k, Pfn p)
{
    return k.pages.owner(p) != 0 && !k.pages.test(p, PG_anon | PG_swapbacked | PG_buddy);
}

namespace {
    // spin_lock(&mapping->i_mmap_lock) (before 3.0): a waiter spins, its CPU busy, until the holder lets go.
    Co<> i_mmap_spin_lock(Mm& k, Task& t, AddressSpace& m) { co_await spin_lock(k.s, t, m.i_mmap_lock); }
} // namespace

// The four lock wrappers hand back the lock's own awaitable instead of awaiting it in a frame of their own: one
// coroutine frame fewer per lock and unlock on every rmap walk (two walks a reclaimed mapped page). The unlocks of
// the mutex and the spinlock do not suspend, so theirs is an empty MaybeCo.
Co<> i_mmap_lock_write(Mm& k, Task& t, AddressSpace& m)
{
    if (m.i_mmap_kind == IMmapLock::Spinlock)
        return i_mmap_spin_lock(k, t, m);
    if (m.i_mmap_kind == IMmapLock::Mutex)
        return mutex_lock(k.s, t, m.i_mmap_mutex);
    return m.i_mmap_rwsem.down_write(k.s, t);
}

MaybeCo i_mmap_unlock_write(Mm& k, Task& t, AddressSpace& m)
{
    if (m.i_mmap_kind == IMmapLock::Spinlock) {
        spin_unlock(k.s, t, m.i_mmap_lock);
        return {};
    }
    if (m.i_mmap_kind == IMmapLock::Mutex) {
        mutex_unlock(k.s, t, m.i_mmap_mutex);
        return {};
    }
    return m.i_mmap_rwsem.up_write(k.s, t);
}

Co<> i_mmap_lock_read(Mm& k, Task& t, AddressSpace& m)
{
    if (m.i_mmap_kind == IMmapLock::Spinlock) // before 3.0 every walker took the spinlock
        return i_mmap_spin_lock(k, t, m);
    if (m.i_mmap_kind == IMmapLock::Mutex) // before 3.19 every walker took the mutex
        return mutex_lock(k.s, t, m.i_mmap_mutex);
    return m.i_mmap_rwsem.down_read(k.s, t);
}

MaybeCo i_mmap_unlock_read(Mm& k, Task& t, AddressSpace& m)
{
    if (m.i_mmap_kind != IMmapLock::Rwsem)
        return i_mmap_unlock_write(k, t, m);
    return m.i_mmap_rwsem.up_read(k.s, t);
}

void vma_link_file(AddressSpace& m, const FileVma& vma) { m.i_mmap.push_back(vma); }

Co<> unlink_file_vmas(Mm& k, Task& t, MmStruct& mm)
{
    for (const Vma& v : mm.vmas) {
        if (!v.file)
            continue;
        AddressSpace& m = *v.file;
        co_await i_mmap_lock_write(k, t, m);
        Sched::burn(t, intervalTreeDescentNs(k.cost, m.i_mmap.size()) + k.cost.listOpNs); // vma_interval_tree_remove
        m.i_mmap.erase(&mm, v.start);
        co_await i_mmap_unlock_write(k, t, m);
    }
}

Co<> rmap_walk_file(Mm& k, Task& t, Pfn p, RmapWalkControl& rwc)
{
    FnScope fn(t, "rmap_walk_file");
    AddressSpace& m = *k.mappings[k.pages.owner(p) - 1u];
    std::uint64_t index = k.pages.index(p);
    // i_mmap_lock_read(). Reclaim walks twice per page (page_referenced, try_to_unmap), nearly always without
    // contention on the rwsem: its first step, the flush, is awaited in this frame, and down_read is then a plain
    // call unless it has to wait.
    if (m.i_mmap_kind != IMmapLock::Rwsem) {
        co_await i_mmap_lock_read(k, t, m);
    } else {
        co_await k.s.flush(t);
        co_await m.i_mmap_rwsem.down_read_flushed(k.s, t);
    }
    Sched::burn(t, intervalTreeDescentNs(k.cost, m.i_mmap.size()));
    // The tree is not changed while its lock is held (vma_link and unlink take it for write), so a copy of the
    // covering VMAs is what the kernel's iteration sees.
    // Most files are mapped by a handful of VMAs: the copy lives in the frame unless more cover the page.
    constexpr std::size_t kInline = 4;
    FileVma inlineCopy[kInline];
    std::vector<FileVma> spill;
    std::size_t n = 0;
    for (const FileVma& v : m.i_mmap) {
        if (!v.covers(index))
            continue;
        if (n < kInline)
            inlineCopy[n] = v;
        else
            spill.push_back(v);
        ++n;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const FileVma& v = i < kInline ? inlineCopy[i] : spill[i - kInline];
        Sched::burn(t, k.cost.pteOpNs); // the next node of the interval tree
        ++rwc.visited;
        int more = rwc.rmap_one_now ? rwc.rmap_one_now(k, t, p, v, v.vpnOf(index), rwc.arg) : -1;
        if (more < 0) {
            bool awaited = co_await rwc.rmap_one(k, t, p, v, v.vpnOf(index), rwc.arg);
            more = awaited ? 1 : 0;
        }
        if (!more || (rwc.done && rwc.done(k, p)))
            break;
    }
    if (m.i_mmap_kind != IMmapLock::Rwsem) {
        co_await i_mmap_unlock_read(k, t, m);
    } else { // up_read(), likewise
        co_await k.s.flush(t);
        co_await m.i_mmap_rwsem.up_read_flushed(k.s, t);
    }
}

void page_add_file_rmap(Mm& k, Task& t, Pfn p)
{
    Sched::burn(t, k.cost.rmapOpNs); // atomic_inc_and_test(&page->_mapcount), __inc_node_page_state(NR_FILE_MAPPED)
    k.touchLine(t, p);
    k.pages.setMapcount(p, k.pages.mapcount(p) + 1);
}

void page_remove_file_rmap(Mm& k, Task& t, Pfn p)
{
    Sched::burn(t, k.cost.rmapOpNs); // atomic_add_negative(-1, &page->_mapcount), NR_FILE_MAPPED
    k.touchLine(t, p);
    k.pages.setMapcount(p, k.pages.mapcount(p) - 1);
}

Co<int> page_referenced(Mm& k, Task& t, Pfn p)
{
    if (!page_mapped(k, p) || !page_is_file_cache(k, p))
        co_return 0;
    FnScope fn(t, "page_referenced");
    int referenced = 0;
    RmapWalkControl rwc;
    rwc.arg = &referenced;
    rwc.rmap_one = page_referenced_one;
    rwc.rmap_one_now = page_referenced_one_now;
    co_await rmap_walk_file(k, t, p, rwc);
    co_return referenced;
}

Co<bool> try_to_unmap(Mm& k, Task& t, Pfn p, unsigned flags, TlbflushUnmapBatch* batch, std::uint32_t* visited)
{
    if (!page_is_file_cache(k, p))
        co_return !page_mapped(k, p);
    FnScope fn(t, "try_to_unmap");
    UnmapArg ua { flags, batch };
    RmapWalkControl rwc;
    rwc.arg = &ua;
    rwc.rmap_one = try_to_unmap_one;
    rwc.rmap_one_now = try_to_unmap_one_now;
    rwc.done = page_not_mapped;
    co_await rmap_walk_file(k, t, p, rwc);
    if (visited)
        *visited = rwc.visited;
    co_return !page_mapped(k, p);
}

Co<> try_to_unmap_flush(Mm& k, Task& t, TlbflushUnmapBatch& batch)
{
    if (!batch.flush_required())
        co_return;
    FnScope fn(t, "try_to_unmap_flush");
    // arch_tlbbatch_flush(): flush_tlb_others() to the union of the batched mms' cpumasks, then the local flush.
    std::vector<int> targets;
    for (MmStruct* mm : batch.mms)
        for (int c : k.tlbTargets(*mm, t.cpu))
            if (std::find(targets.begin(), targets.end(), c) == targets.end())
                targets.push_back(c);
    batch.mms.clear();
    Sched::burn(t, k.cost.tlbFlushLocalNs);
    k.vm.inc(Vm::TlbLocalFlush);
    if (targets.empty())
        co_return;
    std::sort(targets.begin(), targets.end());
    for (int c : targets)
        k.s.interrupt(c, k.cost.ipiHandleNs);
    k.vm.inc(Vm::TlbRemoteIpi, targets.size());
    Sched::burnWall(t, ns(k.ipiRoundNs(targets.size()))); // spins for the acks: a PAUSE loop
    co_await k.s.flush(t);
}

Co<> vma_link_file_locked(Mm& k, Task& t, AddressSpace& m, const FileVma& vma)
{
    FnScope fn(t, "vma_link");
    co_await i_mmap_lock_write(k, t, m);
    // vma_interval_tree_insert: the descent, then rebalancing and the augmented subtree ends on the way back.
    Sched::burn(t, 2 * intervalTreeDescentNs(k.cost, m.i_mmap.size()) + k.cost.listOpNs);
    m.i_mmap.push_back(vma);
    co_await i_mmap_unlock_write(k, t, m);
}

namespace {
    struct RemoveArg {
        Pfn oldPage;
        Pfn newPage;
    };

    // remove_migration_pte(): under the ptl, a migration entry for the old page becomes a PTE of the new one.
    Co<bool> remove_migration_pte(Mm& k, Task& t, Pfn p, const FileVma& vma, std::uint32_t vpn, void* arg)
    {
        (void)p;
        auto& ra = *static_cast<RemoveArg*>(arg);
        MmStruct& mm = *vma.mm;
        mm_find_pmd(k, t, mm);
        SpinLock& ptl = mm.ptlFor(vpn); // pte_lockptr: taken before the PTE is looked at
        co_await spin_lock(k.s, t, ptl);
        Pte e = mm.pte[vpn];
        Sched::burn(t, k.cost.pteOpNs);
        if (pte::isMigration(e) && pte::pfn(e) == ra.oldPage) {
            mm.pte[vpn] = pte::mkPresent(ra.newPage, false, true);
            ++mm.fileRss;
            page_add_file_rmap(k, t, ra.newPage);
            Sched::burn(t, k.cost.lockedRmwNs); // get_page for the PTE
        }
        spin_unlock(k.s, t, ptl);
        co_return true; // SWAP_AGAIN: every VMA is visited
    }
} // namespace

Co<std::uint32_t> remove_migration_ptes(Mm& k, Task& t, Pfn oldPage, Pfn newPage)
{
    FnScope fn(t, "remove_migration_ptes");
    RemoveArg ra { oldPage, newPage };
    RmapWalkControl rwc;
    rwc.arg = &ra;
    rwc.rmap_one = remove_migration_pte;
    co_await rmap_walk_file(k, t, newPage, rwc); // newPage now sits at the old one's index of the mapping
    co_return rwc.visited;
}

} // namespace mms
