#pragma once
// The kernel's locking primitives as the scenario's kernel builds them (kernel/locking, arch/x86/include/asm):
// which arch_spinlock_t every SpinLock hands off with, and whether a mutex spins on a running owner. The kernel
// (mm/mm.cpp) sets them from its toggles; a bare scheduler has the current kernel's.

#include <cstdint>

namespace mms {

// arch_spinlock_t on x86:
//  - Byte: `lock; decb` and a read-only spin (test-and-test-and-set, before 2.6.25). Unfair: after a release every
//    waiter reloads the line and races for it, and the nearest CPU wins.
//  - Ticket: FIFO tickets (314cdbefd1fd, 2.6.25-4.1). Every waiter spins on the same word: a release invalidates it
//    in every waiter's cache and the next owner's reload waits behind the others'.
//  - Queued: qspinlock (a33fda35e3a7 + d73a33973f16, 4.2+), MCS: each waiter spins on its own node, and only the
//    head of the queue on the lock word: a release takes the line back from the head alone and is one transfer
//    to it, whatever the number of waiters; the new owner's stores (the locked byte, the next node) one more.
enum class SpinlockImpl : std::uint8_t { Byte, Ticket, Queued };

// Which contenders of an xadd rwsem spin on its running owner (a writer) instead of sleeping: none (before 3.16),
// writers (rwsem_optimistic_spin(), 4fc828e24cd9, 3.16), or readers too (cf69482d62d9, 5.3, until 617f3ef95177
// took the readers' spinning out again).
enum class RwsemSpin : std::uint8_t { None, Writer, Reader };

struct Locking {
    SpinlockImpl spinlock = SpinlockImpl::Queued;
    // CONFIG_MUTEX_SPIN_ON_OWNER: mutex_lock() spins while the owner runs (0d66bf6d3514 "mutex: implement adaptive
    // spinning", 2.6.30); before it a contended mutex always sleeps.
    bool mutexSpin = true;
    // A woken mutex waiter that loses the race for the mutex sets MUTEX_FLAG_HANDOFF, and the next unlock grants the
    // mutex to the first waiter (__mutex_handoff(), 9d659ae14b54 "locking/mutex: Add lock handoff to avoid
    // starvation", 4.10); before it a spinner or a running task may take the mutex from a woken waiter every time.
    bool mutexHandoff = true;
    // The mutex's spinners queue on an MCS lock (0dc8c730c98a "mutex: Queue mutex spinners with MCS lock to reduce
    // cacheline contention", 3.10): only the head polls the owner and the lock word, and a release reaches it in one
    // line transfer. Before it every spinner polls: the release invalidates the line in all of them, and the one
    // that takes the mutex reloads it behind the others.
    bool mutexMcs = true;
    // CONFIG_RWSEM_SPIN_ON_OWNER: who spins while the rwsem's owner, a writer, runs, and takes the rwsem when it is
    // released, ahead of the sleeping waiters (RwsemSpin); before 3.16 a contended acquirer always sleeps.
    RwsemSpin rwsemSpin = RwsemSpin::Writer;
    // RWSEM_FLAG_HANDOFF (4f23dbc1e657, 5.3): a waiter at the head of the queue for longer than RWSEM_WAIT_TIMEOUT
    // (4 ms) keeps spinners and running writers from taking the rwsem before it.
    bool rwsemHandoff = true;
    // __rwsem_mark_wake() with a reader first in the queue grants every queued reader, up to MAX_READERS_WAKEUP
    // (256), past the writers (d3681e269fff "locking/rwsem: Wake up almost all readers in wait queue", 5.3); before
    // it the readers up to the first writer.
    bool rwsemWakeAllReaders = true;
    // DEBUG_SPINLOCK: a contended waiter loops `trylock (xchg); __delay(1)` (2.6.20 lib/spinlock_debug.c,
    // __spin_lock_debug), so every waiter takes the lock's line exclusive every few tens of cycles while it waits,
    // not only when the lock is released.
    bool waitersRmw = false;
    // What a debug kernel's options (mm/kconfig.h) add to every acquisition and release, every contended
    // acquisition and every mutex operation. All 0 in a production kernel.
    double acquireNs = 0;
    double releaseNs = 0;
    double contendedNs = 0;
    double mutexOpNs = 0;
    bool debug() const { return acquireNs != 0 || releaseNs != 0 || contendedNs != 0 || mutexOpNs != 0; }
};

} // namespace mms
