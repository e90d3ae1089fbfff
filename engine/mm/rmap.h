#pragma once
// mm/rmap.c (5.6), the file half of the reverse map: from a page-cache page to the PTEs that map it, through the
// VMAs on its mapping's i_mmap tree, walked under the mapping's i_mmap lock (i_mmap.lock: i_mmap_mutex as until
// 3.18, or i_mmap_rwsem, which walkers take for read). Reclaim tests and clears young bits with page_referenced()
// and unmaps with try_to_unmap(); page migration walks the same tree with its own rmap_one (migration entries,
// remove_migration_ptes).
//
// Invariants (Mm::checkInvariants): a page's mapcount is the number of present PTEs that map it; a present PTE
// in a file VMA maps the page of that file at pgoff + (vpn - start); a mapped page is in the page cache.

#include "mm/filemap.h"

#include <cstdint>
#include <vector>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

// enum ttu_flags
enum TtuFlags : unsigned {
    TTU_MIGRATION = 1u << 0, // leave a migration entry in the PTE instead of clearing it
    TTU_IGNORE_ACCESS = 1u << 1, // unmap a young PTE too (otherwise a young PTE makes the unmap fail)
    TTU_BATCH_FLUSH = 1u << 2, // defer the TLB flush to try_to_unmap_flush() (reclaim, since 4.3)
};

// struct tlbflush_unmap_batch (4.3): the mms whose PTEs try_to_unmap() cleared under TTU_BATCH_FLUSH; one
// try_to_unmap_flush() then flushes them all with a single IPI round.
struct TlbflushUnmapBatch {
    std::vector<MmStruct*> mms;
    bool flush_required() const { return !mms.empty(); }
};

// struct rmap_walk_control: rmap_one is called for each VMA of the page's mapping that covers the page's index,
// with the virtual page where the page would be mapped (it checks the PTE itself, under the PTE lock); it returns
// false to end the walk. done (optional) is checked after each VMA: true ends the walk.
struct RmapWalkControl {
    void* arg = nullptr;
    Co<bool> (*rmap_one)(Mm& k, Task& t, Pfn p, const FileVma& vma, std::uint32_t vpn, void* arg) = nullptr;
    // Host-side only (optional): rmap_one as a plain call, for when it would not suspend. 1 or 0 is what rmap_one
    // would have returned, with the same effects; -1 means it would suspend, and it has changed nothing: the walk
    // then awaits rmap_one instead.
    int (*rmap_one_now)(Mm& k, Task& t, Pfn p, const FileVma& vma, std::uint32_t vpn, void* arg) = nullptr;
    bool (*done)(const Mm& k, Pfn p) = nullptr;
    std::uint32_t visited = 0; // out: the VMAs rmap_one was called for
};

bool page_mapped(const Mm& k, Pfn p);
// A page-cache page (owned by a mapping, not anonymous, not swap-backed).
bool page_is_file_cache(const Mm& k, Pfn p);

// i_mmap_lock_write / i_mmap_lock_read: the mapping's i_mmap lock, exclusive either way when it is a mutex.
Co<> i_mmap_lock_write(Mm& k, Task& t, AddressSpace& m);
MaybeCo i_mmap_unlock_write(Mm& k, Task& t, AddressSpace& m);
Co<> i_mmap_lock_read(Mm& k, Task& t, AddressSpace& m);
MaybeCo i_mmap_unlock_read(Mm& k, Task& t, AddressSpace& m);

// vma_link() of a file VMA onto its mapping's i_mmap tree (set-up time, no simulated time passes).
void vma_link_file(AddressSpace& m, const FileVma& vma);
// __vma_link_file() in simulated time (mmap, fork's dup_mmap, exec): i_mmap_lock_write, vma_interval_tree_insert,
// unlock.
Co<> vma_link_file_locked(Mm& k, Task& t, AddressSpace& m, const FileVma& vma);
// unlink_file_vma() for every file VMA of `mm` (exit, munmap): i_mmap_lock_write, remove, unlock.
Co<> unlink_file_vmas(Mm& k, Task& t, MmStruct& mm);

// rmap_walk_file(): i_mmap_lock_read, vma_interval_tree_foreach over the VMAs covering the page's index,
// rwc.rmap_one for each, i_mmap_unlock_read. The caller holds the page lock.
Co<> rmap_walk_file(Mm& k, Task& t, Pfn p, RmapWalkControl& rwc);

// page_add_file_rmap() / page_remove_rmap() of a file page: _mapcount and NR_FILE_MAPPED.
void page_add_file_rmap(Mm& k, Task& t, Pfn p);
void page_remove_file_rmap(Mm& k, Task& t, Pfn p);

// page_referenced() of a file page: clears the young bit of every PTE mapping it and returns how many were young.
// An unmapped page returns 0 without a walk (no lock taken), as 5.6 does.
Co<int> page_referenced(Mm& k, Task& t, Pfn p);

// try_to_unmap(): walks the page's mappings, clearing each PTE that maps it (a migration entry with TTU_MIGRATION),
// flushing the TLB (or recording the mm in `batch` with TTU_BATCH_FLUSH), dropping mapcount and MM_FILEPAGES.
// Without TTU_IGNORE_ACCESS a young PTE stops the walk (the page was used again: reclaim activates it). Returns
// true when the page is no longer mapped.
Co<bool> try_to_unmap(Mm& k, Task& t, Pfn p, unsigned flags, TlbflushUnmapBatch* batch = nullptr,
    std::uint32_t* visited = nullptr);
// remove_migration_ptes(old, new) (mm/migrate.c): a second rmap_walk_file over the page's mapping; every
// migration entry for `oldPage` becomes a present PTE of `newPage` (page_add_file_rmap). Before 2ebba6b7e1d9
// page migration called it for every page, mapped or not.
// Returns the VMAs the walk visited.
Co<std::uint32_t> remove_migration_ptes(Mm& k, Task& t, Pfn oldPage, Pfn newPage);
// The anonymous half (mm/rmap_anon.cpp).
// try_to_unmap() of an anonymous page: unmapped (its PTE a swap entry), Discarded (a clean lazily freed page, no
// PTE left), Referenced (young since page_referenced(): left mapped), Redirtied (a lazily freed page on the file list,
// 4.12+, written since MADV_FREE: left mapped, PG_swapbacked set again).
enum class Unmap : std::uint8_t { Done, Discarded, Referenced, Redirtied };
// page_referenced() for an anonymous page: under the anon_vma's rwsem for read (page_lock_anon_vma_read), test and
// clear the young bit of its PTE under the owner's ptl. `held`: the caller has the rwsem already.
Co<bool> page_referenced_anon(Mm& k, Task& t, Pfn p, bool held = false);
// page_referenced_anon() without a coroutine when nothing in it suspends: 0 or 1, else -1 (the trylock failed,
// nothing changed) or -2 (the rwsem is held, the ptl must be awaited: await page_referenced_anon(held = true)).
int page_referenced_anon_now(Mm& k, Task& t, Pfn p);
// try_to_unmap() of an anonymous page mapped once: its PTE becomes its swap entry (or, MADV_FREE'd and clean, none).
Co<Unmap> try_to_unmap_anon(Mm& k, Task& t, Pfn p);

// try_to_unmap_flush(): one local flush and one IPI round to the CPUs any batched mm is live on.
Co<> try_to_unmap_flush(Mm& k, Task& t, TlbflushUnmapBatch& batch);

} // namespace mms
