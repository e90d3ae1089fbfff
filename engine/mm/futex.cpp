// kernel/futex.c of 2.6.20: futex_wait() and futex_wake() find the futex's key with get_futex_key(), which needs
// the VMA and so runs under down_read(&current->mm->mmap_sem) (later kernels use get_user_pages_fast instead). Every
// contended user-space mutex operation of a threaded program is therefore an mmap_sem reader: it queues behind a
// writer (glibc's mprotect/mmap, a write-locked madvise) and, with the spinlock rwsem, bounces wait_lock's line.
#include "mm/futex.h"

#include "mm/mm.h"

namespace mms {

namespace {
    // The queue t waits on now: q, or where FUTEX_CMP_REQUEUE moved it (and on from there).
    FutexQueue& queueOf(FutexQueue& q, Task& t)
    {
        FutexQueue* at = &q;
        for (auto it = at->requeued.find(&t); it != at->requeued.end(); it = at->requeued.find(&t))
            at = it->second;
        return *at;
    }
    // t's wait has ended: forget where it was moved.
    void forgetRequeue(FutexQueue& q, Task& t)
    {
        FutexQueue* at = &q;
        for (auto it = at->requeued.find(&t); it != at->requeued.end(); it = at->requeued.find(&t)) {
            FutexQueue* next = it->second;
            at->requeued.erase(it);
            at = next;
        }
    }
    // wake_futex(): a waiter off the queue; asleep, it is woken, still on its way to sleep, it will not go.
    void wakeWaiter(Mm& k, Task& t, FutexQueue& q, std::pair<Task*, std::uint32_t> w)
    {
        Sched::burn(t, k.s.wakeupNs());
        if (w.first->state == TaskState::Sleeping)
            k.s.wakeIf(*w.first, w.second, &t);
        else
            q.wokenEarly.insert(w.first);
    }
} // namespace

Co<> futex_wait(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, const int& word, int expected)
{
    FnScope fn(t, "futex_wait");
    Sched::burn(t, k.cost.faultEntryNs); // syscall entry/exit
    co_await mm.mmap_sem.down_read(k.s, t);
    Sched::burn(t, k.cost.functionCallNs * 4); // get_futex_key: find_vma, the key
    co_await spin_lock(k.s, t, q.hbLock); // queue_lock()
    co_await k.s.flush(t);
    if (word != expected) { // the value changed before we queued: -EWOULDBLOCK
        spin_unlock(k.s, t, q.hbLock);
        co_await mm.mmap_sem.up_read(k.s, t);
        co_return;
    }
    q.waiters.emplace_back(&t, t.sleepGen + 1); // __queue_me
    spin_unlock(k.s, t, q.hbLock);
    // "we don't want to hold mmap_sem while we sleep". A wake-up that comes while up_read() still runs finds the
    // task not yet asleep; like the kernel's TASK_INTERRUPTIBLE-before-queueing, it must not be lost.
    co_await mm.mmap_sem.up_read(k.s, t);
    if (queueOf(q, t).wokenEarly.erase(&t)) {
        forgetRequeue(q, t);
        co_return;
    }
    // TASK_INTERRUPTIBLE: schedule() with a signal pending returns at once, and a signal sent later wakes the task.
    if (!fatal_signal_pending(t))
        co_await k.s.sleep(t, true);
    if (!fatal_signal_pending(t)) {
        forgetRequeue(q, t);
        co_return;
    }
    // unqueue_me(): off the queue it is on now (q's, or the one a requeue moved it to) under that bucket's lock,
    // unless a wake-up took it first (-ERESTARTSYS either way: the return to user space delivers the signal).
    FutexQueue& on = queueOf(q, t);
    co_await spin_lock(k.s, t, on.hbLock);
    co_await k.s.flush(t);
    std::erase_if(on.waiters, [&t](const std::pair<Task*, std::uint32_t>& w) { return w.first == &t; });
    on.wokenEarly.erase(&t);
    spin_unlock(k.s, t, on.hbLock);
    forgetRequeue(q, t);
}

Co<> futex_wake(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, int nr)
{
    FnScope fn(t, "futex_wake");
    Sched::burn(t, k.cost.faultEntryNs);
    co_await mm.mmap_sem.down_read(k.s, t);
    Sched::burn(t, k.cost.functionCallNs * 4);
    co_await spin_lock(k.s, t, q.hbLock);
    co_await k.s.flush(t);
    while (nr > 0 && !q.waiters.empty()) {
        const auto w = q.waiters.front();
        q.waiters.pop_front();
        wakeWaiter(k, t, q, w);
        --nr;
    }
    spin_unlock(k.s, t, q.hbLock);
    co_await mm.mmap_sem.up_read(k.s, t);
}

Co<int> futex_cmp_requeue(Mm& k, Task& t, MmStruct& mm, FutexQueue& q, FutexQueue& to, const int& word,
    int expected, int nrWake, int nrRequeue)
{
    FnScope fn(t, "futex_requeue");
    Sched::burn(t, k.cost.faultEntryNs);
    co_await mm.mmap_sem.down_read(k.s, t);
    Sched::burn(t, k.cost.functionCallNs * 8); // get_futex_key() for both words
    // double_lock_hb(): the two buckets' locks, the lower key first.
    SpinLock* first = &q.hbLock;
    SpinLock* second = &to.hbLock;
    if (to.key < q.key)
        std::swap(first, second);
    co_await spin_lock(k.s, t, *first);
    if (second != first)
        co_await spin_lock(k.s, t, *second);
    co_await k.s.flush(t);
    int done = 0;
    if (word == expected) {
        for (; nrWake > 0 && !q.waiters.empty(); --nrWake, ++done) {
            const auto w = q.waiters.front();
            q.waiters.pop_front();
            wakeWaiter(k, t, q, w);
        }
        for (; nrRequeue > 0 && !q.waiters.empty() && &to != &q; --nrRequeue, ++done) {
            const auto w = q.waiters.front();
            q.waiters.pop_front();
            Sched::burn(t, k.cost.listOpNs); // requeue_futex(): plist_del, plist_add, lock_ptr
            to.waiters.push_back(w);
            q.requeued[w.first] = &to;
        }
    }
    if (second != first)
        spin_unlock(k.s, t, *second);
    spin_unlock(k.s, t, *first);
    co_await mm.mmap_sem.up_read(k.s, t);
    co_return done;
}

} // namespace mms
