// mm/migrate.c (3.x), page-cache pages, MIGRATE_ASYNC:
//
//   migrate_pages
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

    Co<Rc> __unmap_and_move(Mm& k, Task& t, Pfn page, Pfn newpage)
    {
        FnScope fn(t, "__unmap_and_move");
        AddressSpace& m = mappingOf(k, page);
        // trylock_page(); MIGRATE_ASYNC does not wait for a locked page.
        Sched::burn(t, k.cost.lockedRmwNs);
        if (k.pages.test(page, PG_locked))
            co_return Rc::Again;
        k.pages.set(page, PG_locked);
        k.pages.setFlags(newpage, PG_locked); // __SetPageLocked(newpage) in move_to_new_page

        bool pageWasMapped = false;
        // The walks of a page no one maps, timed waits included: what the patch saves (vmstat migrate_unmapped_rmap_ns).
        const bool unmapped = !page_mapped(k, page);
        Time start = k.s.sim().now() + t.debt;
        std::uint32_t visited = 0;
        if (!k.tg.skipUnmapped) {
            // Before 2ebba6b7e1d9: try_to_unmap() whatever the page's state -- for an unmapped page-cache page
            // that is an i_mmap lock round-trip that stops after the first covering VMA (!page_mapped).
            co_await try_to_unmap(k, t, page, TTU_MIGRATION | TTU_IGNORE_ACCESS, nullptr, &visited);
            noteWalk(k, visited);
            if (unmapped)
                noteUnmappedWalk(k, t, start);
        } else if (page_mapped(k, page)) {
            co_await try_to_unmap(k, t, page, TTU_MIGRATION | TTU_IGNORE_ACCESS, nullptr, &visited);
            noteWalk(k, visited);
            pageWasMapped = true;
        }
        bool moved = false;
        if (!page_mapped(k, page)) { // move_to_new_page() only once every PTE is a migration entry
            FnScope mv(t, "move_to_new_page");
            moved = co_await migrate_page_move_mapping(k, t, m, newpage, page);
            if (moved)
                migrate_page_copy(k, t, newpage, page);
            if (!k.tg.skipUnmapped || pageWasMapped) { // the old page's PTEs back if the move failed
                start = k.s.sim().now() + t.debt;
                // For an unmapped page this walk visits every VMA that covers its index: each a pmd walk and a
                // ptl round trip, all under the i_mmap lock.
                visited = co_await remove_migration_ptes(k, t, page, moved ? newpage : page);
                noteWalk(k, visited);
                if (unmapped)
                    noteUnmappedWalk(k, t, start);
            }
        }
        if (!moved) {
            k.pages.setFlags(newpage, 0);
            unlock_page(k, t, m, page);
            co_return Rc::Again;
        }
        unlock_page(k, t, m, newpage);
        k.pages.clear(page, PG_locked);
        co_return Rc::Success;
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
    for (; i < cc.migratepages.size(); ++i) {
        Pfn page = cc.migratepages[i];
        // unmap_and_move(): get_new_page = compaction_alloc().
        if (cc.freepages.empty())
            co_await isolate_freepages(k, t, cc);
        if (cc.freepages.empty())
            break; // -ENOMEM: the rest goes back
        Pfn newpage = cc.freepages.back();
        cc.freepages.pop_back();
        Rc rc = co_await __unmap_and_move(k, t, page, newpage);
        if (rc == Rc::Success) {
            // The new page goes on the LRU, the old one (its last reference dropped) to the free lists.
            k.pages.setMapcount(page, 0);
            k.pages.setFlags(page, 0);
            k.pages.setOwner(page, 0);
            co_await putback_lru_page(k, t, newpage);
            co_await free_hot_cold_page(k, t, page);
            k.vm.inc(Vm::PgMigrateSuccess);
            ++cc.nrMigrated;
        } else {
            cc.freepages.push_back(newpage);
            co_await putback_lru_page(k, t, page);
            k.vm.inc(Vm::PgMigrateFail);
            ++failed;
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
