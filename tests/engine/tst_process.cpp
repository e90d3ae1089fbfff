// The process lifecycle's lock traffic and memory in closed form: fork links each file VMA into its file's i_mmap
// tree once (one i_mmap lock acquisition per VMA), exec unlinks the old ones and links the image's, exit unlinks what
// is left; whatever fork and exec allocated (kernel stack, slab, page tables) is free again once the parent has
// reaped the child; the heap's THP fault takes an order-9 block when one is free and falls back to 512 small pages
// when none can be had; a fork_process() child starts as its fork returns and gives everything back at exit; a TLB
// flush interrupts a CPU in lazy TLB mode once (before 4.19); a loopback round trip between two processes costs two
// sends, two copies and two context switches, and a dying server closes its end; SIGKILL wakes a thread asleep in a
// futex, a socket read or nanosleep; a process's threads stay on the CPUs its sched_setaffinity names; the thread
// microbenchmark's faults follow its advice in closed form; a user access that must set an accessed or dirty bit the
// kernel cleared costs a page walk.
#include "kernel/process.h"
#include "kernel/syscalls.h"
#include "mm/futex.h"
#include "kernel/kernel.h"
#include "mm/tlb.h"
#include "scenario/scenario.h"
#include "testutil.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace mms;

namespace {

// A bare machine whose kernel has `tg`'s toggles.
struct Machine {
    explicit Machine(std::uint64_t bytes, Toggles tg = {})
        : m(test::Box::spec(bytes))
        , s(sim, m)
        , k(s, tg)
    {
    }
    // Free pages: the buddy lists and every CPU's per-cpu list.
    std::uint64_t nrFree() const
    {
        std::uint64_t n = k.node(0).zone.nrFree();
        for (const auto& pcp : k.node(0).zone.pcp)
            n += pcp.size();
        return n;
    }
    // A process whose mm maps `vmas` VMAs of `pages` pages of `file` each, as a program started at set-up.
    Task& process(AddressSpace& file, int vmas, std::uint32_t pages = 16)
    {
        ++m_processes;
        Task& t = sys::spawn_process(k, "p" + std::to_string(m_processes), 0, m_processes);
        for (int v = 0; v < vmas; ++v)
            sys::mmap_file(k, t, sys::File(&file), static_cast<std::uint64_t>(v) * pages, pages);
        return t;
    }
    std::uint64_t acquisitions(const AddressSpace& m) const { return m.i_mmap_mutex.stat().acquisitions; }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
    int m_processes = 0;
};

// What a test body records between the steps of a process's life.
struct Marks {
    std::vector<std::uint64_t> acq; // acquisitions of the watched file's i_mmap lock after each step
    std::vector<std::size_t> tree; // VMAs on its i_mmap tree after each step
    std::vector<std::uint64_t> free; // free pages after each step
};

} // namespace

class TestProcess : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void forkLinksEachFileVmaAndExitUnlinksIt_data()
    {
        QTest::addColumn<int>("vmas");
        QTest::addRow("1 VMA") << 1;
        QTest::addRow("3 VMAs") << 3;
        QTest::addRow("8 VMAs") << 8;
    }
    void forkLinksEachFileVmaAndExitUnlinksIt()
    {
        QFETCH(int, vmas);
        Machine b(64ull << 20);
        AddressSpace& file = new_address_space(b.k, 1024);
        Task& t = b.process(file, vmas);
        const std::uint64_t free0 = b.nrFree();
        Marks mk;
        bool reaped = false;
        auto mark = [&] {
            mk.acq.push_back(b.acquisitions(file));
            mk.tree.push_back(file.i_mmap.size());
            mk.free.push_back(b.nrFree());
        };
        auto body = [&]() -> Co<> {
            mark();
            co_await sys::fork(b.k, t);
            mark();
            co_await sys::exit(b.k, t);
            mark();
            reaped = co_await sys::wait(b.k, t);
            mark();
        };
        sys::start(b.k, t, body());
        QVERIFY(b.sim.run());
        const auto v = static_cast<std::uint64_t>(vmas);
        QCOMPARE(mk.acq[0], std::uint64_t(0)); // set-up's mmap links without simulated locking
        QCOMPARE(mk.acq[1] - mk.acq[0], v); // dup_mmap: one vma_link per file VMA
        QCOMPARE(mk.acq[2] - mk.acq[1], v); // exit_mmap: one unlink_file_vma per file VMA
        QCOMPARE(mk.acq[3], mk.acq[2]); // wait takes none
        QCOMPARE(mk.tree[0], std::size_t(v)); // the parent's
        QCOMPARE(mk.tree[1], std::size_t(2 * v)); // the parent's and the child's
        QCOMPARE(mk.tree[2], std::size_t(v));
        QVERIFY(reaped);
        // fork took the stack, maybe a slab, the pgd; exit gave back the pgd, wait the rest.
        QVERIFY(mk.free[1] < free0);
        QCOMPARE(mk.free[3], free0);
        QVERIFY(b.k.procs[t.id] && !b.k.procs[t.id]->parent && !b.k.procs[t.id]->zombie);
        QCOMPARE(t.mm, b.k.procs[t.id]->mm); // the parent's mm again
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    // fork_process(): each child is a task of its own, woken when its fork returns on the idlest CPU, with an mm of
    // its own holding copies of the parent's VMAs; at exit it gives back everything its fork took.
    void forkProcessStartsEachChildWhenItsForkReturns()
    {
        Machine b(64ull << 20);
        AddressSpace& file = new_address_space(b.k, 1024);
        Task& parent = b.process(file, 2);
        const std::uint64_t free0 = b.nrFree();
        struct Child {
            Task* t;
            Time forkedAt, startedAt;
        };
        std::vector<Child> children;
        auto child = [&](Task& c, std::size_t i) -> Co<> {
            children[i].startedAt = sys::now(b.k);
            co_await sys::touch(b.k, c, sys::mmap(b.k, c, 4), sys::Access::Write);
            co_await sys::exit(b.k, c);
        };
        auto body = [&]() -> Co<> {
            for (int i = 0; i < 3; ++i) {
                co_await sys::fork_process(b.k, parent, "c" + std::to_string(i), 10u + i, [&](Task& c) {
                    children.push_back({ &c, sys::now(b.k), -1 });
                    return child(c, children.size() - 1);
                });
            }
        };
        sys::start(b.k, parent, body());
        QVERIFY(b.sim.run());
        QCOMPARE(children.size(), std::size_t(3));
        for (std::size_t i = 0; i < children.size(); ++i) {
            const Child& c = children[i];
            QCOMPARE(c.t->cpu, static_cast<int>(i) + 1); // the parent runs on CPU 0; CPUs 1, 2, 3 are idle
            QVERIFY(c.startedAt >= c.forkedAt);
            QVERIFY(i == 0 || c.forkedAt > children[i - 1].forkedAt); // each fork takes time
            QVERIFY(c.t->finished >= 0);
            QVERIFY(b.k.procs[c.t->id] && b.k.procs[c.t->id]->ownTask && !b.k.procs[c.t->id]->parent);
        }
        QCOMPARE(b.acquisitions(file), std::uint64_t(3 * 2 + 3 * 2)); // dup_mmap links, exit_mmap unlinks
        QCOMPARE(file.i_mmap.size(), std::size_t(2)); // the parent's again
        QCOMPARE(b.nrFree(), free0); // stacks, slabs, page tables and the touched pages all back
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    // A forked child the OOM killer picks dies at its next return to user space, and its parent, asleep in wait(),
    // reaps it: its kernel stack and slab come back with its memory.
    void killedForkProcessGivesEverythingBack()
    {
        Machine b(64ull << 20);
        Task& parent = sys::spawn_process(b.k, "parent", 0, 1);
        const std::uint64_t free0 = b.nrFree();
        Task* killed = nullptr;
        bool ranOn = false;
        auto child = [&](Task& c) -> Co<> {
            co_await sys::touch(b.k, c, sys::mmap(b.k, c, 4), sys::Access::Write);
            c.sigkill = true; // as oom_kill_process() marks its victim
            co_await sys::nanosleep(b.k, c, us(10));
            ranOn = true; // never: the return to user space ends the task
        };
        auto body = [&]() -> Co<> {
            co_await sys::fork_process(b.k, parent, "victim", 2, [&](Task& c) {
                killed = &c;
                return child(c);
            });
        };
        sys::start(b.k, parent, body());
        QVERIFY(b.sim.run());
        QVERIFY(killed && killed->finished >= 0);
        QVERIFY(!ranOn);
        QCOMPARE(b.nrFree(), free0);
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    // x86 lazy TLB: a CPU whose task slept keeps the mm loaded; before 4.20 a flush of that mm interrupts it, and the
    // IPI makes it leave the mm, so the next flush skips it until the mm's task has run there again.
    void flushInterruptsALazyCpuOnce_data()
    {
        QTest::addColumn<bool>("lazyIpi");
        QTest::addColumn<std::vector<std::uint64_t>>("ipis");
        QTest::addRow("tlb.lazy_ipi (before 4.20)") << true << std::vector<std::uint64_t> { 1, 0, 1 };
        QTest::addRow("lazy CPUs skipped") << false << std::vector<std::uint64_t> { 0, 0, 0 };
    }
    void flushInterruptsALazyCpuOnce()
    {
        QFETCH(bool, lazyIpi);
        QFETCH(std::vector<std::uint64_t>, ipis);
        Toggles tg;
        tg.tlbLazyIpi = lazyIpi;
        Machine b(64ull << 20, tg);
        Task& a = sys::spawn_process(b.k, "a", 1, 1);
        Task& f = sys::spawn_process(b.k, "flusher", 0, 2);
        auto sleeper = [&]() -> Co<> { // runs on CPU 1, sleeps there twice
            co_await sys::touch(b.k, a, sys::mmap(b.k, a, 1), sys::Access::Write);
            co_await sys::nanosleep(b.k, a, us(100));
            co_await sys::nanosleep(b.k, a, us(200));
        };
        std::vector<std::uint64_t> sent;
        auto flusher = [&]() -> Co<> {
            auto flush = [&]() -> Co<> {
                const std::uint64_t before = sys::vmstat(b.k, "tlb_remote_ipi");
                co_await flush_tlb_page(b.k, f, *a.mm);
                sent.push_back(sys::vmstat(b.k, "tlb_remote_ipi") - before);
            };
            co_await sys::nanosleep(b.k, f, us(50)); // a asleep: CPU 1 idle with a's mm
            co_await flush();
            co_await flush(); // CPU 1 left the mm at the first
            co_await sys::nanosleep(b.k, f, us(100)); // a ran again at 100 us and went back to sleep
            co_await flush();
        };
        sys::start(b.k, a, sleeper());
        sys::start(b.k, f, flusher());
        QVERIFY(b.sim.run());
        QCOMPARE(sent, ipis);
    }

    // A request and its reply between two processes over loopback TCP, each on an idle CPU of its own: the sender
    // runs the whole protocol path and wakes the reader, which switches in and copies the message out. A round trip
    // is two sends, two copies and two switches; the client's shutdown ends the server's recv() loop.
    void loopbackRoundTripInClosedForm()
    {
        Machine b(64ull << 20);
        const CostModel& c = b.m.cost;
        Task& client = sys::spawn_process(b.k, "client", 0, 1);
        Task& server = sys::spawn_process(b.k, "server", 1, 2);
        sys::Socket requests(b.k, client), replies(b.k, server);
        int served = 0;
        auto serve = [&]() -> Co<> {
            while (co_await sys::recv(b.k, server, requests)) {
                ++served;
                co_await sys::send(b.k, server, replies);
            }
        };
        std::vector<Time> rtt;
        int replied = 0;
        auto ask = [&]() -> Co<> {
            co_await sys::nanosleep(b.k, client, us(100)); // the server is asleep in recv() by then
            for (int i = 0; i < 3; ++i) {
                co_await sys::flush(b.k, client);
                const Time start = sys::clock(b.k, client);
                co_await sys::send(b.k, client, requests);
                replied += co_await sys::recv(b.k, client, replies) ? 1 : 0;
                rtt.push_back(sys::clock(b.k, client) - start);
            }
            co_await sys::shutdown(b.k, client, requests);
        };
        sys::start(b.k, server, serve());
        sys::start(b.k, client, ask());
        QVERIFY(b.sim.run());
        const Time expected
            = 2 * (ns(c.faultEntryNs + c.loopbackMsgNs / 2) + ns(c.loopbackMsgNs / 2) + ns(c.contextSwitchNs));
        QCOMPARE(rtt, std::vector<Time>(3, expected));
        QCOMPARE(served, 3);
        QCOMPARE(replied, 3);
        QVERIFY(server.finished >= 0 && client.finished >= 0);
    }

    // A server the OOM killer marks dies at its next return to user space; exit_files() closes the end it writes --
    // it has written nothing yet -- so its client, asleep in recv() for the reply, wakes to end of stream and the run
    // ends.
    void aDyingServerClosesItsConnection()
    {
        Machine b(64ull << 20);
        Task& client = sys::spawn_process(b.k, "client", 0, 1);
        Task& server = sys::spawn_process(b.k, "server", 1, 2);
        sys::Socket requests(b.k, client), replies(b.k, server);
        bool serverRanOn = false;
        auto serve = [&]() -> Co<> {
            co_await sys::recv(b.k, server, requests);
            server.sigkill = true; // as oom_kill_process() marks its victim
            co_await sys::nanosleep(b.k, server, us(10));
            serverRanOn = true; // never: the return to user space ends the task
        };
        std::vector<bool> got;
        auto ask = [&]() -> Co<> {
            co_await sys::send(b.k, client, requests);
            got.push_back(co_await sys::recv(b.k, client, replies)); // no reply: end of stream
        };
        sys::start(b.k, server, serve());
        sys::start(b.k, client, ask());
        QVERIFY(b.sim.run());
        QCOMPARE(got, std::vector<bool> { false });
        QVERIFY(!serverRanOn);
        QVERIFY(server.finished >= 0 && client.finished >= 0);
    }

    // SIGKILL wakes a thread asleep interruptibly -- in futex_wait(), in recv(), in nanosleep() -- and it exits at
    // once; the process's sockets close when its last thread exits. Without the wake-up the first two would sleep
    // for ever and the third until its timer.
    void aKillWakesInterruptibleSleepers()
    {
        Machine b(64ull << 20);
        Task& server = sys::spawn_process(b.k, "server", 0, 1);
        Task& waiter = sys::spawn_thread(b.k, server, "server-futex", 1, 2);
        Task& napper = sys::spawn_thread(b.k, server, "server-nap", 2, 3);
        Task& client = sys::spawn_process(b.k, "client", 3, 4);
        Task& killer = sys::spawn_process(b.k, "killer", 4, 5);
        sys::Socket requests(b.k, client), replies(b.k, server);
        sys::Futex futex(b.k);
        const int word = 1;
        int returned = 0; // server threads back in their program after the kill: none may be
        auto serve = [&]() -> Co<> {
            co_await sys::send(b.k, server, replies); // the greeting
            co_await sys::recv(b.k, server, requests); // no request ever comes
            ++returned;
        };
        auto wait = [&]() -> Co<> {
            co_await sys::futex_wait(b.k, waiter, futex, word, 1); // no one wakes it
            ++returned;
        };
        auto nap = [&]() -> Co<> {
            co_await sys::nanosleep(b.k, napper, ms(1000));
            ++returned;
        };
        std::vector<bool> got;
        auto ask = [&]() -> Co<> {
            got.push_back(co_await sys::recv(b.k, client, replies)); // the greeting
            got.push_back(co_await sys::recv(b.k, client, replies)); // end of stream once the server is gone
        };
        const Time killAt = us(100);
        auto kill = [&]() -> Co<> {
            co_await sys::nanosleep(b.k, killer, killAt);
            for (Task* t : { &server, &waiter, &napper })
                send_sigkill(b.s, *t); // as the OOM killer signals every thread of its victim
        };
        sys::start(b.k, server, serve());
        sys::start(b.k, waiter, wait());
        sys::start(b.k, napper, nap());
        sys::start(b.k, client, ask());
        sys::start(b.k, killer, kill());
        QVERIFY(b.sim.run());
        QCOMPARE(returned, 0);
        for (const Task* t : { &server, &waiter, &napper }) {
            QVERIFY2(t->finished >= killAt && t->finished < killAt + ms(1), t->name.c_str());
        }
        QCOMPARE(got, (std::vector<bool> { true, false }));
        QVERIFY(client.finished >= 0);
        QVERIFY(futex.queue().waiters.empty()); // unqueue_me(): the woken waiter took itself off
    }

    void forkAllocatesTheStackOfItsEra_data()
    {
        QTest::addColumn<int>("order");
        QTest::addRow("THREAD_SIZE 8 KiB (before 3.15)") << 1;
        QTest::addRow("THREAD_SIZE 16 KiB") << 2;
    }
    void forkAllocatesTheStackOfItsEra()
    {
        QFETCH(int, order);
        Toggles tg;
        QVERIFY(tg.set("fork.stack_order", order).empty());
        Machine b(64ull << 20, tg);
        AddressSpace& file = new_address_space(b.k, 1024);
        Task& t = b.process(file, 2);
        const std::uint64_t free0 = b.nrFree();
        struct Fork {
            int stackOrder, slabOrder;
            bool slab;
            std::uint64_t used, freeAfterWait;
        };
        std::vector<Fork> forks;
        auto body = [&]() -> Co<> {
            // Enough forks that some need a new slab (one in kForkNewSlabEvery, drawn from the task's stream).
            for (int i = 0; i < 32; ++i) {
                co_await sys::fork(b.k, t);
                const Process& child = current_process(b.k, t);
                Fork f { child.stackOrder, child.slabOrder, child.slab != kNoPage, free0 - b.nrFree(), 0 };
                co_await sys::exit(b.k, t);
                co_await sys::wait(b.k, t);
                f.freeAfterWait = b.nrFree();
                forks.push_back(f);
            }
        };
        sys::start(b.k, t, body());
        QVERIFY(b.sim.run());
        QCOMPARE(forks.size(), std::size_t(32));
        int slabs = 0;
        for (const Fork& f : forks) {
            QCOMPARE(f.stackOrder, order);
            std::uint64_t used = (1u << order) + 1; // the stack and the pgd
            if (f.slab) {
                ++slabs;
                QCOMPARE(f.slabOrder, kSlabOrder); // plenty of free order-3 blocks: the first try serves
                used += 1u << kSlabOrder;
            }
            QCOMPARE(f.used, used);
            QCOMPARE(f.freeAfterWait, free0);
        }
        QVERIFY2(slabs > 0 && slabs < 32, qPrintable(QString::number(slabs)));
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    void execUnlinksTheOldAndLinksTheNew()
    {
        // The child inherits V VMAs of `lib`; its new image maps W of `bin`. exec unlinks the V (exec_mmap drops the
        // old mm) and links the W; exit unlinks the W.
        constexpr int V = 3, W = 2;
        Machine b(64ull << 20);
        AddressSpace& lib = new_address_space(b.k, 1024);
        AddressSpace& bin = new_address_space(b.k, 1024);
        Task& t = b.process(lib, V);
        sys::ExecImage image;
        for (int w = 0; w < W; ++w)
            image.mappings.push_back({ sys::File(&bin), static_cast<std::uint64_t>(w) * 16, 16 });
        image.text.push_back({ sys::File(&bin), 100 });
        image.readaround = 8;
        const std::uint64_t free0 = b.nrFree();
        std::vector<std::uint64_t> libAcq, binAcq;
        std::vector<std::size_t> libTree, binTree;
        std::size_t pgtables = 0;
        auto mark = [&] {
            libAcq.push_back(b.acquisitions(lib));
            binAcq.push_back(b.acquisitions(bin));
            libTree.push_back(lib.i_mmap.size());
            binTree.push_back(bin.i_mmap.size());
        };
        auto body = [&]() -> Co<> {
            co_await sys::fork(b.k, t);
            mark();
            co_await sys::execve(b.k, t, image);
            pgtables = t.mm->pgtables.size();
            mark();
            co_await sys::exit(b.k, t);
            co_await sys::wait(b.k, t);
            mark();
        };
        sys::start(b.k, t, body());
        QVERIFY(b.sim.run());
        QCOMPARE(libAcq[0], std::uint64_t(V));
        QCOMPARE(libAcq[1] - libAcq[0], std::uint64_t(V)); // the inherited VMAs unlinked
        QCOMPARE(binAcq[1] - binAcq[0], std::uint64_t(W)); // the image's linked
        QCOMPARE(libAcq[2], libAcq[1]); // exit: nothing of lib is left to unlink
        QCOMPARE(binAcq[2] - binAcq[1], std::uint64_t(W));
        QCOMPARE(libTree, (std::vector<std::size_t> { 2 * V, V, V }));
        QCOMPARE(binTree, (std::vector<std::size_t> { 0, W, 0 }));
        QCOMPARE(pgtables, std::size_t(1 + kExecPageTables)); // the pgd and the text faults' tables
        // The readaround brought bin's pages into the page cache (the read path's readahead window: 8 pages or
        // more); everything else is free again.
        QVERIFY(bin.nrpages >= 8);
        QCOMPARE(b.nrFree() + bin.nrpages, free0);
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    void systemForksAndExecsTwice()
    {
        // glibc's system("sync") from a process that maps its program and a library (2 VMAs each): fork (the child
        // links both), exec /bin/sh (unlinks them; links sh and the library), exec /bin/sync (unlinks sh and the
        // library; links sync and the library), sync(2), exit (unlinks sync and the library), wait. The library's
        // i_mmap lock is taken 2 x 6 times; each program's 2 x 2. The text fault each program takes in the library
        // maps its page while the program runs.
        Machine b(64ull << 20);
        AddressSpace& prog = new_address_space(b.k, 64);
        AddressSpace& lib = new_address_space(b.k, 64);
        AddressSpace& sh = new_address_space(b.k, 64);
        AddressSpace& sync = new_address_space(b.k, 64);
        Task& t = b.process(prog, 2, 32);
        sys::mmap_file(b.k, t, sys::File(&lib), 0, 64);
        sys::mmap_file(b.k, t, sys::File(&lib), 56, 8);
        auto image = [&](AddressSpace& bin) {
            sys::ExecImage img;
            img.mappings = { { sys::File(&bin), 0, 64 }, { sys::File(&bin), 56, 8 }, { sys::File(&lib), 0, 64 },
                { sys::File(&lib), 56, 8 } };
            img.text = { { sys::File(&bin), 0 }, { sys::File(&lib), 20 } };
            return img;
        };
        const sys::ExecImage shImage = image(sh), syncImage = image(sync);
        std::vector<std::uint32_t> mapcount;
        std::vector<std::size_t> libTree;
        auto body = [&]() -> Co<> {
            co_await sys::fork(b.k, t);
            libTree.push_back(lib.i_mmap.size());
            co_await sys::execve(b.k, t, shImage);
            mapcount.push_back(b.k.pages.mapcount(lib.lookup(20)));
            co_await sys::execve(b.k, t, syncImage);
            mapcount.push_back(b.k.pages.mapcount(lib.lookup(20)));
            co_await sys::sync(b.k, t);
            co_await sys::exit(b.k, t);
            co_await sys::wait(b.k, t);
            libTree.push_back(lib.i_mmap.size());
            mapcount.push_back(b.k.pages.mapcount(lib.lookup(20)));
        };
        sys::start(b.k, t, body());
        QVERIFY(b.sim.run());
        QCOMPARE(b.acquisitions(lib), std::uint64_t(12));
        QCOMPARE(b.acquisitions(prog), std::uint64_t(4));
        QCOMPARE(b.acquisitions(sh), std::uint64_t(4));
        QCOMPARE(b.acquisitions(sync), std::uint64_t(4));
        QCOMPARE(libTree, (std::vector<std::size_t> { 4, 2 }));
        QCOMPARE(mapcount, (std::vector<std::uint32_t> { 1, 1, 0 }));
        QCOMPARE(sh.i_mmap.size() + sync.i_mmap.size(), std::size_t(0));
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    void aSecondProcessSharesTheTree()
    {
        // Two processes map the same file: its tree holds both; a fork of one adds the child's, exit takes it away.
        Machine b(64ull << 20);
        AddressSpace& file = new_address_space(b.k, 1024);
        Task& a = b.process(file, 2);
        b.process(file, 2);
        std::vector<std::size_t> tree { file.i_mmap.size() };
        std::vector<std::size_t> mms;
        auto body = [&]() -> Co<> {
            co_await sys::fork(b.k, a);
            tree.push_back(file.i_mmap.size());
            for (const FileVma& v : file.i_mmap)
                if (std::find(mms.begin(), mms.end(), v.mm->id) == mms.end())
                    mms.push_back(v.mm->id);
            co_await sys::exit(b.k, a);
            co_await sys::wait(b.k, a);
            tree.push_back(file.i_mmap.size());
        };
        sys::start(b.k, a, body());
        QVERIFY(b.sim.run());
        QCOMPARE(tree, (std::vector<std::size_t> { 4, 6, 4 }));
        QCOMPARE(mms.size(), std::size_t(3));
    }

    void thpFaultTakesAnOrder9BlockOrFallsBack_data()
    {
        QTest::addColumn<bool>("thp");
        QTest::addColumn<bool>("fragmented");
        QTest::addColumn<int>("alloc");
        QTest::addColumn<int>("fallback");
        QTest::addRow("thp, a block free") << true << false << 1 << 0;
        QTest::addRow("thp, fragmented") << true << true << 0 << 1;
        QTest::addRow("no thp") << false << false << 0 << 0;
    }
    void thpFaultTakesAnOrder9BlockOrFallsBack()
    {
        QFETCH(bool, thp);
        QFETCH(bool, fragmented);
        QFETCH(int, alloc);
        QFETCH(int, fallback);
        Toggles tg;
        QVERIFY(tg.set("thp.enabled", thp ? "always" : "never").empty());
        Machine b(64ull << 20, tg);
        // Fragmented: every other page taken (no block above order 0 anywhere, nothing on an LRU to reclaim or
        // migrate), so no order-9 block can be had.
        std::vector<Pfn> held;
        if (fragmented) {
            for (Pfn p; (p = b.k.node(0).zone.rmqueueSmallest(b.k.pages, 0)) != kNoPage;)
                held.push_back(p);
            std::erase_if(held, [&](Pfn p) {
                if (p % 2)
                    return false;
                b.k.node(0).zone.freeOnePage(b.k.pages, p, 0);
                return true;
            });
        }
        AddressSpace& file = new_address_space(b.k, 64);
        Task& t = b.process(file, 1);
        const std::uint64_t free0 = b.nrFree();
        std::vector<Pfn> heap;
        std::uint64_t freeAfterTrim = 0;
        auto body = [&]() -> Co<> {
            co_await sys::brk(b.k, t, pageblock_nr_pages);
            co_await sys::touch_heap(b.k, t);
            heap = t.mm->heap;
            co_await sys::brk(b.k, t, 0);
            freeAfterTrim = b.nrFree();
        };
        sys::start(b.k, t, body());
        QVERIFY(b.sim.run());
        QCOMPARE(b.k.vm.get(Vm::ThpFaultAlloc), std::uint64_t(alloc));
        QCOMPARE(b.k.vm.get(Vm::ThpFaultFallback), std::uint64_t(fallback));
        QCOMPARE(heap.size(), std::size_t(pageblock_nr_pages));
        const bool huge
            = heap.back() == heap.front() + pageblock_nr_pages - 1 && heap.front() % pageblock_nr_pages == 0;
        QCOMPARE(huge, alloc == 1);
        if (fragmented)
            for (Pfn p : heap)
                QVERIFY(p % 2 == 0); // 4 KiB pages from the scattered free ones
        QCOMPARE(freeAfterTrim, free0); // the trim gave every page back (the huge one split)
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    void exitFreesTheHeapWithTheMm()
    {
        // A child that exits with its heap still faulted in gives it back with its mm.
        Toggles tg;
        QVERIFY(tg.set("thp.enabled", "always").empty());
        Machine b(64ull << 20, tg);
        AddressSpace& file = new_address_space(b.k, 64);
        Task& t = b.process(file, 1);
        const std::uint64_t free0 = b.nrFree();
        std::uint64_t inUse = 0;
        auto body = [&]() -> Co<> {
            co_await sys::fork(b.k, t);
            co_await sys::brk(b.k, t, 2 * pageblock_nr_pages + 10);
            co_await sys::touch_heap(b.k, t);
            inUse = free0 - b.nrFree();
            co_await sys::exit(b.k, t);
            co_await sys::wait(b.k, t);
        };
        sys::start(b.k, t, body());
        QVERIFY(b.sim.run());
        QCOMPARE(b.k.vm.get(Vm::ThpFaultAlloc), std::uint64_t(2)); // two aligned 2 MiB ranges, then 10 small pages
        QVERIFY(inUse >= 2 * pageblock_nr_pages + 10);
        QCOMPARE(b.nrFree(), free0);
        QVERIFY2(b.k.checkInvariants().empty(), b.k.checkInvariants().c_str());
    }

    // The thread's microbenchmark in closed form: each of N threads faults its P pages in every one of L loops
    // under MADV_DONTNEED, and only in the first under MADV_FREE (the pages stay mapped).
    void threadTouchFaultsInClosedForm()
    {
        Scenario sc = loadScenario("madv-free-threads");
        sc.set("loops", "10");
        const ResultSet rs = test::run(sc, 1.0);
        QCOMPARE(test::metric(rs, "dontneed", "vm.pgfault"), 32.0 * 128 * 10);
        QCOMPARE(test::metric(rs, "madvfree", "vm.pgfault"), 32.0 * 128);
    }

    // A user access sets the PTE's accessed bit, and a store its dirty bit, where the kernel cleared them: each such
    // access costs the task one page walk with a locked update (CostModel::adBitWalkNs) of user time; an access
    // whose bits are already set costs nothing beyond its fault.
    void accessSetsTheClearedBitsWithAWalk()
    {
        Machine b(64ull << 20);
        Task& t = sys::spawn_process(b.k, "p", 0, 1);
        const Time walk = ns(b.k.cost.adBitWalkNs);
        QVERIFY(walk > 0);
        std::vector<Time> user; // the task's user time after each step
        bool bothSet = false;
        auto body = [&]() -> Co<> {
            const std::uint32_t vpn = sys::mmap(b.k, t, 1);
            Pte& e = t.mm->pte[vpn];
            co_await sys::touch(b.k, t, vpn, sys::Access::Write); // the fault sets both bits
            user.push_back(t.userTime);
            co_await sys::touch(b.k, t, vpn, sys::Access::Write); // both set: nothing
            user.push_back(t.userTime);
            e &= ~(pte::kYoung | pte::kDirty); // MADV_FREE's clear
            co_await sys::touch(b.k, t, vpn, sys::Access::Read); // the accessed bit: a walk
            user.push_back(t.userTime);
            co_await sys::touch(b.k, t, vpn, sys::Access::Read); // a load needs no dirty bit: nothing
            user.push_back(t.userTime);
            co_await sys::touch(b.k, t, vpn, sys::Access::Write); // the dirty bit: a walk
            user.push_back(t.userTime);
            bothSet = (e & (pte::kYoung | pte::kDirty)) == (pte::kYoung | pte::kDirty);
        };
        sys::start(b.k, t, body());
        QVERIFY(b.sim.run());
        QCOMPARE(user.size(), std::size_t(5));
        QCOMPARE(user[1] - user[0], Time(0));
        QCOMPARE(user[2] - user[1], walk);
        QCOMPARE(user[3] - user[2], Time(0));
        QCOMPARE(user[4] - user[3], walk);
        QVERIFY(bothSet);
    }

    // sched_setaffinity (taskset -c 0,1): the process and its 31 threads run on CPUs 0 and 1 only; without it they
    // keep all eight busy.
    void tasksetKeepsThreadsOnItsCpus()
    {
        for (int cpus : { 2, 0 }) {
            Scenario sc = loadScenario("mmap-sem-8way");
            sc.set("loops", "5");
            sc.set("taskset_cpus", std::to_string(cpus));
            const ResultSet rs = test::run(sc, 1.0);
            QCOMPARE(rs.results.size(), std::size_t(1));
            const auto& stats = rs.results.front().cpus;
            QCOMPARE(stats.size(), std::size_t(8));
            const double cpu0 = stats[0].userS + stats[0].sysS;
            for (std::size_t c = 0; c < stats.size(); ++c) {
                // Outside the set only the kernel's threads run (a node's kswapd starting on its first CPU).
                const double busy = stats[c].userS + stats[c].sysS;
                if (cpus == 2 && c >= 2)
                    QVERIFY2(busy < 1e-3 * cpu0, qPrintable(QStringLiteral("CPU %1 ran %2 s").arg(c).arg(busy)));
                else
                    QVERIFY2(busy > 0.1 * cpu0, qPrintable(QStringLiteral("CPU %1 ran %2 s, CPU 0 %3 s, taskset_cpus %4").arg(c).arg(busy).arg(cpu0).arg(cpus)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestProcess)
#include "tst_process.moc"
