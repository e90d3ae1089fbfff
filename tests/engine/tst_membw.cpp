// Memory as a shared resource (hw/membw.h, Sched::memTransfer): a stream alone runs at the core's rate; N cores
// streaming together reach the socket's figure and no more; SMT siblings share their core's rate; sockets do not
// share; and the presets' figures are the cited ones.
#include "hw/membw.h"
#include "sched/sched.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;

namespace {

constexpr double kPage = 4096;

// `streams` streams of `pages` pages each, stream i on (socket, core) of `where[i]`, all from time 0, each page
// asked for when its stream's previous page ended (the order a simulator asks them in: the earliest first). The
// time the last page ends.
Time streamAll(MemoryBandwidth& bw, const std::vector<std::pair<int, int>>& where, int pages)
{
    std::vector<Time> at(where.size(), 0);
    std::vector<int> left(where.size(), pages);
    for (;;) {
        std::size_t next = where.size();
        for (std::size_t i = 0; i < where.size(); ++i)
            if (left[i] > 0 && (next == where.size() || at[i] < at[next]))
                next = i;
        if (next == where.size())
            break;
        at[next] += bw.transfer(where[next].first, where[next].second, at[next], kPage);
        --left[next];
    }
    return *std::max_element(at.begin(), at.end());
}

// GB/s (1e9 B/s) of `bytes` moved in `ps` picoseconds.
double gbps(double bytes, Time ps) { return bytes / static_cast<double>(ps) * 1e3; }

Co<> zeroPages(Sched& s, Task& t, int pages, Time& end)
{
    for (int i = 0; i < pages; ++i) {
        s.burnTransfer(t, s.machine().socketOf(t.cpu), kPage);
        co_await s.flush(t);
    }
    end = s.sim().now();
}

} // namespace

class TestMemBw : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aloneAtTheCoresRate()
    {
        MemoryBandwidth bw(1, 4, 2, 20.0, 10.0);
        // 4096 B at 10 GB/s: 409.6 ns, wherever it starts within a bin.
        QCOMPARE(bw.transfer(0, 0, 0, kPage), Time(409'600));
        MemoryBandwidth bw2(1, 4, 2, 20.0, 10.0);
        QCOMPARE(bw2.transfer(0, 0, 700'000, kPage), Time(409'600));
        // A megabyte spans bins and still takes bytes / rate.
        MemoryBandwidth bw3(1, 4, 2, 20.0, 10.0);
        QCOMPARE(bw3.transfer(0, 0, 0, 1e6), Time(100'000'000));
        // No figure for the core: the transfer costs nothing of its own.
        MemoryBandwidth none(1, 4, 2, 0.0, 0.0);
        QCOMPARE(none.transfer(0, 0, 0, kPage), Time(0));
    }

    void saturatesAtTheSocketsFigure_data()
    {
        QTest::addColumn<int>("cores");
        for (int n : { 1, 2, 3, 4, 6, 8 })
            QTest::addRow("%d cores", n) << n;
    }
    void saturatesAtTheSocketsFigure()
    {
        QFETCH(int, cores);
        // 8 cores of 10 GB/s (one thread each) on a socket of 35 GB/s: linear up to 3.5 cores, then flat at 35.
        MemoryBandwidth bw(1, 8, 1, 35.0, 10.0);
        std::vector<std::pair<int, int>> where;
        for (int c = 0; c < cores; ++c)
            where.emplace_back(0, c);
        const int pages = 2000;
        const double rate = gbps(kPage * pages * cores, streamAll(bw, where, pages));
        const double expected = std::min(10.0 * cores, 35.0);
        QVERIFY2(std::abs(rate - expected) <= 0.01 * expected, qPrintable(QString("%1 GB/s vs %2").arg(rate).arg(expected)));
        // No bin moves more than the socket gives, the first ones included (where the streams are not known yet).
        for (Time b = 0; b < 100; ++b)
            QVERIFY(bw.socketBytesAt(0, b * MemoryBandwidth::kBin) <= 35.0 * 1e3 * 1.0001);
    }

    void smtSiblingsShareTheirCore()
    {
        // Two streams on one core move no more than the core's 10 GB/s together; on two cores, twice that.
        MemoryBandwidth one(1, 2, 2, 100.0, 10.0), two(1, 2, 2, 100.0, 10.0);
        const int pages = 1000;
        QVERIFY(qAbs(gbps(2 * kPage * pages, streamAll(one, { { 0, 0 }, { 0, 0 } }, pages)) - 10.0) < 0.1);
        QVERIFY(qAbs(gbps(2 * kPage * pages, streamAll(two, { { 0, 0 }, { 0, 1 } }, pages)) - 20.0) < 0.2);
    }

    void socketsDoNotShare()
    {
        // Four cores a socket against a 20 GB/s socket: 20 GB/s on one socket, 40 over two.
        MemoryBandwidth bw(2, 8, 2, 20.0, 10.0);
        const int pages = 1000;
        const Time oneSocket = streamAll(bw, { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 } }, pages);
        MemoryBandwidth bw2(2, 8, 2, 20.0, 10.0);
        const Time twoSockets = streamAll(bw2, { { 0, 0 }, { 0, 1 }, { 1, 4 }, { 1, 5 } }, pages);
        QVERIFY(qAbs(gbps(4 * kPage * pages, oneSocket) - 20.0) < 0.2);
        QVERIFY(qAbs(gbps(4 * kPage * pages, twoSockets) - 40.0) < 0.4);
    }

    void aloneAgainOnceTheSharedBinsArePast()
    {
        // Two cores against a socket that gives one core's rate: each gets half while both stream. A stream that
        // starts as they end still reads their bins and waits; one three bins later is alone at the core's rate.
        MemoryBandwidth bw(1, 2, 2, 10.0, 10.0);
        const Time end = streamAll(bw, { { 0, 0 }, { 0, 1 } }, 100);
        QVERIFY(qAbs(gbps(2 * kPage * 100, end) - 10.0) < 0.2);
        const std::int64_t lastBin = end / MemoryBandwidth::kBin;
        MemoryBandwidth shared(1, 2, 2, 10.0, 10.0);
        streamAll(shared, { { 0, 0 }, { 0, 1 } }, 100);
        QVERIFY(shared.transfer(0, 0, (lastBin + 1) * MemoryBandwidth::kBin, kPage) > Time(409'600));
        QCOMPARE(bw.transfer(0, 0, (lastBin + 3) * MemoryBandwidth::kBin, kPage), Time(409'600));
    }

    void lateAskForAnEarlierTimeFindsItsRoom()
    {
        // A stream placed first ahead (within the calendar's reach) leaves the bins before it free for a stream
        // asked for afterwards; one placed beyond the reach does not stop it either.
        for (Time ahead : { Time(500'000'000), Time(2'000'000'000) }) {
            MemoryBandwidth bw(1, 2, 2, 10.0, 10.0);
            QCOMPARE(bw.transfer(0, 0, ahead, 1e6), Time(100'000'000));
            QCOMPARE(bw.transfer(0, 1, 0, 1e6), Time(100'000'000));
        }
    }

    void tasksOnAPresetSaturateItsSocket_data()
    {
        QTest::addColumn<int>("tasks");
        for (int n : { 1, 2, 4, 6, 12 })
            QTest::addRow("%d tasks", n) << n;
    }
    void tasksOnAPresetSaturateItsSocket()
    {
        // The 12-thread Haswell-EP of seed 000: one task per CPU clears pages; the first six CPUs are the six
        // cores, CPUs 6-11 their SMT siblings.
        QFETCH(int, tasks);
        const MachineSpec m = test::genericMachine(12, 1, 2);
        QCOMPARE(m.coreCount(), 6);
        QCOMPARE(m.coreOf(0), m.coreOf(6));
        QVERIFY(m.socketMemGBps > 0 && m.cost.memCoreGBps > 0);
        Simulator sim;
        Sched s(sim, m);
        const int pages = 500;
        std::vector<Time> end(static_cast<std::size_t>(tasks), 0);
        for (int i = 0; i < tasks; ++i) {
            Task& t = s.spawn("z" + std::to_string(i), i, false, nullptr, 1 + i);
            s.start(t, zeroPages(s, t, pages, end[static_cast<std::size_t>(i)]));
        }
        QVERIFY(sim.run());
        QCOMPARE(s.memory().movedBytes(0), kPage * pages * tasks);
        const double rate = gbps(kPage * pages * tasks, *std::max_element(end.begin(), end.end()));
        const int cores = std::min(tasks, m.coreCount());
        const double expected = std::min(cores * m.cost.memCoreGBps, m.socketMemGBps);
        QVERIFY2(std::abs(rate - expected) <= 0.02 * expected, qPrintable(QString("%1 GB/s vs %2").arg(rate).arg(expected)));
    }

    void remoteMemoryStreamsSlower()
    {
        // One stream of a CPU of socket 0 on two sockets: from its own node at the core's rate, from the other's
        // CostModel::remoteMemLatencyRatio times slower (Little's law over the longer latency).
        const MachineSpec m = test::genericMachine(12, 2, 2);
        QVERIFY(m.cost.remoteMemLatencyRatio > 1.0);
        Simulator sim;
        Sched s(sim, m);
        Task& t = s.spawn("t", 0, false, nullptr, 1);
        const Time local = s.memTransfer(t, 0, kPage), remote = s.memTransfer(t, 1, kPage);
        QCOMPARE(local, Time(kPage / m.cost.memCoreGBps * 1e3 + 0.5));
        QVERIFY(qAbs(static_cast<double>(remote) / static_cast<double>(local) - m.cost.remoteMemLatencyRatio) < 1e-3);
    }

    void interleavedMemoryIsOnePoolAtTheMeanLatency()
    {
        // Two sockets, memory interleaved (MachineSpec::numa false): a stream alone runs at the core's rate over
        // the mean of a local and a remote line, from either socket; streams on both sockets' cores share one pool
        // of both sockets' bandwidth.
        MachineSpec m = test::genericMachine(12, 2, 2);
        m.numa = false;
        const double r = m.cost.remoteMemLatencyRatio;
        Simulator sim;
        Sched s(sim, m);
        Task& a = s.spawn("a", 0, false, nullptr, 1);
        Task& b = s.spawn("b", 11, false, nullptr, 2);
        const Time alone = Time(kPage / m.cost.memCoreGBps * 1e3 + 0.5);
        QVERIFY(qAbs(static_cast<double>(s.memTransfer(a, 0, kPage)) / static_cast<double>(alone) - (1 + r) / 2) < 1e-3);
        QVERIFY(qAbs(static_cast<double>(s.memTransfer(b, 0, kPage)) / static_cast<double>(alone) - (1 + r) / 2) < 1e-3);
        // One pool, both sockets' traffic in it, giving what both sockets' controllers give.
        QCOMPARE(s.memory().sockets(), 1);
        QCOMPARE(s.memory().movedBytes(0), 2 * kPage);
        QVERIFY(qAbs(s.memory().socketGBps() - 2 * m.socketMemGBps) < 1e-6);
    }

    void presetsNameTheirFigures()
    {
        for (const auto& name : machinePresetNames()) {
            const MachineSpec m = *machinePreset(name);
            QVERIFY2(m.socketMemGBps > 0, name.c_str());
            // One core cannot take more than its socket; the socket's cores together take most of it (a part of
            // few cores on many channels, xeon-32cpu-2020's 8 on six, does not fill them alone).
            QVERIFY2(m.cost.memCoreGBps < m.socketMemGBps, name.c_str());
            QVERIFY2(m.coresPerSocket() * m.cost.memCoreGBps >= 0.8 * m.socketMemGBps, name.c_str());
            QCOMPARE(m.coreCount() * m.threadsPerCore, m.cpus);
        }
    }
};

QTEST_GUILESS_MAIN(TestMemBw)
#include "tst_membw.moc"
