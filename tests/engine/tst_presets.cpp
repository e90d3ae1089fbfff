// Presets describe hardware and kernels set toggles (docs/architecture.md, "the kernel never knows which program
// calls it"): every built-in scenario runs on every machine preset, and a scenario's kernel version sets its
// era's toggle defaults.
#include "hw/machine.h"
#include "mm/toggles.h"
#include "run/runner.h"
#include "scenario/runsetup.h"
#include "scenario/scenario.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace mms;

class TestPresets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Each scenario at a small scale (0.02), its first variant and sweep point, on each preset's whole machine (sockets,
    // cpus, memory, swap): the run ends and its figures are physically sensible.
    void everyScenarioRunsOnEveryPreset_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("preset");
        for (auto& info : builtinScenarios())
            for (auto& preset : machinePresetNames())
                QTest::addRow("%s@%s", info.id.c_str(), preset.c_str())
                    << QString::fromStdString(info.id) << QString::fromStdString(preset);
    }
    void everyScenarioRunsOnEveryPreset()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, preset);
        Scenario s = loadScenario(scenario.toStdString());
        s.set("machine.preset", preset.toStdString());
        QCOMPARE(s.json()["machine"]["cpus"].get<int>(), machinePreset(preset.toStdString())->cpus);
        s.selectVariants({ s.variantNames().front() });
        for (auto& axis : s.axes())
            s.set(axis, s.json()["sweep"][axis][0].dump());
        s.setReps(1);
        RunnerOptions o;
        o.scale = 0.02; // migration-unmapped's children start no test in its window below this
        o.threads = 1;
        o.checkInvariants = true;
        ResultSet rs = runScenario(s, o);
        QCOMPARE(rs.results.size(), std::size_t(1));
        const Metrics& m = rs.results[0].metrics;
        for (auto& [name, value] : m)
            QVERIFY2(std::isfinite(value), name.c_str());
        // the headline figures of a run that did work: time passed, work got done
        for (const char* positive : { "elapsed_s", "throughput", "throughput_mbps", "records_per_s", "jobs_per_min" })
            if (m.count(positive))
                QVERIFY2(m.at(positive) > 0, positive);
        QVERIFY(rs.results[0].events > 0);
    }

    // A preset switch brings the preset's machine; machine fields given by --set hold on it, in either order.
    void presetSwitchKeepsSetFields()
    {
        Scenario s = loadScenario("madv-free-swapin");
        s.set("machine.memory", "1GiB");
        s.set("machine.preset", "quad-core-2007");
        QCOMPARE(s.json()["machine"]["cpus"].get<int>(), 4);
        QCOMPARE(s.json()["machine"]["memory"].get<std::string>(), std::string("1GiB"));
        QCOMPARE(s.json()["machine"]["swap"][0]["device"].get<std::string>(), std::string("hdd-2007"));
        s.set("machine.cpus", "2");
        QCOMPARE(s.json()["machine"]["cpus"].get<int>(), 2);
        RunSetup r = s.resolve("dontneed", OJson::object(), 0.1);
        QCOMPARE(r.machine.cost.clockGHz, 2.4);
        QCOMPARE(r.machine.cpus, 2);
    }

    // Each swap device kind: its scenario name reads back as the kind and names its preset, and only the rotating
    // disk has a rotational queue (swapon() marks every other device SWP_SOLIDSTATE).
    void deviceKinds_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("rotational");
        QTest::addRow("ssd-2015") << "ssd-2015" << false;
        QTest::addRow("hdd-2007") << "hdd-2007" << true;
        QTest::addRow("pmem-ram") << "pmem-ram" << false;
        QTest::addRow("nvme-2020") << "nvme-2020" << false;
        QTest::addRow("zram") << "zram" << false;
    }
    void deviceKinds()
    {
        QFETCH(QString, name);
        QFETCH(bool, rotational);
        const std::optional<DeviceKind> kind = deviceKindNamed(name.toStdString());
        QVERIFY(kind);
        const DeviceSpec d = deviceSpecFor(*kind);
        QVERIFY(d.kind == *kind);
        QCOMPARE(std::string(d.name()), name.toStdString());
        QCOMPARE(d.rotational(), rotational);
        QVERIFY(devicePreset(name.toStdString())->kind == *kind);
    }
    // The names in the order a scenario error lists them; a name that is no kind has no preset.
    void deviceNames()
    {
        QCOMPARE(devicePresetNames(), (std::vector<std::string> { "ssd-2015", "hdd-2007", "pmem-ram", "nvme-2020", "zram" }));
        QVERIFY(!devicePreset("floppy"));
    }

    // Costs follow the hardware: kernel code paths are cycle counts, so a faster clock runs them faster, and no
    // preset carries a cost the others lack.
    // The last-level caches of a preset (MachineSpec::llcOf): the Core 2 Quad's two dies, an L2 each; a Rome
    // socket's four-core CCXs; the K8's private L2s; a Haswell-EP socket's one L3 for both threads of every core.
    void lastLevelCaches_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QList<int>>("llcs"); // of CPUs 0, 1, 2, ... up to the list's length
        QTest::newRow("quad-core-2007") << "quad-core-2007" << QList<int> { 0, 0, 1, 1 };
        QTest::newRow("epyc-rome-64core-2020") << "epyc-rome-64core-2020" << QList<int> { 0, 0, 0, 0, 1, 1, 1, 1, 2 };
        QTest::newRow("opteron-8x2-2007") << "opteron-8x2-2007" << QList<int> { 0, 1, 2, 3 };
        QTest::newRow("generic-12cpu-2015") << "generic-12cpu-2015" << QList<int>(12, 0);
    }
    void lastLevelCaches()
    {
        QFETCH(QString, preset);
        QFETCH(QList<int>, llcs);
        const MachineSpec m = *machinePreset(preset.toStdString());
        for (int cpu = 0; cpu < llcs.size(); ++cpu)
            QCOMPARE(m.llcOf(cpu), llcs[cpu]);
        QCOMPARE(m.llcOf(m.cpus - 1), m.llcCount() - 1);
        // A line within a cache costs no more than one within the socket.
        QVERIFY(m.cost.lineSameLlcNs <= m.cost.lineSameSocketNs);
        QVERIFY(m.cost.lineSameSocketNs <= m.cost.lineCrossSocketNs || m.sockets == 1);
    }

    // machine.cores_per_llc regroups the preset's cores around their caches (0: one a socket); only a scenario that
    // sets it has the field, and the value must be a core count of the machine.
    void coresPerLlcFromTheScenario()
    {
        Scenario sc = loadScenario("madv-free-threads"); // quad-core-2007: two dies
        QVERIFY(!sc.json()["machine"].contains("cores_per_llc"));
        QCOMPARE(sc.resolve(sc.variantNames().front(), OJson::object(), 0.02).machine.llcCount(), 2);
        sc.set("machine.cores_per_llc", "0");
        const MachineSpec one = sc.resolve(sc.variantNames().front(), OJson::object(), 0.02).machine;
        QCOMPARE(one.llcCount(), 1);
        QCOMPARE(one.llcOf(3), one.llcOf(0));
        sc.set("machine.cores_per_llc", "1");
        QCOMPARE(sc.resolve(sc.variantNames().front(), OJson::object(), 0.02).machine.llcCount(), 4);
        QVERIFY_THROWS_EXCEPTION(ScenarioError, sc.set("machine.cores_per_llc", "-1"));
        QVERIFY_THROWS_EXCEPTION(ScenarioError, sc.set("machine.cores_per_llc", "5"));
        QVERIFY_THROWS_EXCEPTION(ScenarioError, sc.set("machine.cores_per_llc", "\"two\""));
    }

    void kernelCostsFollowTheClock()
    {
        for (auto& name : machinePresetNames()) {
            const MachineSpec m = *machinePreset(name);
            const CostModel& c = m.cost;
            QVERIFY2(c.clockGHz > 1 && c.clockGHz < 5, name.c_str());
            QCOMPARE(c.reclaimPerPageNs * c.clockGHz, 1500.0);
            QCOMPARE(c.functionCallNs * c.clockGHz, 10.0);
            QCOMPARE(c.smpMbNs, c.lockedRmwNs);
            QVERIFY2(c.copyPageNs > c.zeroPageNs, name.c_str());
            QVERIFY2(!m.description.empty(), name.c_str());
        }
    }

    void kernelVersions_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("release"); // what it reads as; empty: refused
        QTest::addRow("X.Y") << "4.11" << "4.11";
        QTest::addRow("X.Y.Z") << "2.6.20" << "2.6.20";
        QTest::addRow("two-digit minor") << "4.10" << "4.10";
        QTest::addRow("git tag") << "v4.10" << "4.10";
        QTest::addRow("rc suffix") << "5.6-rc4" << "5.6";
        QTest::addRow("rc without its number") << "5.6-rc" << "";
        QTest::addRow("one number") << "5" << "";
        QTest::addRow("empty") << "" << "";
        QTest::addRow("letters") << "linux" << "";
    }
    void kernelVersions()
    {
        QFETCH(QString, text);
        QFETCH(QString, release);
        auto v = KernelVersion::parse(text.toStdString());
        QCOMPARE(v.has_value(), !release.isEmpty());
        if (v)
            QCOMPARE(QString::fromStdString(v->str()), release);
    }

    // The era table (toggles.cpp): each rule on both sides of its release.
    void eraDefaults()
    {
        auto at = [](const char* v, const char* toggle) {
            nlohmann::json j = Toggles::forKernel(*KernelVersion::parse(v)).toJson()[toggle];
            return QString::fromStdString(j.is_string() ? j.get<std::string>() : j.dump());
        };
        QCOMPARE(at("2.6.20", "rwsem.impl"), QString("spinlock"));
        QCOMPARE(at("2.6.34", "rwsem.impl"), QString("xadd"));
        QCOMPARE(at("2.6.21", "madvise.mmap_sem"), QString("write"));
        QCOMPARE(at("2.6.22", "madvise.mmap_sem"), QString("read"));
        QCOMPARE(at("2.6.20", "madvise.era"), QString("2007"));
        QCOMPARE(at("4.0", "madvise.era"), QString("4.5"));
        QCOMPARE(at("4.4", "madvise.free_swap_entries"), QString("false"));
        QCOMPARE(at("4.5", "madvise.free_swap_entries"), QString("true"));
        QCOMPARE(at("4.14", "lru.pagevec_size"), QString("14"));
        QCOMPARE(at("4.15", "lru.pagevec_size"), QString("15"));
        QCOMPARE(at("5.5", "lru.barrier"), QString("none"));
        QCOMPARE(at("5.6", "lru.barrier"), QString("smp_mb"));
        QCOMPARE(at("5.6", "lru.page_evictable"), QString("outofline"));
        QCOMPARE(at("5.7", "lru.barrier"), QString("after_atomic"));
        QCOMPARE(at("5.7", "lru.page_evictable"), QString("inline"));
        QCOMPARE(at("4.10", "swap.slots_cache"), QString("off"));
        QCOMPARE(at("4.11", "swap.slots_cache"), QString("per_cpu"));
        QCOMPARE(at("4.12", "swap.sort_before_free"), QString("false"));
        QCOMPARE(at("4.13", "swap.sort_before_free"), QString("true"));
        QCOMPARE(at("3.13", "swap.percpu_cluster"), QString("false"));
        QCOMPARE(at("3.14", "swap.percpu_cluster"), QString("true"));
        QCOMPARE(at("3.18", "i_mmap.lock"), QString("mutex"));
        QCOMPARE(at("3.19", "i_mmap.lock"), QString("rwsem"));
        QCOMPARE(at("3.18", "migrate.skip_unmapped"), QString("false"));
        QCOMPARE(at("3.19", "migrate.skip_unmapped"), QString("true"));
        QCOMPARE(at("3.14", "fault.around"), QString("false"));
        QCOMPARE(at("3.15", "fault.around"), QString("true"));
        QCOMPARE(at("3.15", "thp.fault_compaction"), QString("sync"));
        QCOMPARE(at("3.16", "thp.fault_compaction"), QString("async"));
        QCOMPARE(at("2.6.35", "page_alloc.drain"), QString("none"));
        QCOMPARE(at("2.6.36", "page_alloc.drain"), QString("ipi"));
        QCOMPARE(at("4.10", "page_alloc.drain"), QString("ipi"));
        QCOMPARE(at("4.11", "page_alloc.drain"), QString("workqueue"));
        // a scenario that names no kernel runs kDefaultKernel, whose toggles are the members' defaults
        QCOMPARE(Toggles::forKernel(*KernelVersion::parse(kDefaultKernel)).toJson().dump(), Toggles {}.toJson().dump());
    }

    // The scenario's kernel sets the defaults; a variant's toggles and --set override them.
    void kernelSetsDefaultsVariantsOverride()
    {
        Scenario s = loadScenario("madv-free-tlb-batch");
        QCOMPARE(s.json()["kernel"].get<std::string>(), std::string("2.6.20"));
        RunSetup r = s.resolve("glibc-mmapsem", s.points()[0], 0.01);
        QVERIFY(r.toggles.madviseMmapSem == MmapSemMode::Read); // the variant: Nick Piggin's patch
        QVERIFY(r.toggles.immapLock == IMmapLock::Spinlock); // the era: i_mmap_lock before 3.0
        s.set("kernel", "4.10");
        QCOMPARE(s.json()["kernel"].get<std::string>(), std::string("4.10"));
        r = s.resolve("glibc-mmapsem", s.points()[0], 0.01);
        QVERIFY(r.toggles.immapLock == IMmapLock::Rwsem);
        s.set("i_mmap.lock", "mutex");
        r = s.resolve("glibc-mmapsem", s.points()[0], 0.01);
        QVERIFY(r.toggles.immapLock == IMmapLock::Mutex);
    }
};

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
