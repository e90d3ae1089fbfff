#pragma once
// mm/zbud.c (3.11-4.1): the allocator zswap stores compressed pages in. A zbud page holds at most two objects
// ("buddies"), the first after the page's header chunk and the last at the page's end, sized in chunks of
// PAGE_SIZE / 64 = 64 bytes. One spinlock (pool->lock) guards every list of the pool: the unbuddied lists, one per
// count of free chunks, of pages with one buddy; the buddied list; and the LRU of pages by the latest buddy added.
// zbud_alloc() takes the first page on the unbuddied list of the smallest free-chunk count that fits, else a new
// page from the page allocator (outside the lock). zbud_reclaim_page() is how the pool shrinks from below: it takes
// the LRU's oldest page and has its user evict each buddy (zswap writes it back to the swap device), up to `retries`
// pages. The pool's pages count against RAM (alloc_page_memalloc: the callers are reclaimers).

#include "mm/page.h"
#include "sim/co.h"
#include "sync/lockstat.h"
#include "sync/spinlock.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mms {

class Mm;
struct Task;

constexpr std::uint32_t ZBUD_CHUNK_SIZE = 64; // PAGE_SIZE >> CHUNK_SHIFT (NCHUNKS_ORDER 6)
constexpr std::uint32_t ZBUD_NCHUNKS = 64; // PAGE_SIZE >> CHUNK_SHIFT
// The largest object: PAGE_SIZE - ZHDR_SIZE_ALIGNED - CHUNK_SIZE; a larger one is -ENOSPC.
constexpr std::uint32_t ZBUD_MAX_SIZE = 4096 - 2 * ZBUD_CHUNK_SIZE;

class ZbudPool {
public:
    // (page id << 1 | buddy) + 1: 0 names no object.
    using Handle = std::uint32_t;
    // The pool's user's eviction (zbud_ops->evict, zswap_writeback_entry): 0 once it has freed the handle
    // (zbud_free), else an error and the object stays.
    using Evict = std::function<Co<int>(Task&, Handle)>;

    ZbudPool(Mm& k, const std::string& name);

    // zbud_alloc(): 0 with `handle` set; -ENOSPC for an object larger than ZBUD_MAX_SIZE; -ENOMEM when a new
    // page was needed and none could be had.
    Co<int> zbud_alloc(Task& t, std::uint32_t size, Handle& handle);
    Co<> zbud_free(Task& t, Handle handle);
    // zbud_reclaim_page(): 0 once a page has been emptied and freed; -EINVAL with nothing to evict; -EAGAIN after
    // `retries` pages that kept a buddy.
    Co<int> zbud_reclaim_page(Task& t, unsigned retries, const Evict& evict);

    // What the object's user wrote at its start and reads back on eviction (zswap's header: the swap entry).
    void setTag(Handle h, std::uint32_t tag) { m_pages[pageOf(h)].tag[budOf(h)] = tag; }
    std::uint32_t tag(Handle h) const { return m_pages[pageOf(h)].tag[budOf(h)]; }
    // zbud_get_pool_size(): the pool's pages.
    std::uint64_t pagesNr() const { return m_pagesNr; }
    const LockStat& lockStat() const { return m_lock.stat(); }

private:
    static constexpr std::uint32_t kNone = ~0u;
    static constexpr int kBuddied = ZBUD_NCHUNKS; // the list index of the buddied list, after the unbuddied ones
    struct Links {
        std::uint32_t prev = kNone, next = kNone;
    };
    struct Page {
        Pfn pfn = kNoPage;
        std::uint8_t firstChunks = 0, lastChunks = 0; // 0: that buddy is free
        bool underReclaim = false;
        int list = -1; // the buddy list it is on: unbuddied[i], kBuddied, or -1
        bool onLru = false;
        Links buddy, lru;
        std::array<std::uint32_t, 2> tag {};
    };
    struct List {
        std::uint32_t head = kNone, tail = kNone;
    };
    static std::uint32_t pageOf(Handle h) { return (h - 1) >> 1; }
    static int budOf(Handle h) { return static_cast<int>((h - 1) & 1); }
    static Handle encode(std::uint32_t id, int bud) { return ((id << 1) | static_cast<std::uint32_t>(bud)) + 1; }
    int numFreeChunks(const Page& p) const { return static_cast<int>(ZBUD_NCHUNKS) - p.firstChunks - p.lastChunks - 1; }
    // list_add() at the head and list_del() through a page's `links` (buddy or lru).
    template <Links Page::*links>
    void listAdd(List& l, std::uint32_t id);
    template <Links Page::*links>
    void listDel(List& l, std::uint32_t id);
    // The buddy and LRU lists, which also keep the page's record of where it is.
    void buddyAdd(std::uint32_t id, int list);
    void buddyDel(std::uint32_t id);
    void lruAdd(std::uint32_t id);
    void lruDel(std::uint32_t id);
    // The page back on the buddy list its chunks say (unbuddied by free chunks, or buddied).
    void relist(std::uint32_t id);
    // free_zbud_page(): the page back to the allocator (called outside the lock here; the kernel frees it under
    // pool->lock with __free_page, which takes no lock of the pool's).
    Co<> freePage(Task& t, std::uint32_t id);

    Mm& m_k;
    SpinLock m_lock; // pool->lock
    std::vector<Page> m_pages; // by id; ids of freed pages are reused
    std::vector<std::uint32_t> m_freeIds;
    std::array<List, ZBUD_NCHUNKS + 1> m_lists {}; // unbuddied[0..NCHUNKS-1], then buddied
    List m_lru {};
    std::uint64_t m_pagesNr = 0;
};

} // namespace mms
