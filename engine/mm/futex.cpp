// kernel/futex.c of 2.6.20: futex_wait() and futex_wake() find the futex's key with get_futex_key(), which needs
// the VMA and so runs under down_read(&current->mm->mmap_sem) (later kernels use get_user_pages_fast instead). Every
// contended user-space mutex operation of a threaded program is therefore an mmap_sem reader: it queues behind a
// writer (glibc's mprotect/mmap, a write-locked madvise) and, with the spinlock rwsem, bounces wait_lock's line.
#include "mm/futex.h"

#include "mm/mm.h"

namespace mms {

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
    if (q.wokenEarly.erase(&t))
        co_return;
    // TASK_INTERRUPTIBLE: schedule() with a signal pending returns at once, and a signal sent later wakes the task.
    if (!fatal_signal_pending(t))
        co_await k.s.sleep(t, true);
    if (!fatal_signal_pending(t))
        co_return;
    // unqueue_me(): off the queue under the bucket lock, unless a futex_wake() took it first (-ERESTARTSYS either
    // way: the return to user space delivers the signal).
    co_await spin_lock(k.s, t, q.hbLock);
    co_await k.s.flush(t);
    std::erase_if(q.waiters, [&t](const std::pair<Task*, std::uint32_t>& w) { return w.first == &t; });
    q.wokenEarly.erase(&t);
    spin_unlock(k.s, t, q.hbLock);
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
        auto [w, gen] = q.waiters.front();
        q.waiters.pop_front();
        Sched::burn(t, k.s.wakeupNs());
        if (w->state == TaskState::Sleeping)
            k.s.wakeIf(*w, gen, &t);
        else
            q.wokenEarly.insert(w);
        --nr;
    }
    spin_unlock(k.s, t, q.hbLock);
    co_await mm.mmap_sem.up_read(k.s, t);
}

} // namespace mms
