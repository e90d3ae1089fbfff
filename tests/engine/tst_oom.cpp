// The kernel's answers to exhaustion in closed form: with no swap and no page cache, the allocation that finds
// nothing to reclaim calls the OOM killer, which picks the process with the highest oom_badness() (not the
// allocating one), kills every thread of it at their next return to user space (waking those asleep in a futex),
// and waits for its memory before killing again, however many of its threads exit first; the others then finish.
// And whole scenarios on machines far too small for them end with the OOM killer's victims counted, the kernel's
// invariants intact.
#include "kernel/syscalls.h"
#include "run/recording.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {

// A machine of `bytes` with no swap: anonymous memory cannot be reclaimed. vm.overcommit_memory=1 by default, so
// that every mapping is granted and memory runs out at fault time.
struct NoSwapBox {
    // `kernel`: the release whose rules the toggles follow ("" for Toggles' defaults).
    explicit NoSwapBox(std::uint64_t bytes, Overcommit overcommit = Overcommit::Always, const std::string& kernel = {})
        : m(spec(bytes))
        , s(sim, m)
        , k(s, toggles(overcommit, kernel))
    {
        k.boot(1);
    }
    static Toggles toggles(Overcommit o, const std::string& kernel)
    {
        Toggles t = kernel.empty() ? Toggles {} : Toggles::forKernel(*KernelVersion::parse(kernel));
        t.overcommit = o;
        return t;
    }
    static MachineSpec spec(std::uint64_t bytes)
    {
        MachineSpec m = test::Box::spec(bytes);
        m.swap.clear();
        return m;
    }
    std::uint64_t nrFree() const
    {
        std::uint64_t n = k.node(0).zone.nrFree();
        for (const auto& pcp : k.node(0).zone.pcp)
            n += pcp.size();
        return n;
    }
    // Pages freed while they sat in a CPU's LRU pagevec: they go back when that CPU's pagevec drains (an exit drains
    // only its own CPU's, lru_add_drain()).
    std::uint64_t freedInPagevecs() const
    {
        std::uint64_t n = 0;
        for (const PerCpuState& pc : k.pcpu)
            for (Pfn p : pc.lruAdd.pages)
                n += k.pages.test(p, PG_reclaim) ? 1 : 0;
        return n;
    }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

// A program that writes `pages` pages of a new mapping, then sleeps `hold` holding them, then exits.
Co<> holder(Kernel& k, Task& t, std::uint32_t pages, Time hold, std::uint32_t& touched)
{
    std::uint32_t start = sys::mmap(k, t, pages);
    for (std::uint32_t i = 0; i < pages; ++i) {
        co_await sys::touch(k, t, start + i, sys::Access::Write);
        ++touched;
    }
    co_await sys::nanosleep(k, t, hold);
    co_await sys::exit(k, t);
}

} // namespace

class TestOom : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theLargestProcessIsKilledAndTheOthersFinish_data()
    {
        QTest::addColumn<int>("sleepers");
        QTest::addRow("one thread") << 0;
        QTest::addRow("three more threads asleep in a futex") << 3;
    }
    void theLargestProcessIsKilledAndTheOthersFinish()
    {
        // 32 MiB, no swap: "big" holds 5000 pages, "small" 500, and "hog" then wants 4000 -- more than is left. The
        // hog's allocation finds nothing reclaimable: the OOM killer takes big (the highest RSS; the hog holds
        // less when it asks), whose sleep ends in do_exit; the hog gets big's pages and finishes, as does small.
        // Threads of big asleep in futex_wait(), which no one else would wake, are woken by SIGKILL
        // (TASK_INTERRUPTIBLE) and exit while big's memory is still going back; that must not let the OOM killer,
        // asked again meanwhile, choose a second victim.
        QFETCH(int, sleepers);
        NoSwapBox b(32ull << 20);
        const std::uint64_t free0 = b.nrFree();
        std::uint32_t big = 0, small = 0, hog = 0;
        Task& tb = sys::spawn_process(b.k, "big", 1, 1);
        Task& ts = sys::spawn_process(b.k, "small", 2, 2);
        Task& th = sys::spawn_process(b.k, "hog", 3, 3);
        sys::Futex futex(b.k);
        const int word = 1;
        std::vector<Task*> asleep;
        for (int i = 0; i < sleepers; ++i) {
            Task& w = sys::spawn_thread(b.k, tb, "big-" + std::to_string(i + 1), 4 + i, 4u + static_cast<unsigned>(i));
            asleep.push_back(&w);
            sys::start(b.k, w, [](Kernel& k, Task& t, sys::Futex& f, const int& word) -> Co<> {
                co_await sys::futex_wait(k, t, f, word, 1);
            }(b.k, w, futex, word));
        }
        sys::start(b.k, tb, holder(b.k, tb, 5000, ms(100), big));
        sys::start(b.k, ts, holder(b.k, ts, 500, ms(100), small));
        // The hog starts once the others hold their pages.
        sys::start(b.k, th, [](Kernel& k, Task& t, std::uint32_t& n) -> Co<> {
            co_await sys::nanosleep(k, t, ms(30));
            co_await holder(k, t, 4000, ms(1), n);
        }(b.k, th, hog));
        QVERIFY(b.sim.run());

        QCOMPARE(b.k.oom.nrKill, std::uint64_t(1));
        QCOMPARE(b.k.oom.kills.size(), std::size_t(1));
        QCOMPARE(b.k.oom.kills[0].task, std::string("big"));
        QVERIFY(b.k.oom.kills[0].pages >= 5000);
        QVERIFY(tb.sigkill && !ts.sigkill && !th.sigkill);
        QCOMPARE(big, 5000u); // it had touched everything; the kill came while it slept
        QCOMPARE(small, 500u);
        QCOMPARE(hog, 4000u);
        QCOMPARE(tb.state, TaskState::Done);
        QVERIFY(tb.finished < th.finished);
        for (const Task* w : asleep) {
            QVERIFY(w->sigkill);
            QCOMPARE(w->state, TaskState::Done);
            QVERIFY(w->finished < ms(100)); // woken by the kill, not left asleep
        }
        QVERIFY(b.k.oom.victims.empty());
        // Everyone's memory is back: the victim's through the exit of its last thread (which may run on another CPU
        // than the one whose pagevec holds the pages it faulted last), the others' through theirs.
        QCOMPARE(b.nrFree() + b.freedInPagevecs(), free0);
        QCOMPARE(b.k.checkInvariants(), std::string());
    }

    void eachEraKillsItsVictim_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QStringList>("killed");
        // badness(): the server's virtual size and half of each child's (which inherited its mapping) make it the
        // worst; its first child dies for it, then, memory still short, the next.
        QTest::addRow("2.6.20: the first child") << "2.6.20" << QStringList { "A", "B" };
        // oom_badness(): the server holds the most memory; its child with the most dies for it.
        QTest::addRow("3.12: the worst child") << "3.12" << QStringList { "B" };
        QTest::addRow("4.19: the worst child") << "4.19" << QStringList { "B" };
        // No child is preferred any more: the server itself.
        QTest::addRow("5.6: the process chosen") << "5.6" << QStringList { "server" };
    }
    void eachEraKillsItsVictim()
    {
        // 32 MiB, no swap. "server" writes 3500 pages, then forks A (300 more pages) and B (1200); "hog" then wants
        // 4000, which memory cannot hold: the OOM killer chooses and kills as the release's oom_kill.c did, and the
        // hog finishes on what the kills give back.
        QFETCH(QString, kernel);
        QFETCH(QStringList, killed);
        NoSwapBox b(32ull << 20, Overcommit::Always, kernel.toStdString());
        std::uint32_t server = 0, a = 0, bb = 0, hog = 0;
        Task& ts = sys::spawn_process(b.k, "server", 1, 1);
        Task& th = sys::spawn_process(b.k, "hog", 2, 2);
        sys::start(b.k, ts, [](Kernel& k, Task& t, std::uint32_t& n, std::uint32_t& na, std::uint32_t& nb) -> Co<> {
            std::uint32_t start = sys::mmap(k, t, 3500);
            for (std::uint32_t i = 0; i < 3500; ++i, ++n)
                co_await sys::touch(k, t, start + i, sys::Access::Write);
            co_await sys::fork_process(k, t, "A", 3, [&k, &na](Task& c) { return holder(k, c, 300, ms(200), na); });
            co_await sys::fork_process(k, t, "B", 4, [&k, &nb](Task& c) { return holder(k, c, 1200, ms(200), nb); });
            co_await sys::nanosleep(k, t, ms(300));
            co_await sys::exit(k, t);
        }(b.k, ts, server, a, bb));
        sys::start(b.k, th, [](Kernel& k, Task& t, std::uint32_t& n) -> Co<> {
            co_await sys::nanosleep(k, t, ms(50)); // the others hold their pages by then
            co_await holder(k, t, 4000, ms(1), n);
        }(b.k, th, hog));
        QVERIFY(b.sim.run());

        QStringList victims;
        for (const OomKill& kill : b.k.oom.kills)
            victims << QString::fromStdString(kill.task);
        QCOMPARE(victims, killed);
        QCOMPARE(b.k.oom.nrKill, std::uint64_t(killed.size()));
        QCOMPARE(hog, 4000u);
        QCOMPARE(th.sigkill, false);
        QCOMPARE(ts.sigkill, killed.contains("server"));
        QCOMPARE(server, 3500u);
        QCOMPARE(a, 300u);
        QCOMPARE(bb, 1200u);
        QCOMPARE(b.k.checkInvariants(), std::string());
    }

    void theScoreFollowsTheEra()
    {
        // One process that mapped and wrote 3000 pages, on 32 MiB with 1 GiB of swap: RAM and swap are 270,335
        // pages, 3 % of them 8,100.
        const auto scoreOn = [](const std::string& kernel, Time cpu, Time age) {
            Toggles tg = Toggles::forKernel(*KernelVersion::parse(kernel));
            MachineSpec m = test::Box::spec(32ull << 20);
            m.swap = { SwapSpec { 1ull << 30, m.swap.at(0).device } };
            test::Box b(m, tg);
            b.k.boot(1);
            Task& t = sys::spawn_process(b.k, "p", 1, 1);
            std::uint64_t score = 0, memory = 0;
            auto program = [](Kernel& k, Task& t, Time cpu, Time age, std::uint64_t& score,
                               std::uint64_t& memory) -> Co<> {
                std::uint32_t start = sys::mmap(k, t, 3000);
                for (std::uint32_t i = 0; i < 3000; ++i)
                    co_await sys::touch(k, t, start + i, sys::Access::Write);
                sys::compute(t, static_cast<double>(cpu) / 1e3);
                co_await sys::nanosleep(k, t, age);
                score = oom_badness(k, t);
                memory = t.mm->rss + t.mm->pgtables.size() + t.mm->ptl.size();
            };
            sys::start(b.k, t, program(b.k, t, cpu, age, score, memory));
            b.sim.run();
            return std::pair { score, memory };
        };
        const Time s = ms(1000);
        // 2.6.20's badness(): the virtual size, a quarter for root; halved by 32.8 s of CPU time (the square root
        // of 4 units of 8.192 s) and by 4.6 hours of run time (the fourth root of 16 units of 1024 s).
        QCOMPARE(scoreOn("2.6.20", 0, 0).first, std::uint64_t(3000 / 4));
        QCOMPARE(scoreOn("2.6.20", 33 * s, 0).first, std::uint64_t(3000 / 4 / 2));
        QCOMPARE(scoreOn("2.6.20", 0, 16 * 1024 * s).first, std::uint64_t(3000 / 4 / 2));
        // oom_badness(): the memory, 3 % of RAM and swap less for root -- here nothing left: the floor of 1.
        auto [score312, memory] = scoreOn("3.12", 0, 0);
        QVERIFY(memory >= 3000 && memory < 3100);
        QCOMPARE(score312, std::uint64_t(1));
        QCOMPARE(scoreOn("3.14", 0, 0).first, memory - memory * 3 / 100);
        QCOMPARE(scoreOn("4.17", 0, 0).first, memory);
        QCOMPARE(scoreOn("4.17", 33 * s, 16 * 1024 * s).first, memory); // time no longer counts
    }

    void aKilledProcessFaultingInStopsAtItsNextReturn()
    {
        // One process alone wants more than the machine has: it is the only candidate, so it is killed while it
        // faults (TIF_MEMDIE lets it take the reserves), and stops at the return from that fault.
        NoSwapBox b(16ull << 20);
        const std::uint64_t free0 = b.nrFree();
        std::uint32_t touched = 0;
        Task& t = sys::spawn_process(b.k, "alone", 1, 1);
        sys::start(b.k, t, holder(b.k, t, 8000, ms(1), touched));
        QVERIFY(b.sim.run());
        QCOMPARE(b.k.oom.nrKill, std::uint64_t(1));
        QVERIFY(t.sigkill);
        QVERIFY(touched > 0 && touched < 8000);
        QCOMPARE(b.nrFree(), free0);
        QCOMPARE(b.k.checkInvariants(), std::string());
    }

    void theRecordingListsEachKill()
    {
        // 256 MiB and no swap at scale 0.1: the twelve memset processes want 51 MiB each. Each kill is an event of
        // interest ("OOM: killed memset-N, freed X MiB") at the frame it happened in.
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("machine.memory", "\"256MiB\"");
        sc.set("machine.swap", "[]");
        sc.set("overcommit", "always"); // by the default heuristic, 4.0 refuses the mmaps (below)
        RunSpec spec;
        spec.scenario = &sc;
        spec.variant = "madvfree";
        spec.scale = 0.1;
        spec.recording.enabled = true;
        spec.checkInvariants = true;
        const RunResult r = executeRun(spec);
        const std::size_t kills = static_cast<std::size_t>(r.metrics.at("vm.oom_kill"));
        QVERIFY(kills > 0);
        std::size_t events = 0;
        for (const InterestingEvent& e : r.recording->events())
            if (e.kind == "oom-kill") {
                ++events;
                QVERIFY2(e.what.rfind("OOM: killed memset-", 0) == 0 && e.what.find(" MiB") != std::string::npos,
                    e.what.c_str());
            }
        QCOMPARE(events, kills);
    }

    void theOvercommitGuessRefusesObviousOvercommits()
    {
        // __vm_enough_memory() of each era on 32 MiB without swap or page cache. Before 5.2 a mapping must fit in the
        // free pages less the high watermark; from 5.2 in RAM + swap; vm.overcommit_memory=1 grants anything the
        // address space holds. A refused mmap returns MAP_FAILED and maps nothing.
        for (Overcommit o : { Overcommit::GuessFree, Overcommit::GuessTotal, Overcommit::Always }) {
            NoSwapBox b(32ull << 20, o);
            Task& t = sys::spawn_process(b.k, "p", 1, 1);
            const std::uint64_t room = b.k.node(0).zone.nrFree() - b.k.node(0).zone.watermarkHigh;
            const std::uint64_t ram = b.k.pages.size();
            const std::uint64_t fits = o == Overcommit::GuessFree ? room - 1 : ram;
            QVERIFY(sys::mmap(b.k, t, fits) != sys::MAP_FAILED);
            const std::size_t vmas = t.mm->vmas.size();
            const std::uint32_t over = sys::mmap(b.k, t, o == Overcommit::GuessFree ? room : ram + 1);
            QCOMPARE(over == sys::MAP_FAILED, o != Overcommit::Always);
            QCOMPARE(t.mm->vmas.size(), vmas + (o == Overcommit::Always ? 1 : 0));
            QCOMPARE(sys::mmap(b.k, t, std::uint64_t(1) << 33), sys::MAP_FAILED); // past the 32-bit page index
        }
        // A whole scenario: madv-free-swapin's 4.0 on 256 MiB without swap refuses the first 512 MiB mmap, and the
        // program's message ends the run.
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("machine.memory", "\"256MiB\"");
        sc.set("machine.swap", "[]");
        RunSpec spec;
        spec.scenario = &sc;
        spec.variant = "dontneed";
        spec.scale = 0.1;
        try {
            (void)executeRun(spec);
            QFAIL("the run should end with the program's mmap failure");
        } catch (const ScenarioError& e) {
            QVERIFY2(std::string(e.what()).find("mmap: Cannot allocate memory") != std::string::npos, e.what());
        }
    }

    void aServerIsKilledAloneAndItsClientsEnd()
    {
        // sysbench against a mysqld that wants far more than 16 MiB without swap: its connection threads fault
        // into direct reclaim together. The OOM killer takes mysqld -- all 16 threads, those asleep in recv() or a
        // futex woken to die -- and no one else: a connection thread the kill finds in reclaim must not choose a
        // second victim (the sysbench client) when it gets to the OOM killer. The clients end on their lost
        // connections.
        Scenario sc = loadScenario("madv-free-tlb-batch");
        sc.set({ { "machine.memory", R"("16MiB")" }, { "machine.swap", "[]" }, { "query_memory", R"("8MiB")" },
            { "touch_fraction", "1" }, { "threads", "16" } });
        sc.selectVariants({ "glibc" });
        ResultSet rs = test::run(sc, 1.0);
        QCOMPARE(rs.results.size(), std::size_t(1));
        const auto& m = rs.results[0].metrics;
        QVERIFY(!m.count("cancelled"));
        QCOMPARE(m.at("vm.oom_kill"), 1.0);
        QCOMPARE(m.at("oom_killed_tasks"), 16.0);
        QVERIFY(m.at("elapsed_s") < 1.0); // the clients did not wait out the run's second
    }

    void theLastThreadOfAKilledProcessGivesItsMemoryBack()
    {
        // mysqld killed while its connection threads still map their arenas: the memory goes when the last of them
        // exits (mmput), not when the first does -- the first to exit tore the mappings down while the others still
        // added to them, and read freed memory.
        Scenario sc = loadScenario("madv-free-tlb-batch");
        sc.set({ { "machine.memory", R"("64MiB")" }, { "machine.swap", "[]" }, { "threads", "16" } });
        sc.selectVariants({ "vanilla" });
        ResultSet rs = test::run(sc, 0.02); // the kernel's invariants are checked after every run
        QCOMPARE(rs.results.size(), std::size_t(1));
        const auto& m = rs.results[0].metrics;
        QVERIFY(!m.count("cancelled"));
        QCOMPARE(m.at("vm.oom_kill"), 1.0);
        QCOMPARE(m.at("oom_killed_tasks"), 16.0);
    }

    void noOneIsKilledWhileSwapIsFree_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addRow("4.0: OOM when nothing is reclaimable") << "4.0";
        QTest::addRow("4.7: OOM after 16 rounds without progress") << "4.7";
        QTest::addRow("5.9: new anonymous pages on the inactive list") << "5.9";
        QTest::addRow("6.9") << "6.9";
    }
    void noOneIsKilledWhileSwapIsFree()
    {
        // madv-free-swapin's twelve processes on a quarter of their memory, with swap for all of it to spare. From
        // 4.7 should_reclaim_retry() calls the OOM killer after MAX_RECLAIM_RETRIES rounds of direct reclaim that
        // freed nothing; a round goes down to priority 0, scanning every list whole, before it says so -- rounds
        // that gave up after a few batches of pages just used again killed processes here with swap free.
        QFETCH(QString, kernel);
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("kernel", kernel.toStdString());
        ResultSet rs = test::run(sc, 0.05);
        QCOMPARE(rs.results.size(), std::size_t(3));
        for (const RunResult& r : rs.results) {
            QVERIFY2(!r.metrics.count("vm.oom_kill"), r.variant.c_str());
            QVERIFY(r.metrics.at("vm.pswpout") > 0); // it did swap
        }
    }

    void scenariosOnTooSmallAMachineEnd_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("oom"); // memory runs out for good: the OOM killer must run
        QTest::addColumn<double>("scale");
        QTest::addRow("madv-free-swapin 16MiB")
            << "madv-free-swapin" << "machine.memory" << "\"16MiB\"" << true << 0.05;
        QTest::addRow("madv-free-swapin no swap") << "madv-free-swapin" << "machine.swap" << "[]" << true << 0.05;
        QTest::addRow("madv-free-swapin 4MiB swap")
            << "madv-free-swapin" << "machine.swap" << R"([{"size": "4MiB", "device": "ssd-2015"}])" << true << 0.05;
        // 2.6.20 with swap: the threads' memory is swapped, no one is killed.
        QTest::addRow("ebizzy 16MiB") << "ebizzy" << "machine.memory" << "\"16MiB\"" << false << 0.05;
        QTest::addRow("madv-free-tlb-batch 16MiB")
            << "madv-free-tlb-batch" << "machine.memory" << "\"16MiB\"" << false << 0.05;
        // 160 KiB: mysqld is killed; sysbench's threads, asleep for replies never sent, read end of stream.
        QTest::addRow("madv-free-tlb-batch 16MiB at 0.01")
            << "madv-free-tlb-batch" << "machine.memory" << "\"16MiB\"" << true << 0.01;
        // 320 KiB for 64 readers on 32 CPUs: the per-CPU LRU pagevecs hold what reclaim could take, and the OOM
        // killer kills reader after reader -- each must end (a victim whose read failed used to return from its
        // program without exiting, and the killer waited for it for ever).
        QTest::addRow("lru-file-readtwice 16MiB")
            << "lru-file-readtwice" << "machine.memory" << "\"16MiB\"" << true << 0.02;
    }
    void scenariosOnTooSmallAMachineEnd()
    {
        // These crashed (a page the allocator never returned) or never ended (reclaim retried forever).
        QFETCH(QString, scenario);
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(bool, oom);
        QFETCH(double, scale);
        Scenario sc = loadScenario(scenario.toStdString());
        sc.set(field.toStdString(), value.toStdString());
        sc.set("overcommit", "always");
        if (sc.points().size() > 1)
            sc.set("threads", "4");
        ResultSet rs = test::run(sc, scale); // the kernel's invariants are checked after every run
        bool killed = false;
        for (const RunResult& r : rs.results) {
            QVERIFY(!r.metrics.count("cancelled"));
            killed = killed || r.metrics.count("vm.oom_kill");
        }
        QCOMPARE(killed, oom);
    }
};

QTEST_GUILESS_MAIN(TestOom)
#include "tst_oom.moc"
