#include "sync/spinlock.h"

#include <algorithm>
#include <cassert>

namespace mms {

namespace {
    void attemptEvent(void* ctx, std::uint64_t);
}

bool SpinLock::Acquire::await_ready()
{
    // Fast path only when the lock is free at the task's time and nobody queues: otherwise suspend and decide then.
    Simulator& sim = s.sim();
    Time now = sim.now();
    if (l.m_held || !l.m_waiters.empty())
        return false;
    if (t.debt == 0) {
        if (l.m_freeAt > now)
            return false;
        l.grantFree(s, t, now);
        return true;
    }
    // With CPU time pending, await_suspend() would spend it, make the attempt at that moment and, the lock being
    // free then, grant it and resume the task there. When the attempt and the resumption are the next two events,
    // take them here instead: the same events, clock and grant, and no suspension (nor a call to await_suspend).
    Time at = now + t.debt;
    auto key = static_cast<std::uint32_t>(t.cpu);
    if (l.m_freeAt > at || !sim.runsNextTwice(at, key))
        return false;
    s.spendDebt(t);
    sim.takeInline(at); // the attempt
    l.grantFree(s, t, at);
    sim.takeInline(at); // the resumption
    return true;
}

bool SpinLock::Acquire::await_suspend(std::coroutine_handle<> h)
{
    // Spend the pending CPU time first, then try at that moment.
    Simulator& sim = s.sim();
    const Time at = s.spendDebt(t);
    auto key = static_cast<std::uint32_t>(t.cpu);
    // The awaiter lives in the suspended frame, so `this` is stable until resumption.
    resumeHandle = h;
    if (sim.runsNext(at, key)) {
        // The attempt would be the next event: make it now, and carry on without suspending if the grant is too.
        sim.takeInline(at);
        Time granted = attempt();
        if (granted < 0)
            return true;
        if (sim.runsNext(granted, key)) {
            sim.takeInline(granted);
            return false;
        }
        sim.resumeAt(granted, key, h);
        return true;
    }
    sim.callAt(at, key, &attemptEvent, this, 0);
    return true;
}

namespace {
    // Acquire::attempt() as the event await_suspend() schedules at the end of the task's pending CPU time.
    void attemptEvent(void* ctx, std::uint64_t)
    {
        auto* a = static_cast<SpinLock::Acquire*>(ctx);
        Simulator& sim = a->s.sim();
        auto key = static_cast<std::uint32_t>(a->t.cpu);
        // Interrupts the CPU took on the task's way to the lock (Sched::interrupt) delay the attempt: they run before
        // the task reaches spin_lock(), not inside the critical section it then enters.
        if (a->t.debt) {
            sim.callAt(a->s.spendDebt(a->t), key, &attemptEvent, a, 0);
            return;
        }
        Time granted = a->attempt();
        if (granted < 0)
            return;
        // The attempt is an event of its own: when the grant is the next event, resume the holder here instead of a
        // push and a pop (the same order; `a` dies with the frame, so it is not touched after).
        if (sim.runsNext(granted, key)) {
            sim.takeInline(granted);
            a->resumeHandle.resume();
            return;
        }
        sim.resumeAt(granted, key, a->resumeHandle);
    }
} // namespace

Time SpinLock::Acquire::attempt()
{
    Time now = s.sim().now();
    if (!l.m_held && l.m_waiters.empty()) {
        // Free, or freed at a later moment by its last holder: spin until then.
        if (l.m_freeAt <= now) {
            l.grantFree(s, t, now);
            return now;
        }
        s.spinBegins(t);
        if (s.locking().spinlock != SpinlockImpl::Queued) {
            // Whoever spins at the release takes part in the hand-off: decide it then.
            l.enqueue(s, waiterOf(s, t, resumeHandle, now));
            l.handOffAt(s, l.m_freeAt);
            return -1;
        }
        const Time late = waiterPreempted(s);
        Time at = l.m_freeAt + ns(l.handoffNs(s, t.cpu, 0.0)) + late;
        l.grant(s, t, at, at - now, true, late);
        return at;
    }
    s.spinBegins(t);
    l.enqueue(s, waiterOf(s, t, resumeHandle, now));
    return -1;
}

Time SpinLock::waiterPreemptedInGuest(Sched& s)
{
    // A ticket or queued lock is handed to one waiter, which must run to take it: in a guest whose host deschedules
    // vCPUs, the host may have descheduled that waiter's vCPU, and the lock waits for it, free, while every other
    // waiter spins (lock-waiter preemption: Ouyang and Lange, "Preemptable Ticket Spinlocks", VEE'13) until their
    // PAUSE loops make the host run it (HostPreemption). The lock is contended, so it is taken to be spun on. A byte
    // lock goes to whichever waiter runs: not modelled (its nearest waiter takes it).
    if (s.locking().spinlock == SpinlockImpl::Byte)
        return 0;
    return ns(s.hostResidualNs());
}

void SpinLock::grant(Sched& s, Task& t, Time at, Time waited, bool contended, Time stolen)
{
    m_stat.noteAcquire(t.cpu, m_lastCpu, waited, contended);
    double cost = s.cost().lockedRmwNs + s.locking().acquireNs
        + (contended ? s.locking().contendedNs : s.lineTransferNs(m_lastCpu, t.cpu));
    // A queued lock's new owner, having seen the release, stores the locked byte (set_locked()) into the line it
    // shares with the releaser and passes the MCS queue's head on with a store to the node the next waiter spins on
    // in its own cache (arch_mcs_spin_unlock_contended(&next->locked); queued_spin_lock_slowpath(),
    // kernel/locking/qspinlock.c, 4.2 on). The two stores' lines are fetched together, and the critical section's
    // first locked instruction waits for them: one more transfer inside the hold while a waiter queues behind. A
    // ticket's owner owns the lock by reading it, and the byte lock's winner pays its RMW in the hand-off.
    if (contended && !m_waiters.empty() && s.locking().spinlock == SpinlockImpl::Queued)
        cost += s.lineTransferNs(m_waiters.front().t->cpu, t.cpu);
    // A byte lock's losers: every spinner saw the release (`cmpb $0` read 1) and jumps back to `lock; decb`, which
    // takes the line exclusive and fails (2.6.20 include/asm-x86_64/spinlock.h: spin_lock_string). Their RMWs come
    // right after the winner's, one after another; where the guarded data shares the lock's line, the holder's
    // first store to it waits for the line to come back through all of them.
    if (contended && m_guardsItsLine && s.locking().spinlock == SpinlockImpl::Byte)
        cost += throughWaitersNs(s, t.cpu);
    if (contended) {
        // Spinning burns the CPU; the wait itself passes on the clock while suspended. The part the host had the
        // waiter's vCPU descheduled is steal time.
        t.sysTime += waited - stolen;
        if (t.host) [[unlikely]] { // its vCPU's preemption while it spun is the hand-off's draw, not the running's
            t.stealTime += stolen;
            t.stealClock += waited - stolen;
        }
        if (s.trace())
            s.trace()->span(t.cpu, at - waited, at, SpanKind::LockWait, m_stat.name.c_str());
        m_stat.addToBuckets(m_stat.waitPerBucket, at - waited, at);
    }
    Sched::burn(t, cost, Acct::Sys);
    m_held = true;
    m_lastCpu = t.cpu;
    m_acquiredAt = at;
}

std::size_t SpinLock::nextOwner(const Sched& s) const
{
    if (s.locking().spinlock != SpinlockImpl::Byte)
        return 0; // FIFO: the next ticket, or the head of the MCS queue
    // The byte lock's race after a release: the line is in the releaser's cache, and a waiter nearest it reloads
    // and takes it before the others can: one sharing its last-level cache, then one on its socket, then any (the
    // longest-waiting of them, for a definite order).
    const Cpu& last = s.cpu(m_lastCpu);
    std::size_t onSocket = m_waiters.size();
    for (std::size_t i = 0; i < m_waiters.size(); ++i) {
        if (m_waiters[i].llc == last.llc)
            return i;
        if (onSocket == m_waiters.size() && m_waiters[i].socket == last.socket)
            onSocket = i;
    }
    return onSocket < m_waiters.size() ? onSocket : 0;
}

void SpinLock::enqueue(const Sched& s, const Waiter& w)
{
    assert(w.cpu == w.t->cpu && w.llc == s.cpu(w.t->cpu).llc && w.socket == s.cpu(w.t->cpu).socket);
    m_waiters.push_back(w);
    if (s.locking().spinlock == SpinlockImpl::Queued)
        return; // its waiters spin on their own MCS nodes: nothing to count
    if (!m_waitersAt) {
        int sockets = 0;
        for (int c = 0; c < s.cpuCount(); ++c)
            sockets = std::max(sockets, s.cpu(c).socket + 1);
        m_waitersAt = std::make_unique<std::uint16_t[]>(llcSlot(s, s.llcCount()) + static_cast<std::size_t>(sockets));
    }
    ++waitersOnCpu(w.cpu);
    ++waitersInLlc(s, w.llc);
    ++waitersInSocket(s, w.socket);
}

void SpinLock::dequeue(const Sched& s, std::size_t i)
{
    if (m_waitersAt) {
        const Waiter& w = m_waiters[i];
        --waitersOnCpu(w.cpu);
        --waitersInLlc(s, w.llc);
        --waitersInSocket(s, w.socket);
    }
    m_waiters.erase(i);
}

double SpinLock::othersReloadNs(const Sched& s, std::size_t next) const
{
    // lineTransferNs(m_lastCpu, cpu) of each waiter but the next: 0 on the holder's own CPU (or with no holder yet),
    // else by cache and socket, from the counts.
    if (m_lastCpu < 0)
        return 0.0;
    assert(m_waitersAt);
    const Waiter& w = m_waiters[next];
    const Cpu& last = s.cpu(m_lastCpu);
    const int others = static_cast<int>(m_waiters.size()) - 1;
    const int onCpu = waitersOnCpu(m_lastCpu) - (w.cpu == m_lastCpu);
    const int inLlc = waitersInLlc(s, last.llc) - (w.llc == last.llc);
    const int onSocket = waitersInSocket(s, last.socket) - (w.socket == last.socket);
    const CostModel& c = s.cost();
    return (inLlc - onCpu) * c.lineSameLlcNs + (onSocket - inLlc) * c.lineSameSocketNs
        + (others - onSocket) * c.lineCrossSocketNs;
}

double SpinLock::throughWaitersNs(const Sched& s, int cpu) const
{
    double ns = 0;
    int from = cpu;
    for (std::size_t i = 0; i < m_waiters.size(); ++i) {
        ns += s.lineTransferNs(from, m_waiters[i].cpu);
        from = m_waiters[i].cpu;
    }
    return ns + s.lineTransferNs(from, cpu);
}

double SpinLock::handoffNs(const Sched& s, int toCpu, double othersReloadNs) const
{
    // The spinners' reads have left the lock's line shared in their caches and the holder's. The release's store
    // (`movb $1` for a byte lock, the ticket's increment, the queued lock's locked byte) first takes it exclusive:
    // the invalidation goes to every spinner and its acknowledgement comes back before the store lands, and only
    // then can the next owner's reload fetch the released word (MESI: a store to a Shared line asks for ownership
    // first; Boyd-Wickizer et al., 2012, below: a release invalidates the line in every spinning core's cache).
    // A debug spinlock's waiters take the line exclusive in turn instead (Locking::waitersRmw): it comes back to the
    // releaser through them, which handOff() charges.
    const double upgrade = [&] {
        if (m_lastCpu < 0 || s.locking().waitersRmw)
            return 0.0;
        if (s.locking().spinlock == SpinlockImpl::Queued || m_waiters.empty())
            return s.lineTransferNs(m_lastCpu, toCpu); // the MCS head (or the one spinner) alone reads the word
        // Every waiter of a byte or ticket lock reads the lock word: the invalidation reaches the farthest of them.
        assert(m_waitersAt);
        const auto waiters = static_cast<int>(m_waiters.size());
        const Cpu& last = s.cpu(m_lastCpu);
        if (waitersInSocket(s, last.socket) < waiters)
            return s.cost().lineCrossSocketNs;
        if (waitersInLlc(s, last.llc) < waiters)
            return s.cost().lineSameSocketNs;
        return waitersOnCpu(m_lastCpu) < waiters ? s.cost().lineSameLlcNs : 0.0;
    }();
    const double toNext = s.lineTransferNs(m_lastCpu, toCpu);
    switch (s.locking().spinlock) {
    case SpinlockImpl::Queued: // the MCS head spins on the lock word alone: its reload (grant() adds its stores)
        return upgrade + toNext;
    case SpinlockImpl::Byte: // the winner's reload, then its locked RMW (`lock; decb`) takes the line exclusive
        return upgrade + 2 * toNext;
    case SpinlockImpl::Ticket:
        break;
    }
    // Every waiter spins reading the ticket word. The release's store invalidates it in all their caches, and their
    // reloads are served one at a time from the releaser's cache; the next owner's comes, on average, after half
    // of the others' (Boyd-Wickizer et al., "Non-scalable locks are dangerous", Linux Symposium 2012: the hand-off
    // grows linearly with the waiters).
    return upgrade + toNext + othersReloadNs / 2;
}

void SpinLock::unlockSlow(Sched& s, Task& t, Time releaseAt)
{
    m_stat.addToBuckets(m_stat.holdPerBucket, m_acquiredAt, releaseAt);
    if (s.trace())
        s.trace()->span(t.cpu, m_acquiredAt, releaseAt, SpanKind::LockHold, m_stat.name.c_str());
    if (m_waiters.empty()) {
        m_held = false;
        m_freeAt = releaseAt;
        return;
    }
    if (s.locking().spinlock != SpinlockImpl::Queued && releaseAt > s.sim().now()) {
        // The holder lets go at releaseAt, ahead of the clock: the waiters that spin by then share the hand-off.
        m_held = false;
        m_freeAt = releaseAt;
        handOffAt(s, releaseAt);
        return;
    }
    handOff(s, releaseAt);
}

void SpinLock::handOffAt(Sched& s, Time releaseAt)
{
    if (m_handOffPending)
        return;
    m_handOffPending = true;
    s.sim().callAt(
        releaseAt, static_cast<std::uint32_t>(std::max(m_lastCpu, 0)),
        [](void* ctx, std::uint64_t lock) {
            auto* sched = static_cast<Sched*>(ctx);
            auto* l = reinterpret_cast<SpinLock*>(static_cast<std::uintptr_t>(lock));
            l->m_handOffPending = false;
            l->handOff(*sched, sched->sim().now());
        },
        &s, static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(this)));
}

void SpinLock::handOff(Sched& s, Time releaseAt)
{
    const std::size_t next = nextOwner(s);
    Waiter w = m_waiters[next];
    const double others = s.locking().spinlock == SpinlockImpl::Ticket ? othersReloadNs(s, next) : 0.0;
    Time transfer = ns(handoffNs(s, w.t->cpu, others));
    // A debug spinlock's waiters have taken the line from the holder in turn while it held the lock: its release's
    // checks (the lock's magic and owner) and store wait for the line to come back through each of them, and only
    // then does the next owner see the lock free. (The holder's own stall is not charged to it: its release time
    // was fixed when it let go.)
    if (s.locking().waitersRmw)
        transfer += ns(throughWaitersNs(s, m_lastCpu));
    dequeue(s, next);
    const Time late = waiterPreempted(s);
    Time at = releaseAt + transfer + late;
    grant(s, *w.t, at, at - w.since, true, late);
    s.sim().resumeAt(at, static_cast<std::uint32_t>(w.t->cpu), w.h);
}

} // namespace mms
