// zram as a swap device: the single compression stream serialises swap-outs and per-CPU streams do not; a zero
// page stores no object, a memset page a tiny one (or none once same-filled pages are flags); the pool's pages come
// from the page allocator and go back; and the swap path through it gives the same bytes at any thread count.
#include "block/zram_drv.h"
#include "mm/zsmalloc.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;
using namespace mms::test;

namespace {
// A bare machine of 64 MiB with one 64 MiB zram swap device and the toggles of `kernel`.
struct ZramBox {
    explicit ZramBox(const char* kernel, ZcompStreams streams)
        : m(spec())
        , s(sim, m)
        , k(s, toggles(kernel, streams))
    {
    }
    static MachineSpec spec()
    {
        MachineSpec m = *machinePreset("generic-12cpu-2015");
        m.memoryBytes = 64ull << 20;
        m.swap = { SwapSpec { 64ull << 20, deviceSpecFor(DeviceKind::Zram) } };
        return m;
    }
    static Toggles toggles(const char* kernel, ZcompStreams streams)
    {
        Toggles t = Toggles::forKernel(*KernelVersion::parse(kernel));
        t.zram.streams = streams;
        return t;
    }
    ZramDevice& zram() { return *k.swap[0]->zram; }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

Co<> writeAt(ZramDevice& z, Sched& s, Task& t, std::uint32_t slot, PageContent c, Time& done)
{
    co_await z.zram_bvec_write(t, slot, c);
    co_await s.flush(t);
    done = s.sim().now();
}

// `n` tasks on CPUs 0..n-1 each swap out one page of program data at the same instant: when the last finishes.
Time concurrentWrites(ZcompStreams streams, int n)
{
    ZramBox b("4.0", streams);
    std::vector<Time> done(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
        Task& t = b.s.spawn("w" + std::to_string(i), i, false, nullptr, static_cast<std::uint64_t>(i + 1));
        b.s.start(t, writeAt(b.zram(), b.s, t, static_cast<std::uint32_t>(i + 1), PageContent::Data, done[static_cast<std::size_t>(i)]));
    }
    if (!b.sim.run())
        return -1;
    return *std::max_element(done.begin(), done.end());
}

Co<> writeMany(ZramDevice& z, Task& t, std::uint32_t n, PageContent c)
{
    for (std::uint32_t i = 1; i <= n; ++i)
        co_await z.zram_bvec_write(t, i, c);
}
Co<> freeMany(ZramDevice& z, Task& t, std::uint32_t n)
{
    for (std::uint32_t i = 1; i <= n; ++i)
        co_await z.zram_slot_free_notify(t, i);
}
} // namespace

class TestZram : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void eraDefaults()
    {
        auto at = [](const char* v) { return Toggles::forKernel(*KernelVersion::parse(v)).zram; };
        QVERIFY(at("4.0").streams == ZcompStreams::Single);
        QVERIFY(at("4.7").streams == ZcompStreams::PerCpu);
        QVERIFY(at("4.0").comp == ZcompAlgo::Lzo && at("5.1").comp == ZcompAlgo::LzoRle);
        QVERIFY(!at("4.10").sameFilled && at("4.11").sameFilled);
        QVERIFY(at("6.1").zsLock == ZsLock::Class && at("6.2").zsLock == ZsLock::Pool);
    }

    void sizeClasses()
    {
        QCOMPARE(ZS_SIZE_CLASSES, 255u);
        QCOMPARE(get_size_class_index(1), 0u);
        QCOMPARE(get_size_class_index(32), 0u);
        QCOMPARE(get_size_class_index(33), 1u);
        QCOMPARE(get_size_class_index(4096), 254u);
        QCOMPARE(get_pages_per_zspage(32), 1); // 128 objects, no waste
        QCOMPARE(get_pages_per_zspage(4096), 1);
        QCOMPARE(get_pages_per_zspage(3072), 3); // 4 objects in 3 pages
    }

    void singleStreamSerialises()
    {
        const Time one = concurrentWrites(ZcompStreams::Single, 1);
        const Time four = concurrentWrites(ZcompStreams::Single, 4);
        QVERIFY(one > 0);
        // The stream is held across the compression, zs_malloc and the copy: four writers take ~4 times one.
        const double ratio = static_cast<double>(four) / static_cast<double>(one);
        QVERIFY2(ratio > 3.3 && ratio < 4.5, qPrintable(QString::number(ratio)));
    }

    void perCpuStreamsDoNot()
    {
        const Time one = concurrentWrites(ZcompStreams::PerCpu, 1);
        const Time four = concurrentWrites(ZcompStreams::PerCpu, 4);
        const double ratio = static_cast<double>(four) / static_cast<double>(one);
        QVERIFY2(ratio < 1.5, qPrintable(QString::number(ratio)));
    }

    void zeroPageStoresNothing()
    {
        ZramBox b("4.0", ZcompStreams::Single);
        Task& t = b.s.spawn("w", 0, false, nullptr, 1);
        b.s.start(t, writeMany(b.zram(), t, 1, PageContent::Zero));
        QVERIFY(b.sim.run());
        QCOMPARE(b.zram().stats().samePages, 1u);
        QCOMPARE(b.zram().entry(1).handle, 0u);
        QCOMPARE(b.zram().poolPages(), 0u);
    }

    void memsetPageStoresATinyObject()
    {
        // 4.0 checks for zero pages only: a memset(0xaa) page is compressed, to an object of zsmalloc's smallest
        // class, 128 of them in one pool page.
        ZramBox b("4.0", ZcompStreams::Single);
        Task& t = b.s.spawn("w", 0, false, nullptr, 1);
        b.s.start(t, writeMany(b.zram(), t, 100, PageContent::Same));
        QVERIFY(b.sim.run());
        QVERIFY(b.zram().entry(1).handle != 0);
        QVERIFY(b.zram().entry(1).size <= ZS_MIN_ALLOC_SIZE);
        QCOMPARE(b.zram().poolPages(), 1u);
        QCOMPARE(b.zram().stats().samePages, 0u);
        // From 4.11 a same-filled page is a flag, like a zero page.
        ZramBox later("4.11", ZcompStreams::PerCpu);
        Task& u = later.s.spawn("w", 0, false, nullptr, 1);
        later.s.start(u, writeMany(later.zram(), u, 100, PageContent::Same));
        QVERIFY(later.sim.run());
        QCOMPARE(later.zram().stats().samePages, 100u);
        QCOMPARE(later.zram().poolPages(), 0u);
    }

    void poolPagesAreRam()
    {
        // Program data compresses ~2:1 (1945-byte objects in the 1952-byte class, two a page): the pool's
        // pages are allocated from the page allocator, and freeing every slot gives them back.
        ZramBox b("4.0", ZcompStreams::Single);
        Task& t = b.s.spawn("w", 0, false, nullptr, 1);
        const std::uint64_t allocBefore = b.k.vm.v[static_cast<std::size_t>(Vm::PgAlloc)];
        b.s.start(t, writeMany(b.zram(), t, 200, PageContent::Data));
        QVERIFY(b.sim.run());
        const std::uint64_t pool = b.zram().poolPages();
        QVERIFY2(pool >= 90 && pool <= 110, qPrintable(QString::number(pool)));
        QCOMPARE(b.k.vm.v[static_cast<std::size_t>(Vm::PgAlloc)] - allocBefore, pool);
        QCOMPARE(b.zram().stats().maxUsedPages, pool);
        Task& f = b.s.spawn("f", 1, false, nullptr, 2);
        b.s.start(f, freeMany(b.zram(), f, 200));
        QVERIFY(b.sim.run());
        QCOMPARE(b.zram().poolPages(), 0u);
        QCOMPARE(b.zram().stats().pagesStored, 0u);
    }

    void swapPathSameBytesAtAnyThreadCount()
    {
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("machine.swap", R"([{"size":"8GiB","device":"zram"}])");
        const double scale = scaleFor(0.02, 0.01);
        ResultSet rs = run(sc, scale, 1);
        for (const auto& r : rs.results) {
            QVERIFY2(r.metrics.at("swapouts") > 0, qPrintable(QString::fromStdString(r.variant)));
            QVERIFY(r.metrics.at("zram_stored_pages") > 0);
            QVERIFY(r.metrics.at("zram_pool_bytes") > 0);
            QCOMPARE(r.metrics.at("zram_failed_writes"), 0.0);
            bool streamLock = false, classLock = false;
            for (const auto& l : r.locks) {
                streamLock = streamLock || l.name == "zram0 zcomp_strm_single.strm_lock";
                classLock = classLock || l.name == "zram0 size_class[0].lock";
            }
            QVERIFY(streamLock && classLock);
        }
        QVERIFY(metric(rs, "madvfree", "swapins") > 0);
        QCOMPARE(withoutHost(run(sc, scale, 2)), withoutHost(rs));
    }

    void compressionStreamsTheLocalMemoryOfAnInterleavedMachine()
    {
        // Four sockets, one interleaved memory: the streams' and the pool's transfers go to the CPU's node, the one
        // node -- they used to index the memory by the CPU's socket, past its one calendar (a crash).
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set({ { "machine.swap", R"([{"size":"8MiB","device":"zram"}])" }, { "machine.cpus", "16" },
            { "machine.sockets", "4" }, { "machine.numa", "false" } });
        sc.selectVariants({ "dontneed" });
        ResultSet rs = run(sc, 0.01, 1);
        QCOMPARE(rs.results.size(), std::size_t(1));
        QVERIFY(rs.results[0].metrics.at("zram_stored_pages") > 0);
    }
};

QTEST_GUILESS_MAIN(TestZram)
#include "tst_zram.moc"
