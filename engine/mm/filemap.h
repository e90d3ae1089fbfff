#pragma once
// The page cache (mm/filemap.c, 5.6): address spaces whose pages live in an index -> page array (the xarray) under
// the mapping's i_pages lock, and the buffered read path of a sparse file (no I/O: holes are zero-filled). Its
// readahead is in readahead.h, mark_page_accessed() in swap.h.
//
// A file page: owner = mapping id + 1, index = page offset in the file, PG_anon and PG_swapbacked clear. A page is
// in its mapping from add_to_page_cache_lru() until __remove_mapping() (reclaim) takes it out.

#include "mm/fastpath.h"
#include "mm/immaplist.h"
#include "mm/page.h"
#include "mm/toggles.h"
#include "sim/co.h"
#include "sim/podvector.h"
#include "sync/mutex.h"
#include "sync/rwsem.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace mms {

class Mm;
struct Task;
struct MmStruct;
struct Vma;

constexpr int VM_READAHEAD_PAGES = 32; // read_ahead_kb 128 (include/linux/mm.h: VM_READAHEAD_PAGES)

// A VMA that maps part of a file, as the mapping's i_mmap tree holds it (vma->vm_mm, vm_start, vm_pgoff): virtual
// page `start + i` maps file page `pgoff + i` for i < pages.
struct FileVma {
    MmStruct* mm = nullptr;
    std::uint32_t start = 0;
    std::uint32_t pages = 0;
    std::uint64_t pgoff = 0;
    bool covers(std::uint64_t index) const { return index >= pgoff && index < pgoff + pages; }
    std::uint32_t vpnOf(std::uint64_t index) const { return start + static_cast<std::uint32_t>(index - pgoff); }
};

// The fixed costs of the buffered read path in picoseconds, converted from the machine's CostModel once per
// address space: a streaming read pays about a dozen of them per page, and ns() of each was a tenth of the host
// time. Each is ns() of exactly the expression the path charges, so the sums are the picoseconds that charging
// them one at a time adds up to.
struct FilemapCosts {
    Time xarrayWalk = 0; // xas_load(): ~3 levels of 64-slot nodes, one dependent load each (3 x pteOpNs)
    Time lockedRmw = 0; // one atomic on struct page (get/put_page, Set/ClearPage*, unlock_page)
    Time memcgCharge = 0; // mem_cgroup_try_charge + commit (2 x lockedRmwNs)
    Time xaStore = 0; // xas_store + __inc_node_page_state(NR_FILE_PAGES) (swapCacheOpNs)
    Time pageAlloc = 0; // rmqueue_pcplist(): a page off the per-CPU list (pageAllocNs)
};

struct AddressSpace {
    std::uint16_t id = 0; // page owner id is id + 1
    FilemapCosts costs;
    std::uint64_t sizePages = 0; // i_size in pages (a sparse file: every page a hole)
    SpinLock i_pages { "mapping->i_pages" }; // xa_lock of the page-cache xarray
    PodVector<Pfn> pages; // the xarray: index -> page, kNoPage if absent (grown on demand)
    PodVector<std::uint8_t> readahead; // PG_readahead by index: the page that triggers the next async window
    // lru.workingset: the shadow entries evicted pages leave in the xarray, by index: the lruvec's inactive_age that
    // the eviction advanced it to (at least 1); 0 where there is none. Grown on eviction, like `pages`.
    PodVector<std::uint64_t> shadows;
    std::uint64_t nrpages = 0; // changed only by Mm::mappingPageAdded() and mappingPageRemoved()
    bool unevictable = false; // AS_UNEVICTABLE (ramfs, SHM_LOCK): never set by the workloads here
    // Tasks sleeping in wait_on_page_locked() on one of this mapping's pages (a hashed page wait queue).
    std::vector<std::pair<Task*, std::uint32_t>> pageWaiters;
    // The file's VMAs (the i_mmap interval tree) and the lock rmap walks and vma_link take: the i_mmap_lock spinlock
    // until 2.6.39, i_mmap_mutex until 3.18, i_mmap_rwsem since (i_mmap.lock). Only the one the toggle names is used.
    IMmapList<FileVma> i_mmap;
    IMmapLock i_mmap_kind = IMmapLock::Mutex;
    SpinLock i_mmap_lock { "mapping->i_mmap_lock" };
    Mutex i_mmap_mutex { "mapping->i_mmap_mutex" };
    RwSem i_mmap_rwsem { "mapping->i_mmap_rwsem" };

    Pfn lookup(std::uint64_t index) const { return index < pages.size() ? pages[index] : kNoPage; }
};

// Creates an address space of `sizePages` pages (a truncated, i.e. fully sparse, file).
AddressSpace& new_address_space(Mm& k, std::uint64_t sizePages);

// find_get_page(): RCU xarray lookup and page_cache_get_speculative(). Returns kNoPage on a miss; on a hit the page
// is pinned (the caller's reference) and must be released with put_page().
Pfn find_get_page(Mm& k, Task& t, AddressSpace& m, std::uint64_t index);
void put_page(Mm& k, Task& t, Pfn p);
// generic_file_buffered_read() of one 4 KiB page at `index` into a user buffer. Returns false past EOF.
// A coroutine only when the page is not cached yet, starts readahead, is locked or gets activated.
ValueOrCo<bool> generic_file_buffered_read(Mm& k, Task& t, AddressSpace& m, std::uint64_t index);
// Its common case alone, as a plain call for a reader's loop: true if the page was read exactly as
// generic_file_buffered_read() reads it (cached, unlocked, nothing to wait for); false, having changed nothing,
// when the caller must await generic_file_buffered_read() instead.
bool generic_file_read_cached(Mm& k, Task& t, AddressSpace& m, std::uint64_t index);
// generic_file_read_cached() of pages index, index + 1, ... (at most `nr`), for a reader whose loop has no event
// between its reads: per page, unless the reader's time has reached `end` (0: no limit), the page is read and the
// reader's own charges around the read (`each`, e.g. its read() and write() syscalls) are charged. Stops at the
// first page that is not read that way, and returns the number read; the pages after it are untouched.
std::uint64_t generic_file_read_cached_run(
    Mm& k, Task& t, AddressSpace& m, std::uint64_t index, std::uint64_t nr, Time each, Time end);
// unlock_page() of a page-cache page: clear PG_locked and wake the tasks waiting on it.
void unlock_page(Mm& k, Task& t, Pfn p);
// The same, for a page whose mapping the caller already has (page migration unlocks the new page before its owner is
// looked up again).
void unlock_page(Mm& k, Task& t, AddressSpace& m, Pfn p);
// __remove_mapping() for a clean, unmapped page-cache page that reclaim has isolated and locked: under i_pages, take
// it out of the mapping unless someone else holds a reference. Returns true if the page may be freed. Unlocks the
// page (and wakes its waiters) either way.
Co<bool> remove_mapping(Mm& k, Task& t, Pfn p);
// generic_perform_write() of `nr` pages from `index`: each page not cached is allocated and added to the page cache
// (grab_cache_page_write_begin; __GFP_NORETRY like readahead, so short of memory fewer are added), then each is
// copied from the user buffer (copy_from_user).
Co<> generic_perform_write(Mm& k, Task& t, AddressSpace& m, std::uint64_t index, std::uint64_t nr);
// filemap_fault(): the page at `index`, pinned and locked, read around the fault on a miss (do_sync_mmap_readahead)
// and the next window started on a PG_readahead hit (do_async_mmap_readahead). kNoPage: VM_FAULT_OOM for a killed
// task.
Co<Pfn> filemap_fault(Mm& k, Task& t, AddressSpace& m, std::uint64_t index);
// filemap_map_pages() over the VMA's virtual pages [from, to): map, under one PTE lock, the cached, unlocked pages
// whose PTE is none and that do not start a readahead window.
Co<> filemap_map_pages(Mm& k, Task& t, MmStruct& mm, const Vma& v, std::uint32_t from, std::uint32_t to);
// truncate.cpp: truncate_inode_pages_range() of pages [start, end): off the LRU, out of the page cache, freed. A page
// someone else holds (isolated by reclaim or compaction, in a pagevec, locked, referenced) stays cached.
Co<> truncate_inode_pages_range(Mm& k, Task& t, AddressSpace& m, std::uint64_t start, std::uint64_t end);
// prefill.cpp, set-up (no simulated time): a machine that has been running a while. kswapd0 runs; every page of
// `files` is cached, in random frames; the rest of memory is the page cache of older files of `oldFilePages` pages
// each, but for `freeFraction` of the frames, left free where reclaim freed them. `contiguous`: an older file's pages
// lie in consecutive frames (written in one go), else in random frames. Throws std::length_error when the older files
// would need more ids than a page's 16-bit owner holds.
void fill_page_cache(Mm& k, const std::vector<AddressSpace*>& files, std::uint64_t oldFilePages,
    double freeFraction, bool contiguous, std::uint64_t seed);

} // namespace mms
