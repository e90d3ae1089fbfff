#include "mm/zsmalloc.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"

#include <algorithm>

namespace mms {

namespace {
    // The bookkeeping costs, cycles at the preset's clock (GUESS: no published figure; a few hundred instructions
    // each, most of them list and counter updates in cache). zs_malloc() under the class lock: find_get_zspage(),
    // obj_malloc() (pop the free list, set the handle) and fix_fullness_group(). zs_free(): obj_free() and
    // fix_fullness_group(). init_zspage(): a link_free written into every object, plus the per-page set-up.
    // zs_map_object()/zs_unmap_object(): get_cpu_var(zs_map_area), kmap_atomic(), the address arithmetic.
    constexpr double kMallocCycles = 500;
    constexpr double kFreeCycles = 400;
    constexpr double kInitPageCycles = 200;
    constexpr double kInitObjCycles = 5;
    constexpr double kMapCycles = 100;
    constexpr unsigned kObjBits = 9; // objects of a zspage: at most 4 pages of 32 bytes, 512
    constexpr std::uint32_t kMaxZspages = (1u << (32 - kObjBits)) - 1; // ids that leave handle + 1 within 32 bits

    std::uint32_t makeHandle(std::uint32_t id, std::uint32_t obj) { return ((id << kObjBits) | obj) + 1; }
    std::uint32_t handleId(std::uint32_t h) { return (h - 1) >> kObjBits; }
    std::uint32_t handleObj(std::uint32_t h) { return (h - 1) & ((1u << kObjBits) - 1); }
} // namespace

int get_pages_per_zspage(std::uint32_t classSize)
{
    int best = 1;
    std::uint32_t bestUsed = 0;
    for (int i = 1; i <= ZS_MAX_PAGES_PER_ZSPAGE; ++i) {
        const std::uint32_t zspageSize = static_cast<std::uint32_t>(i) * ZS_MAX_ALLOC_SIZE;
        const std::uint32_t waste = zspageSize % classSize;
        const std::uint32_t usedPercentage = (zspageSize - waste) * 100 / zspageSize;
        if (usedPercentage > bestUsed) {
            bestUsed = usedPercentage;
            best = i;
        }
    }
    return best;
}

ZsPoolAllocator::ZsPoolAllocator(Mm& k, const ZramConfig& cfg, const std::string& device)
    : m_k(k)
    , m_cfg(cfg)
    , m_classes(ZS_SIZE_CLASSES)
    , m_locks(new SpinLock[ZS_SIZE_CLASSES])
    , m_poolLock(device + " zs_pool.lock")
{
    for (std::uint32_t i = 0; i < ZS_SIZE_CLASSES; ++i) {
        SizeClass& c = m_classes[i];
        c.size = std::min(ZS_MIN_ALLOC_SIZE + i * ZS_SIZE_CLASS_DELTA, ZS_MAX_ALLOC_SIZE);
        c.pagesPerZspage = get_pages_per_zspage(c.size);
        c.objsPerZspage = static_cast<int>(static_cast<std::uint32_t>(c.pagesPerZspage) * ZS_MAX_ALLOC_SIZE / c.size);
        m_locks[i].setName(device + " size_class[" + std::to_string(i) + "].lock");
    }
}

Co<std::uint32_t> ZsPoolAllocator::alloc_zspage(Task& t, std::uint32_t cls)
{
    const SizeClass& c = m_classes[cls];
    if (m_zspages.size() >= kMaxZspages && m_freeIds.empty())
        co_return 0; // beyond what a 32-bit handle names here (2^23 zspages, 32 GiB of pool at the least)
    std::array<Pfn, ZS_MAX_PAGES_PER_ZSPAGE> pages {};
    pages.fill(kNoPage);
    for (int i = 0; i < c.pagesPerZspage; ++i) {
        pages[static_cast<std::size_t>(i)] = co_await alloc_page_memalloc(m_k, t);
        if (pages[static_cast<std::size_t>(i)] == kNoPage) {
            for (int j = 0; j < i; ++j) // free_zspage() of the part allocated
                co_await free_hot_cold_page(m_k, t, pages[static_cast<std::size_t>(j)]);
            co_return 0;
        }
        Sched::burn(t, (kInitPageCycles + kInitObjCycles * c.objsPerZspage / c.pagesPerZspage) / m_k.cost.clockGHz);
    }
    std::uint32_t id;
    if (!m_freeIds.empty()) {
        id = m_freeIds.back();
        m_freeIds.pop_back();
    } else {
        id = static_cast<std::uint32_t>(m_zspages.size());
        m_zspages.emplace_back();
    }
    ZsPage& z = m_zspages[id];
    z = ZsPage {};
    z.pages = pages;
    z.cls = static_cast<std::uint16_t>(cls);
    m_pagesAllocated += static_cast<std::uint64_t>(c.pagesPerZspage);
    co_return id + 1;
}

Co<std::uint32_t> ZsPoolAllocator::zs_malloc(Task& t, std::uint32_t size)
{
    FnScope fn(t, "zs_malloc");
    const std::uint32_t cls = get_size_class_index(size);
    SizeClass& c = m_classes[cls];
    SpinLock& lock = classLock(cls);
    co_await spin_lock(m_k.s, t, lock);
    Sched::burn(t, kMallocCycles / m_k.cost.clockGHz);
    if (c.partial.empty()) {
        // No zspage with room: drop the lock, alloc_zspage(), take the lock again (4.0 zs_malloc).
        spin_unlock(m_k.s, t, lock);
        const std::uint32_t id1 = co_await alloc_zspage(t, cls);
        if (!id1)
            co_return 0;
        co_await spin_lock(m_k.s, t, lock);
        m_zspages[id1 - 1].onPartial = true;
        c.partial.push_back(id1 - 1);
    }
    const std::uint32_t id = c.partial.back();
    ZsPage& z = m_zspages[id];
    std::uint32_t obj;
    if (!z.freed.empty()) {
        obj = z.freed.back();
        z.freed.pop_back();
    } else {
        obj = z.carved++;
    }
    if (++z.inuse == c.objsPerZspage) { // ZS_FULL: off the partial lists
        c.partial.pop_back();
        z.onPartial = false;
    }
    ++m_objects;
    spin_unlock(m_k.s, t, lock);
    co_return makeHandle(id, obj);
}

Co<> ZsPoolAllocator::free_zspage(Task& t, std::uint32_t id)
{
    ZsPage& z = m_zspages[id];
    const int n = m_classes[z.cls].pagesPerZspage;
    const std::array<Pfn, ZS_MAX_PAGES_PER_ZSPAGE> pages = z.pages;
    m_pagesAllocated -= static_cast<std::uint64_t>(n);
    z = ZsPage {};
    m_freeIds.push_back(id);
    for (int i = 0; i < n; ++i)
        co_await free_hot_cold_page(m_k, t, pages[static_cast<std::size_t>(i)]);
}

Co<> ZsPoolAllocator::zs_free(Task& t, std::uint32_t handle)
{
    FnScope fn(t, "zs_free");
    const std::uint32_t id = handleId(handle);
    const std::uint32_t cls = m_zspages[id].cls;
    SizeClass& c = m_classes[cls];
    SpinLock& lock = classLock(cls);
    co_await spin_lock(m_k.s, t, lock);
    Sched::burn(t, kFreeCycles / m_k.cost.clockGHz);
    ZsPage& z = m_zspages[id];
    z.freed.push_back(static_cast<std::uint16_t>(handleObj(handle)));
    --z.inuse;
    --m_objects;
    bool empty = z.inuse == 0;
    if (empty && z.onPartial) {
        auto it = std::find(c.partial.begin(), c.partial.end(), id);
        c.partial.erase(it); // remove_zspage(): ZS_EMPTY
    } else if (!empty && !z.onPartial) {
        z.onPartial = true; // ZS_FULL -> ZS_ALMOST_FULL
        c.partial.push_back(id);
    }
    spin_unlock(m_k.s, t, lock);
    if (empty)
        co_await free_zspage(t, id); // outside the lock (4.0 zs_free)
}

Co<> ZsPoolAllocator::zs_map_object(Task& t, std::uint32_t handle, std::uint32_t bytes)
{
    // 6.2 (c0547d0b6a4b): the handle is turned into its zspage under pool->lock, which is held until
    // migrate_read_lock(zspage) (an atomic on the zspage's lock) pins the zspage. Before it the same look-up runs
    // under read_lock(&pool->migrate_lock) (5.17; pin_tag() on the handle before), which readers share: no wait,
    // and its line's traffic is not modelled.
    if (m_cfg.zsLock == ZsLock::Pool) {
        co_await spin_lock(m_k.s, t, m_poolLock);
        Sched::burn(t, m_k.cost.lockedRmwNs); // migrate_read_lock()
        spin_unlock(m_k.s, t, m_poolLock);
    }
    // An object that crosses a page boundary is copied through the per-CPU buffer (__zs_map_object() on a read,
    // __zs_unmap_object() after a write): its bytes move twice.
    const std::uint32_t size = m_classes[m_zspages[handleId(handle)].cls].size;
    const std::uint32_t offset = handleObj(handle) * size % ZS_MAX_ALLOC_SIZE;
    const bool straddles = offset + size > ZS_MAX_ALLOC_SIZE;
    Sched::burn(t, 2 * kMapCycles / m_k.cost.clockGHz); // map and unmap
    const double moved = static_cast<double>(bytes) * (straddles ? 2.0 : 1.0);
    m_k.s.burnLocalTransfer(t, moved);
}

void ZsPoolAllocator::lockStats(LockStats& out) const
{
    if (m_cfg.zsLock == ZsLock::Pool) {
        if (m_poolLock.stat().acquisitions)
            out.push_back(&m_poolLock.stat());
        return;
    }
    for (std::uint32_t i = 0; i < ZS_SIZE_CLASSES; ++i)
        if (m_locks[i].stat().acquisitions)
            out.push_back(&m_locks[i].stat());
}

} // namespace mms
