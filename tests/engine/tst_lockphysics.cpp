// The kernel's lock implementations against closed forms (sched/locking.h): a ticket lock's hand-off grows with its
// waiters and a queued lock's does not; a byte lock goes to the nearest waiter (its cache's, then its socket's), a
// FIFO lock to the first; a line moves within a cache for less than between caches; a mutex spins on its running
// owner only from 2.6.30; a debug spinlock's waiters hold up its release; and each kernel version gets its era's
// locks.
#include "mm/toggles.h"
#include "sched/sched.h"
#include "sync/mutex.h"
#include "sync/spinlock.h"
#include "testutil.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace mms;

namespace {

// 12 CPUs in `sockets` sockets (CPUs 0-5 and 6-11 with two).
MachineSpec machine(int sockets) { return test::genericMachine(12, sockets); }

// Takes `l` at once and holds it for holdNs; `released` is when it let go.
Co<> holdFor(Sched& s, Task& t, SpinLock& l, double holdNs, Time& released)
{
    co_await spin_lock(s, t, l);
    Sched::burn(t, holdNs);
    released = s.sim().now() + t.debt;
    spin_unlock(s, t, l);
    co_await s.flush(t);
}

// Asks for `l` after beforeNs of other work; `granted` is when it got it.
Co<> waitFor(Sched& s, Task& t, SpinLock& l, double beforeNs, Time& granted)
{
    Sched::burn(t, beforeNs);
    co_await s.flush(t);
    co_await spin_lock(s, t, l);
    granted = s.sim().now();
    Sched::burn(t, 100);
    spin_unlock(s, t, l);
    co_await s.flush(t);
}

// The holder on CPU 0 holds the lock for 20 us; a waiter on each of `cpus`, in that order (10 ns apart, from 1 us),
// queues behind it. The times each waiter was granted the lock, and when the holder released it.
struct Handoffs {
    Time released = 0;
    std::vector<Time> granted;
};
Handoffs contend(const Locking& locking, const MachineSpec& m, const std::vector<int>& cpus)
{
    Simulator sim;
    Sched s(sim, m);
    s.setLocking(locking);
    SpinLock l("l");
    Handoffs h;
    h.granted.assign(cpus.size(), -1);
    Task& holder = s.spawn("holder", 0, false, nullptr, 1);
    s.start(holder, holdFor(s, holder, l, 20'000, h.released));
    for (std::size_t i = 0; i < cpus.size(); ++i) {
        Task& w = s.spawn("w" + std::to_string(i), cpus[i], false, nullptr, 2 + i);
        s.start(w, waitFor(s, w, l, 1'000 + 10.0 * static_cast<double>(i), h.granted[i]));
    }
    if (!sim.run())
        throw std::runtime_error("the run did not end");
    return h;
}

Handoffs contend(const Locking& locking, int sockets, const std::vector<int>& cpus)
{
    return contend(locking, machine(sockets), cpus);
}
Handoffs contend(SpinlockImpl impl, int sockets, const std::vector<int>& cpus)
{
    return contend(Locking { impl, true }, sockets, cpus);
}

// 4 CPUs on one socket of two dies, an L2 each (CPUs 0-1 and 2-3), with the quad-core-2007 preset's costs.
MachineSpec twoDies()
{
    MachineSpec m = *machinePreset("quad-core-2007");
    m.cpus = 4;
    m.sockets = 1;
    return m;
}

double handoffNs(const Handoffs& h, std::size_t first) { return toNs(h.granted[first] - h.released); }

// A waiter on CPU 1 holds the mutex's owner up for 50 us: the holder on CPU 0 takes it at once.
Co<> holdMutex(Sched& s, Task& t, Mutex& m, double holdNs)
{
    co_await mutex_lock(s, t, m);
    Sched::burn(t, holdNs);
    co_await s.flush(t);
    mutex_unlock(s, t, m);
    co_await s.flush(t);
}
Co<> lateMutex(Sched& s, Task& t, Mutex& m)
{
    Sched::burn(t, 1'000);
    co_await s.flush(t);
    co_await holdMutex(s, t, m, 100);
}

} // namespace

class TestLockPhysics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ticketHandoffGrowsWithWaitersQueuedDoesNot_data()
    {
        QTest::addColumn<int>("waiters");
        for (int n : { 1, 2, 4, 8, 11 })
            QTest::addRow("%d waiters", n) << n;
    }
    void ticketHandoffGrowsWithWaitersQueuedDoesNot()
    {
        QFETCH(int, waiters);
        std::vector<int> cpus;
        for (int c = 1; c <= waiters; ++c)
            cpus.push_back(c);
        const double x = machine(1).cost.lineSameSocketNs;
        QVERIFY(x > 0);
        // Every hand-off starts with the release's store taking the line back from the spinners' shared copies.
        // Queued (MCS): only the head reads the lock word: that, and its reload, whatever waits behind it.
        const Handoffs q = contend(SpinlockImpl::Queued, 1, cpus);
        QCOMPARE(qRound(handoffNs(q, 0)), qRound(2 * x));
        // Ticket: the first waiter's reload comes after half of the others' (n - 1 of them).
        const Handoffs t = contend(SpinlockImpl::Ticket, 1, cpus);
        QCOMPARE(qRound(handoffNs(t, 0)), qRound(2 * x + (waiters - 1) * x / 2));
        // Both FIFO; and the later hand-offs shrink under a ticket lock as the queue drains.
        for (std::size_t i = 1; i < cpus.size(); ++i) {
            QVERIFY(q.granted[i] > q.granted[i - 1]);
            QVERIFY(t.granted[i] > t.granted[i - 1]);
        }
        // The last waiter of a ticket lock gets the lock no earlier than the queued lock's last, though each queued
        // owner with a waiter behind it holds the lock a transfer longer (its stores).
        QVERIFY(t.granted.back() >= q.granted.back());
    }

    void handoffAcrossSocketsCostsTheRemoteTransfer()
    {
        const CostModel c = machine(2).cost;
        QVERIFY(c.lineCrossSocketNs > c.lineSameSocketNs);
        // A remote waiter (CPU 6) first, a local one (CPU 1) 10 ns later.
        const std::vector<int> cpus { 6, 1 };
        // The release's store waits for its invalidation to reach the farthest spinner on the lock word: the
        // queued lock's remote head; every waiter of a ticket or byte lock, the remote one among them.
        const Handoffs q = contend(SpinlockImpl::Queued, 2, cpus);
        QCOMPARE(qRound(handoffNs(q, 0)), qRound(2 * c.lineCrossSocketNs));
        QVERIFY(q.granted[0] < q.granted[1]);
        const Handoffs t = contend(SpinlockImpl::Ticket, 2, cpus);
        QCOMPARE(qRound(handoffNs(t, 0)), qRound(2 * c.lineCrossSocketNs + c.lineSameSocketNs / 2));
        QVERIFY(t.granted[0] < t.granted[1]);
        // The byte lock is unfair: the waiter on the releaser's socket takes it, though it came later.
        const Handoffs b = contend(SpinlockImpl::Byte, 2, cpus);
        QVERIFY(b.granted[1] < b.granted[0]);
        QCOMPARE(qRound(handoffNs(b, 1)), qRound(c.lineCrossSocketNs + 2 * c.lineSameSocketNs));
    }

    // On a socket of two dies the line moves within a die through its L2 and between the dies over the bus: a
    // waiter on the other die (CPU 2) first, one on the holder's die (CPU 1) 10 ns later.
    void handoffWithinACacheCostsTheCachesTransfer()
    {
        const MachineSpec m = twoDies();
        const CostModel& c = m.cost;
        QCOMPARE(m.llcOf(1), m.llcOf(0));
        QVERIFY(m.llcOf(2) != m.llcOf(0));
        QVERIFY(c.lineSameLlcNs < c.lineSameSocketNs);
        const std::vector<int> cpus { 2, 1 };
        // Queued: the head, on the other die, reads the word and reloads it.
        const Handoffs q = contend(Locking { SpinlockImpl::Queued, true }, m, cpus);
        QCOMPARE(qRound(handoffNs(q, 0)), qRound(2 * c.lineSameSocketNs));
        // Ticket: the head's reload comes after half of the other's, which is within the holder's die.
        const Handoffs t = contend(Locking { SpinlockImpl::Ticket, true }, m, cpus);
        QCOMPARE(qRound(handoffNs(t, 0)), qRound(2 * c.lineSameSocketNs + c.lineSameLlcNs / 2));
        // Byte: the waiter sharing the releaser's L2 wins the race, though it came later; the release's store still
        // waits for its invalidation to reach the other die.
        const Handoffs b = contend(Locking { SpinlockImpl::Byte, true }, m, cpus);
        QVERIFY(b.granted[1] < b.granted[0]);
        QCOMPARE(qRound(handoffNs(b, 1)), qRound(c.lineSameSocketNs + 2 * c.lineSameLlcNs));
    }

    // DEBUG_SPINLOCK's waiters loop on trylock's xchg, so while the holder holds the lock they take its line in
    // turn; the release's checks (the lock's magic and owner) and its store wait for the line to come back through
    // every one of them: the first waiter is granted the lock later by the line's trip through all of them, where
    // a release with read-only spinners waits for one invalidation.
    void debugSpinlockWaitersDelayTheRelease_data()
    {
        QTest::addColumn<int>("waiters");
        for (int n : { 1, 3, 7 })
            QTest::addRow("%d waiters", n) << n;
    }
    void debugSpinlockWaitersDelayTheRelease()
    {
        QFETCH(int, waiters);
        std::vector<int> cpus;
        for (int c = 1; c <= waiters; ++c)
            cpus.push_back(c);
        Locking debug { SpinlockImpl::Byte, true };
        debug.acquireNs = debug.releaseNs = 50; // the debug checks, the same in both runs
        Locking rmw = debug;
        rmw.waitersRmw = true;
        const Handoffs a = contend(debug, 1, cpus), b = contend(rmw, 1, cpus);
        const double x = machine(1).cost.lineSameSocketNs;
        QCOMPARE(b.released, a.released); // the same hold up to the release
        QCOMPARE(qRound(toNs(b.granted[0] - a.granted[0])), qRound(waiters * x));
    }

    void mutexSpinsOnItsOwnerFrom2630_data()
    {
        QTest::addColumn<bool>("spin");
        QTest::addRow("2.6.30+: spins") << true;
        QTest::addRow("before: sleeps") << false;
    }
    void mutexSpinsOnItsOwnerFrom2630()
    {
        QFETCH(bool, spin);
        Simulator sim;
        const MachineSpec m = machine(1);
        Sched s(sim, m);
        s.setLocking(Locking { SpinlockImpl::Queued, spin });
        Mutex mx("m");
        Task& owner = s.spawn("owner", 0, false, nullptr, 1);
        Task& waiter = s.spawn("waiter", 1, false, nullptr, 2);
        s.start(owner, holdMutex(s, owner, mx, 50'000));
        s.start(waiter, lateMutex(s, waiter, mx));
        QVERIFY(sim.run());
        // Spinning on a running owner is the waiter's system time; sleeping is not.
        const double sysUs = toNs(waiter.sysTime) / 1000.0;
        if (spin)
            QVERIFY2(sysUs > 45, qPrintable(QString::number(sysUs)));
        else
            QVERIFY2(sysUs < 10, qPrintable(QString::number(sysUs)));
    }

    void eachKernelGetsItsErasLocks_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("spinlock");
        QTest::addColumn<bool>("mutexSpin");
        QTest::addRow("2.6.20") << "2.6.20" << int(SpinlockImpl::Byte) << false;
        QTest::addRow("2.6.25") << "2.6.25" << int(SpinlockImpl::Ticket) << false;
        QTest::addRow("2.6.30") << "2.6.30" << int(SpinlockImpl::Ticket) << true;
        QTest::addRow("4.1") << "4.1" << int(SpinlockImpl::Ticket) << true;
        QTest::addRow("4.2") << "4.2" << int(SpinlockImpl::Queued) << true;
        QTest::addRow("5.6") << "5.6" << int(SpinlockImpl::Queued) << true;
    }
    void eachKernelGetsItsErasLocks()
    {
        QFETCH(QString, kernel);
        QFETCH(int, spinlock);
        QFETCH(bool, mutexSpin);
        const Toggles t = Toggles::forKernel(*KernelVersion::parse(kernel.toStdString()));
        QCOMPARE(int(t.spinlock), spinlock);
        QCOMPARE(t.mutexSpin, mutexSpin);
        // The default kernel's toggles are the member defaults.
        const Toggles d = Toggles::forKernel(*KernelVersion::parse(kDefaultKernel));
        QCOMPARE(int(d.spinlock), int(Toggles {}.spinlock));
        QCOMPARE(d.mutexSpin, Toggles {}.mutexSpin);
        // And the toggles can be set by name.
        Toggles u;
        QVERIFY(u.set("lock.spinlock", nlohmann::json("byte")).empty());
        QCOMPARE(int(u.spinlock), int(SpinlockImpl::Byte));
        QVERIFY(!u.set("lock.spinlock", nlohmann::json("mcs")).empty());
    }
};

QTEST_GUILESS_MAIN(TestLockPhysics)
#include "tst_lockphysics.moc"
