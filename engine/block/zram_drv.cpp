#include "block/zram_drv.h"

#include "hw/pfn.h"

#include <algorithm>

namespace mms {

namespace {
    // Pages that compress to more than this are stored uncompressed: max_zpage_size = PAGE_SIZE / 4 * 3
    // (zram_drv.h, 3.14-4.14; 4.15+ uses zsmalloc's huge_class_size, which sits near it).
    constexpr std::uint32_t kMaxZpageSize = static_cast<std::uint32_t>(kPageSize / 4 * 3);
    constexpr int kEnomem = 12; // ENOMEM
} // namespace

ZramDevice::ZramDevice(Sched& s, const ZramConfig& cfg, int index, std::uint32_t slots, std::unique_ptr<ZsPool> pool)
    : m_s(s)
    , m_cfg(cfg)
    , m_name("zram" + std::to_string(index))
    , m_comp(s, cfg, m_name)
    , m_pool(std::move(pool))
    , m_table(slots)
{
}

namespace {
    // atomic64_inc()/atomic_inc_not_zero() on zram's shared counters (zram_meta_get's refcount, num_reads/writes,
    // pages_stored, compr_data_size): `n` locked RMWs on a line the last writer's CPU holds.
    void statsAtomics(Sched& s, Task& t, int& line, int n)
    {
        Sched::burn(t, n * s.cost().lockedRmwNs + s.lineTransferNs(line, t.cpu));
        line = t.cpu;
    }
    // bit_spin_lock(ZRAM_ACCESS) + bit_spin_unlock() of the slot's entry: the swap layer never uses one slot from
    // two tasks at once, so the per-entry lock is never contended (ZRAM_ACCESS replaced the table's rwlock in 3.17,
    // d2d5e762c899: the id is not verified against the tree).
    void entryLock(Sched& s, Task& t) { Sched::burn(t, 2 * s.cost().lockedRmwNs); }
} // namespace

bool ZramDevice::page_same_filled(Task& t, PageContent content)
{
    // page_zero_filled() (4.0) looks for zeros only; page_same_filled() (8e19d540d107) for any repeated word.
    return sameFilledScan(m_s, t, content == PageContent::Zero || (m_cfg.sameFilled && content == PageContent::Same));
}

Co<> ZramDevice::zram_free_page(Task& t, std::uint32_t index)
{
    ZramTableEntry& e = m_table[index];
    if (e.flags & kZramSame) {
        e.flags = 0;
        --m_stats.samePages;
        --m_stats.pagesStored;
        co_return;
    }
    if (!e.handle)
        co_return;
    const std::uint32_t handle = e.handle;
    m_stats.comprDataSize -= e.size;
    --m_stats.pagesStored;
    e.handle = 0;
    e.size = 0;
    co_await m_pool->zs_free(t, handle);
}

Co<int> ZramDevice::zram_bvec_write(Task& t, std::uint32_t index, PageContent content)
{
    FnScope fn(t, "zram_bvec_write");
    const CostModel& c = m_s.cost();
    statsAtomics(m_s, t, m_statsLine, 2); // zram_meta_get(), num_writes
    ++m_stats.numWrites;
    co_await m_comp.zcomp_stream_get(t); // taken before the zero check (zram_bvec_write, 4.0)
    if (page_same_filled(t, content)) {
        entryLock(m_s, t);
        co_await zram_free_page(t, index);
        ZramTableEntry& e = m_table[index];
        e.flags = kZramSame;
        e.content = content;
        ++m_stats.samePages;
        m_stats.maxPagesStored = std::max(m_stats.maxPagesStored, ++m_stats.pagesStored);
        statsAtomics(m_s, t, m_statsLine, 2); // zero_pages, pages_stored
        m_comp.zcomp_stream_put(t);
        co_return 0;
    }
    Sched::burn(t, compressNs(c, m_cfg.comp, content));
    m_s.burnLocalTransfer(t, compressBytes(content));
    std::uint32_t clen = compressedSize(m_cfg.comp, content);
    if (clen > kMaxZpageSize)
        clen = static_cast<std::uint32_t>(kPageSize);
    const std::uint32_t handle = co_await m_pool->zs_malloc(t, clen);
    if (!handle) {
        // "Error allocating memory for compressed page": -ENOMEM, the stream released; the caller's page stays.
        m_comp.zcomp_stream_put(t);
        ++m_stats.failedWrites;
        co_return -kEnomem;
    }
    // update_used_max(): a cmpxchg loop on mem_used_max.
    Sched::burn(t, c.lockedRmwNs);
    m_stats.maxUsedPages = std::max(m_stats.maxUsedPages, m_pool->zs_get_total_pages());
    // zs_map_object(ZS_MM_WO), memcpy (copy_page for a raw page), zcomp_strm_release(), zs_unmap_object().
    co_await m_pool->zs_map_object(t, handle, clen);
    m_comp.zcomp_stream_put(t);
    entryLock(m_s, t);
    co_await zram_free_page(t, index);
    ZramTableEntry& e = m_table[index];
    e.handle = handle;
    e.size = static_cast<std::uint16_t>(clen);
    e.flags = 0;
    e.content = content;
    m_stats.comprDataSize += clen;
    m_stats.maxPagesStored = std::max(m_stats.maxPagesStored, ++m_stats.pagesStored);
    statsAtomics(m_s, t, m_statsLine, 2); // compr_data_size, pages_stored
    co_return 0;
}

Co<PageContent> ZramDevice::zram_bvec_read(Task& t, std::uint32_t index)
{
    FnScope fn(t, "zram_bvec_read");
    statsAtomics(m_s, t, m_statsLine, 2); // zram_meta_get(), num_reads
    ++m_stats.numReads;
    entryLock(m_s, t);
    const ZramTableEntry& e = m_table[index];
    if (!e.handle) {
        // A zero or same-filled page, or a slot never written: clear_page() or the word written over the page.
        m_s.burnLocalTransfer(t, static_cast<double>(kPageSize));
        co_return (e.flags & kZramSame) ? e.content : PageContent::Zero;
    }
    // zs_map_object(ZS_MM_RO); copy_page() of a raw page, else zcomp_decompress(); zs_unmap_object().
    co_await m_pool->zs_map_object(t, e.handle, e.size); // reads the object
    const PageContent content = e.content;
    if (e.size == kPageSize) {
        m_s.burnLocalTransfer(t, static_cast<double>(kPageSize)); // copy_page()'s writes
    } else {
        Sched::burn(t, decompressNs(m_s.cost(), m_cfg.comp, content));
        m_s.burnLocalTransfer(t, decompressBytes(content));
    }
    co_return content;
}

Co<> ZramDevice::zram_slot_free_notify(Task& t, std::uint32_t index)
{
    FnScope fn(t, "zram_slot_free_notify");
    entryLock(m_s, t);
    co_await zram_free_page(t, index);
    ++m_stats.notifyFree;
    statsAtomics(m_s, t, m_statsLine, 1); // notify_free
}

void ZramDevice::lockStats(LockStats& out) const
{
    if (const LockStat* l = m_comp.lockStat(); l && l->acquisitions)
        out.push_back(l);
    m_pool->lockStats(out);
}

} // namespace mms
