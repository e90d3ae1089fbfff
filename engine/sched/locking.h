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
//    head of the queue on the lock word: a release is one transfer to it, whatever the number of waiters, and the
//    new owner's stores (the locked byte, the next node) one more inside its hold.
enum class SpinlockImpl : std::uint8_t { Byte, Ticket, Queued };

struct Locking {
    SpinlockImpl spinlock = SpinlockImpl::Queued;
    // CONFIG_MUTEX_SPIN_ON_OWNER: mutex_lock() spins while the owner runs (0d66bf6d3514 "mutex: implement adaptive
    // spinning", 2.6.30); before it a contended mutex always sleeps.
    bool mutexSpin = true;
    // What a debug kernel's options (mm/kconfig.h) add to every acquisition and release, every contended
    // acquisition and every mutex operation. All 0 in a production kernel.
    double acquireNs = 0;
    double releaseNs = 0;
    double contendedNs = 0;
    double mutexOpNs = 0;
    bool debug() const { return acquireNs != 0 || releaseNs != 0 || contendedNs != 0 || mutexOpNs != 0; }
};

} // namespace mms
