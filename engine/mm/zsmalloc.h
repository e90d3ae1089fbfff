#pragma once
// mm/zsmalloc.c (4.0): the allocator zram stores compressed pages in. Objects of up to PAGE_SIZE bytes go to one of
// 255 size classes (ZS_MIN_ALLOC_SIZE 32 bytes, then every ZS_SIZE_CLASS_DELTA = 16 bytes up to PAGE_SIZE); a class
// carves zspages of up to ZS_MAX_PAGES_PER_ZSPAGE = 4 order-0 pages into objects of its size, with the page count
// that wastes least (get_pages_per_zspage). Each class has its own spinlock (class->lock) up to 6.1 and one pool
// lock from 6.2 (zsmalloc.lock), which zs_map_object() takes too. The pool's pages come from the page allocator as reclaim allocates (PF_MEMALLOC,
// mm/page_alloc.h alloc_page_memalloc): they count against RAM, and a zspage whose last object is freed goes back.
//
// Not modelled: merging classes of equal shape (3.19), compaction (4.1), the per-object handle (4.1+ adds
// ZS_HANDLE_SIZE, 8 bytes, to each object, at most one class up).

#include "block/zram_config.h"
#include "block/zram_drv.h"
#include "mm/page.h"
#include "sync/spinlock.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mms {

class Mm;

constexpr std::uint32_t ZS_MIN_ALLOC_SIZE = 32;
constexpr std::uint32_t ZS_MAX_ALLOC_SIZE = 4096; // PAGE_SIZE
constexpr std::uint32_t ZS_SIZE_CLASS_DELTA = 16; // PAGE_SIZE >> 8
constexpr std::uint32_t ZS_SIZE_CLASSES = (ZS_MAX_ALLOC_SIZE - ZS_MIN_ALLOC_SIZE) / ZS_SIZE_CLASS_DELTA + 1; // 255
constexpr int ZS_MAX_PAGES_PER_ZSPAGE = 4; // 1 << ZS_MAX_ZSPAGE_ORDER (2)

// get_size_class_index(): the class of an object of `size` bytes.
inline std::uint32_t get_size_class_index(std::uint32_t size)
{
    std::uint32_t idx = size > ZS_MIN_ALLOC_SIZE ? (size - ZS_MIN_ALLOC_SIZE + ZS_SIZE_CLASS_DELTA - 1) / ZS_SIZE_CLASS_DELTA : 0;
    return idx < ZS_SIZE_CLASSES ? idx : ZS_SIZE_CLASSES - 1;
}
// get_pages_per_zspage(): of 1..4 pages, the count whose tail waste is the smallest share (the first of equals).
int get_pages_per_zspage(std::uint32_t classSize);

class ZsPoolAllocator final : public ZsPool {
public:
    // The pool of zram device `device` ("zram0"), allocating its pages from `k`.
    ZsPoolAllocator(Mm& k, const ZramConfig& cfg, const std::string& device);

    Co<std::uint32_t> zs_malloc(Task& t, std::uint32_t size) override;
    Co<> zs_free(Task& t, std::uint32_t handle) override;
    Co<> zs_map_object(Task& t, std::uint32_t handle, std::uint32_t bytes) override;
    std::uint64_t zs_get_total_pages() const override { return m_pagesAllocated; }
    void lockStats(LockStats& out) const override;

    std::uint64_t objects() const { return m_objects; }

private:
    struct SizeClass {
        std::uint32_t size = 0;
        int pagesPerZspage = 1;
        int objsPerZspage = 1;
        std::vector<std::uint32_t> partial; // zspages with a free object (ZS_ALMOST_FULL/EMPTY), newest last
    };
    struct ZsPage {
        std::array<Pfn, ZS_MAX_PAGES_PER_ZSPAGE> pages {};
        std::uint16_t cls = 0;
        std::uint16_t inuse = 0;
        std::uint16_t carved = 0; // objects handed out once (the free list beyond them is untouched)
        bool onPartial = false;
        std::vector<std::uint16_t> freed; // objects freed, reused first
    };
    SpinLock& classLock(std::uint32_t cls) { return m_cfg.zsLock == ZsLock::Pool ? m_poolLock : m_locks[cls]; }
    // alloc_zspage(): the class's page count of order-0 pages, outside the lock; the zspage's id + 1, 0 on failure.
    Co<std::uint32_t> alloc_zspage(Task& t, std::uint32_t cls);
    Co<> free_zspage(Task& t, std::uint32_t id);

    Mm& m_k;
    ZramConfig m_cfg;
    std::vector<SizeClass> m_classes;
    std::unique_ptr<SpinLock[]> m_locks; // size_class->lock, one per class
    SpinLock m_poolLock; // pool->lock (6.2+)
    std::vector<ZsPage> m_zspages;
    std::vector<std::uint32_t> m_freeIds;
    std::uint64_t m_pagesAllocated = 0; // pool->pages_allocated
    std::uint64_t m_objects = 0;
};

} // namespace mms
