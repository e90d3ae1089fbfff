// fs/fs-writeback.c (3.12): dirty inodes on the bdi's b_dirty list, the flusher thread that works through the
// wb_writeback_work items queued for it one at a time, and __writeback_single_inode with ext4_writepages under it.
//
//   __mark_inode_dirty(I_DIRTY_PAGES)     the first dirty page of a clean inode: wb->list_lock, onto b_dirty
//   bdi_writeback_workfn -> wb_do_writeback -> wb_writeback(work)
//     queue_io                            under wb->list_lock: the inodes dirtied before the work started
//     __writeback_single_inode            do_writepages -> ext4_writepages: a handle for the delayed blocks'
//                                         allocation (mballoc: the group's block bitmap, the group descriptor, the
//                                         inode's extents), then per page clear_page_dirty_for_io,
//                                         set_page_writeback and end_page_writeback under the mapping's tree_lock
//                                         around the ramdisk's copy; WB_SYNC_ALL: filemap_fdatawait
//     requeue_inode                       wb->list_lock again
//   complete(work->done)                  wakes the sync(2) that queued it
#include "fs/fs.h"

#include "block/brd.h"
#include "mm/mm.h"
#include "mm/writeback.h"

namespace mms {

namespace {
    // Takes the inode's dirty list (the PAGECACHE_TAG_DIRTY lookups of write_cache_pages) and writes each page that
    // is still cached and dirty. Returns the pages written.
    Co<std::uint64_t> write_dirty_pages(Mm& k, Vfs& fs, Task& t, Inode& inode, bool allocate)
    {
        AddressSpace& m = *inode.mapping;
        std::vector<std::uint64_t> dirty = std::move(inode.dirty);
        inode.dirty.clear();
        bool any = false;
        for (std::uint64_t i : dirty)
            any = any || (m.lookup(i) != kNoPage && k.pages.test(m.lookup(i), PG_dirty));
        if (!any)
            co_return 0;
        std::uint64_t n = 0;
        if (allocate) {
            // mpage_map_and_submit_extent -> ext4_map_blocks(EXT4_GET_BLOCKS_CREATE) in one handle: the extent's
            // blocks taken from the group's bitmap, the group's free count, the inode's extent tree.
            if (inode.ino == 0)
                inode.ino = fs.allocIno();
            co_await jbd2_journal_start(k, fs, t);
            for (std::uint64_t b : { Ext4Layout::blockBitmap(inode.ino / Ext4Layout::kInodesPerGroup),
                     Ext4Layout::kGroupDesc, Ext4Layout::inodeTable(inode.ino) }) {
                co_await sb_getblk(k, fs, t, b);
                co_await jbd2_journal_dirty(k, fs, t, b);
            }
            jbd2_journal_stop(k, fs, t);
        }
        for (std::uint64_t i : dirty) {
            Sched::burnTime(t, m.costs.xarrayWalk); // find_get_pages_tag
            Pfn p = m.lookup(i);
            if (p == kNoPage || !k.pages.test(p, PG_dirty) || k.pages.test(p, PG_locked))
                continue; // truncated, migrated clean, or locked by someone: a later pass sees it
            // lock_page, clear_page_dirty_for_io, set_page_writeback (the radix tree's tags under tree_lock)
            co_await spin_lock(k.s, t, m.i_pages);
            Sched::burn(t, setWritebackTagsNs(k.cost));
            k.pages.clear(p, PG_dirty);
            spin_unlock(k.s, t, m.i_pages);
            brd_make_request(k.s, t, fs.ramdiskNode, 1); // the ramdisk ends the bio before it returns
            co_await spin_lock(k.s, t, m.i_pages); // end_page_writeback: test_clear_page_writeback, its tag
            Sched::burn(t, endWritebackTagsNs(k.cost));
            spin_unlock(k.s, t, m.i_pages);
            Sched::burn(t, k.cost.lockedRmwNs); // unlock_page
            ++n;
        }
        (&m == fs.bdev ? fs.wb.metadataWritten : fs.wb.pagesWritten) += n;
        co_return n;
    }

    Co<> flusher(Mm& k, Vfs& fs, Task& t);

    void queue_work(Mm& k, Vfs& fs, Task& t, std::shared_ptr<WbWork> w)
    {
        fs.wb.work_list.push_back(std::move(w));
        Sched::burn(t, k.s.wakeupNs()); // bdi_queue_work: mod_delayed_work of the bdi's writeback work
        if (!fs.wb.thread) {
            fs.wb.thread = &k.s.spawn("kworker/flush-1:0", t.cpu, true, nullptr, 0);
            k.s.start(*fs.wb.thread, flusher(k, fs, *fs.wb.thread));
        } else {
            k.s.wake(*fs.wb.thread);
        }
    }

    // wb_writeback() of a WB_SYNC_ALL work: every inode dirtied before it started (queue_io), written back.
    Co<> wb_writeback(Mm& k, Vfs& fs, Task& t)
    {
        FnScope fn(t, "wb_writeback");
        co_await spin_lock(k.s, t, fs.wb.list_lock);
        std::vector<Inode*> io = std::move(fs.wb.b_dirty); // queue_io: move_expired_inodes to b_io
        fs.wb.b_dirty.clear();
        Sched::burn(t, static_cast<double>(io.size() + 1) * k.cost.listOpNs);
        for (Inode* i : io)
            i->onDirtyList = false;
        spin_unlock(k.s, t, fs.wb.list_lock);
        for (Inode* i : io) {
            co_await write_dirty_pages(k, fs, t, *i, true); // __writeback_single_inode
            co_await spin_lock(k.s, t, fs.wb.list_lock); // requeue_inode
            Sched::burn(t, k.cost.listOpNs);
            spin_unlock(k.s, t, fs.wb.list_lock);
        }
    }

    // The flusher (bdi_writeback_workfn): the works in the order they were queued, one at a time.
    Co<> flusher(Mm& k, Vfs& fs, Task& t)
    {
        for (;;) {
            co_await k.s.flush(t);
            if (fs.wb.work_list.empty()) {
                co_await k.s.sleep(t);
                continue;
            }
            std::shared_ptr<WbWork> w = fs.wb.work_list.front();
            fs.wb.work_list.pop_front();
            co_await wb_writeback(k, fs, t);
            ++fs.wb.works;
            w->done = true;
            Sched::burn(t, k.s.wakeupNs()); // complete(work->done)
            if (w->waiter.first)
                k.s.wakeIf(*w->waiter.first, w->waiter.second);
        }
    }
} // namespace

Co<> mark_page_dirty(Mm& k, Vfs& fs, Task& t, Inode& inode, std::uint64_t index)
{
    Pfn p = inode.mapping->lookup(index);
    if (p == kNoPage || k.pages.test(p, PG_dirty))
        co_return;
    // __set_page_dirty: the page's flag, its radix-tree tag under tree_lock (a locked op and a tag walk).
    Sched::burn(t, 2 * k.cost.lockedRmwNs + k.cost.pteOpNs);
    k.pages.set(p, PG_dirty);
    inode.dirty.push_back(index);
    if (inode.onDirtyList || inode.mapping == fs.bdev)
        co_return; // the block device's inode is written by sync_blockdev (its own superblock has no flusher work)
    co_await spin_lock(k.s, t, fs.wb.list_lock); // __mark_inode_dirty: onto b_dirty
    Sched::burn(t, k.cost.listOpNs);
    if (!inode.onDirtyList) {
        inode.onDirtyList = true;
        fs.wb.b_dirty.push_back(&inode);
    }
    spin_unlock(k.s, t, fs.wb.list_lock);
}

Co<> writeback_single_inode(Mm& k, Vfs& fs, Task& t, Inode& inode)
{
    FnScope fn(t, "__writeback_single_inode");
    co_await write_dirty_pages(k, fs, t, inode, inode.mapping != fs.bdev);
}

Co<> wakeup_flusher_threads(Mm& k, Vfs& fs, Task& t)
{
    co_await k.s.flush(t);
    queue_work(k, fs, t, std::make_shared<WbWork>());
}

Co<> sync_inodes_sb(Mm& k, Vfs& fs, Task& t)
{
    FnScope fn(t, "sync_inodes_sb");
    co_await k.s.flush(t);
    auto w = std::make_shared<WbWork>();
    queue_work(k, fs, t, w);
    const Time from = k.s.sim().now() + t.debt;
    for (;;) { // wait_for_completion(&done)
        co_await k.s.flush(t);
        if (w->done)
            break;
        w->waiter = { &t, t.sleepGen + 1 };
        co_await k.s.sleep(t);
    }
    fs.syncWait += k.s.sim().now() - from;
}

Co<> sync_blockdev(Mm& k, Vfs& fs, Task& t)
{
    FnScope fn(t, "sync_blockdev");
    co_await writeback_single_inode(k, fs, t, fs.inode(*fs.bdev)); // filemap_fdatawrite; the wait finds none
}

} // namespace mms
