// The era rules that tst_kernels_swap and tst_kernels_locks leave out (mm/toggles.h: kernelRules): each flips its
// toggle at the rule's kernel on a small run and moves the metric its changelog names, in the direction it states.
#include "kernel/syscalls.h" // first: moc cannot parse <concepts>, which sim/co.h reached first would bring in
#include "kernel/kernel.h"
#include "mm/toggles.h"
#include "sched/sched.h"
#include "sync/mutex.h"
#include "sync/rwsem.h"
#include "ruletest.h"
#include "testutil.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace mms;
using namespace mms::test;

namespace {
// madv-free-swapin's MADV_FREE variant swapping to a zram device: the twelve processes start at once, one a CPU,
// so that their swap-outs meet in zram and zsmalloc.
const char* const kZram = R"([{"size": "8GiB", "device": "zram"}])";
ResultSet zramSwapin(const char* kernel, const char* toggle, const char* value)
{
    return runWith("madv-free-swapin", "madvfree",
        { { "kernel", kernel }, { "machine.swap", kZram }, { "workload.fork_children", "false" }, { toggle, value } },
        0.05);
}

// The sum of the wait time of every lock of the run whose name contains `part`, in ps.
double waitOf(const ResultSet& rs, const std::string& part)
{
    double w = 0;
    for (const LockSummary& l : rs.results.at(0).locks)
        if (l.name.find(part) != std::string::npos)
            w += l.waitTotal;
    return w;
}

// A 4-CPU machine whose kernel has the toggles of `kernel` with `toggle` set to `value`: its Sched carries the lock
// implementations the kernel chose, for the lock model's own runs below.
struct LockBox {
    LockBox(const char* kernel, const char* toggle, const char* value)
        : m(spec())
        , s(sim, m)
        , k(s, toggles(kernel, toggle, value))
    {
    }
    static MachineSpec spec()
    {
        MachineSpec m = genericMachine(4);
        m.memoryBytes = 64ull << 20;
        return m;
    }
    static Toggles toggles(const char* kernel, const char* toggle, const char* value)
    {
        Toggles t = Toggles::forKernel(*KernelVersion::parse(kernel));
        if (!t.set(toggle, nlohmann::json(value)).empty())
            throw std::runtime_error(std::string("bad toggle ") + toggle);
        return t;
    }

    // Five tasks on the four CPUs, each running `loop` 600 times on `l`: the lock's statistics after.
    template <typename Lock, typename Loop>
    LockStat fiveTasks(Lock& l, Loop loop)
    {
        for (int i = 0; i < 5; ++i) {
            Task& t = s.spawn("t" + std::to_string(i), i % 4, false, nullptr, static_cast<std::uint64_t>(i + 1));
            s.start(t, loop(s, t, l, 600));
        }
        if (!sim.run())
            throw std::runtime_error("the run did not end");
        return l.stat();
    }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

// A machine of `bytes` booted with the toggles of `kernel` and `toggle` set to `value`, for programs written here;
// with `swap` false it has no swap device.
struct FileBox {
    FileBox(std::uint64_t bytes, const char* kernel, const char* toggle, const char* value, bool swap = true)
        : m(spec(bytes, swap))
        , s(sim, m)
        , k(s, LockBox::toggles(kernel, toggle, value))
    {
        k.boot(1);
    }
    static MachineSpec spec(std::uint64_t bytes, bool swap)
    {
        MachineSpec m = Box::spec(bytes);
        if (!swap)
            m.swap.clear();
        return m;
    }

    Simulator sim;
    MachineSpec m;
    Sched s;
    Kernel k;
};

// dd's loop over `f` (bs=4k, to /dev/null) from page 0 to `pages`, once, or again and again until `*stop`, counting
// the passes it starts in `*passes`; sets `*finished` when it ends. With `after`, it starts once `*after` passes of
// another loop have started.
struct ReadLoop {
    const bool* stop = nullptr;
    bool* finished = nullptr;
    int* passes = nullptr;
    const int* after = nullptr;
    int afterPasses = 0;
};
Co<> readLoop(Kernel& k, Task& t, sys::File f, std::uint64_t pages, ReadLoop o)
{
    while (o.after && *o.after < o.afterPasses)
        co_await sys::nanosleep(k, t, ms(1));
    do {
        if (o.passes)
            ++*o.passes;
        for (std::uint64_t index = 0; index < pages && !(o.stop && *o.stop); ++index) {
            constexpr std::uint64_t kBatch = 8; // dd returns to user space often; need_resched checked every 8 pages
            const std::uint64_t plain = std::min(kBatch - 1 - index % kBatch, pages - index - 1);
            index += sys::pread_cached_run(k, t, f, index, plain, true, 0);
            if (!co_await sys::pread(k, t, f, index))
                break;
            sys::write_null(k, t);
            if ((index + 1) % kBatch == 0) {
                co_await sys::flush(k, t);
                if (sys::need_resched(k, t))
                    co_await sys::preempt(k, t);
            }
        }
    } while (o.stop && !*o.stop);
    if (o.finished)
        *o.finished = true;
}
} // namespace

class TestKernelsMore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // 0d66bf6d3514 (2.6.30): "mutex: implement adaptive spinning" -- a waiter spins while the owner runs instead of
    // sleeping at once, so the run switches context less often. AIM7 new_fserver's libraries' i_mmap lock as a mutex
    // (a 3.0 rule, set here on 2.6.30), taken by 61 users linking and unlinking their VMAs.
    void mutexSpinSwitchesLess()
    {
        const Sets base = { { "kernel", "2.6.30" }, { "users", "61" }, { "i_mmap.lock", "mutex" } };
        ResultSet sleeping = runWith("migration-unmapped", "baseline", with(base, "lock.mutex_spin", "false"), 0.05);
        ResultSet spinning = runWith("migration-unmapped", "baseline", with(base, "lock.mutex_spin", "true"), 0.05);
        QVERIFY2(lockOf(sleeping, "baseline", "mapping->i_mmap_mutex").contentions > 0, "i_mmap_mutex never contended");
        const double a = metric(sleeping, "baseline", "cs_per_s"), b = metric(spinning, "baseline", "cs_per_s");
        qInfo("cs_per_s %s -> %s", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 9d659ae14b54 (4.10): the mutex hand-off as the kernel of 4.10 sets it from lock.mutex_handoff (the lock model's
    // own effect is tst_kernels_locks' mutexHandoffBoundsTheWait): a woken waiter that lost the race is handed the
    // mutex at the next unlock, so the longest wait gets shorter.
    void mutexHandoffToggleBoundsTheWait()
    {
        auto longest = [](const char* value) {
            LockBox b("4.10", "lock.mutex_handoff", value);
            Mutex m("m");
            return b.fiveTasks(m, mutexLoop);
        };
        const LockStat a = longest("false"), b = longest("true");
        QVERIFY2(a.contentions > 0, "the mutex never contended");
        qInfo("longest wait %s -> %s ps", qPrintable(num(a.waitMax)), qPrintable(num(b.waitMax)));
        QVERIFY2(b.waitMax < a.waitMax, qPrintable(num(a.waitMax) + " -> " + num(b.waitMax)));
    }

    // 4f23dbc1e657 (5.3): the rwsem hand-off as the kernel of 5.3 sets it from lock.rwsem_handoff: a writer first in
    // line for 4 ms is handed the rwsem, so the longest wait gets shorter.
    void rwsemHandoffToggleBoundsTheWait()
    {
        auto longest = [](const char* value) {
            LockBox b("5.3", "lock.rwsem_handoff", value);
            RwSem sem("sem", RwsemImpl::XaddSteal);
            return b.fiveTasks(sem, writerLoop);
        };
        const LockStat a = longest("false"), b = longest("true");
        QVERIFY2(toNs(a.waitMax) > 4'000'000, "no writer waited past RWSEM_WAIT_TIMEOUT");
        qInfo("longest wait %s -> %s ps", qPrintable(num(a.waitMax)), qPrintable(num(b.waitMax)));
        QVERIFY2(b.waitMax < a.waitMax, qPrintable(num(a.waitMax) + " -> " + num(b.waitMax)));
    }

    // "x86/mm/tlb: Make lazy TLB mode lazier" (145f573b89a6, 4.20): a TLB flush no longer interrupts the CPUs that
    // only run the mm lazily (their task asleep), so fewer flush IPIs are sent. Jakub's 32 threads on 4 CPUs zapping with
    // MADV_DONTNEED: every flush finds the CPUs whose threads sleep on mmap_sem still holding the mm.
    void lazyTlbSendsFewerIpis()
    {
        const Sets base = { { "kernel", "4.20" } };
        ResultSet eager = runWith("madv-free-threads", "dontneed", with(base, "tlb.lazy_ipi", "true"), 0.05);
        ResultSet lazy = runWith("madv-free-threads", "dontneed", with(base, "tlb.lazy_ipi", "false"), 0.05);
        const double a = metric(eager, "dontneed", "vm.tlb_remote_ipi"),
                     b = metric(lazy, "dontneed", "vm.tlb_remote_ipi");
        qInfo("tlb_remote_ipi %s -> %s", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(a > 0 && b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // a983b5ebee57 (4.16) batches the memcg statistics per CPU so that memory.stat is cheap to read; the price is an
    // atomic_long_add() on the shared counters every MEMCG_CHARGE_BATCH updates, for the LRU sizes under lru_lock.
    // 2d146aa3aa84 (5.13) "switch to rstat" aggregates on the read side and drops those atomics again. memory.stat
    // is never read here, so what moves is the write side: lru_lock held longer per page read from 4.16, less from
    // 5.13 (lru-file-readtwice: 64 readers on one lru_lock, saturated at this scale, as at scale 1).
    void memcgStatBatchOnTheLruLock()
    {
        auto hold = [](const char* kernel, const char* value) {
            ResultSet rs = runWith(
                "lru-file-readtwice", "mainline", { { "kernel", kernel }, { "config.memcg_stat_batch", value } }, 0.05);
            return metric(rs, "mainline", "lru_lock_hold_ns_per_page");
        };
        const double before = hold("4.16", "false"), batched = hold("4.16", "true");
        qInfo("4.16: lru_lock hold per page %s -> %s ns", qPrintable(num(before)), qPrintable(num(batched)));
        QVERIFY2(batched > before, qPrintable(num(before) + " -> " + num(batched)));
        const double atomics = hold("5.13", "true"), rstat = hold("5.13", "false");
        qInfo("5.13: lru_lock hold per page %s -> %s ns", qPrintable(num(atomics)), qPrintable(num(rstat)));
        QVERIFY2(rstat < atomics, qPrintable(num(atomics) + " -> " + num(rstat)));
    }

    // The vmstat counters behind every LRU list change (mm/zvc.h): c878538598d1 (2.6.21) makes the zone's list
    // sizes per-cpu deltas folded into shared counters, the isolated counts (2.6.32) fold too, kswapd awake lowers a
    // zone's threshold (2.6.37), and 599d0c954f91 (4.8) counts each change in the node and in the zone. Each adds
    // folds on lru-file-readtwice's lru_lock, and the first lengthens its hold per page. The runs keep one scheduler
    // (2.6.21's O(1) one would order 64 CPU-bound readers by 100 ms slices, whose turns move the hold per page by more
    // than the folds at this scale).
    void vmstatFoldsOnTheLruLock()
    {
        auto run = [](const char* kernel, const char* toggle, const char* value) {
            return runWith("lru-file-readtwice", "mainline",
                { { "kernel", kernel }, { toggle, value }, { "sched.o1", "false" } }, 0.02);
        };
        const struct {
            const char* kernel;
            const char* toggle;
            const char* before;
            const char* after;
        } rules[] = {
            { "2.6.21", "vmstat.lru_counters", "fields", "zone" },
            { "2.6.32", "vmstat.isolated", "false", "true" },
            { "2.6.37", "vmstat.pressure_threshold", "false", "true" },
            { "4.8", "vmstat.lru_counters", "zone", "node_zone" },
        };
        for (const auto& r : rules) {
            ResultSet before = run(r.kernel, r.toggle, r.before), after = run(r.kernel, r.toggle, r.after);
            const double a = metric(before, "mainline", "vm.zvc_folds"), b = metric(after, "mainline", "vm.zvc_folds");
            qInfo("%s %s: zvc_folds %s -> %s", r.kernel, r.toggle, qPrintable(num(a)), qPrintable(num(b)));
            QVERIFY2(b > a, qPrintable(QString(r.kernel) + " " + r.toggle + ": " + num(a) + " -> " + num(b)));
            if (std::string(r.before) == "fields") {
                QCOMPARE(a, 0.0);
                const double ha = metric(before, "mainline", "lru_lock_hold_ns_per_page"),
                             hb = metric(after, "mainline", "lru_lock_hold_ns_per_page");
                qInfo("lru_lock hold per page %s -> %s ns", qPrintable(num(ha)), qPrintable(num(hb)));
                QVERIFY2(hb > ha, qPrintable(num(ha) + " -> " + num(hb)));
            }
        }
    }

    // da9556a2367c (4.7): "zram: user per-cpu compression streams" -- a writer no longer queues for the one stream
    // (max_comp_streams 1 until then) or the idle list's lock: the stream lock's waits are gone and the twelve
    // processes swapping to zram finish sooner.
    void zramPerCpuStreamsEndTheStreamWaits()
    {
        ResultSet single = zramSwapin("4.7", "zram.streams", "single");
        ResultSet percpu = zramSwapin("4.7", "zram.streams", "percpu");
        QVERIFY2(waitOf(single, "zcomp_strm") > 0, "no writer waited for the stream");
        QCOMPARE(waitOf(percpu, "zcomp_strm"), 0.0);
        const double a = metric(single, "madvfree", "elapsed_s"), b = metric(percpu, "madvfree", "elapsed_s");
        qInfo("elapsed_s %s -> %s", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 8e19d540d107 (4.11): "zram: extend zero pages to same element pages" -- a page of one repeated word (memset's)
    // is stored as the word and a flag, not as a compressed object: the zsmalloc pool takes less memory.
    void zramSameFilledPagesTakeNoPool()
    {
        ResultSet compressed = zramSwapin("4.11", "zram.same_filled", "false");
        ResultSet flagged = zramSwapin("4.11", "zram.same_filled", "true");
        const double a = metric(compressed, "madvfree", "zram_pool_bytes"),
                     b = metric(flagged, "madvfree", "zram_pool_bytes");
        qInfo("zram_pool_bytes %s -> %s", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(metric(flagged, "madvfree", "zram_stored_pages") > 0, "nothing was swapped to zram");
        QVERIFY2(a > 0 && b < a, qPrintable(num(a) + " -> " + num(b)));
    }

    // c0547d0b6a4b (6.2): "zsmalloc: consolidate zs_pool's migrate_lock and size_class's locks" into one pool->lock,
    // taken by zs_malloc(), zs_free() and zs_map_object() alike; its changelog measures "a 0.3% regression for btrfs,
    // and a 0.9% regression for ext4" on zram. Twelve processes swapping memset pages (compressed: same_filled off)
    // to zram and back wait longer for zsmalloc's lock.
    void zsmallocPoolLockWaitsLonger()
    {
        auto run = [](const char* lock) {
            return runWith("madv-free-swapin", "madvfree",
                { { "kernel", "6.2" }, { "machine.swap", kZram }, { "workload.fork_children", "false" },
                    { "zram.same_filled", "false" }, { "zsmalloc.lock", lock } },
                0.05);
        };
        ResultSet classes = run("class"), pool = run("pool");
        QCOMPARE(waitOf(classes, "zs_pool.lock"), 0.0);
        QCOMPARE(waitOf(pool, "size_class["), 0.0);
        const double a = waitOf(classes, "size_class["), b = waitOf(pool, "zs_pool.lock");
        qInfo("zsmalloc lock wait %s -> %s ps", qPrintable(num(a)), qPrintable(num(b)));
        QVERIFY2(a > 0 && b > a, qPrintable(num(a) + " -> " + num(b)));
    }

    // 49076ec2ccaf (3.13): "dynamically allocate page->ptl if it cannot be embedded to struct page" -- a debug kernel
    // (lockdep) gets split page-table locks again, where 2.6.33 to 3.12 guard every page table of an mm with
    // mm->page_table_lock, whose contention is what split locks were for ("poor page fault scalability of
    // multi-threaded applications"). Jakub's 32 threads fault in their own regions of one mm.
    void splitPtlocksWithLockdepEndTheSharedLockWaits()
    {
        const Sets base = { { "kernel", "3.12" }, { "config.lockdep", "true" } };
        ResultSet shared = runWith("madv-free-threads", "madvfree", with(base, "config.ptlock_alloc", "false"), 0.05);
        ResultSet split = runWith("madv-free-threads", "madvfree", with(base, "config.ptlock_alloc", "true"), 0.05);
        const LockSummary a = lockOf(shared, "madvfree", "mm->page_table_lock");
        QVERIFY2(a.contentions > 0, "mm->page_table_lock never contended");
        QCOMPARE(lockOf(split, "madvfree", "mm->page_table_lock").acquisitions, std::uint64_t(0));
        const LockSummary b = lockOf(split, "madvfree", "ptl");
        QVERIFY2(b.acquisitions > 0, "no split ptl taken");
        qInfo("page-table lock wait %s -> %s ps", qPrintable(num(a.waitTotal)), qPrintable(num(b.waitTotal)));
        QVERIFY2(b.waitTotal < a.waitTotal, qPrintable(num(a.waitTotal) + " -> " + num(b.waitTotal)));
    }

    // 59dc76b0d4df (4.10): "mm: vmscan: reduce size of inactive file list" -- above 1 GB of file LRU the inactive
    // list is kept at 1/sqrt(10 * GB) of the active one instead of its size, so that "we can actually cache more of
    // the frequently used file pages in memory, and not have them pushed out by streaming writes, once-used
    // streaming file reads, etc." (its example: a database that can cache its working set in only half the page
    // cache). A reader reads a file of 70 % of memory twice (it is then on the active list) and goes on re-reading
    // it while another process streams through a file of twice memory once: with the lists kept equal, reclaim
    // deactivates the re-read file down to half of memory and the stream pushes those pages out before the reader
    // comes back to them (workingset refaults); with the smaller inactive list the active list holds it all.
    void smallerInactiveFileListKeepsTheWorkingSet()
    {
        auto run = [](const char* ratio) {
            constexpr std::uint64_t kMemory = 1280ull << 20; // 1.25 GiB: a file LRU past 1 GB, floor(sqrt(10)) = 3
            FileBox b(kMemory, "4.10", "lru.inactive_file_ratio", ratio);
            const std::uint64_t pages = kMemory / kPageSize;
            const std::uint64_t hot = pages * 7 / 10, streamed = pages * 2;
            sys::File db = sys::create_sparse(b.k, hot), log = sys::create_sparse(b.k, streamed);
            bool stop = false;
            int passes = 0;
            Task& r = sys::spawn_process(b.k, "reader", 1, 1);
            Task& w = sys::spawn_process(b.k, "streamer", 2, 2);
            sys::start(b.k, r, readLoop(b.k, r, db, hot, ReadLoop { &stop, nullptr, &passes }));
            sys::start(b.k, w, readLoop(b.k, w, log, streamed, ReadLoop { nullptr, &stop, nullptr, &passes, 3 }));
            if (!b.sim.run())
                throw std::runtime_error("the run did not end");
            return std::pair { sys::vmstat(b.k, "workingset_refault"), passes };
        };
        const auto [a, passesA] = run("equal");
        const auto [b, passesB] = run("sqrt");
        qInfo("workingset_refault %llu -> %llu (%d and %d passes over the re-read file)",
            static_cast<unsigned long long>(a), static_cast<unsigned long long>(b), passesA, passesB);
        QVERIFY2(passesA > 4 && passesB > 4, "the file was not re-read while the other streamed");
        QVERIFY2(a > 0 && b < a, qPrintable(num(static_cast<double>(a)) + " -> " + num(static_cast<double>(b))));
    }

    // 0a0337e0d1d1 (4.7): "mm, oom: rework oom detection" -- before it the allocator retries direct reclaim as long
    // as reclaimable pages are left, which "might lead to a livelock"; "OOM killer would be more appropriate than
    // looping without any progress for unbounded amount of time": after MAX_RECLAIM_RETRIES rounds in a row that
    // freed nothing it calls the OOM killer. Twelve memset processes on a 16 MiB machine swapping to zram, where
    // most rounds of direct reclaim free nothing (more rounds than pages swapped out) while the anonymous pages
    // still count as reclaimable (free swap slots): the OOM killer is called either way, after far fewer rounds.
    void reclaimRetriesBoundTheReclaimLoop()
    {
        auto run = [](const char* retries) {
            return runWith("madv-free-swapin", "madvfree",
                { { "kernel", "4.7" }, { "machine.swap", kZram }, { "machine.memory", "16MiB" },
                    { "overcommit", "always" }, { "oom.reclaim_retries", retries } },
                0.05);
        };
        ResultSet loop = run("false"), bounded = run("true");
        QVERIFY2(metric(loop, "madvfree", "vm.oom_kill") > 0 && metric(bounded, "madvfree", "vm.oom_kill") > 0,
            "the OOM killer was not called");
        const double a = metric(loop, "madvfree", "vm.allocstall"), b = metric(bounded, "madvfree", "vm.allocstall");
        qInfo("allocstall %s -> %s (OOM kills %s -> %s)", qPrintable(num(a)), qPrintable(num(b)),
            qPrintable(num(metric(loop, "madvfree", "vm.oom_kill"))),
            qPrintable(num(metric(bounded, "madvfree", "vm.oom_kill"))));
        QVERIFY2(b < a, qPrintable(num(a) + " -> " + num(b)));
    }
};

QTEST_GUILESS_MAIN(TestKernelsMore)
#include "tst_kernels_more.moc"
