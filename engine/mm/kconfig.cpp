#include "mm/kconfig.h"

#include "hw/costmodel.h"

namespace mms {

namespace {
    struct Named {
        const char* name;
        KernelConfig options; // memcg, the ptl layout and the statistics are not taken from here
    };
    KernelConfig debugOptions(bool spinlock, bool lockdep, bool lockStat, bool mutexes, bool slab, bool vm, bool list,
        bool pagealloc, bool preemptVoluntary)
    {
        KernelConfig c;
        c.preemptVoluntary = preemptVoluntary;
        c.debugSpinlock = spinlock;
        c.lockdep = lockdep;
        c.lockStat = lockStat;
        c.debugMutexes = mutexes;
        c.debugSlab = slab;
        c.debugVm = vm;
        c.debugList = list;
        c.debugPagealloc = pagealloc;
        return c;
    }
    const std::vector<Named>& named()
    {
        static const std::vector<Named> n = {
            // A release kernel: no debug option, and the kernel's default preemption model (PREEMPT_NONE).
            { "production", debugOptions(false, false, false, false, false, false, false, false, false) },
            // Fedora rawhide, April 2007 (2.6.21-rcN on a 2.6.20 base, x86-64): in rawhide every kernel is the debug
            // build (the spec's "debugbuildsenabled ... 0 for rawhide (all kernels are debug
            // kernels)", 2.6.20-1.2952.fc6
            // and 2.6.22.1-41.fc7), and the debug build is what `make release` switches off: DEBUG_SLAB,
            // DEBUG_MUTEXES, DEBUG_RWSEMS, DEBUG_LOCK_ALLOC, PROVE_LOCKING, DEBUG_SPINLOCK, DEBUG_VM (Fedora's
            // Makefile, 2010 form; the 2007 one is not public), with DEBUG_LIST on the "KernelDebugStrategy" page
            // (2008). LOCK_STAT did not exist yet (2.6.23), nor DEBUG_PAGEALLOC on x86-64. DEBUG_RWSEMS adds no check
            // to 2.6.20's spinlock rwsem beyond lockdep's. PREEMPT_VOLUNTARY: GUESS, Fedora's desktop choice
            // (config-generic of its later kernels; the 2007 file was not found).
            { "fedora-rawhide-2007-04", debugOptions(true, true, false, true, true, true, true, false, true) },
            // A later distribution debug kernel (Fedora's kernel-debug, 2010 on): the above with LOCK_STAT;
            // DEBUG_PAGEALLOC only in "extremedebug".
            { "fedora-debug", debugOptions(true, true, true, true, true, true, true, false, true) },
        };
        return n;
    }
    bool sameDebug(const KernelConfig& a, const KernelConfig& b)
    {
        return a.debugSpinlock == b.debugSpinlock && a.lockdep == b.lockdep && a.lockStat == b.lockStat
            && a.debugMutexes == b.debugMutexes && a.debugSlab == b.debugSlab && a.debugVm == b.debugVm
            && a.debugList == b.debugList && a.debugPagealloc == b.debugPagealloc
            && a.preemptVoluntary == b.preemptVoluntary;
    }
} // namespace

const std::vector<std::string>& KernelConfig::names()
{
    static const std::vector<std::string> v = [] {
        std::vector<std::string> r;
        for (const Named& n : named())
            r.push_back(n.name);
        return r;
    }();
    return v;
}

bool KernelConfig::setNamed(const std::string& name)
{
    for (const Named& n : named())
        if (name == n.name) {
            const KernelConfig era = *this;
            *this = n.options;
            memcg = era.memcg;
            ptlInStructPage = era.ptlInStructPage;
            ptlockAlloc = era.ptlockAlloc;
            memcgStatBatch = era.memcgStatBatch;
            return true;
        }
    return false;
}

std::string KernelConfig::name() const
{
    for (const Named& n : named())
        if (sameDebug(*this, n.options))
            return n.name;
    return "custom";
}

// Cycle counts at the machine's clock. No published per-operation figure was found for the 2007 debug options;
// where a count is a GUESS it says so, with what it rests on.
DebugCosts debugCosts(const KernelConfig& c, const CostModel& cost)
{
    auto cycles = [&cost](double n) { return n / cost.clockGHz; };
    DebugCosts d;
    if (c.debugSpinlock) {
        // _raw_spin_lock()/_raw_spin_unlock() out of line, each checking magic, owner and owner_cpu and writing
        // the owner fields (lib/spinlock_debug.c, 2.6.20): a call and about 8 loads, compares and stores (GUESS).
        d.lockAcquireNs += cost.functionCallNs + cycles(8);
        d.lockReleaseNs += cost.functionCallNs + cycles(8);
    }
    if (c.lockdep) {
        // lock_acquire()/lock_release(): irq save/restore, check_flags(), the held-lock stack, the chain-key hash
        // and a lock-free chain-hash lookup (kernel/lockdep.c). GUESS: 100-200 ns a pair on a 2.4-2.7 GHz Core 2,
        // from reading that code (no published figure), 190 cycles each way.
        d.lockAcquireNs += cycles(190);
        d.lockReleaseNs += cycles(190);
    }
    if (c.lockStat)
        d.contendedNs
            += cycles(100); // two sched_clock() reads (rdtsc, 25-65 cycles: Agner Fog's tables) and the class stats
    if (c.debugMutexes) // the NULL fast path: wait_lock taken and released on every lock and unlock (mutex-debug.h)
        d.mutexOpNs = 2 * cost.lockedRmwNs + d.lockAcquireNs + d.lockReleaseNs;
    if (c.debugList)
        d.listOpNs += cost.functionCallNs + cycles(4); // __list_add()/list_del(): out of line, two pointer compares
    if (c.debugVm)
        d.pageAllocNs += cycles(15); // bad_range(): the zone span under its seqlock and page_is_consistent() (GUESS)
    if (c.debugPagealloc)
        d.pageAllocNs += cost.tlbFlushLocalNs + 4 * cost.pteOpNs; // kernel_map_pages(): a direct-map PTE, a local flush
    if (c.debugSlab) {
        // check_poison_obj() compares the object byte by byte at allocation and poisons it again; the free checks
        // the red zones and poisons it: about two passes, GUESS 1.5 cycles a byte (~0.1 us for a 176-byte
        // vm_area_struct), and the red-zone words and caller store, 40 cycles an object.
        d.slabBytesNs = cycles(1.5);
        d.slabObjectNs = cycles(40);
    }
    return d;
}

CostModel kernelCostModel(const KernelConfig& c, const CostModel& machine)
{
    const DebugCosts d = debugCosts(c, machine);
    CostModel k = machine;
    k.listOpNs += d.listOpNs;
    k.pageAllocNs += d.pageAllocNs;
    k.pageFreeNs += d.pageAllocNs;
    constexpr double kVmAreaStructBytes = 176; // sizeof(struct vm_area_struct), 2.6.20 x86-64 (GUESS from its fields)
    k.vmaAdjustNs += d.slabObjectNs + kVmAreaStructBytes * d.slabBytesNs;
    return k;
}

} // namespace mms
