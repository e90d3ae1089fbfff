#pragma once
// mm/zswap.c and mm/frontswap.c (4.0): a compressed cache in front of every swap device. swap_writepage() first
// offers the page to zswap (frontswap_store): it compresses the page on the CPU (a per-CPU transform: no lock, no
// waiting for another writer), stores the result with an 8-byte header (the swap entry) in a zbud page
// (mm/zbud.h) and records the slot in its per-device tree under tree->lock; the page is then written, clean, and
// reclaim frees it at once -- the device is never touched. swap_readpage() first asks zswap (frontswap_load): a
// stored slot is decompressed into the page in the faulting task and stays stored until its swap entry is freed
// (frontswap_invalidate_page from swap_entry_free()). A page zswap will not take goes to the device as before: one
// that compresses to more than a zbud object can hold (zswap_reject_compress_poor), or one that finds no page for
// zbud (reject_alloc_fail). When the pool has reached max_pool_percent of RAM, a store first has zbud evict its
// least recently used page: each object on it is decompressed into a new swap-cache page, which is written to the
// device (zswap_writeback_entry); if no page could be emptied the store is rejected (reject_reclaim_fail). From
// 4.14 (zswap.same_filled) a page of one repeated word is kept as that word in its entry: no compression, no zbud
// object.
//
// Not modelled: the later zswap (docs/presets.md, "zswap"); whichever release enables it, this is the zswap that
// runs.

#include "mm/page.h"
#include "mm/zbud.h"
#include "mm/zswap_config.h"
#include "sim/co.h"
#include "sim/pagecontent.h"
#include "sync/lockstat.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <vector>

namespace mms {

class Mm;
struct Task;

// One slot's entry in a device's tree (struct zswap_entry): its zbud object and compressed length, or (zswap's
// same-filled pages) no object: the page is one repeated word, kept in the entry.
struct ZswapEntry {
    static constexpr ZbudPool::Handle kSameFilled = ~0u; // `handle` of an entry that holds its page's word
    ZbudPool::Handle handle = 0; // 0: the slot is not in zswap
    std::uint16_t length = 0; // the compressed bytes, without the header (0 for a same-filled page)
    bool sameFilled() const { return handle == kSameFilled; }
};

// The debugfs counters (/sys/kernel/debug/zswap), and the peaks the model keeps of its levels.
struct ZswapStats {
    std::uint64_t poolLimitHit = 0, rejectReclaimFail = 0, rejectAllocFail = 0;
    std::uint64_t rejectCompressPoor = 0, writtenBackPages = 0, duplicateEntry = 0;
    std::uint64_t storedPages = 0, maxStoredPages = 0, maxPoolPages = 0;
    std::uint64_t sameFilledPages = 0, maxSameFilledPages = 0; // zswap_same_filled_pages (4.14+)
    std::uint64_t stores = 0, loads = 0; // frontswap's succ_stores and loads
};

class Zswap {
public:
    // zswap_frontswap_init() for each of `k`'s swap devices, sized by their slots.
    Zswap(Mm& k, const ZswapConfig& cfg);

    // frontswap_store() of page `p` (locked, in the swap cache, unmapped): true when zswap holds it now.
    Co<bool> frontswap_store(Task& t, Pfn p);
    // frontswap_load() into page `p` (locked, in the swap cache): true when zswap held the slot; the page then
    // holds its data and is unlocked.
    Co<bool> frontswap_load(Task& t, Pfn p);
    // frontswap_invalidate_page(): the slot's swap entry was freed (called under the lock that guards the slot).
    Co<> frontswap_invalidate_page(Task& t, int type, std::uint32_t off);

    bool stored(int type, std::uint32_t off) const { return m_trees[static_cast<std::size_t>(type)].entries[off].handle != 0; }
    const ZswapStats& stats() const { return m_stats; }
    std::uint64_t poolPages() const { return m_pool.pagesNr(); }
    void lockStats(LockStats& out) const;
    // Host bytes of the trees per swap slot, for the run's memory estimate.
    static constexpr std::uint64_t kBytesPerSlot = sizeof(ZswapEntry);

private:
    struct Tree {
        explicit Tree(int type);
        SpinLock lock; // zswap_tree->lock
        std::vector<ZswapEntry> entries; // the rb-tree, by offset
        std::uint64_t nr = 0; // entries held: the tree's depth is log2 of it
    };
    // zswap_is_full(): the pool holds more than max_pool_percent of RAM.
    bool isFull() const;
    // An rb-tree insert, search or erase among the tree's entries (charged, under tree->lock).
    void rbOp(Task& t, const Tree& tree) const;
    // zswap_is_page_same_filled() of a page of `content` (charged: the words read).
    bool zswap_is_page_same_filled(Task& t, PageContent content) const;
    // zswap_free_entry(): the object back to zbud, the entry to its slab cache.
    Co<> freeEntry(Task& t, ZswapEntry e);
    // zswap_writeback_entry(), zbud's eviction callback.
    Co<int> writebackEntry(Task& t, ZbudPool::Handle h);
    void notePeaks();

    Mm& m_k;
    ZswapConfig m_cfg;
    ZbudPool m_pool;
    ZbudPool::Evict m_evict; // writebackEntry(), for zbud_reclaim_page()
    std::vector<Tree> m_trees; // by swap type
    ZswapStats m_stats;
};

} // namespace mms
