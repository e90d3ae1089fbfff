// Seed 001 (madv-free-tlb-batch, ebizzy): the post's shape at reduced scale, the mechanisms behind it (mmap_sem write
// contention, per-page flush IPIs, batching), closed-form counts of the glibc heap model, and byte-identical results
// at 1 and 2 runner threads.
#include "run/runner.h"
#include "testutil.h"

#include <QtTest>

using namespace mms;
using namespace mms::test;

namespace {
const RunResult& find(const ResultSet& rs, const std::string& variant, int threads)
{
    for (auto& r : rs.results)
        if (r.variant == variant && r.point.value("threads", 0) == threads)
            return r;
    throw std::runtime_error("no run " + variant + " at " + std::to_string(threads));
}

double metric(const ResultSet& rs, const std::string& variant, int threads, const std::string& m)
{
    return find(rs, variant, threads).metrics.at(m);
}

const LockSummary* lock(const RunResult& r, const std::string& name)
{
    for (auto& l : r.locks)
        if (l.name == name)
            return &l;
    return nullptr;
}

const std::vector<std::string> kVariants = { "vanilla", "glibc", "glibc-madvfree", "glibc-madvfree-mmapsem",
    "glibc-mmapsem", "glibc-madvfree-mmapsem-tlb", "glibc-madvfree-tlb" };
} // namespace

class TestTlbBatch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { m_rs = run(loadScenario("madv-free-tlb-batch"), 0.3, 2); }

    void vanillaPeaksEarlyAndFalls()
    {
        double peak = 0;
        int peakAt = 0;
        for (int n : { 1, 2, 4, 8, 16 }) {
            double x = metric(m_rs, "vanilla", n, "throughput");
            if (x > peak)
                peak = x, peakAt = n;
        }
        QVERIFY2(peakAt == 2 || peakAt == 4, qPrintable(QString::number(peakAt)));
        double at16 = metric(m_rs, "vanilla", 16, "throughput");
        QVERIFY2(at16 <= 0.85 * peak, qPrintable(QString("%1 vs peak %2").arg(at16).arg(peak)));
    }

    void allPatchesBeatVanillaAt16()
    {
        double best = metric(m_rs, "glibc-madvfree-mmapsem-tlb", 16, "throughput");
        double vanilla = metric(m_rs, "vanilla", 16, "throughput");
        // The post's 2.84: the model's vanilla is too fast from 4 threads on (docs/fidelity.md says why), and the
        // best curve is held by the Q6600's front-side bus at 16 threads (mem_bw_busy ~0.96: the four cores'
        // clearing and memset of heap pages share 6.4 GB/s).
        QVERIFY2(best >= 1.5 * vanilla, qPrintable(QString("%1 vs %2").arg(best).arg(vanilla)));
        // Without Nick's mmap_sem change the batched MADV_FREE still serialises on the write lock.
        double writeLocked = metric(m_rs, "glibc-madvfree-tlb", 16, "throughput");
        QVERIFY2(writeLocked <= 0.92 * best, qPrintable(QString("%1 vs %2").arg(writeLocked).arg(best)));
    }

    // 2.6.20's O(1) scheduler (sched.o1): once mysqld and the client fill the four CPUs, woken threads of a better
    // dynamic priority preempt running ones (hardly at one thread, where a woken task finds its CPU idle), and the
    // write-locked vanilla pays for it: with the run queue first come, first served it is faster at 4 threads.
    void o1PreemptionCostsTheWriteLock()
    {
        const double one = metric(m_rs, "vanilla", 1, "preemptions");
        const double four = metric(m_rs, "vanilla", 4, "preemptions");
        QVERIFY2(four > 0 && one < 0.05 * four, qPrintable(QString("%1 vs %2").arg(one).arg(four)));
        ResultSet fifo = runWith("madv-free-tlb-batch", "vanilla", { { "threads", "4" }, { "sched.o1", "false" } }, 0.3);
        QCOMPARE(fifo.results.size(), std::size_t(1));
        QVERIFY(!fifo.results[0].metrics.count("preemptions"));
        const double o1 = metric(m_rs, "vanilla", 4, "throughput");
        const double fcfs = fifo.results[0].metrics.at("throughput");
        QVERIFY2(fcfs > 1.05 * o1, qPrintable(QString("%1 vs %2").arg(fcfs).arg(o1)));
    }

    void oneThreadAllAlike()
    {
        double lo = 1e18, hi = 0;
        for (auto& v : kVariants) {
            double x = metric(m_rs, v, 1, "throughput");
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
        // The post's row spans 534-610 (1.14); at this scale a one-thread run counts about 160 transactions, so
        // one transaction more or less moves a variant by 0.6 %.
        QVERIFY2(hi <= 1.16 * lo, qPrintable(QString("%1 .. %2").arg(lo).arg(hi)));
    }

    void allThreePatchesBestAt8()
    {
        // At 8 threads on four cores the two TLB-batched variants are both held by the front-side bus (mem_bw_busy
        // near 1): the write-locked one comes within a per cent of all three (the post's 24 % between them needs
        // the 2007 debug kernel's longer write-locked sections, docs/fidelity.md). Every other variant is behind.
        double best = metric(m_rs, "glibc-madvfree-mmapsem-tlb", 8, "throughput");
        for (auto& v : kVariants) {
            if (v == "glibc-madvfree-mmapsem-tlb")
                continue;
            const double x = metric(m_rs, v, 8, "throughput");
            QVERIFY2(v == "glibc-madvfree-tlb" ? x < 1.02 * best : x < best, qPrintable(QString("%1: %2 vs %3")
                .arg(v.c_str()).arg(x).arg(best)));
        }
    }

    void mechanisms()
    {
        // vanilla: glibc's mmap/mprotect take mmap_sem for write; faults and futex calls wait behind them.
        const LockSummary* semVanilla = lock(find(m_rs, "vanilla", 8), "mm->mmap_sem");
        const LockSummary* semBest = lock(find(m_rs, "glibc-madvfree-mmapsem-tlb", 8), "mm->mmap_sem");
        QVERIFY(semVanilla && semBest);
        QVERIFY2(semVanilla->waitTotal > 5 * semBest->waitTotal,
            qPrintable(QString("%1 vs %2").arg(semVanilla->waitTotal).arg(semBest->waitTotal)));
        // The 2.6.20 rwsem: every reader takes the internal spinlock too.
        QVERIFY(lock(find(m_rs, "glibc-mmapsem", 4), "mm->mmap_sem.wait_lock") != nullptr);
        // Unbatched MADV_FREE flushes per page (two IPI rounds for a written page); batching flushes per gather.
        for (int n : { 4, 8 }) {
            double perTxUnbatched = metric(m_rs, "glibc-madvfree-mmapsem", n, "vm.tlb_remote_ipi")
                / metric(m_rs, "glibc-madvfree-mmapsem", n, "transactions");
            double perTxBatched = metric(m_rs, "glibc-madvfree-mmapsem-tlb", n, "vm.tlb_remote_ipi")
                / metric(m_rs, "glibc-madvfree-mmapsem-tlb", n, "transactions");
            QVERIFY2(perTxUnbatched > 5 * perTxBatched,
                qPrintable(QString("%1 vs %2").arg(perTxUnbatched).arg(perTxBatched)));
        }
        // What the lock views show: vanilla waits on mmap_sem, unbatched MADV_FREE under down_read waits for IPI acks.
        const LockSummary* ackUnbatched
            = lock(find(m_rs, "glibc-madvfree-mmapsem", 8), "flush_tlb_others (IPI ack wait)");
        const LockSummary* semUnbatched = lock(find(m_rs, "glibc-madvfree-mmapsem", 8), "mm->mmap_sem");
        const LockSummary* ackVanilla = lock(find(m_rs, "vanilla", 8), "flush_tlb_others (IPI ack wait)");
        QVERIFY(ackUnbatched && semUnbatched);
        // The IPI acks head its lock view, well ahead of mmap_sem.
        for (const LockSummary& l : find(m_rs, "glibc-madvfree-mmapsem", 8).locks)
            QVERIFY2(l.waitTotal <= ackUnbatched->waitTotal, l.name.c_str());
        QVERIFY2(ackUnbatched->waitTotal > 3 * semUnbatched->waitTotal,
            qPrintable(QString("%1 vs %2").arg(ackUnbatched->waitTotal).arg(semUnbatched->waitTotal)));
        QVERIFY(!ackVanilla || semVanilla->waitTotal > 5 * ackVanilla->waitTotal);
        // MADV_FREE leaves the pages mapped: the regrown heap does not fault, unlike after DONTNEED or PROT_NONE.
        double faultsFree = metric(m_rs, "glibc-madvfree-mmapsem-tlb", 4, "vm.pgfault");
        double faultsDontneed = metric(m_rs, "glibc-mmapsem", 4, "vm.pgfault");
        QVERIFY2(faultsDontneed > 5 * faultsFree, qPrintable(QString("%1 vs %2").arg(faultsDontneed).arg(faultsFree)));
        QVERIFY(metric(m_rs, "glibc-madvfree-mmapsem-tlb", 4, "vm.pgdeactivate") > 0);
        // Vanilla glibc regrows with mprotect; the patched one never needs to below its high-water mark.
        QVERIFY(metric(m_rs, "vanilla", 4, "heap_grow_syscalls") >= metric(m_rs, "vanilla", 4, "heap_trims") * 0.9);
        QVERIFY(metric(m_rs, "glibc", 4, "heap_grow_syscalls") < 0.1 * metric(m_rs, "glibc", 4, "heap_trims"));
    }

    void oneThreadSendsNoIpis()
    {
        // With one thread, mm->cpu_vm_mask holds only its own CPU: flushes are local.
        for (auto& v : kVariants)
            QCOMPARE(metric(m_rs, v, 1, "vm.tlb_remote_ipi"), 0.0);
        QVERIFY(metric(m_rs, "glibc-madvfree", 1, "vm.tlb_local_flush")
            > 10 * metric(m_rs, "glibc-madvfree-tlb", 1, "vm.tlb_local_flush"));
    }

    void ebizzyBatchingWins()
    {
        Scenario sc = loadScenario("ebizzy");
        sc.set("threads", "4");
        ResultSet rs = run(sc, 0.1, 2);
        double best = metric(rs, "glibc-madvfree-mmapsem-tlb", 4, "records_per_s");
        QVERIFY(best > metric(rs, "glibc-madvfree-mmapsem", 4, "records_per_s"));
        QVERIFY(best > metric(rs, "vanilla", 4, "records_per_s"));
        for (auto& v : kVariants) {
            QVERIFY(metric(rs, v, 4, "records") > 0);
            QVERIFY(metric(rs, v, 4, "sys_s") > 0);
        }
    }

    void lazyfree2007UnderPressure()
    {
        // Rik's 2007 MADV_FREE under memory pressure: reclaim discards the clean lazily freed pages without I/O,
        // and the next touch refaults them (zero-fill); the kernel invariants hold afterwards (checked by run()).
        Scenario sc = loadScenario("madv-free-swapin");
        sc.set("madvise.era", "\"2007\"");
        sc.set("madvise.tlb_batch", "false");
        sc.set("machine.memory", "\"128MiB\"");
        sc.set("processes", "3");
        sc.set("size", "\"48MiB\"");
        sc.set("loops", "3");
        ResultSet rs = run(sc, 1.0, 2);
        auto get = [&](const char* v, const char* m) {
            for (auto& r : rs.results)
                if (r.variant == v)
                    return r.metrics.at(m);
            return -1.0;
        };
        QVERIFY(get("madvfree", "vm.pglazyfreed") > 0);
        QCOMPARE(get("dontneed", "vm.pglazyfreed"), 0.0);
        const double pages = 3 * 48.0 * 256;
        QVERIFY(get("madvfree", "vm.pgfault") > pages); // first touch plus refaults of discarded pages
        QVERIFY(get("madvfree", "vm.pgfault") < get("dontneed", "vm.pgfault"));
        // Two flushes per written page per madvise (dirty, then young): far more than DONTNEED's one per gather.
        QVERIFY(get("madvfree", "vm.tlb_local_flush") > 2 * pages);
    }

    void deterministicAcrossRunnerThreads()
    {
        Scenario sc = loadScenario("madv-free-tlb-batch");
        sc.set("threads", "8");
        ResultSet a = run(sc, 0.05, 1);
        ResultSet b = run(sc, 0.05, 2);
        QCOMPARE(withoutHost(a), withoutHost(b));
    }

private:
    ResultSet m_rs;
};

QTEST_GUILESS_MAIN(TestTlbBatch)
#include "tst_tlbbatch.moc"
