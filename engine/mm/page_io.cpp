// mm/page_io.c (4.0): __swap_writepage() and swap_readpage() through bdev_write_page()/bdev_read_page()
// (fs/block_dev.c) to a driver's rw_page.
#include "mm/page_io.h"

#include "mm/mm.h"
#include "mm/writeback.h"
#include "mm/zswap.h"

namespace mms {

namespace {
    // pmem_rw_page() (drivers/nvdimm/pmem.c, 4.1+): pmem_do_bvec() copies the page to or from the RAM the device
    // is, by the CPU, in the task; the copy is a page's on the memory-bandwidth model (the range's own node is not
    // told apart from the page's), and the driver around it the device's per-request figure (hw/device.cpp). It
    // does not fail.
    int pmem_rw_page(Mm& k, Task& t, SwapInfo& si, Pfn p)
    {
        Sched::burn(t, si.dev->spec().requestOverheadNs);
        k.burnStream(t, p, k.cost.copyPageNs);
        return 0;
    }
} // namespace

Co<bool> swap_writepage(Mm& k, Task& t, Pfn p)
{
    FnScope fn(t, "__swap_writepage");
    const std::uint32_t entry = k.pages.priv(p);
    SwapInfo& si = *k.swap[pte::swpType(entry)];
    const std::uint32_t off = pte::swpOffset(entry);
    const PageContent content = k.pages.content(p);
    si.slot[off].content = content;
    k.vm.inc(Vm::PswpOut); // count_vm_event(PSWPOUT), on the rw_page path and on the bio fallback alike
    // bdev_write_page(): set_page_writeback(), rw_page; page_endio() then ends the writeback at once (and
    // bdev_write_page() itself on a failure). If zram's rw_page fails (no memory for the object), __swap_writepage()
    // submits the page as a bio, zram_make_request() runs the same write again, fails, and bio_io_error() ->
    // end_swap_bio_write(): "Write-error on swap-device", the page redirtied.
    const bool tags = k.tg.swapWritebackTags;
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (attempt)
            Sched::burn(t, k.cost.bioSubmitNs);
        if (tags)
            co_await swap_writeback_tags(k, t, p, true);
        const int err = si.zram ? co_await si.zram->zram_bvec_write(t, off, content) : pmem_rw_page(k, t, si, p);
        if (tags)
            co_await swap_writeback_tags(k, t, p, false);
        if (err == 0)
            co_return true;
    }
    k.pages.set(p, PG_dirty);
    k.pages.clear(p, PG_reclaim);
    co_return false;
}

Co<> swap_readpage(Mm& k, Task& t, Pfn p)
{
    FnScope fn(t, "swap_readpage");
    const std::uint32_t entry = k.pages.priv(p);
    SwapInfo& si = *k.swap[pte::swpType(entry)];
    const std::uint32_t off = pte::swpOffset(entry);
    PageContent content = si.slot[off].content;
    if (si.zram)
        content = co_await si.zram->zram_bvec_read(t, off);
    else
        (void)pmem_rw_page(k, t, si, p);
    k.pages.setContent(p, content);
    k.pages.clear(p, PG_locked); // page_endio(): SetPageUptodate, unlock_page
}

Co<> swap_writeback_tags(Mm& k, Task& t, Pfn p, bool set)
{
    const std::uint32_t entry = k.pages.priv(p);
    SpinLock& tree = k.swap[pte::swpType(entry)]->treeLockFor(pte::swpOffset(entry));
    co_await spin_lock(k.s, t, tree);
    Sched::burn(t, set ? setWritebackTagsNs(k.cost) : endWritebackTagsNs(k.cost));
    spin_unlock(k.s, t, tree);
}

Co<> swap_slot_free_notify(Mm& k, Task& t, SwapInfo& si, std::uint32_t off)
{
    if (k.zswap)
        co_await k.zswap->frontswap_invalidate_page(t, si.type, off);
    if (si.zram)
        co_await si.zram->zram_slot_free_notify(t, off);
}

} // namespace mms
