#pragma once
// The kernel's build configuration (toggles `kernel.config` and `config.*`): the options that change what the
// modelled paths do or what they cost, in one place. Each option says which checks it adds to which path; the
// costs those paths then charge are derived here from the machine's clock (debugCosts), so sync/ and mm/ read one
// figure each and know no option.
//
// The debug options are those of a distribution's debug kernel. What existed on x86-64 in 2.6.20
// (lib/Kconfig.debug, arch/x86_64/Kconfig.debug): DEBUG_SLAB, DEBUG_SPINLOCK, DEBUG_MUTEXES, DEBUG_RWSEMS,
// DEBUG_LOCK_ALLOC / PROVE_LOCKING, DEBUG_VM, DEBUG_LIST; LOCK_STAT came in 2.6.23 and DEBUG_PAGEALLOC was then in
// arch/i386/Kconfig.debug only, so a 2.6.20 x86-64 debug kernel has neither.

#include <string>
#include <vector>

namespace mms {

struct CostModel;

struct KernelConfig {
    // CONFIG_MEMCG (CGROUP_MEM_RES_CTLR before 3.6, merged in 2.6.25): every change to an LRU list's size also
    // writes the memcg's per-zone (per-node from 4.8) LRU size counters (mem_cgroup_update_lru_size(), 5.6;
    // MEM_CGROUP_ZSTAT in mem_cgroup_add_lru_list() before it) -- a line of the lruvec's memcg that moves with
    // lru_lock from holder to holder. Distribution kernels enable it from its merge.
    bool memcg = true;
    // DEBUG_SPINLOCK (lib/spinlock_debug.c): every spin_lock()/spin_unlock() is out of line with magic, owner and
    // owner_cpu checks and writes; a contended waiter loops `trylock (xchg); __delay(1)` instead of the read-only
    // spin, so waiters take the lock's line exclusive in turn and the release and the next owner race for it like
    // the byte lock, whatever the arch lock.
    bool debugSpinlock = false;
    // DEBUG_LOCK_ALLOC + PROVE_LOCKING (lockdep, kernel/lockdep.c): lock_acquire()/lock_release() on every
    // spinlock, rwsem and mutex operation (irq save/restore, the held-lock stack, the chain-key hash and lookup).
    bool lockdep = false;
    // LOCK_STAT (2.6.23+): lock_contended()/lock_acquired() time each contended acquisition (two sched_clock()
    // reads and the per-CPU class statistics).
    bool lockStat = false;
    // DEBUG_MUTEXES (kernel/mutex-debug.h): the NULL fast path, so every mutex_lock()/mutex_unlock() takes the slow
    // path and its wait_lock; no spinning on the owner.
    bool debugMutexes = false;
    // DEBUG_SLAB (SLAB's poisoning and red zones; SLUB_DEBUG_ON later): every object allocation checks the poison
    // byte by byte and re-poisons, every free verifies the red zones and poisons the object.
    bool debugSlab = false;
    // DEBUG_VM: VM_BUG_ON checks; in the page allocator bad_range() (the zone's span under its seqlock) on every
    // page taken off or put on a free list.
    bool debugVm = false;
    // DEBUG_LIST (lib/list_debug.c): list_add()/list_del() out of line, each checking its neighbours' pointers.
    bool debugList = false;
    // DEBUG_PAGEALLOC: a freed page is unmapped from the kernel's direct map and mapped again when allocated
    // (kernel_map_pages()), each time with a flush of this CPU's TLB (x86: __flush_tlb_all(), local only).
    bool debugPagealloc = false;
    // PREEMPT_VOLUNTARY (2.6.13+): might_sleep() calls might_resched(), so every function that may sleep (a
    // GFP_KERNEL allocation, down_read(), mutex_lock()) is a preemption point as cond_resched() is; without it
    // (PREEMPT_NONE, the kernel's default) only cond_resched() and the return to user space are. What a preemption
    // point does is the scheduler's (sched.o1).
    bool preemptVoluntary = false;
    // Not options but the era's layout, set with the kernel version. From 2.6.15 each page-table page's split lock
    // lives in its struct page (USE_SPLIT_PTLOCKS, NR_CPUS >= 4); DEBUG_SPINLOCK or lockdep grow the lock from 4 to
    // about 48 bytes and struct page from 56 to about 88: two cache lines a page (ptlInStructPage). "mm: stop ptlock
    // enlarging struct page" (2.6.33) switches the split locks off under those options instead (SPLIT_PTLOCK_CPUS
    // "999999" if DEBUG_SPINLOCK || DEBUG_LOCK_ALLOC): every page table of an mm is guarded by mm->page_table_lock.
    // 49076ec2ccaf "mm: dynamically allocate page->ptl if it cannot be embedded to struct page" (3.13, made a
    // build-time choice by 539edb5846c7 in the same release) splits them again: page->ptl points to a lock
    // allocated apart (ptlockAlloc), "one more cache line for indirect access" (its Documentation/vm/
    // split_page_table_lock), not charged here: the pointer sits in the page table's struct page, read-mostly.
    bool ptlInStructPage = false; // the default kernel's (kDefaultKernel, 3.12)
    bool ptlockAlloc = false;
    // The era's memcg statistics, with memcg: a CPU's per-cpu delta of an item is folded into the memcg's and the
    // lruvec's shared counters with atomic_long_add() once it passes MEMCG_CHARGE_BATCH (32), from a983b5ebee57
    // "mm: memcontrol: fix excessive complexity in memory.stat reporting" (4.16) until 2d146aa3aa84 "mm:
    // memcontrol: switch to rstat" (5.13) moved the aggregation to the read side. Before 4.16 the statistics
    // stayed per-cpu.
    bool memcgStatBatch = false;

    // The named configurations `kernel.config` accepts.
    static const std::vector<std::string>& names();
    // Sets every debug option and the preemption model of the named configuration, keeping memcg and the era's
    // layout and statistics; false for an unknown name.
    bool setNamed(const std::string& name);
    // The name of a configuration equal to this one, or "custom".
    std::string name() const;
    bool debugLocks() const { return debugSpinlock || lockdep; }
    // struct page's cache lines: 2 where a debug spinlock sits in it (see ptlInStructPage), else 1.
    int structPageLines() const { return ptlInStructPage && !ptlockAlloc && debugLocks() ? 2 : 1; }
    // Whether each page-table page has a lock of its own; else mm->page_table_lock guards them all (see
    // ptlInStructPage).
    bool splitPtlocks() const { return !debugLocks() || ptlInStructPage || ptlockAlloc; }
};

// What the options cost the paths they instrument, in nanoseconds at the machine's clock.
struct DebugCosts {
    double lockAcquireNs = 0; // every spinlock, rwsem or mutex acquisition: debug spinlock + lockdep
    double lockReleaseNs = 0; // every release
    double contendedNs = 0; // every contended acquisition: LOCK_STAT's timing
    double mutexOpNs = 0; // every mutex_lock / mutex_unlock: DEBUG_MUTEXES's wait_lock round trip
    double listOpNs = 0; // every list_add / list_del: DEBUG_LIST's out-of-line checks
    double pageAllocNs = 0; // every page taken off or put on a free list: DEBUG_VM, DEBUG_PAGEALLOC
    double slabBytesNs = 0; // per byte of a slab object allocated and freed: DEBUG_SLAB's poison passes
    double slabObjectNs = 0; // per object allocated or freed: DEBUG_SLAB's red zones and caller store
};

DebugCosts debugCosts(const KernelConfig& c, const CostModel& cost);
// The machine's cost model with what the options add to the kernel's own steps: each LRU and free-list operation
// (DEBUG_LIST), each page allocated and freed (DEBUG_VM, DEBUG_PAGEALLOC), each VMA split, merge or removal, which
// allocates or frees a vm_area_struct (DEBUG_SLAB). The lock costs go to the scheduler's Locking instead.
CostModel kernelCostModel(const KernelConfig& c, const CostModel& machine);

} // namespace mms
