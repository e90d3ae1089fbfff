#include "mm/zbud.h"

#include "mm/mm.h"
#include "mm/page_alloc.h"

namespace mms {

namespace {
    // Bookkeeping under pool->lock, cycles at the preset's clock (GUESS, no published figure: list heads read and a
    // few list_add/list_del in cache). zbud_alloc() walks the unbuddied heads from the object's chunk count up (at
    // most 64 reads of adjacent heads); zbud_free() and each page zbud_reclaim_page() takes are a few list moves.
    constexpr double kAllocCycles = 150;
    constexpr double kFreeCycles = 100;
    constexpr double kReclaimPageCycles = 100;
    constexpr int kEnospc = 28, kEnomem = 12, kEinval = 22, kEagain = 11;

    std::uint8_t sizeToChunks(std::uint32_t size)
    {
        return static_cast<std::uint8_t>((size + ZBUD_CHUNK_SIZE - 1) / ZBUD_CHUNK_SIZE);
    }
} // namespace

ZbudPool::ZbudPool(Mm& k, const std::string& name)
    : m_k(k)
    , m_lock(name + " zbud_pool.lock")
{
}

template <ZbudPool::Links ZbudPool::Page::*links>
void ZbudPool::listAdd(List& l, std::uint32_t id)
{
    m_pages[id].*links = { kNone, l.head };
    if (l.head != kNone)
        (m_pages[l.head].*links).prev = id;
    else
        l.tail = id;
    l.head = id;
}

template <ZbudPool::Links ZbudPool::Page::*links>
void ZbudPool::listDel(List& l, std::uint32_t id)
{
    const Links k = m_pages[id].*links;
    (k.prev != kNone ? (m_pages[k.prev].*links).next : l.head) = k.next;
    (k.next != kNone ? (m_pages[k.next].*links).prev : l.tail) = k.prev;
    m_pages[id].*links = {};
}

void ZbudPool::buddyAdd(std::uint32_t id, int list)
{
    m_pages[id].list = list;
    listAdd<&Page::buddy>(m_lists[static_cast<std::size_t>(list)], id);
}

void ZbudPool::buddyDel(std::uint32_t id)
{
    Page& p = m_pages[id];
    if (p.list < 0)
        return;
    listDel<&Page::buddy>(m_lists[static_cast<std::size_t>(p.list)], id);
    p.list = -1;
}

void ZbudPool::lruAdd(std::uint32_t id)
{
    m_pages[id].onLru = true;
    listAdd<&Page::lru>(m_lru, id);
}

void ZbudPool::lruDel(std::uint32_t id)
{
    if (!m_pages[id].onLru)
        return;
    listDel<&Page::lru>(m_lru, id);
    m_pages[id].onLru = false;
}

void ZbudPool::relist(std::uint32_t id)
{
    const Page& p = m_pages[id];
    buddyAdd(id, p.firstChunks == 0 || p.lastChunks == 0 ? numFreeChunks(p) : kBuddied);
}

Co<> ZbudPool::freePage(Task& t, std::uint32_t id)
{
    const Pfn pfn = m_pages[id].pfn;
    m_pages[id] = Page {};
    m_freeIds.push_back(id);
    --m_pagesNr;
    co_await free_hot_cold_page(m_k, t, pfn);
}

Co<int> ZbudPool::zbud_alloc(Task& t, std::uint32_t size, Handle& handle)
{
    FnScope fn(t, "zbud_alloc");
    if (size == 0)
        co_return -kEinval;
    if (size > ZBUD_MAX_SIZE)
        co_return -kEnospc;
    const std::uint8_t chunks = sizeToChunks(size);
    co_await spin_lock(m_k.s, t, m_lock);
    Sched::burn(t, kAllocCycles / m_k.cost.clockGHz);
    std::uint32_t id = kNone;
    int bud = 0;
    for (std::uint32_t i = chunks; i < ZBUD_NCHUNKS; ++i) { // for_each_unbuddied_list(i, chunks)
        if (m_lists[i].head != kNone) {
            id = m_lists[i].head;
            buddyDel(id);
            bud = m_pages[id].firstChunks == 0 ? 0 : 1;
            break;
        }
    }
    if (id == kNone) {
        // Couldn't find an unbuddied page: a new one, allocated outside the lock.
        spin_unlock(m_k.s, t, m_lock);
        const Pfn pfn = co_await alloc_page_memalloc(m_k, t);
        if (pfn == kNoPage)
            co_return -kEnomem;
        co_await spin_lock(m_k.s, t, m_lock);
        if (!m_freeIds.empty()) {
            id = m_freeIds.back();
            m_freeIds.pop_back();
        } else {
            id = static_cast<std::uint32_t>(m_pages.size());
            m_pages.emplace_back();
        }
        m_pages[id] = Page {};
        m_pages[id].pfn = pfn;
        ++m_pagesNr;
    }
    Page& p = m_pages[id];
    (bud == 0 ? p.firstChunks : p.lastChunks) = chunks;
    relist(id);
    lruDel(id); // add or move to the LRU's head
    lruAdd(id);
    handle = encode(id, bud);
    spin_unlock(m_k.s, t, m_lock);
    co_return 0;
}

Co<> ZbudPool::zbud_free(Task& t, Handle handle)
{
    FnScope fn(t, "zbud_free");
    co_await spin_lock(m_k.s, t, m_lock);
    Sched::burn(t, kFreeCycles / m_k.cost.clockGHz);
    const std::uint32_t id = pageOf(handle);
    Page& p = m_pages[id];
    (budOf(handle) == 0 ? p.firstChunks : p.lastChunks) = 0;
    if (p.underReclaim) { // zbud_reclaim_page() frees it once both buddies are gone
        spin_unlock(m_k.s, t, m_lock);
        co_return;
    }
    buddyDel(id);
    const bool empty = p.firstChunks == 0 && p.lastChunks == 0;
    if (empty)
        lruDel(id);
    else
        relist(id);
    spin_unlock(m_k.s, t, m_lock);
    if (empty)
        co_await freePage(t, id);
}

Co<int> ZbudPool::zbud_reclaim_page(Task& t, unsigned retries, const Evict& evict)
{
    FnScope fn(t, "zbud_reclaim_page");
    co_await spin_lock(m_k.s, t, m_lock);
    if (m_lru.tail == kNone || retries == 0) {
        spin_unlock(m_k.s, t, m_lock);
        co_return -kEinval;
    }
    for (unsigned i = 0; i < retries && m_lru.tail != kNone; ++i) {
        Sched::burn(t, kReclaimPageCycles / m_k.cost.clockGHz);
        const std::uint32_t id = m_lru.tail;
        lruDel(id);
        buddyDel(id);
        m_pages[id].underReclaim = true; // protects the page against zbud_free()
        // The handles are encoded before the lock is dropped: a free may clear a buddy meanwhile.
        const Handle first = m_pages[id].firstChunks ? encode(id, 0) : 0;
        const Handle last = m_pages[id].lastChunks ? encode(id, 1) : 0;
        spin_unlock(m_k.s, t, m_lock);
        if (!first || co_await evict(t, first) == 0)
            if (last)
                co_await evict(t, last);
        co_await spin_lock(m_k.s, t, m_lock);
        Page& p = m_pages[id];
        p.underReclaim = false;
        if (p.firstChunks == 0 && p.lastChunks == 0) { // both buddies evicted: free the page
            spin_unlock(m_k.s, t, m_lock);
            co_await freePage(t, id);
            co_return 0;
        }
        relist(id);
        lruAdd(id);
    }
    spin_unlock(m_k.s, t, m_lock);
    co_return -kEagain;
}

} // namespace mms
