// User-space locks over futexes, in closed form: FUTEX_CMP_REQUEUE wakes one waiter and moves the others to the
// second futex, where FUTEX_WAKE finds them (and a killed waiter takes itself off the queue it was moved to); every
// futex call is an mmap_sem reader (2.6.20); InnoDB 5.0's mutex takes a short hold in its spin without entering the
// kernel, and for a long one spins its rounds, yields once and waits on the event, and the event's set wakes every
// waiter, each of which then gets the mutex in turn.
#include "kernel/kernel.h"
#include "kernel/syscalls.h"
#include "mm/futex.h"
#include "sched/signal.h"
#include "testutil.h"
#include "workload/usersync.h"

#include <QtTest>

#include <climits>

using namespace mms;

namespace {

// One process of `threads` threads, thread i on CPU i.
struct Threads {
    explicit Threads(int threads)
        : b(64ull << 20)
    {
        for (int i = 0; i < threads; ++i)
            t.push_back(i == 0 ? &sys::spawn_process(b.k, "p", 0, 1)
                               : &sys::spawn_thread(b.k, *t[0], "p-" + std::to_string(i), i, 1 + i));
    }
    std::uint64_t mmapSemReaders() const { return t[0]->mm->mmap_sem.stat().acquisitions; }

    test::Box b;
    std::vector<Task*> t;
};

} // namespace

class TestUserSync : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void requeueWakesOneAndMovesTheRest()
    {
        Threads p(4);
        sys::Futex cond(p.b.k), mutex(p.b.k);
        int word = 0;
        int returned = 0;
        std::vector<int> counts; // returned after each step
        auto waiter = [&](Task& t) -> Co<> {
            co_await sys::futex_wait(p.b.k, t, cond, word, 0);
            ++returned;
        };
        auto waker = [&](Task& t) -> Co<> {
            co_await sys::nanosleep(p.b.k, t, us(100)); // the waiters are asleep by then
            counts.push_back(co_await sys::futex_cmp_requeue(p.b.k, t, cond, mutex, word, 1, 1, INT_MAX)); // -EAGAIN
            counts.push_back(co_await sys::futex_cmp_requeue(p.b.k, t, cond, mutex, word, 0, 1, INT_MAX));
            co_await sys::nanosleep(p.b.k, t, us(100));
            counts.push_back(returned);
            counts.push_back(static_cast<int>(cond.queue().waiters.size()));
            counts.push_back(static_cast<int>(mutex.queue().waiters.size()));
            for (int i = 0; i < 2; ++i) {
                co_await sys::futex_wake(p.b.k, t, mutex, 1);
                co_await sys::nanosleep(p.b.k, t, us(100));
                counts.push_back(returned);
            }
        };
        for (int i = 1; i < 4; ++i)
            sys::start(p.b.k, *p.t[static_cast<std::size_t>(i)], waiter(*p.t[static_cast<std::size_t>(i)]));
        sys::start(p.b.k, *p.t[0], waker(*p.t[0]));
        QVERIFY(p.b.sim.run());
        // The word did not hold 1: nobody moved. Then 3 handled: 1 woken, 2 moved; each wake of the mutex's futex
        // returns one of them from its FUTEX_WAIT on the condition's.
        QCOMPARE(counts, (std::vector<int> { 0, 3, 1, 0, 2, 2, 3 }));
        QVERIFY(mutex.queue().waiters.empty());
        QVERIFY(cond.queue().requeued.empty()); // each returned waiter forgot where it was moved
        QCOMPARE(p.mmapSemReaders(), std::uint64_t(3 + 2 + 2)); // 3 waits, 2 requeues, 2 wakes: each a reader
    }

    // A thread killed while asleep on the futex it was moved to takes itself off that queue, not the one it slept on.
    void aKilledRequeuedWaiterLeavesTheQueueItWasMovedTo()
    {
        Threads p(3);
        sys::Futex cond(p.b.k), mutex(p.b.k);
        int word = 0;
        int returned = 0;
        auto waiter = [&](Task& t) -> Co<> {
            co_await sys::futex_wait(p.b.k, t, cond, word, 0);
            ++returned;
        };
        auto killer = [&](Task& t) -> Co<> {
            co_await sys::nanosleep(p.b.k, t, us(100));
            co_await sys::futex_cmp_requeue(p.b.k, t, cond, mutex, word, 0, 0, INT_MAX); // wake none, move both
            send_sigkill(p.b.s, *p.t[1]);
            send_sigkill(p.b.s, *p.t[2]);
        };
        sys::start(p.b.k, *p.t[1], waiter(*p.t[1]));
        sys::start(p.b.k, *p.t[2], waiter(*p.t[2]));
        sys::start(p.b.k, *p.t[0], killer(*p.t[0]));
        QVERIFY(p.b.sim.run());
        QCOMPARE(returned, 0);
        QVERIFY(cond.queue().waiters.empty());
        QVERIFY(mutex.queue().waiters.empty());
        QVERIFY(cond.queue().requeued.empty());
    }

    // A hold shorter than the spin: the waiter takes the mutex in its spin, no yield, no wait, no system call.
    void aShortHoldIsTakenInTheSpin()
    {
        Threads p(2);
        InnodbSyncArray array(p.b.k);
        InnodbMutex m(p.b.k, array);
        Time got = -1, released = -1;
        auto holder = [&](Task& t) -> Co<> {
            co_await m.enter(p.b.k, t);
            sys::compute(t, 400.0);
            co_await sys::flush(p.b.k, t);
            released = sys::now(p.b.k);
            co_await m.exit(p.b.k, t);
        };
        auto waiter = [&](Task& t) -> Co<> {
            sys::compute(t, 100.0); // arrives while the holder holds
            co_await m.enter(p.b.k, t);
            got = sys::now(p.b.k);
            co_await m.exit(p.b.k, t);
        };
        sys::start(p.b.k, *p.t[0], holder(*p.t[0]));
        sys::start(p.b.k, *p.t[1], waiter(*p.t[1]));
        QVERIFY(p.b.sim.run());
        QCOMPARE(m.spinWaits(), std::uint64_t(1));
        QCOMPARE(m.yields(), std::uint64_t(0));
        QCOMPARE(m.osWaits(), std::uint64_t(0));
        QVERIFY(got >= released);
        // One round is at most ut_delay(6), 300 cycles and two calls: the waiter sees the release within one round.
        const CostModel& c = sys::machine_costs(p.b.k);
        QVERIFY(got - released <= ns(300.0 / c.clockGHz + 2 * c.functionCallNs) + ns(100.0));
        QCOMPARE(p.mmapSemReaders(), std::uint64_t(0));
    }

    // A hold far longer than the spin: each of three waiters spins its 20 rounds, yields once, reserves a cell and
    // waits on the event; the exit sets the event, which wakes all three (one by the requeue, the others as the
    // event's mutex passes), and each gets the mutex in turn.
    void aLongHoldSendsEveryWaiterToTheEventAndItsSetWakesThemAll()
    {
        Threads p(4);
        InnodbSyncArray array(p.b.k);
        InnodbMutex m(p.b.k, array);
        Time released = -1;
        int holders = 0, inside = 0, most = 0;
        auto hold = [&](Task& t, double ns) -> Co<> {
            ++holders;
            most = std::max(most, ++inside);
            sys::compute(t, ns);
            co_await sys::flush(p.b.k, t);
            --inside;
        };
        auto holder = [&](Task& t) -> Co<> {
            co_await m.enter(p.b.k, t);
            co_await hold(t, 1e6);
            released = sys::now(p.b.k);
            co_await m.exit(p.b.k, t);
        };
        std::vector<Time> got;
        auto waiter = [&](Task& t) -> Co<> {
            co_await sys::nanosleep(p.b.k, t, us(10));
            co_await m.enter(p.b.k, t);
            got.push_back(sys::now(p.b.k));
            co_await hold(t, 1000.0);
            co_await m.exit(p.b.k, t);
        };
        sys::start(p.b.k, *p.t[0], holder(*p.t[0]));
        for (std::size_t i = 1; i < 4; ++i)
            sys::start(p.b.k, *p.t[i], waiter(*p.t[i]));
        QVERIFY(p.b.sim.run());
        QCOMPARE(holders, 4);
        QCOMPARE(most, 1);
        QCOMPARE(m.spinWaits(), std::uint64_t(3));
        QVERIFY(m.yields() >= 3);
        QVERIFY(m.osWaits() >= 3);
        QCOMPARE(got.size(), std::size_t(3));
        for (Time g : got)
            QVERIFY(g > released);
        QVERIFY(got.back() - released < us(200)); // woken, not left asleep
        QCOMPARE(array.reserved, 0);
        QVERIFY(p.mmapSemReaders() > 0); // the waits and the wake-ups are futex calls
    }
};

QTEST_GUILESS_MAIN(TestUserSync)
#include "tst_usersync.moc"
