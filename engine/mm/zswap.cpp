#include "mm/zswap.h"

#include "block/zcomp.h"
#include "mm/memory.h"
#include "mm/mm.h"
#include "mm/page_io.h"

#include <algorithm>
#include <cmath>

namespace mms {

namespace {
    // struct zswap_header: the swap entry written before the compressed data, for zswap_writeback_entry().
    constexpr std::uint32_t kHeaderBytes = 8;
    // One level of an rb-tree walk in cache (GUESS: a compare and a pointer load, ~20 cycles at the preset's clock);
    // insert, search and erase each walk the tree's depth, log2 of its entries.
    constexpr double kRbLevelCycles = 20;
    constexpr int kEexist = 17, kEnomem = 12, kEnospc = 28;
} // namespace

Zswap::Tree::Tree(int type)
    : lock("zswap_trees[" + std::to_string(type) + "].lock")
{
}

Zswap::Zswap(Mm& k, const ZswapConfig& cfg)
    : m_k(k)
    , m_cfg(cfg)
    , m_pool(k, "zswap")
    , m_evict([this](Task& t, ZbudPool::Handle h) { return writebackEntry(t, h); })
{
    m_trees.reserve(k.swap.size());
    for (const auto& si : k.swap) {
        m_trees.emplace_back(si->type);
        m_trees.back().entries.resize(si->nrSlots());
    }
}

bool Zswap::isFull() const
{
    return static_cast<std::uint64_t>(m_k.pages.size()) * static_cast<std::uint64_t>(m_cfg.maxPoolPercent) / 100
        < m_pool.pagesNr();
}

void Zswap::rbOp(Task& t, const Tree& tree) const
{
    const double depth = std::max(1.0, std::ceil(std::log2(static_cast<double>(tree.nr) + 1)));
    Sched::burn(t, depth * kRbLevelCycles / m_k.cost.clockGHz);
}

void Zswap::notePeaks()
{
    m_stats.maxStoredPages = std::max(m_stats.maxStoredPages, m_stats.storedPages);
    m_stats.maxPoolPages = std::max(m_stats.maxPoolPages, m_pool.pagesNr());
}

Co<> Zswap::freeEntry(Task& t, ZswapEntry e)
{
    if (e.sameFilled())
        --m_stats.sameFilledPages;
    else
        co_await m_pool.zbud_free(t, e.handle);
    Sched::burn(t, m_k.cost.lockedRmwNs); // zswap_entry_cache_free(): SLUB's per-CPU fast path
}

bool Zswap::zswap_is_page_same_filled(Task& t, PageContent content) const
{
    return sameFilledScan(m_k.s, t, content == PageContent::Zero || content == PageContent::Same);
}

Co<bool> Zswap::frontswap_store(Task& t, Pfn p)
{
    FnScope fn(t, "zswap_frontswap_store");
    const std::uint32_t swp = m_k.pages.priv(p);
    const int type = static_cast<int>(pte::swpType(swp));
    const std::uint32_t off = pte::swpOffset(swp);
    Tree& tree = m_trees[static_cast<std::size_t>(type)];
    const PageContent content = m_k.pages.content(p);
    bool stored = false;
    int err = 0;
    ZbudPool::Handle handle = 0;
    // Reclaim space if needed: one zbud page written back, or the store is refused.
    if (isFull()) {
        ++m_stats.poolLimitHit;
        if (co_await m_pool.zbud_reclaim_page(t, 8, m_evict) != 0) {
            ++m_stats.rejectReclaimFail;
            err = -kEnomem;
        }
    }
    if (err == 0) {
        Sched::burn(t, m_k.cost.lockedRmwNs); // zswap_entry_cache_alloc(): SLUB's per-CPU fast path
        std::uint32_t dlen = 0;
        if (m_cfg.sameFilled && zswap_is_page_same_filled(t, content)) {
            handle = ZswapEntry::kSameFilled; // the word goes into the entry
            m_stats.maxSameFilledPages = std::max(m_stats.maxSameFilledPages, ++m_stats.sameFilledPages);
        } else {
            // Compress into this CPU's dstmem with this CPU's transform (get_cpu_var: no other writer waits).
            Sched::burn(t, compressNs(m_k.cost, m_cfg.compressor, content));
            m_k.s.burnLocalTransfer(t, compressBytes(content));
            dlen = compressedSize(m_cfg.compressor, content);
            err = co_await m_pool.zbud_alloc(t, dlen + kHeaderBytes, handle);
            if (err == 0) {
                // zbud_map(): the header, then the compressed bytes copied in.
                m_pool.setTag(handle, swp);
                m_k.s.burnLocalTransfer(t, static_cast<double>(dlen));
            }
        }
        if (err == 0) {
            co_await spin_lock(m_k.s, t, tree.lock);
            rbOp(t, tree);
            ZswapEntry& e = tree.entries[off];
            const ZswapEntry dup = e; // a slot stored before: the new data replaces it (zswap_duplicate_entry)
            e = ZswapEntry { handle, static_cast<std::uint16_t>(dlen) };
            // What the slot holds now (what a writeback or a load gives back).
            m_k.swap[static_cast<std::size_t>(type)]->slot[off].content = content;
            if (dup.handle)
                ++m_stats.duplicateEntry;
            else {
                ++tree.nr;
                ++m_stats.storedPages;
            }
            spin_unlock(m_k.s, t, tree.lock);
            if (dup.handle)
                co_await freeEntry(t, dup);
            ++m_stats.stores;
            notePeaks();
            stored = true;
        } else {
            Sched::burn(t, m_k.cost.lockedRmwNs); // the entry back to its cache
            ++(err == -kEnospc ? m_stats.rejectCompressPoor : m_stats.rejectAllocFail);
        }
    }
    if (!stored && tree.entries[off].handle) // a failed store of a stored slot drops the older copy (frontswap)
        co_await frontswap_invalidate_page(t, type, off);
    co_return stored;
}

Co<bool> Zswap::frontswap_load(Task& t, Pfn p)
{
    const std::uint32_t swp = m_k.pages.priv(p);
    const int type = static_cast<int>(pte::swpType(swp));
    const std::uint32_t off = pte::swpOffset(swp);
    if (!stored(type, off)) // __frontswap_test(): the device's frontswap_map
        co_return false;
    FnScope fn(t, "zswap_frontswap_load");
    Tree& tree = m_trees[static_cast<std::size_t>(type)];
    co_await spin_lock(m_k.s, t, tree.lock);
    rbOp(t, tree); // zswap_entry_find_get()
    const bool found = tree.entries[off].handle != 0;
    const bool word = tree.entries[off].sameFilled();
    spin_unlock(m_k.s, t, tree.lock);
    if (!found)
        co_return false;
    const PageContent content = m_k.swap[static_cast<std::size_t>(type)]->slot[off].content;
    if (word) { // zswap_fill_page(): the word written over the page
        m_k.s.burnLocalTransfer(t, static_cast<double>(kPageSize));
    } else {
        Sched::burn(t, decompressNs(m_k.cost, m_cfg.compressor, content));
        m_k.s.burnLocalTransfer(t, decompressBytes(content));
    }
    co_await spin_lock(m_k.s, t, tree.lock); // zswap_entry_put(): the entry stays in the tree
    spin_unlock(m_k.s, t, tree.lock);
    m_k.pages.setContent(p, content);
    m_k.pages.clear(p, PG_locked); // SetPageUptodate, unlock_page
    ++m_stats.loads;
    co_return true;
}

Co<> Zswap::frontswap_invalidate_page(Task& t, int type, std::uint32_t off)
{
    if (!stored(type, off))
        co_return;
    FnScope fn(t, "zswap_frontswap_invalidate_page");
    Tree& tree = m_trees[static_cast<std::size_t>(type)];
    co_await spin_lock(m_k.s, t, tree.lock);
    rbOp(t, tree);
    const ZswapEntry e = tree.entries[off];
    if (e.handle) {
        tree.entries[off] = ZswapEntry {};
        --tree.nr;
        --m_stats.storedPages;
    }
    spin_unlock(m_k.s, t, tree.lock);
    if (e.handle)
        co_await freeEntry(t, e);
}

Co<int> Zswap::writebackEntry(Task& t, ZbudPool::Handle h)
{
    FnScope fn(t, "zswap_writeback_entry");
    const std::uint32_t swp = m_pool.tag(h);
    const int type = static_cast<int>(pte::swpType(swp));
    const std::uint32_t off = pte::swpOffset(swp);
    Tree& tree = m_trees[static_cast<std::size_t>(type)];
    co_await spin_lock(m_k.s, t, tree.lock);
    rbOp(t, tree);
    const bool found = tree.entries[off].handle == h;
    spin_unlock(m_k.s, t, tree.lock);
    if (!found)
        co_return 0; // invalidated: its zbud_free() has run
    SwapInfo& si = *m_k.swap[static_cast<std::size_t>(type)];
    // zswap_get_swap_cache_page(): a new page in the swap cache, or the one a fault or an earlier writeback put
    // there (-EEXIST), or none (no memory, or the entry was freed meanwhile).
    const std::optional<Pfn> page = co_await read_swap_cache_async(m_k, t, si, off, true);
    if (!page || *page == kNoPage)
        co_return si.slot[off].swapMap != 0 && si.slot[off].cache() != kNoPage ? -kEexist : -kEnomem;
    const Pfn p = *page;
    const PageContent content = si.slot[off].content;
    Sched::burn(t, decompressNs(m_k.cost, m_cfg.compressor, content));
    m_k.s.burnLocalTransfer(t, decompressBytes(content));
    // SetPageReclaim (to the inactive list's tail once written), then __swap_writepage() to the device.
    if (swap_synchronous(si)) {
        co_await swap_writepage(m_k, t, p);
        m_k.pages.clear(p, PG_locked);
    } else {
        // PG_reclaim rotates a page on the LRU when its write ends; this one may still sit in the pagevec
        // lru_cache_add() filled (not on the LRU: nothing to rotate), where the flag means "freed".
        m_k.pages.set(p, m_k.pages.test(p, PG_pagevec) ? PG_writeback : PG_writeback | PG_reclaim);
        ++m_k.page_zone(p).nrWriteback;
        m_k.vm.inc(Vm::PswpOut);
        m_k.pages.clear(p, PG_locked); // set_page_writeback(), unlock_page(), then the bio
        co_await si.dev->waitForSlot(t);
        Sched::burn(t, m_k.cost.bioSubmitNs);
        si.dev->submit(true, { p });
    }
    ++m_stats.writtenBackPages;
    // The entry leaves the tree, unless an invalidation took it while the page was being written.
    co_await spin_lock(m_k.s, t, tree.lock);
    rbOp(t, tree);
    const bool still = tree.entries[off].handle == h;
    if (still) {
        tree.entries[off] = ZswapEntry {};
        --tree.nr;
        --m_stats.storedPages;
    }
    spin_unlock(m_k.s, t, tree.lock);
    if (still)
        co_await freeEntry(t, ZswapEntry { h, 0 });
    co_return 0;
}

void Zswap::lockStats(LockStats& out) const
{
    if (m_pool.lockStat().acquisitions)
        out.push_back(&m_pool.lockStat());
    for (const Tree& tree : m_trees)
        if (tree.lock.stat().acquisitions)
            out.push_back(&tree.lock.stat());
}

} // namespace mms
