#pragma once
// The filesystem under the page cache, as 3.12 splits it: the VFS's inodes and sync(2) (fs/inode.c, fs/sync.c), an
// ext4-like filesystem (fs/ext4/), its journal (fs/jbd2/) and writeback (fs/fs-writeback.c), on one ramdisk
// (drivers/block/brd.c, block/brd.h). Every file the programs create (sys::create_sparse) lives on it, and so do
// the older files of a filled page cache: one superblock, one block device, one journal.
//
// What lives where:
//  - a file's data pages are its own mapping's (mm/filemap.h); the filesystem keeps, per inode, the indices of its
//    dirty pages (PAGECACHE_TAG_DIRTY) and the superblock keeps the dirty inodes in dirtying order (the bdi's
//    b_dirty list), so writeback and sync visit what is dirty and nothing else;
//  - the metadata -- the block and inode bitmaps, the inode table, the directories' blocks -- and the journal's
//    descriptor and commit blocks are pages of the block device's own mapping (`bdev`, buffer heads over it): page
//    cache like any other, on the LRU, migrated by compaction (with its i_mmap lock) and reclaimed when clean;
//  - the journal (jbd2) has one running transaction that handles join, and one committing, written by its own
//    thread (kjournald2); the flusher thread writes dirty data back, one work item at a time.
// Ramdisk I/O completes in the submitter's context (brd_make_request copies the page): nothing is ever under
// writeback across an event, so no page carries PG_writeback.
//
// Units: times in picoseconds (sim/simulator.h), costs in ns from the machine's CostModel.

#include "mm/filemap.h"
#include "mm/slub.h"
#include "sim/co.h"
#include "sim/fifo.h"
#include "sync/lockstat.h"
#include "sync/mutex.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mms {

class Mm;
struct Task;
struct Directory;

// The layout of the filesystem's metadata in block numbers (one 4 KiB block per page of the block device's
// mapping), as mke2fs lays out an ext4 of 4 KiB blocks with flex_bg: per group of 32768 blocks its bitmaps and its
// 8192 inodes' table of 256-byte inodes (512 blocks), then the directories' blocks, then the journal.
struct Ext4Layout {
    static constexpr std::uint64_t kBlocksPerGroup = 32768;
    static constexpr std::uint32_t kInodesPerGroup = 8192;
    static constexpr std::uint32_t kInodesPerBlock = 4096 / 256;
    static constexpr std::uint64_t kGroupDesc = 1; // the group descriptors, after the superblock
    static std::uint64_t blockBitmap(std::uint32_t g) { return 2 + 3ull * g; }
    static std::uint64_t inodeBitmap(std::uint32_t g) { return 3 + 3ull * g; }
    // Block numbers, packed so that the device's page index stays small: the groups' bitmaps from block 2, the
    // inode tables from 4096 (16 inodes a block), the directories from 2^18, the journal from 2^19.
    static std::uint64_t inodeTable(std::uint32_t ino) { return 4096 + ino / kInodesPerBlock; }
    static std::uint64_t dirBlock(std::uint32_t dir) { return (1u << 18) + dir; }
    // The journal: a contiguous extent of kJournalBlocks, written as a ring. mke2fs's default for a file system of
    // 2-16 GiB (ext2fs_default_journal_size: 16384 blocks, 64 MiB); the ramdisk's size is a GUESS (the post does not
    // give it), so is this.
    static constexpr std::uint64_t kJournalBlocks = 16384;
    static std::uint64_t journalBlock(std::uint64_t n) { return (1u << 19) + n % kJournalBlocks; }
};

// A journal_head's state (jbd2's b_transaction / b_next_transaction, BJ_Metadata): which transactions hold the
// buffer, and the bit spinlock jbd_lock_bh_state() takes.
struct JournalHead {
    std::uint64_t tid = 0; // the running transaction that has it on its metadata list, 0 if none
    std::uint64_t committingTid = 0; // the committing transaction's, until the commit has written it
    SpinLock bhState { "bh->b_state" };
};

// A jbd2 transaction (transaction_t): its handles and its metadata buffers.
struct Transaction {
    enum class State : std::uint8_t { Running, Locked, Flush, Commit };
    std::uint64_t tid = 0;
    State state = State::Running;
    int updates = 0; // t_updates: handles started and not yet stopped
    std::vector<std::uint64_t> buffers; // t_buffers: the blocks journaled, each once
    std::uint64_t handles = 0; // handles that joined it
};

// journal_t.
struct Journal {
    SpinLock j_list_lock { "journal->j_list_lock" };
    std::unique_ptr<Transaction> running; // j_running_transaction (null: the next handle starts one)
    std::unique_ptr<Transaction> committing; // j_committing_transaction
    std::uint64_t nextTid = 1;
    std::uint64_t commitSequence = 0; // j_commit_sequence: the last tid committed
    std::uint64_t commitRequest = 0; // j_commit_request: the newest tid a commit was asked for
    std::uint64_t logHead = 0; // the next log block (jbd2_journal_next_log_block), a ring of kJournalBlocks
    int stateLineCpu = -1; // the CPU that last wrote j_state_lock's and t_updates' line
    Task* thread = nullptr; // kjournald2, started by the first commit request
    std::vector<std::pair<Task*, std::uint32_t>> waitTransactionLocked; // handles waiting for T_LOCKED to end
    std::vector<std::pair<Task*, std::uint32_t>> waitDoneCommit; // jbd2_log_wait_commit() sleepers
    std::pair<Task*, std::uint32_t> waitUpdates { nullptr, 0 }; // the committer waiting for t_updates to drain
    std::unordered_map<std::uint64_t, JournalHead> heads; // by block: the buffers the journal has seen

    // Statistics (jbd2's /proc/fs/jbd2/*/info): commits, blocks logged, handles.
    std::uint64_t commits = 0, blocksLogged = 0, handles = 0;
    Time lockedTime = 0; // time transactions spent T_LOCKED, waiting for their handles to stop
};

// An inode with page cache on the filesystem (struct inode + ext4_inode_info, as far as writeback sees it).
struct Inode {
    AddressSpace* mapping = nullptr;
    std::uint32_t ino = 0; // its inode number, 0 until the filesystem gives it one
    std::vector<std::uint64_t> dirty; // PAGECACHE_TAG_DIRTY: the indices of its dirty pages, each once
    bool onDirtyList = false; // I_DIRTY_PAGES: on the bdi's b_dirty list
};

// A wb_writeback_work queued for the flusher: WB_SYNC_ALL from sync(2), with the task waiting for its completion.
struct WbWork {
    bool done = false;
    std::pair<Task*, std::uint32_t> waiter { nullptr, 0 };
};

// The bdi's writeback (struct bdi_writeback): its dirty inodes, its list_lock and its flusher thread.
struct BdiWriteback {
    SpinLock list_lock { "wb->list_lock" };
    std::vector<Inode*> b_dirty; // in the order they were first dirtied
    Fifo<std::shared_ptr<WbWork>> work_list;
    Task* thread = nullptr; // the flusher (bdi_writeback_workfn), started by the first work
    std::uint64_t pagesWritten = 0, works = 0; // file pages written back; works done
    std::uint64_t metadataWritten = 0; // the block device's pages written home (sync_blockdev)
};

// The one mounted filesystem and the VFS state around it.
struct Vfs {
    explicit Vfs(AddressSpace& blockDevice)
        : bdev(&blockDevice)
    {
    }
    // inode_sb_list_lock: one spinlock for every superblock's inode list in 3.12 (per superblock from 4.6).
    SpinLock inode_sb_list_lock { "inode_sb_list_lock" };
    // ext4's s_orphan_lock: one mutex per filesystem around the on-disk orphan list (per inode from 3.18).
    Mutex s_orphan_lock { "sbi->s_orphan_lock" };
    AddressSpace* bdev; // the ramdisk's mapping: the filesystem's metadata and the journal's blocks
    Journal journal;
    BdiWriteback wb;
    std::vector<std::unique_ptr<Inode>> inodes; // by mapping id; null for a mapping with no inode yet
    std::vector<std::uint8_t> inodeUsed; // the inode bitmaps: ext4_new_inode takes the lowest free number
    std::size_t inodeFreeHint = 0; // no number below it is free (allocIno's search starts there)
    std::uint32_t nextDir = 0;
    std::vector<std::uint32_t> evicting; // inodes unlinked for the last time, for evict_inode()
    // ext4_alloc_inode's cache: ext4_inode_info of about 1,070 bytes (3.x slabinfo; GUESS of the exact size), 30 to
    // an order-3 slab -- calculate_order's slub_min_objects of 4 x (fls(nr_cpu_ids) + 1) = 32 objects on 120 CPUs
    // needs 32 KiB, capped at slub_max_order 3 -- and 3 to an order-0 one.
    KmemCache inodeCache { "ext4_inode_cache", 3, 0, 30 };
    int ramdiskNode = 0; // the NUMA node of the ramdisk's pages (brd allocates them as they are first written)

    // Where tasks waited (picoseconds): in sync(2) for the flusher's work and the journal's commit, and in
    // start_this_handle() for a locked transaction.
    Time syncWait = 0, journalWait = 0;
    Time syncTime = 0; // the whole of sync(2) and fsync(2) calls, their walks and writeback included
    std::uint64_t syncs = 0;

    Inode& inode(AddressSpace& m);
    // ext4_new_inode's find_inode_bit: the lowest free inode number.
    std::uint32_t allocIno();
    void freeIno(std::uint32_t ino); // ext4_free_inode: the number is free again
    void lockStats(LockStats& out) const;
};

// --- the VFS entry points (fs/*.c), called from kernel/syscalls.cpp ------------------------------------------------

// vfs_create() of a name in `d` (under its i_mutex, which the caller holds): ext4_create in a journal handle.
Co<> vfs_create(Mm& k, Vfs& fs, Task& t, Directory& d);
// vfs_link(): the new entry in `d`, in a handle.
Co<> vfs_link(Mm& k, Vfs& fs, Task& t, Directory& d);
// vfs_unlink() of a name in `d` (`lastLink`: the file's last name, which goes on the orphan list); the inode is then
// evicted by evict_inode(), after the directory's lock is dropped: its blocks and its number freed.
Co<> vfs_unlink(Mm& k, Vfs& fs, Task& t, Directory& d, bool lastLink);
Co<> evict_inode(Mm& k, Vfs& fs, Task& t);
// The filesystem's part of write(2) of `pages` pages at `index` in `calls` calls (ext4_da_write_begin/end, each
// call a handle that dirties the inode), around generic_perform_write, which the caller has run: each page becomes
// dirty and the inode goes on the dirty list.
Co<> ext4_file_write(Mm& k, Vfs& fs, Task& t, AddressSpace& m, std::uint64_t index, std::uint64_t pages,
    std::uint64_t calls);
// fallocate(PUNCH_HOLE) / truncate's filesystem part: the blocks freed in a handle (the page cache is freed by the
// caller, truncate_inode_pages_range).
Co<> ext4_punch_hole(Mm& k, Vfs& fs, Task& t, AddressSpace& m);
// sys_sync() (fs/sync.c, 3.12): wakeup_flusher_threads; sync_inodes_sb (a WB_SYNC_ALL work for the flusher, waited
// for, then wait_sb_inodes); ext4_sync_fs (a journal commit, waited for); the block device's mapping written back
// and waited for (iterate_bdevs).
Co<> ksys_sync(Mm& k, Vfs& fs, Task& t);
// fsync(2) of one file: its dirty pages written and waited for, then the commit of its transaction.
Co<> vfs_fsync(Mm& k, Vfs& fs, Task& t, AddressSpace& m);

// --- the journal (fs/jbd2/) ------------------------------------------------------------------------------------------

// jbd2__journal_start(): join the running transaction (starting one if none), waiting while it is T_LOCKED.
Co<> jbd2_journal_start(Mm& k, Vfs& fs, Task& t);
// jbd2_journal_get_write_access() + jbd2_journal_dirty_metadata() of block `block` of the device, inside a handle:
// the buffer joins the running transaction (a frozen copy first if the committing one still has to write it).
Co<> jbd2_journal_dirty(Mm& k, Vfs& fs, Task& t, std::uint64_t block);
// jbd2_journal_stop(): the handle ends; the last one of a locked transaction wakes the committer.
void jbd2_journal_stop(Mm& k, Vfs& fs, Task& t);
// jbd2_log_start_commit() of the running transaction (if any) and jbd2_log_wait_commit() for it: the tid waited for,
// 0 when there was nothing to commit.
Co<> jbd2_journal_force_commit(Mm& k, Vfs& fs, Task& t);

// --- writeback (fs/fs-writeback.c) --------------------------------------------------------------------------------

// __mark_inode_dirty(I_DIRTY_PAGES) after set_page_dirty of page `index`.
Co<> mark_page_dirty(Mm& k, Vfs& fs, Task& t, Inode& inode, std::uint64_t index);
// __writeback_single_inode(): the inode's dirty pages written (ext4_writepages: their blocks allocated in a handle,
// each page copied to the ramdisk), as the flusher or fsync does.
Co<> writeback_single_inode(Mm& k, Vfs& fs, Task& t, Inode& inode);
// wakeup_flusher_threads(): a WB_SYNC_NONE work for the flusher, not waited for.
Co<> wakeup_flusher_threads(Mm& k, Vfs& fs, Task& t);
// sync_inodes_sb(): queue a WB_SYNC_ALL work and wait for the flusher to finish it.
Co<> sync_inodes_sb(Mm& k, Vfs& fs, Task& t);
// The block device's dirty pages (metadata checkpointed after commit) written back: filemap_fdatawrite + wait.
Co<> sync_blockdev(Mm& k, Vfs& fs, Task& t);

// getblk/bread of metadata block `block`: its page in the block device's mapping, read from the ramdisk if absent.
// Returns the page (not pinned: look it up again after any wait).
Co<Pfn> sb_getblk(Mm& k, Vfs& fs, Task& t, std::uint64_t block);
// brd_make_request of one page: the 4 KiB copy to or from the ramdisk's page, at memory bandwidth.
void brd_copy_page(Mm& k, Vfs& fs, Task& t, Pfn p);

} // namespace mms
