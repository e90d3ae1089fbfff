// A KVM guest (machine.guest: kvm, hw/guest.h): the VM exits of an IPI folded into the IPI figures, a remote TLB
// flush that costs the initiator and each target exactly those exits more than on bare metal, the vm_exits metric
// in a guest's results only, the host's preemption of vCPUs (steal time, a lock handed to a descheduled waiter, the
// PAUSE-loop exits that end it), the host's wake-up of a halted vCPU, and byte-identical results at 1 and 2 runner
// threads.
#include "mm/tlb.h"
#include "run/json.h"
#include "sync/spinlock.h"
#include "scenario/runsetup.h"
#include "scenario/scenario.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;
using namespace mms::test;

namespace {

// `cpus` CPUs of the generic preset, one thread a core (no SMT sibling stretches a closed form), bare or a guest.
MachineSpec machine(int cpus, Guest g)
{
    MachineSpec m = genericMachine(cpus);
    m.memoryBytes = 64ull << 20;
    m.guest = g;
    m.cost = guestCostModel(m.cost, g);
    return m;
}

// One flush_tlb_mm_range() from CPU 0 while the mm runs on every other CPU: the initiator's and each target's
// system time, and the VM exits counted.
struct Flush {
    Time initiatorSys = 0;
    std::vector<Time> targetSys;
    std::uint64_t vmExits = 0;
    std::uint64_t ipis = 0;
};

Flush flushOnce(int cpus, Guest g)
{
    Simulator sim;
    MachineSpec m = machine(cpus, g);
    Sched s(sim, m);
    Kernel k(s, Toggles {});
    MmStruct& mm = k.mm_alloc();
    std::vector<Task*> targets;
    for (int c = 1; c < cpus; ++c) { // they compute for 1 ms, long past the flush
        Task& t = s.spawn("user" + std::to_string(c), c, false, &mm, static_cast<std::uint64_t>(c) + 1);
        targets.push_back(&t);
        s.start(t, [](Sched& s, Task& t) -> Co<> {
            Sched::burnWall(t, ns(1e6));
            co_await s.flush(t);
        }(s, t));
    }
    Task& initiator = s.spawn("flusher", 0, false, &mm, 1);
    s.start(initiator, [](Kernel& k, Task& t, MmStruct& mm) -> Co<> {
        Sched::burnWall(t, ns(1000)); // until the others run
        co_await k.s.flush(t);
        co_await flush_tlb_mm_range(k, t, mm);
    }(k, initiator, mm));
    if (!sim.run())
        throw std::runtime_error("the simulation did not finish");
    Flush f;
    f.initiatorSys = initiator.sysTime;
    for (Task* t : targets)
        f.targetSys.push_back(t->sysTime);
    f.vmExits = k.vmExits;
    f.ipis = k.vm.get(Vm::TlbRemoteIpi);
    return f;
}

// A task on CPU 1 sleeps; a task on CPU 0 wakes it after 10 us of its own. When the sleeper runs again, and CPU 1's
// idle time by then.
struct Wake {
    Time resumed = 0;
    Time idle = 0;
};

Wake wakeOnIdleCpu(Guest g)
{
    Simulator sim;
    MachineSpec m = machine(2, g);
    Sched s(sim, m);
    Task& sleeper = s.spawn("sleeper", 1, false, nullptr, 1);
    Task& waker = s.spawn("waker", 0, false, nullptr, 2);
    Wake w;
    s.start(sleeper, [](Sched& s, Task& t, Wake& w) -> Co<> {
        co_await s.sleep(t);
        w.resumed = s.sim().now();
        w.idle = s.idleTime(1);
    }(s, sleeper, w));
    s.start(waker, [](Sched& s, Task& t, Task& sleeper) -> Co<> {
        Sched::burnWall(t, ns(10'000));
        co_await s.flush(t);
        s.wake(sleeper, &t);
    }(s, waker, sleeper));
    if (!sim.run())
        throw std::runtime_error("the simulation did not finish");
    return w;
}

// A guest whose host deschedules its vCPUs `share` of the time (MachineSpec::guestPreempt).
MachineSpec preemptedGuest(int cpus, double share)
{
    MachineSpec m = machine(cpus, Guest::Kvm);
    m.guestPreempt = share;
    return m;
}

// Two tasks take a ticket lock one after the other: the first holds it 10 us, the second asks for it 1 us in and
// spins. How long after the first's release the second got it.
Time secondGrantAfterRelease(const MachineSpec& m, std::uint64_t bootSeed)
{
    Simulator sim;
    Sched s(sim, m);
    Locking l;
    l.spinlock = SpinlockImpl::Ticket;
    s.setLocking(l);
    s.seedHost(bootSeed);
    SpinLock lock("lock");
    Time released = 0, granted = 0;
    Task& first = s.spawn("first", 0, false, nullptr, 1);
    Task& second = s.spawn("second", 1, false, nullptr, 2);
    s.start(first, [](Sched& s, Task& t, SpinLock& lock, Time& released) -> Co<> {
        co_await spin_lock(s, t, lock);
        Sched::burnWall(t, ns(10'000));
        released = s.sim().now() + t.debt;
        spin_unlock(s, t, lock);
        co_await s.flush(t);
    }(s, first, lock, released));
    s.start(second, [](Sched& s, Task& t, SpinLock& lock, Time& granted) -> Co<> {
        Sched::burnWall(t, ns(1000));
        co_await spin_lock(s, t, lock);
        granted = s.sim().now();
        spin_unlock(s, t, lock);
    }(s, second, lock, granted));
    if (!sim.run())
        throw std::runtime_error("the simulation did not finish");
    return granted - released;
}

} // namespace

class TestGuest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ipiFiguresAddTheExits()
    {
        const CostModel bare = machinePreset("generic-12cpu-2015")->cost;
        const CostModel kvm = guestCostModel(bare, Guest::Kvm);
        QCOMPARE(bare.vmExitNs, 0.0);
        QCOMPARE(bare.ipiVmExits(11), std::uint64_t { 0 });
        QCOMPARE(kvm.vmExitNs, 2500 / bare.clockGHz); // 2500 cycles at the preset's clock
        QCOMPARE(kvm.ipiSendExits, 1);
        QCOMPARE(kvm.ipiTakeExits, 2);
        // A round to n targets: the sender's exit per target in sequence, the targets' two in parallel.
        for (std::size_t n = 1; n <= 11; ++n) {
            QCOMPARE(kvm.ipiRoundNs(n) - bare.ipiRoundNs(n), static_cast<double>(n + 2) * kvm.vmExitNs);
            QCOMPARE(kvm.ipiVmExits(n), 3 * n);
        }
        QCOMPARE(kvm.ipiHandleNs - bare.ipiHandleNs, 2 * kvm.vmExitNs);
        QCOMPARE(kvm.eptFaultWalkNs, 400 / bare.clockGHz);
        QCOMPARE(kvm.adBitWalkNs - bare.adBitWalkNs, 200 / bare.clockGHz); // one walk's 20 extra references
        QCOMPARE(bare.eptFaultWalkNs, 0.0);
        // Bare metal is the preset's model unchanged.
        const CostModel none = guestCostModel(bare, Guest::None);
        QCOMPARE(none.ipiSendNs, bare.ipiSendNs);
        QCOMPARE(none.ipiHandleNs, bare.ipiHandleNs);
        QCOMPARE(none.faultEntryNs, bare.faultEntryNs);
        QCOMPARE(none.vmExitNs, 0.0);
    }

    void remoteFlushCostsTheExits_data()
    {
        QTest::addColumn<int>("cpus");
        for (int cpus : { 2, 4, 12 })
            QTest::addRow("%d CPUs", cpus) << cpus;
    }

    void remoteFlushCostsTheExits()
    {
        QFETCH(int, cpus);
        const auto targets = static_cast<std::size_t>(cpus - 1);
        const Flush bare = flushOnce(cpus, Guest::None);
        const Flush kvm = flushOnce(cpus, Guest::Kvm);
        const CostModel bareCost = machine(cpus, Guest::None).cost;
        const CostModel kvmCost = machine(cpus, Guest::Kvm).cost;
        QCOMPARE(bare.ipis, std::uint64_t { targets });
        QCOMPARE(kvm.ipis, std::uint64_t { targets });
        QCOMPARE(bare.vmExits, std::uint64_t { 0 });
        QCOMPARE(kvm.vmExits, 3 * targets);
        // The initiator spins (n + 2) exits longer: its n ICR writes, then the last target's kick and EOI.
        const Time extra = kvm.initiatorSys - bare.initiatorSys;
        QCOMPARE(extra, ns(kvmCost.ipiRoundNs(targets)) - ns(bareCost.ipiRoundNs(targets)));
        QVERIFY(std::abs(extra - ns(static_cast<double>(targets + 2) * kvmCost.vmExitNs)) <= 1);
        // Each target takes its kick and its trapped EOI.
        for (std::size_t i = 0; i < targets; ++i)
            QCOMPARE(kvm.targetSys[i] - bare.targetSys[i], ns(kvmCost.ipiHandleNs) - ns(bareCost.ipiHandleNs));
    }

    // A wake-up onto an idle vCPU waits for the host to wake the halted vCPU (CostModel::haltedVcpuWakeNs: the host's
    // scheduler trip and the injecting entry); the vCPU is idle until then. Bare metal switches at once.
    void wakeOntoAnIdleVcpuWaitsForTheHost()
    {
        const CostModel bareCost = machine(2, Guest::None).cost;
        const CostModel kvmCost = machine(2, Guest::Kvm).cost;
        QCOMPARE(bareCost.haltedVcpuWakeNs, 0.0);
        QCOMPARE(kvmCost.haltedVcpuWakeNs, bareCost.wakeupNs + bareCost.contextSwitchNs + 2 * kvmCost.vmExitNs);
        const Wake bare = wakeOnIdleCpu(Guest::None);
        const Wake kvm = wakeOnIdleCpu(Guest::Kvm);
        QCOMPARE(bare.resumed, 2 * ns(bareCost.contextSwitchNs) + ns(10'000)); // the waker's switch in, its 10 us, ours
        QCOMPARE(kvm.resumed - bare.resumed, ns(kvmCost.haltedVcpuWakeNs));
        QCOMPARE(kvm.idle - bare.idle, ns(kvmCost.haltedVcpuWakeNs));
    }

    void scenarioField()
    {
        Scenario sc = loadScenario("madv-free-swapin");
        QVERIFY(!sc.json()["machine"].contains("guest"));
        sc.set("machine.guest", "kvm");
        QCOMPARE(sc.json()["machine"]["guest"].get<std::string>(), std::string("kvm"));
        RunSetup r = sc.resolve(sc.variantNames().front(), OJson::object(), 0.02);
        QCOMPARE(r.machine.guest, Guest::Kvm);
        QCOMPARE(r.machine.cost.vmExitNs, 2500 / r.machine.cost.clockGHz);
        QCOMPARE(r.machine.guestPreempt, 0.0);
        sc.set("machine.guest_preempt", "0.25");
        QCOMPARE(sc.resolve(sc.variantNames().front(), OJson::object(), 0.02).machine.guestPreempt, 0.25);
        // none is bare metal, written as no field at all; a guest's preemption needs a guest.
        Scenario bare = loadScenario("madv-free-swapin");
        bare.set("machine.guest", "none");
        QCOMPARE(bare.json().dump(), loadScenario("madv-free-swapin").json().dump());
        QVERIFY_THROWS_EXCEPTION(ScenarioError, bare.set("machine.guest_preempt", "0.1"));
        QVERIFY_THROWS_EXCEPTION(ScenarioError, bare.set("machine.guest", "xen"));
        QVERIFY_THROWS_EXCEPTION(ScenarioError, sc.set("machine.guest_preempt", "2"));
    }

    void guestRunCountsExits()
    {
        Scenario bare = loadScenario("madv-free-swapin");
        Scenario kvm = bare;
        kvm.set("machine.guest", "kvm");
        const ResultSet b = run(bare, 0.02, 2);
        const ResultSet g = run(kvm, 0.02, 2);
        QCOMPARE(b.results.size(), g.results.size());
        for (std::size_t i = 0; i < g.results.size(); ++i) {
            const auto& bm = b.results[i].metrics;
            const auto& gm = g.results[i].metrics;
            QVERIFY(!bm.contains("vm_exits"));
            QVERIFY(gm.contains("vm_exits"));
            // Same program, same flushes: three exits per TLB IPI (plus those of per-CPU list drains).
            QVERIFY(gm.at("vm_exits") >= 3 * gm.at("vm.tlb_remote_ipi"));
            if (g.results[i].variant == "dontneed") // every touch after a DONTNEED faults, however the run goes
                QCOMPARE(gm.at("vm.pgfault"), bm.at("vm.pgfault"));
            // The same page swapped costs the guest more system time (how many pages the MADV_FREE run swaps
            // follows its timing).
            const double gPer = gm.at("sys_s") / (gm.at("swapouts") + gm.at("swapins")),
                         bPer = bm.at("sys_s") / (bm.at("swapouts") + bm.at("swapins"));
            QVERIFY2(gPer > bPer, qPrintable(QString("%1 vs %2 s a page swapped").arg(gPer).arg(bPer)));
        }
    }

    void preemptedVcpusDelayTheFlush()
    {
        Scenario kvm = loadScenario("madv-free-swapin");
        kvm.set("machine.guest", "kvm");
        Scenario preempted = kvm;
        preempted.set("machine.guest_preempt", "0.05");
        const ResultSet a = run(kvm, 0.02, 2);
        const ResultSet p = run(preempted, 0.02, 2);
        double sysA = 0, sysP = 0;
        for (std::size_t i = 0; i < a.results.size(); ++i) {
            sysA += a.results[i].metrics.at("sys_s");
            sysP += p.results[i].metrics.at("sys_s");
            QVERIFY(p.results[i].metrics.at("vm_exits") > 0);
        }
        QVERIFY2(sysP > sysA, qPrintable(QString("%1 vs %2").arg(sysP).arg(sysA)));
    }

    void theHostStealsItsShareOfARunningTask()
    {
        // 2 s of system time in a guest whose host deschedules vCPUs a fifth of the time, nobody spinning: the host's
        // slices pass in the task's run as steal time, about share / (1 - share) of its CPU time (a Poisson count of
        // 3 ms slices: 167 expected, the seed fixes the draw), and neither user nor system time.
        for (double share : { 0.0, 0.2 }) {
            Simulator sim;
            const MachineSpec m = preemptedGuest(2, share);
            Sched s(sim, m);
            s.seedHost(42);
            Task& t = s.spawn("worker", 0, false, nullptr, 1);
            s.start(t, [](Sched& s, Task& t) -> Co<> {
                for (int i = 0; i < 2000; ++i) {
                    Sched::burn(t, 1e6);
                    co_await s.flush(t);
                }
            }(s, t));
            QVERIFY(sim.run());
            QVERIFY(t.sysTime >= ns(2e9) && t.sysTime <= ns(2e9) + s.switchTime()); // and its first switch in
            QCOMPARE(t.finished - t.started, t.sysTime + t.stealTime);
            const double expected = 2.0 * share / (1 - share);
            QVERIFY2(std::abs(toSec(t.stealTime) - expected) <= 0.2 * expected,
                qPrintable(QString("steal %1 s, expected about %2 s").arg(toSec(t.stealTime)).arg(expected)));
            QCOMPARE(t.stealTime % ns(m.cost.vcpuPreemptMaxNs), Time { 0 }); // whole slices: nobody spun
            const CpuTime c = s.cpuTimes()[0];
            QCOMPARE(c.steal, t.stealTime);
            QCOMPARE(c.user + c.sys + c.idle + c.steal, sim.now());
        }
    }

    void aSpinningVcpuCutsTheStealToThePleBoost()
    {
        const CostModel kvm = guestCostModel(machinePreset("generic-12cpu-2015")->cost, Guest::Kvm);
        // The PAUSE-loop exit after 4096 cycles, then the host's yield to the descheduled vCPU.
        QCOMPARE(kvm.pleBoostNs,
            4096 / kvm.clockGHz + kvm.vmExitNs + machinePreset("generic-12cpu-2015")->cost.wakeupNs
                + machinePreset("generic-12cpu-2015")->cost.contextSwitchNs);
        HostPreemption h;
        h.share = 0.5;
        h.slice = ns(kvm.vcpuPreemptMaxNs);
        h.pleBoost = ns(kvm.pleBoostNs);
        QCOMPARE(h.stolen(), h.slice);
        h.spinners = 1; // someone spins now
        QCOMPARE(h.stolen(), h.pleBoost);
        int descheduled = 0;
        for (int i = 0; i < 200; ++i) {
            const double r = h.residualNs();
            QVERIFY(r <= kvm.pleBoostNs); // its acknowledgement or its lock is spun on
            descheduled += r > 0;
        }
        QVERIFY(descheduled > 50 && descheduled < 150); // descheduled half the time
    }

    void aTicketHandedToADescheduledWaiterWaits()
    {
        // Bare metal: the second task gets the lock one hand-off after the release. In a guest whose host has its
        // vCPUs descheduled most of the time, the waiter's vCPU is often descheduled at the hand-off, and the free
        // lock waits for it until the pause loops of the lock's next waiters make the host run it: up to the PLE
        // boost.
        const Time bare = secondGrantAfterRelease(machine(2, Guest::None), 1);
        QVERIFY(bare > 0 && bare < ns(1000));
        const MachineSpec guest = preemptedGuest(2, 0.9);
        Time longest = 0;
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            const Time late = secondGrantAfterRelease(guest, seed);
            QVERIFY(late >= secondGrantAfterRelease(machine(2, Guest::Kvm), seed));
            QVERIFY(late <= secondGrantAfterRelease(machine(2, Guest::Kvm), seed) + ns(guest.cost.pleBoostNs));
            longest = std::max(longest, late);
        }
        QVERIFY2(longest > secondGrantAfterRelease(machine(2, Guest::Kvm), 1) + ns(1000),
            qPrintable(QString("%1 ps").arg(longest)));
    }

    void stealInTheResultsOnlyWhereTheHostPreempts()
    {
        // The per-CPU steal time goes into the JSON and back (merge, the app) where the host preempts, and a run
        // without host preemption keeps its keys.
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("machine.guest", "kvm");
        const ResultSet plain = run(sc, 0.02, 2);
        QVERIFY(!plain.results.front().metrics.count("steal_s"));
        QVERIFY(!resultsToJson(plain)["results"][0]["cpus"][0].contains("steal_s"));
        sc.set("machine.guest_preempt", "0.2");
        const ResultSet preempted = run(sc, 0.02, 2);
        for (const RunResult& r : preempted.results) {
            double cpuSteal = 0;
            for (const CpuStat& c : r.cpus)
                cpuSteal += c.stealS;
            QVERIFY(r.metrics.at("steal_s") > 0);
            QVERIFY(cpuSteal >= r.metrics.at("steal_s")); // the CPUs count kernel threads' steal too
        }
        const ResultSet back = resultsFromJson(resultsToJson(preempted), "test");
        for (std::size_t i = 0; i < back.results.size(); ++i)
            for (std::size_t c = 0; c < back.results[i].cpus.size(); ++c)
                QCOMPARE(back.results[i].cpus[c].stealS, preempted.results[i].cpus[c].stealS);
    }

    void deterministicAcrossRunnerThreads()
    {
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("machine.guest", "kvm");
        sc.set("machine.guest_preempt", "0.05");
        QCOMPARE(withoutHost(run(sc, 0.02, 1)), withoutHost(run(sc, 0.02, 2)));
    }
};

QTEST_GUILESS_MAIN(TestGuest)
#include "tst_guest.moc"
