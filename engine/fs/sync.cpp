// fs/sync.c (3.12): sync(2) and fsync(2).
//
//   sys_sync
//     wakeup_flusher_threads(0)            a WB_SYNC_NONE work for the flusher: everything dirty, not waited for
//     iterate_supers(sync_inodes_one_sb)   sync_inodes_sb: a WB_SYNC_ALL work, waited for; wait_sb_inodes
//     iterate_supers(sync_fs_one_sb)       ext4_sync_fs, nowait then wait: a journal commit, waited for
//     iterate_bdevs(fdatawrite_one_bdev)   the block device's dirty pages (metadata gone home from the journal)
//     iterate_bdevs(fdatawait_one_bdev)    (the ramdisk has ended every write before it returned)
//
// wait_sb_inodes walks every inode of the superblock under the one global inode_sb_list_lock: per inode its i_lock
// (a line last written by whichever CPU used the inode, most likely on another socket of a 4-socket machine), and
// for an inode with pages __iget, the list lock dropped, iput of the previous one, filemap_fdatawait (a tag lookup:
// nothing is under writeback here) and the list lock taken again.
#include "fs/fs.h"

#include "mm/mm.h"

namespace mms {

namespace {
    // The walk is charged a chunk of inodes with pages per hold of the list lock, not one: the lock's total hold
    // time is the same, and a sync of thousands of inodes costs the host a few hundred lock events, not thousands.
    constexpr std::uint64_t kWalkChunk = 32;

    Co<> wait_sb_inodes(Mm& k, Vfs& fs, Task& t)
    {
        FnScope fn(t, "wait_sb_inodes");
        const CostModel& c = k.cost;
        const double inLockEach = 3 * c.lockedRmwNs + c.lineCrossSocketNs; // i_lock, unlock, __iget; the line
        const double outOfLockEach = 3 * c.lockedRmwNs + c.pteOpNs; // list unlock, relock, iput; the tag lookup
        // Every mapping but the block device's is an inode of the superblock.
        const std::uint64_t withPages = k.mappingsWithPages - (fs.bdev->nrpages != 0 ? 1 : 0);
        const std::uint64_t empty = k.mappings.size() - 1 - withPages;
        // The inodes without pages: i_lock taken and dropped under the list lock, in the first hold.
        double pending = static_cast<double>(empty) * 2 * c.lockedRmwNs;
        std::uint64_t left = withPages;
        do {
            const std::uint64_t n = std::min(left, kWalkChunk);
            co_await spin_lock(k.s, t, fs.inode_sb_list_lock);
            Sched::burn(t, pending + static_cast<double>(n) * inLockEach);
            spin_unlock(k.s, t, fs.inode_sb_list_lock);
            Sched::burn(t, static_cast<double>(n) * outOfLockEach);
            pending = 0;
            left -= n;
        } while (left > 0);
    }
} // namespace

Co<> ksys_sync(Mm& k, Vfs& fs, Task& t)
{
    FnScope fn(t, "sys_sync");
    const Time from = k.s.sim().now() + t.debt;
    ++fs.syncs;
    co_await wakeup_flusher_threads(k, fs, t);
    co_await sync_inodes_sb(k, fs, t);
    co_await wait_sb_inodes(k, fs, t);
    co_await jbd2_journal_force_commit(k, fs, t);
    co_await sync_blockdev(k, fs, t);
    fs.syncTime += k.s.sim().now() + t.debt - from;
}

Co<> vfs_fsync(Mm& k, Vfs& fs, Task& t, AddressSpace& m)
{
    FnScope fn(t, "ext4_sync_file");
    const Time from = k.s.sim().now() + t.debt;
    co_await writeback_single_inode(k, fs, t, fs.inode(m)); // filemap_write_and_wait_range
    co_await jbd2_journal_force_commit(k, fs, t); // jbd2_complete_transaction
    fs.syncTime += k.s.sim().now() + t.debt - from;
}

} // namespace mms
