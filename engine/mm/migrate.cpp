// mm/migrate.c (3.x), page-cache pages, MIGRATE_ASYNC:
//
//   migrate_pages                   (6.3, migrate.batch_flush: every page unmapped, one TLB flush, then every move)
//     unmap_and_move                  newpage = compaction_alloc()
//       __unmap_and_move
//         trylock_page                async: a locked page is skipped (-EAGAIN)
//         try_to_unmap(TTU_MIGRATION) rmap_walk_file under the i_mmap lock -- always before 2ebba6b7e1d9; with
//                                     migrate.skip_unmapped only if page_mapped() (page_was_mapped = 1)
//         move_to_new_page
//           migrate_page_move_mapping spin_lock_irq(&mapping->tree_lock), page_freeze_refs, radix_tree_replace_slot
//           migrate_page_copy         the 4 KiB copy, flags
//           remove_migration_ptes     rmap_walk_file under the i_mmap lock again -- always before the patch; with
//                                     it only if page_was_mapped
//         unlock_page
//       putback_lru_page(newpage), free the old page
//
// Anonymous pages are not isolated by this model's compaction (their anon_vma path is not built); the workloads
// that compact have no anonymous pages on the LRU.
#include "mm/compaction.h"
#include "mm/filemap.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/swap.h"

namespace mms {

namespace {
    enum class Rc : std::uint8_t { Success, Again, NoMem };

    AddressSpace& mappingOf(Mm& k, Pfn p) { return *k.mappings[k.pages.owner(p) - 1u]; }

    // migrate_page_move_mapping(): swap the page-cache slot to the new page unless someone holds a reference.
    Co<bool> migrate_page_move_mapping(Mm& k, Task& t, AddressSpace& m, Pfn newpage, Pfn page)
    {
        FnScope fn(t, "migrate_page_move_mapping");
        co_await spin_lock(k.s, t, m.i_pages); // mapping->tree_lock
        Sched::burn(t, k.cost.lockedRmwNs + 3 * k.cost.pteOpNs); // radix_tree_lookup_slot, page_freeze_refs cmpxchg
        if (k.isPinned(page)) { // expected_count != page_count: a reader holds it
            spin_unlock(k.s, t, m.i_pages);
            co_return false;
        }
        std::uint64_t index = k.pages.index(page);
        m.pages[index] = newpage; // radix_tree_replace_slot
        k.pages.setOwner(newpage, k.pages.owner(page));
        k.pages.setIndex(newpage, static_cast<std::uint32_t>(index));
        if (!k.pageMemcg.empty())
            k.pageMemcg[newpage] = k.pageMemcg[page]; // mem_cgroup_migrate(): the charge, hence the lruvec, moves
        Sched::burn(t, k.cost.swapCacheOpNs * 0.5 + 2 * k.cost.lockedRmwNs); // replace, unfreeze, zone stats
        spin_unlock(k.s, t, m.i_pages);
        co_return true;
    }

    // migrate_page_copy(): the data and the flags.
    void migrate_page_copy(Mm& k, Task& t, Pfn newpage, Pfn page)
    {
        FnScope fn(t, "migrate_page_copy");
        k.burnStream(t, newpage, k.cost.copyPageNs * k.memCostJitter);
        constexpr std::uint16_t kCopied = PG_referenced | PG_active | PG_unevictable | PG_dirty;
        k.pages.set(newpage, static_cast<std::uint16_t>(k.pages.flags(page) & kCopied));
        k.pages.clear(page, kCopied);
        Sched::burn(t, 4 * k.cost.lockedRmwNs); // the flag copies are atomic bitops
    }

    void noteUnmappedWalk(Mm& k, const Task& t, Time start)
    {
        // in ns, rounded per walk (half a ns at most against a walk's hundreds)
        k.vm.inc(Vm::MigrateUnmappedRmapNs, static_cast<std::uint64_t>((k.s.sim().now() + t.debt - start + 500) / 1000));
        k.vm.inc(Vm::MigrateUnmappedRmapWalks);
    }

    void noteWalk(Mm& k, std::uint32_t visited)
    {
        k.vm.inc(Vm::MigrateRmapWalks);
        k.vm.inc(Vm::MigrateRmapVmas, visited);
    }

    // What __unmap_and_move()'s unmap half leaves for its move half.
    struct Unmapped {
        Pfn page = kNoPage, newpage = kNoPage;
        bool pageWasMapped = false;
        bool unmapped = false; // no PTE mapped the page when migration began
    };

    // The unmap half of __unmap_and_move() (migrate_folio_unmap() from 6.3): lock the page and replace its PTEs by
    // migration entries. With `batch`, the TLB flushes of the cleared PTEs wait for the caller's try_to_unmap_flush()
    // (TTU_BATCH_FLUSH, 7e12beb8ca2a). Rc::Again for a locked page (MIGRATE_ASYNC does not wait for it).
    Co<Rc> migrate_folio_unmap(Mm& k, Task& t, Unmapped& u, TlbflushUnmapBatch* batch)
    {
        // trylock_page(); MIGRATE_ASYNC does not wait for a locked page.
        Sched::burn(t, k.cost.lockedRmwNs);
        if (k.pages.test(u.page, PG_locked))
            co_return Rc::Again;
        k.pages.set(u.page, PG_locked);
        k.pages.setFlags(u.newpage, PG_locked); // __SetPageLocked(newpage) in move_to_new_page

        const unsigned flags = TTU_MIGRATION | TTU_IGNORE_ACCESS | (batch ? TTU_BATCH_FLUSH : 0u);
        // The walks of a page no one maps, timed waits included: what the patch saves (vmstat migrate_unmapped_rmap_ns).
        u.unmapped = !page_mapped(k, u.page);
        Time start = k.s.sim().now() + t.debt;
        std::uint32_t visited = 0;
        if (!k.tg.skipUnmapped) {
            // Before 2ebba6b7e1d9: try_to_unmap() whatever the page's state -- for an unmapped page-cache page
            // that is an i_mmap lock round-trip that stops after the first covering VMA (!page_mapped).
            co_await try_to_unmap(k, t, u.page, flags, batch, &visited);
            noteWalk(k, visited);
            if (u.unmapped)
                noteUnmappedWalk(k, t, start);
        } else if (page_mapped(k, u.page)) {
            co_await try_to_unmap(k, t, u.page, flags, batch, &visited);
            noteWalk(k, visited);
            u.pageWasMapped = true;
        }
        co_return Rc::Success;
    }

    // The move half (migrate_folio_move() from 6.3): once no PTE maps the page, move it to the new one in the page
    // cache and copy it, then restore the PTEs (to the new page, or to the old one if the move failed).
    Co<Rc> migrate_folio_move(Mm& k, Task& t, const Unmapped& u)
    {
        AddressSpace& m = mappingOf(k, u.page);
        bool moved = false;
        if (!page_mapped(k, u.page)) { // move_to_new_page() only once every PTE is a migration entry
            FnScope mv(t, "move_to_new_page");
            moved = co_await migrate_page_move_mapping(k, t, m, u.newpage, u.page);
            if (moved)
                migrate_page_copy(k, t, u.newpage, u.page);
            if (!k.tg.skipUnmapped || u.pageWasMapped) { // the old page's PTEs back if the move failed
                const Time start = k.s.sim().now() + t.debt;
                // For an unmapped page this walk visits every VMA that covers its index: each a pmd walk and a
                // ptl round trip, all under the i_mmap lock.
                const std::uint32_t visited = co_await remove_migration_ptes(k, t, u.page, moved ? u.newpage : u.page);
                noteWalk(k, visited);
                if (u.unmapped)
                    noteUnmappedWalk(k, t, start);
            }
        }
        if (!moved) {
            k.pages.setFlags(u.newpage, 0);
            unlock_page(k, t, m, u.page);
            co_return Rc::Again;
        }
        unlock_page(k, t, m, u.newpage);
        k.pages.clear(u.page, PG_locked);
        co_return Rc::Success;
    }

    // unmap_and_move()'s end: the new page goes on the LRU and the old one (its last reference dropped) to the free
    // lists; or, failed, the old page back on the LRU and the new one back to the compaction's free list.
    Co<> migrateDone(Mm& k, Task& t, CompactControl& cc, const Unmapped& u, Rc rc, std::uint64_t& failed)
    {
        if (rc == Rc::Success) {
            k.pages.setMapcount(u.page, 0);
            k.pages.setFlags(u.page, 0);
            k.pages.setOwner(u.page, 0);
            co_await putback_lru_page(k, t, u.newpage);
            co_await free_hot_cold_page(k, t, u.page);
            k.vm.inc(Vm::PgMigrateSuccess);
            ++cc.nrMigrated;
        } else {
            cc.freepages.push_back(u.newpage);
            co_await putback_lru_page(k, t, u.page);
            k.vm.inc(Vm::PgMigrateFail);
            ++failed;
        }
    }

    // compaction_alloc(), migrate_pages()' get_new_page: a free page the free scanner isolated, scanning for more when
    // none is left; kNoPage when it finds none.
    Co<Pfn> compaction_alloc(Mm& k, Task& t, CompactControl& cc)
    {
        if (cc.freepages.empty())
            co_await isolate_freepages(k, t, cc);
        if (cc.freepages.empty())
            co_return kNoPage;
        const Pfn p = cc.freepages.back();
        cc.freepages.pop_back();
        co_return p;
    }
} // namespace

Co<> putback_lru_page(Mm& k, Task& t, Pfn p)
{
    k.pages.clear(p, PG_isolated);
    co_await lru_cache_add(k, t, p, k.pages.test(p, PG_active));
}

Co<std::uint64_t> migrate_pages(Mm& k, Task& t, CompactControl& cc)
{
    FnScope fn(t, "migrate_pages");
    std::uint64_t failed = 0;
    std::size_t i = 0;
    if (k.tg.migrateBatchFlush) {
        // migrate_pages_batch() (7e12beb8ca2a, 6.3): unmap every page of the batch with the TLB flushes deferred,
        // one try_to_unmap_flush(), then move them. (compaction's batches are COMPACT_CLUSTER_MAX pages, well under
        // NR_MAX_BATCHED_MIGRATION.)
        std::vector<Unmapped> unmapped;
        TlbflushUnmapBatch tlb_ubc;
        for (; i < cc.migratepages.size(); ++i) {
            const Pfn newpage = co_await compaction_alloc(k, t, cc);
            if (newpage == kNoPage)
                break; // -ENOMEM: the rest goes back
            Unmapped u { cc.migratepages[i], newpage };
            FnScope um(t, "migrate_folio_unmap");
            if (co_await migrate_folio_unmap(k, t, u, &tlb_ubc) == Rc::Success)
                unmapped.push_back(u);
            else
                co_await migrateDone(k, t, cc, u, Rc::Again, failed);
        }
        co_await try_to_unmap_flush(k, t, tlb_ubc);
        for (const Unmapped& u : unmapped) {
            Rc rc;
            {
                FnScope mv(t, "migrate_folio_move");
                rc = co_await migrate_folio_move(k, t, u);
            }
            co_await migrateDone(k, t, cc, u, rc, failed);
        }
    } else {
        for (; i < cc.migratepages.size(); ++i) {
            // unmap_and_move()
            const Pfn newpage = co_await compaction_alloc(k, t, cc);
            if (newpage == kNoPage)
                break; // -ENOMEM: the rest goes back
            Unmapped u { cc.migratepages[i], newpage };
            Rc rc;
            {
                FnScope um(t, "__unmap_and_move");
                rc = co_await migrate_folio_unmap(k, t, u, nullptr);
                if (rc == Rc::Success)
                    rc = co_await migrate_folio_move(k, t, u);
            }
            co_await migrateDone(k, t, cc, u, rc, failed);
        }
    }
    for (; i < cc.migratepages.size(); ++i) { // putback_movable_pages()
        co_await putback_lru_page(k, t, cc.migratepages[i]);
        ++failed;
    }
    cc.migratepages.clear();
    cc.nrFailed += failed;
    co_return failed;
}

} // namespace mms
