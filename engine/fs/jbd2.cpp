// fs/jbd2/transaction.c and commit.c (3.12): handles join the running transaction; kjournald2 commits it.
//
//   jbd2__journal_start -> start_this_handle     read_lock(j_state_lock); a T_LOCKED transaction: wait
//                                                (wait_transaction_locked); t_updates++
//   jbd2_journal_get_write_access                jbd_lock_bh_state; a buffer the committing transaction has not
//     -> do_get_write_access                     written yet gets a frozen copy; j_list_lock to file it (BJ_Reserved)
//   jbd2_journal_dirty_metadata                  jbd_lock_bh_state; j_list_lock to file it on BJ_Metadata, unless
//                                                it is there already for this transaction
//   jbd2_journal_stop                            t_updates--; the last one wakes a committer in T_LOCKED
//
//   kjournald2 -> jbd2_journal_commit_transaction
//     T_LOCKED   write_lock(j_state_lock), wait for t_updates == 0 (jbd2_journal_wait_updates): new handles wait
//     T_FLUSH    the transaction becomes the committing one, handles start the next; ordered data (data=ordered
//                with delalloc: the pages whose blocks were allocated, written by the writeback that allocated them)
//     T_COMMIT   per buffer: jbd2_journal_write_metadata_buffer (a new bh on the same page, BJ_Shadow under
//                j_list_lock) and submit_bh to the next log block; a descriptor block per 255 tags and the commit
//                block, each a __getblk of a log block in the device's mapping
//     finish     per buffer, under j_list_lock: off the transaction, onto the checkpoint list, and marked dirty
//                (mark_buffer_dirty: it goes home with the device's writeback); j_commit_sequence; wake
//                jbd2_log_wait_commit sleepers
//
// The commit interval timer (j_commit_interval, 5 s) is not modelled: commits here are asked for by sync(2),
// fsync(2) and a transaction that has grown past its limit.
#include "fs/fs.h"

#include "mm/mm.h"
#include "sync/spinlock.h"

#include <algorithm>

namespace mms {

namespace {
    // j_max_transaction_buffers (journal size / 4): a transaction past it is committed by the next handle's start.
    constexpr std::size_t kMaxTransactionBuffers = Ext4Layout::kJournalBlocks / 4;
    // Tags per descriptor block: (4096 - the 12-byte header) / 16-byte tags (jbd2 with 64-bit blocks, no csum v2).
    constexpr std::size_t kTagsPerDescriptor = 255;

    // The line of j_state_lock (an rwlock_t) and t_updates: every handle's start and stop writes it.
    void touchStateLine(Mm& k, Journal& j, Task& t, int rmws)
    {
        Sched::burn(t, rmws * k.cost.lockedRmwNs + k.s.lineTransferNs(j.stateLineCpu, t.cpu));
        j.stateLineCpu = t.cpu;
    }

    void wakeAll(Mm& k, std::vector<std::pair<Task*, std::uint32_t>>& q)
    {
        auto waiters = std::move(q);
        q.clear();
        for (auto [w, gen] : waiters)
            k.s.wakeIf(*w, gen);
    }

    Co<> kjournald2(Mm& k, Vfs& fs, Task& t);

    // jbd2_log_start_commit(): ask kjournald2 for the commit of `tid`.
    void log_start_commit(Mm& k, Vfs& fs, Task& t, std::uint64_t tid)
    {
        Journal& j = fs.journal;
        if (j.commitRequest >= tid)
            return;
        j.commitRequest = tid;
        Sched::burn(t, k.s.wakeupNs()); // wake_up(&journal->j_wait_commit)
        if (!j.thread) {
            j.thread = &k.s.spawn("jbd2/ram0-8", t.cpu, true, nullptr, 0);
            k.s.start(*j.thread, kjournald2(k, fs, *j.thread));
        } else {
            k.s.wake(*j.thread);
        }
    }

    // jbd2_journal_commit_transaction() of the running transaction.
    Co<> commit_transaction(Mm& k, Vfs& fs, Task& t)
    {
        FnScope fn(t, "jbd2_journal_commit_transaction");
        Journal& j = fs.journal;
        Transaction& tx = *j.running;
        // T_LOCKED: write_lock(j_state_lock); wait for the handles to stop.
        touchStateLine(k, j, t, 2);
        tx.state = Transaction::State::Locked;
        const Time lockedAt = k.s.sim().now() + t.debt;
        for (;;) {
            co_await k.s.flush(t);
            if (tx.updates == 0)
                break;
            j.waitUpdates = { &t, t.sleepGen + 1 };
            co_await k.s.sleep(t);
        }
        j.waitUpdates = { nullptr, 0 };
        j.lockedTime += k.s.sim().now() + t.debt - lockedAt;
        // T_FLUSH: the committing transaction; the next handle starts a new one.
        touchStateLine(k, j, t, 2);
        tx.state = Transaction::State::Flush;
        j.committing = std::move(j.running);
        wakeAll(k, j.waitTransactionLocked);
        // Every buffer moves to the committing transaction (BJ_Shadow while it is written): a handle that wants one
        // meanwhile makes a frozen copy.
        std::vector<std::uint64_t> buffers = std::move(tx.buffers);
        tx.state = Transaction::State::Commit;
        for (std::uint64_t b : buffers) {
            JournalHead& jh = j.heads[b];
            if (jh.tid == tx.tid)
                jh.tid = 0;
            jh.committingTid = tx.tid;
        }
        // T_COMMIT: descriptor blocks and the buffers, written to the log in order.
        for (std::size_t i = 0; i < buffers.size(); ++i) {
            if (i % kTagsPerDescriptor == 0) { // jbd2_journal_get_descriptor_buffer: __getblk of the next log block
                Pfn d = co_await sb_getblk(k, fs, t, Ext4Layout::journalBlock(j.logHead++));
                Sched::burn(t, k.cost.zeroPageNs); // the descriptor's header and tags written into it
                if (d != kNoPage)
                    brd_copy_page(k, fs, t, d);
            }
            JournalHead& jh = j.heads[buffers[i]];
            co_await spin_lock(k.s, t, jh.bhState); // jbd2_journal_write_metadata_buffer
            Sched::burn(t, 2 * k.cost.lockedRmwNs); // the new buffer head (kmem_cache_alloc), get_bh
            spin_unlock(k.s, t, jh.bhState);
            co_await spin_lock(k.s, t, j.j_list_lock); // __jbd2_journal_file_buffer(BJ_Shadow, BJ_IO)
            Sched::burn(t, 2 * k.cost.listOpNs);
            spin_unlock(k.s, t, j.j_list_lock);
            ++j.logHead;
            Pfn p = fs.bdev->lookup(buffers[i]); // submit_bh of the shadow buffer: the page to the log block
            if (p != kNoPage)
                brd_copy_page(k, fs, t, p);
        }
        // The commit block (journal_submit_commit_record): a __getblk, its crc32 over the block, submitted with
        // REQ_FLUSH | REQ_FUA (the ramdisk has no cache to flush).
        Pfn c = co_await sb_getblk(k, fs, t, Ext4Layout::journalBlock(j.logHead++));
        if (c != kNoPage)
            brd_copy_page(k, fs, t, c);
        // The buffers go home by the device's writeback: onto the checkpoint list, marked dirty.
        Inode& home = fs.inode(*fs.bdev);
        for (std::uint64_t b : buffers) {
            co_await spin_lock(k.s, t, j.j_list_lock); // __jbd2_journal_refile_buffer, __jbd2_journal_insert_checkpoint
            Sched::burn(t, 3 * k.cost.listOpNs);
            spin_unlock(k.s, t, j.j_list_lock);
            JournalHead& jh = j.heads[b];
            if (jh.committingTid == tx.tid)
                jh.committingTid = 0;
            if (Pfn p = fs.bdev->lookup(b); p != kNoPage) { // mark_buffer_dirty: for the device's writeback
                k.pages.set(p, PG_dirty);
                home.dirty.push_back(b);
            }
        }
        j.blocksLogged += buffers.size();
        ++j.commits;
        touchStateLine(k, j, t, 2); // j_commit_sequence under write_lock(j_state_lock)
        j.commitSequence = tx.tid;
        j.committing.reset();
        Sched::burn(t, k.s.wakeupNs()); // wake_up(&journal->j_wait_done_commit)
        wakeAll(k, j.waitDoneCommit);
    }

    // kjournald2(): commit whenever a commit is asked for the running transaction, else sleep.
    Co<> kjournald2(Mm& k, Vfs& fs, Task& t)
    {
        Journal& j = fs.journal;
        for (;;) {
            co_await k.s.flush(t);
            if (j.running && j.commitRequest >= j.running->tid) {
                co_await commit_transaction(k, fs, t);
                continue;
            }
            if (j.commitRequest > j.commitSequence && !j.running) {
                // The transaction asked for had no handle yet: nothing to commit.
                j.commitSequence = j.commitRequest;
                wakeAll(k, j.waitDoneCommit);
            }
            co_await k.s.sleep(t);
        }
    }
} // namespace

Co<> jbd2_journal_start(Mm& k, Vfs& fs, Task& t)
{
    FnScope fn(t, "jbd2__journal_start");
    Journal& j = fs.journal;
    Sched::burn(t, k.cost.lockedRmwNs); // jbd2_alloc_handle: a kmem_cache_alloc from this CPU's slab
    for (;;) {
        co_await k.s.flush(t);
        touchStateLine(k, j, t, 2); // read_lock(&journal->j_state_lock) and its unlock
        if (!j.running) { // jbd2_get_transaction(), under write_lock(j_state_lock)
            j.running = std::make_unique<Transaction>();
            j.running->tid = j.nextTid++;
            Sched::burn(t, 4 * k.cost.lockedRmwNs);
        }
        if (j.running->state == Transaction::State::Running)
            break;
        // wait_transaction_locked(): asleep until the committer has moved the transaction on.
        const Time from = k.s.sim().now() + t.debt;
        j.waitTransactionLocked.emplace_back(&t, t.sleepGen + 1);
        co_await k.s.sleep(t);
        fs.journalWait += k.s.sim().now() - from;
    }
    Transaction& tx = *j.running;
    touchStateLine(k, j, t, 2); // atomic_inc(&t_updates), atomic_add(credits, &t_outstanding_credits)
    ++tx.updates;
    ++tx.handles;
    ++j.handles;
    if (tx.buffers.size() >= kMaxTransactionBuffers) // start_this_handle: too big, jbd2_log_start_commit
        log_start_commit(k, fs, t, tx.tid);
}

Co<> jbd2_journal_dirty(Mm& k, Vfs& fs, Task& t, std::uint64_t block)
{
    FnScope fn(t, "jbd2_journal_get_write_access");
    Journal& j = fs.journal;
    const std::uint64_t tid = j.running ? j.running->tid : 0; // the handle holds it running (t_updates > 0)
    auto [it, fresh] = j.heads.try_emplace(block);
    JournalHead& jh = it->second;
    if (fresh)
        Sched::burn(t, 2 * k.cost.lockedRmwNs); // jbd2_journal_add_journal_head: the journal_head's kmem_cache_alloc
    co_await spin_lock(k.s, t, jh.bhState);
    if (jh.tid != tid) {
        if (jh.committingTid != 0) {
            // do_get_write_access(): the committing transaction still has to write this buffer -- a frozen copy
            // (jbd2_alloc of a block and a 4 KiB memcpy) for it, and the running transaction gets the buffer.
            Pfn p = fs.bdev->lookup(block);
            if (p != kNoPage)
                k.burnStream(t, p, k.cost.copyPageNs);
        }
        co_await spin_lock(k.s, t, j.j_list_lock); // __jbd2_journal_file_buffer(BJ_Reserved), then BJ_Metadata
        Sched::burn(t, 2 * k.cost.listOpNs);
        jh.tid = tid;
        if (j.running)
            j.running->buffers.push_back(block);
        spin_unlock(k.s, t, j.j_list_lock);
    }
    // jbd2_journal_dirty_metadata(): set_buffer_jbddirty; the page stays in memory until it has gone home.
    Sched::burn(t, k.cost.lockedRmwNs);
    spin_unlock(k.s, t, jh.bhState);
    if (Pfn p = fs.bdev->lookup(block); p != kNoPage)
        k.pages.set(p, PG_dirty);
}

void jbd2_journal_stop(Mm& k, Vfs& fs, Task& t)
{
    Journal& j = fs.journal;
    Transaction* tx = j.running.get();
    touchStateLine(k, j, t, 2); // atomic_dec_and_test(&t_updates), atomic_sub of the unused credits
    Sched::burn(t, k.cost.lockedRmwNs); // jbd2_free_handle
    if (!tx || tx->updates == 0)
        return;
    if (--tx->updates == 0 && tx->state == Transaction::State::Locked && j.waitUpdates.first) {
        Sched::burn(t, k.s.wakeupNs()); // wake_up(&journal->j_wait_updates)
        k.s.wakeIf(*j.waitUpdates.first, j.waitUpdates.second);
    }
}

Co<> jbd2_journal_force_commit(Mm& k, Vfs& fs, Task& t)
{
    FnScope fn(t, "jbd2_log_wait_commit");
    Journal& j = fs.journal;
    co_await k.s.flush(t);
    // jbd2_journal_start_commit(): the running transaction's commit, or the one already under way.
    std::uint64_t target = 0;
    if (j.running && j.running->handles > 0)
        target = j.running->tid;
    else if (j.committing)
        target = j.committing->tid;
    touchStateLine(k, j, t, 2);
    if (target == 0)
        co_return;
    log_start_commit(k, fs, t, target);
    const Time from = k.s.sim().now() + t.debt;
    for (;;) {
        co_await k.s.flush(t);
        if (j.commitSequence >= target)
            break;
        j.waitDoneCommit.emplace_back(&t, t.sleepGen + 1);
        co_await k.s.sleep(t);
    }
    fs.syncWait += k.s.sim().now() - from;
}

} // namespace mms
