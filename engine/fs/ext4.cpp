// fs/ext4 (3.12) as the programs here reach it: creat, link and unlink of names (ext4_create, ext4_link,
// ext4_unlink, ext4_evict_inode), buffered writes with delayed allocation (ext4_da_write_begin/end), a punched hole,
// each a journal handle that dirties the metadata blocks its source dirties; and the metadata blocks themselves, in
// the block device's mapping (sb_getblk / sb_bread).
//
// Metadata dirtied per operation (the jbd2_journal_dirty_metadata calls on the path):
//   create   inode bitmap, group descriptor, the new inode's table block (ext4_new_inode, ext4_mark_inode_dirty),
//            the directory's block (ext4_add_entry), the directory's inode (its mtime)
//   link     the directory's block and inode, the file's inode (i_nlink)
//   unlink   the directory's block and inode, the file's inode; the last link: ext4_orphan_add (the superblock's
//            block and the inode, under the superblock's s_orphan_lock mutex)
//   evict    ext4_truncate (block bitmap, group descriptor, inode), ext4_orphan_del (s_orphan_lock, superblock
//            block, inode), ext4_free_inode (inode bitmap, group descriptor)
//   write    per write(2) call: the inode (i_size grows: ext4_da_write_end -> ext4_mark_inode_dirty)
//   punch    block bitmap, group descriptor, the inode
#include "fs/fs.h"
#include "fs/namei.h"

#include "block/brd.h"
#include "mm/mm.h"
#include "mm/readahead.h"

#include <algorithm>
#include <cstring>

namespace mms {

Inode& Vfs::inode(AddressSpace& m)
{
    if (inodes.size() <= m.id)
        inodes.resize(m.id + 1u);
    std::unique_ptr<Inode>& i = inodes[m.id];
    if (!i) {
        i = std::make_unique<Inode>();
        i->mapping = &m;
    }
    return *i;
}

std::uint32_t Vfs::allocIno()
{
    // find_inode_bit: the lowest free number, after the reserved inodes
    std::size_t i = std::max<std::size_t>(12, inodeFreeHint);
    if (i < inodeUsed.size()) {
        const void* free = std::memchr(inodeUsed.data() + i, 0, inodeUsed.size() - i);
        i = free ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(free) - inodeUsed.data())
                 : inodeUsed.size();
    }
    if (i >= inodeUsed.size())
        inodeUsed.resize(i + 1);
    inodeUsed[i] = 1;
    inodeFreeHint = i + 1;
    return static_cast<std::uint32_t>(i);
}

void Vfs::freeIno(std::uint32_t ino)
{
    inodeUsed[ino] = 0;
    inodeFreeHint = std::min<std::size_t>(inodeFreeHint, ino);
}

void Vfs::lockStats(LockStats& out) const
{
    out.push_back(&inode_sb_list_lock.stat());
    out.push_back(&s_orphan_lock.stat());
    out.push_back(&journal.j_list_lock.stat());
    out.push_back(&wb.list_lock.stat());
    std::vector<std::uint64_t> blocks; // in block order, whatever the hash table's
    blocks.reserve(journal.heads.size());
    for (const auto& [block, jh] : journal.heads)
        blocks.push_back(block);
    std::sort(blocks.begin(), blocks.end());
    for (std::uint64_t b : blocks)
        out.push_back(&journal.heads.at(b).bhState.stat());
}

void brd_copy_page(Mm& k, Vfs& fs, Task& t, Pfn)
{
    brd_make_request(k.s, t, fs.ramdiskNode, 1);
}

Co<Pfn> sb_getblk(Mm& k, Vfs& fs, Task& t, std::uint64_t block)
{
    AddressSpace& m = *fs.bdev;
    Sched::burnTime(t, m.costs.xarrayWalk); // __find_get_block: the page, then its buffer
    Pfn p = m.lookup(block);
    if (p != kNoPage)
        co_return p;
    // grow_dev_page: __GFP_NOFAIL in spirit -- try again after a failed (NORETRY) attempt, a few times, rather than
    // loop for ever where memory has run out; then the caller goes on without the page (its cost was paid).
    for (int attempt = 0; attempt < 4 && p == kNoPage && !fatal_signal_pending(t); ++attempt) {
        co_await do_page_cache_readahead(k, t, m, block, 1, ~0ull);
        p = m.lookup(block);
        if (p == kNoPage)
            co_await k.s.cond_resched(t);
    }
    if (p != kNoPage)
        brd_make_request(k.s, t, fs.ramdiskNode, 1); // the read from the ramdisk (bh not uptodate)
    co_return p;
}

namespace {
    std::uint32_t groupOf(std::uint32_t ino) { return ino / Ext4Layout::kInodesPerGroup; }

    std::uint32_t inoOf(Vfs& fs, Inode& inode)
    {
        if (inode.ino == 0)
            inode.ino = fs.allocIno();
        return inode.ino;
    }

    void dirIds(Vfs& fs, Directory& d)
    {
        if (d.ino == 0) {
            d.ino = fs.allocIno();
            d.block = fs.nextDir++;
        }
    }

    // One metadata block read (if not cached) and journaled in the running handle.
    Co<> dirty_block(Mm& k, Vfs& fs, Task& t, std::uint64_t block)
    {
        co_await sb_getblk(k, fs, t, block);
        co_await jbd2_journal_dirty(k, fs, t, block);
    }

    // ext4_mark_inode_dirty(): ext4_reserve_inode_write + ext4_do_update_inode, the 256-byte inode copied into its
    // table block.
    Co<> mark_inode_dirty(Mm& k, Vfs& fs, Task& t, std::uint32_t ino)
    {
        co_await dirty_block(k, fs, t, Ext4Layout::inodeTable(ino));
        Sched::burn(t, 4 * k.cost.lineSameSocketNs); // the inode's four cache lines into the block
    }

    // inode_sb_list_add / inode_sb_list_del under the global inode_sb_list_lock.
    Co<> inode_sb_list_op(Mm& k, Vfs& fs, Task& t)
    {
        co_await spin_lock(k.s, t, fs.inode_sb_list_lock);
        Sched::burn(t, k.cost.listOpNs);
        spin_unlock(k.s, t, fs.inode_sb_list_lock);
    }

    // ext4_orphan_add / ext4_orphan_del: the on-disk orphan list's head in the superblock, under s_orphan_lock.
    Co<> orphan_op(Mm& k, Vfs& fs, Task& t, std::uint32_t ino)
    {
        co_await mutex_lock(k.s, t, fs.s_orphan_lock);
        co_await dirty_block(k, fs, t, 0);
        co_await mark_inode_dirty(k, fs, t, ino);
        Sched::burn(t, 2 * k.cost.listOpNs);
        mutex_unlock(k.s, t, fs.s_orphan_lock);
    }
} // namespace

Co<> vfs_create(Mm& k, Vfs& fs, Task& t, Directory& d)
{
    FnScope fn(t, "ext4_create");
    dirIds(fs, d);
    co_await kmem_cache_alloc(k, t, fs.inodeCache); // new_inode -> ext4_alloc_inode
    co_await inode_sb_list_op(k, fs, t); // inode_sb_list_add
    co_await jbd2_journal_start(k, fs, t);
    const std::uint32_t ino = fs.allocIno();
    d.names.push_back(ino);
    co_await dirty_block(k, fs, t, Ext4Layout::inodeBitmap(groupOf(ino)));
    co_await dirty_block(k, fs, t, Ext4Layout::kGroupDesc);
    co_await mark_inode_dirty(k, fs, t, ino);
    co_await dirty_block(k, fs, t, Ext4Layout::dirBlock(d.block)); // ext4_add_entry
    co_await mark_inode_dirty(k, fs, t, d.ino);
    jbd2_journal_stop(k, fs, t);
}

Co<> vfs_link(Mm& k, Vfs& fs, Task& t, Directory& d)
{
    FnScope fn(t, "ext4_link");
    dirIds(fs, d);
    co_await jbd2_journal_start(k, fs, t);
    co_await dirty_block(k, fs, t, Ext4Layout::dirBlock(d.block));
    co_await mark_inode_dirty(k, fs, t, d.ino);
    co_await mark_inode_dirty(k, fs, t, d.names.empty() ? d.ino : d.names.back());
    jbd2_journal_stop(k, fs, t);
}

Co<> vfs_unlink(Mm& k, Vfs& fs, Task& t, Directory& d, bool lastLink)
{
    FnScope fn(t, "ext4_unlink");
    dirIds(fs, d);
    const std::uint32_t ino = d.names.empty() ? d.ino : d.names.back();
    co_await jbd2_journal_start(k, fs, t);
    co_await dirty_block(k, fs, t, Ext4Layout::dirBlock(d.block));
    co_await mark_inode_dirty(k, fs, t, d.ino);
    co_await mark_inode_dirty(k, fs, t, ino);
    if (lastLink)
        co_await orphan_op(k, fs, t, ino);
    jbd2_journal_stop(k, fs, t);
    if (lastLink && !d.names.empty()) {
        fs.evicting.push_back(d.names.back());
        d.names.pop_back();
    }
}

Co<> evict_inode(Mm& k, Vfs& fs, Task& t)
{
    FnScope fn(t, "ext4_evict_inode");
    if (fs.evicting.empty())
        co_return;
    const std::uint32_t ino = fs.evicting.back();
    fs.evicting.pop_back();
    co_await jbd2_journal_start(k, fs, t);
    co_await dirty_block(k, fs, t, Ext4Layout::blockBitmap(groupOf(ino))); // ext4_truncate
    co_await dirty_block(k, fs, t, Ext4Layout::kGroupDesc);
    co_await mark_inode_dirty(k, fs, t, ino);
    co_await orphan_op(k, fs, t, ino);
    co_await dirty_block(k, fs, t, Ext4Layout::inodeBitmap(groupOf(ino))); // ext4_free_inode
    jbd2_journal_stop(k, fs, t);
    fs.freeIno(ino);
    co_await inode_sb_list_op(k, fs, t); // evict -> inode_sb_list_del
    co_await kmem_cache_free(k, t, fs.inodeCache); // destroy_inode -> ext4_i_callback (RCU: not modelled)
}

Co<> ext4_file_write(
    Mm& k, Vfs& fs, Task& t, AddressSpace& m, std::uint64_t index, std::uint64_t pages, std::uint64_t calls)
{
    FnScope fn(t, "ext4_da_write_end");
    Inode& inode = fs.inode(m);
    const std::uint32_t ino = inoOf(fs, inode);
    for (std::uint64_t c = 0; c < calls && !fatal_signal_pending(t); ++c) {
        co_await jbd2_journal_start(k, fs, t); // ext4_da_write_begin
        co_await mark_inode_dirty(k, fs, t, ino); // the new i_size
        jbd2_journal_stop(k, fs, t);
    }
    for (std::uint64_t i = index; i < index + pages; ++i) // block_write_end -> __set_page_dirty
        co_await mark_page_dirty(k, fs, t, inode, i);
}

Co<> ext4_punch_hole(Mm& k, Vfs& fs, Task& t, AddressSpace& m)
{
    FnScope fn(t, "ext4_punch_hole");
    Inode& inode = fs.inode(m);
    const std::uint32_t ino = inoOf(fs, inode);
    co_await jbd2_journal_start(k, fs, t);
    co_await dirty_block(k, fs, t, Ext4Layout::blockBitmap(groupOf(ino)));
    co_await dirty_block(k, fs, t, Ext4Layout::kGroupDesc);
    co_await mark_inode_dirty(k, fs, t, ino);
    jbd2_journal_stop(k, fs, t);
}

} // namespace mms
