#pragma once
// drivers/block/zram/zram_drv.c: a compressed RAM disk under swap. zram_rw_page() runs in the caller: a swap-out
// (zram_bvec_write) takes a compression stream (block/zcomp.h), checks for a zero (or, with zram.same_filled, a
// same-filled) page, which stores no object, only a flag; otherwise it compresses, allocates the object from
// zsmalloc (ZsPool, implemented by mm/zsmalloc.h), copies it in and releases the stream. A swap-in
// (zram_bvec_read) maps the object and decompresses it into the page. Freeing a slot
// (zram_slot_free_notify) frees its object. Nothing here queues or sleeps on I/O: every step is CPU time of the
// task that swaps.
//
// zram knows pages by their content only (sim/pagecontent.h), the bytes it would read.

#include "block/zcomp.h"
#include "block/zram_config.h"
#include "sched/sched.h"
#include "sim/pagecontent.h"
#include "sync/lockstat.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mms {

// What zram_drv.c calls of zsmalloc (include/linux/zsmalloc.h). Handles are never 0; 0 is a failed allocation.
class ZsPool {
public:
    virtual ~ZsPool() = default;
    // zs_malloc(): an object of `size` bytes; 0 when no zspage had room and a new one could not be allocated.
    virtual Co<std::uint32_t> zs_malloc(Task& t, std::uint32_t size) = 0;
    virtual Co<> zs_free(Task& t, std::uint32_t handle) = 0;
    // zs_map_object() and zs_unmap_object() around a copy of `bytes` into or out of the object: the per-CPU
    // mapping area, and an extra copy of an object that straddles two pages (and, from 6.2, the pool's lock).
    virtual Co<> zs_map_object(Task& t, std::uint32_t handle, std::uint32_t bytes) = 0;
    // zs_get_total_pages(): the pool's pages, bytes of RAM / PAGE_SIZE.
    virtual std::uint64_t zs_get_total_pages() const = 0;
    // The pool's locks for lockstat (those taken at least once).
    virtual void lockStats(LockStats& out) const = 0;
};

// One slot's entry of zram's table (struct zram_table_entry): the object, its size and flags.
struct ZramTableEntry {
    std::uint32_t handle = 0;
    std::uint16_t size = 0; // compressed bytes; PAGE_SIZE (4096) for a page stored raw
    std::uint8_t flags = 0; // kZramSame: a zero or same-filled page, no object
    PageContent content = PageContent::Zero; // what the page held (the bytes a read gives back)
};
constexpr std::uint8_t kZramSame = 1; // ZRAM_ZERO (4.0), ZRAM_SAME (8e19d540d107)

// /sys/block/zramN/mm_stat and io_stat.
struct ZramStats {
    std::uint64_t numReads = 0, numWrites = 0, failedWrites = 0;
    std::uint64_t pagesStored = 0; // pages_stored: slots holding a page (an object or a flag)
    std::uint64_t maxPagesStored = 0; // the most pages_stored has been
    std::uint64_t samePages = 0; // zero_pages / same_pages
    std::uint64_t comprDataSize = 0; // bytes of objects
    std::uint64_t maxUsedPages = 0; // mem_used_max: the pool's peak, pages
    std::uint64_t notifyFree = 0;
};

class ZramDevice {
public:
    // `index`: the N of zramN. `slots`: the disk's size in pages (disksize).
    ZramDevice(Sched& s, const ZramConfig& cfg, int index, std::uint32_t slots, std::unique_ptr<ZsPool> pool);

    // zram_rw_page(WRITE) of a page of `content` to slot `index`: 0, or -ENOMEM when zs_malloc() failed (the
    // caller's page stays as it was).
    Co<int> zram_bvec_write(Task& t, std::uint32_t index, PageContent content);
    // zram_rw_page(READ): decompresses slot `index` into the caller's page; returns what the page now holds (zeros
    // for a slot never written).
    Co<PageContent> zram_bvec_read(Task& t, std::uint32_t index);
    // swap_slot_free_notify: the slot's object is freed.
    Co<> zram_slot_free_notify(Task& t, std::uint32_t index);

    const ZramStats& stats() const { return m_stats; }
    std::uint64_t poolPages() const { return m_pool->zs_get_total_pages(); }
    const std::string& name() const { return m_name; }
    const ZramTableEntry& entry(std::uint32_t index) const { return m_table[index]; }
    void lockStats(LockStats& out) const;

private:
    // zram_free_page(): the slot's object back to the pool, its flags and stats cleared.
    Co<> zram_free_page(Task& t, std::uint32_t index);
    // The zero check (page_zero_filled, 4.0) or same-filled check (page_same_filled): true when the page needs no
    // object. Charges the scan.
    bool page_same_filled(Task& t, PageContent content);

    Sched& m_s;
    ZramConfig m_cfg;
    std::string m_name;
    Zcomp m_comp;
    std::unique_ptr<ZsPool> m_pool;
    std::vector<ZramTableEntry> m_table;
    ZramStats m_stats;
    int m_statsLine = -1; // the CPU that last wrote zram->stats (atomic64 counters on shared lines)
};

} // namespace mms
