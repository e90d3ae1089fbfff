// Seed 004's workload: re-aim-7 with workfile.new_fserver on a machine whose page cache fills memory.
//
// N users (re-aim's forked children) run the workfile's tests, drawn by the workfile's weights (580 hits: the six
// disk_* tests 30 each, mem_rtns_1 and udp_test 40, ...; kernel-mm.md Path D). What this model makes of a test:
//  - it runs in a freshly forked and exec'd child. Each user is a process that maps the re-aim binary, ld.so and libc
//    (a text VMA over the whole file and a data VMA over its last pages, as the ELF loader maps them); its child
//    inherits those mappings at fork, execs the same image (the loader maps the files again and the program's first
//    text faults map the hot pages of each), runs tests_per_child tests and exits; the user waits for it and forks
//    the next. What fork, exec, exit and wait take and give back (kernel stacks, slabs, page tables, the i_mmap lock
//    of every file VMA linked or unlinked) is the kernel's (kernel/process.h).
//  - disk_* tests write `io_size` to the user's own file through the page cache and read it back, and call
//    system("sync") where re-aim's disk1.c does (DO_SYNC without -y, as mmtests ran it before 2015: disk_rr,
//    disk_rw, disk_rd and disk_wrt twice, disk_cp three times, disk_src never; 330 calls per 580 hits).
//    system() is glibc's: fork, exec /bin/sh (bash, which execs the last command of -c in place), exec /bin/sync,
//    sync(2), exit, and the caller's wait. Each of those processes maps ld.so and libc: the i_mmap trees of the
//    shared files change all through the run, under each file's i_mmap lock, for write.
//  - memory is full of page cache, so kswapd and direct reclaim run, and the free memory they leave is fragmented.
//    The other tests are user-space compute (mem_rtns, sort, string, add/div/mul, jmp, ram_copy) or short system
//    calls (creat_clo, link, dir, misc, signal, tcp/udp on loopback) with the CPU costs below.
//  - every heap_every tests the child mallocs a work buffer (brk grows the heap past 2 MiB), touches it and frees it
//    (glibc trims the heap top). With transparent hugepages the touch faults a THP, an order-9 allocation that finds
//    no free block of its order and enters direct compaction, which migrates page-cache pages -- of the users'
//    files and of the shared files -- and, before 2ebba6b7e1d9, takes the file's i_mmap lock twice per page even
//    when nothing maps it; the second walk (remove_migration_ptes) visits every VMA that covers the page, which for a
//    library's unmapped page is one or two per live process.
//
// Metric: jobs_per_min = tests completed in the measured window / hits_per_job x 60 / window, a job being one pass
// of the workfile (580 hits). re-aim's own JPM counts each test invocation as a job (driver.c: users x jobs per
// child x 60 / elapsed), and its children run ~98 tests and never exec; see docs/fidelity.md, "What re-aim really
// runs", for that and the other differences from its source. steady_state_drift compares the two halves of the
// measured window.
#include "workload/aim7.h"

#include "kernel/syscalls.h"
#include "workload/workload.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

namespace mms {

namespace {

    enum class TestClass : std::uint8_t { Disk, Compute, Syscall };
    struct TestDef {
        const char* name;
        int hits;
        TestClass cls;
        double cpuWeight; // CPU time relative to the class's base cost
        int syncs = 0; // system("sync") calls (re-aim's disk1.c DO_SYNC)
    };
    // workfile.new_fserver (580 hits).
    constexpr std::array<TestDef, 28> kWorkfile = { {
        { "disk_cp", 30, TestClass::Disk, 1.0, 3 }, { "disk_rd", 30, TestClass::Disk, 1.0, 2 },
        { "disk_rr", 30, TestClass::Disk, 1.0, 2 }, { "disk_rw", 30, TestClass::Disk, 1.0, 2 },
        { "disk_src", 30, TestClass::Disk, 1.0, 0 }, { "disk_wrt", 30, TestClass::Disk, 1.0, 2 },
        { "mem_rtns_1", 40, TestClass::Compute, 1.0 }, { "udp_test", 40, TestClass::Syscall, 2.0 },
        { "sort_rtns_1", 30, TestClass::Compute, 1.5 }, { "string_rtns", 30, TestClass::Compute, 1.0 },
        { "creat_clo", 20, TestClass::Syscall, 1.0 }, { "dir_rtns_1", 20, TestClass::Syscall, 1.0 },
        { "link_test", 20, TestClass::Syscall, 1.0 }, { "misc_rtns_1", 20, TestClass::Syscall, 0.5 },
        { "ram_copy", 20, TestClass::Compute, 1.0 }, { "add_double", 20, TestClass::Compute, 0.5 },
        { "add_float", 20, TestClass::Compute, 0.5 }, { "add_int", 20, TestClass::Compute, 0.5 },
        { "add_long", 20, TestClass::Compute, 0.5 }, { "div_double", 10, TestClass::Compute, 0.5 },
        { "div_int", 10, TestClass::Compute, 0.5 }, { "mul_double", 10, TestClass::Compute, 0.5 },
        { "mul_int", 10, TestClass::Compute, 0.5 }, { "jmp_test", 10, TestClass::Compute, 0.5 },
        { "mem_rtns_2", 10, TestClass::Compute, 1.0 }, { "signal_test", 10, TestClass::Syscall, 1.0 },
        { "tcp_test", 10, TestClass::Syscall, 2.0 },
        { "new_fserver", 0, TestClass::Compute, 0.0 }, // sentinel (no hits)
    } };

    int totalHits()
    {
        int n = 0;
        for (auto& d : kWorkfile)
            n += d.hits;
        return n;
    }

    // The files every process maps: ld.so and libc (every program), and the programs re-aim runs.
    enum SharedFile : std::uint8_t { LdSo, Libc, Reaim, Sh, Sync, kSharedFiles };
    constexpr std::array<const char*, kSharedFiles> kSharedName = { "ld", "libc", "reaim", "sh", "sync" };
    constexpr std::array<const char*, kSharedFiles> kSharedSizeParam = { "ld_size", "libc_size", "reaim_size",
        "sh_size", "sync_size" };

    // The data segment's share of a shared object's file (GUESS: libc 2.11's .data, .bss-backed pages and RELRO are
    // a few per cent of its size).
    constexpr std::uint32_t kDataShare = 16;

    struct Params {
        int users = 61;
        Time end = 0, warmup = 0;
        std::array<std::uint32_t, kSharedFiles> filePages {}; // page cache of each shared file (the whole file)
        int textFaults = 4;
        bool systemSync = true;
        std::uint64_t ioPages = 16;
        std::uint64_t cacheFilePages = 256;
        int testsPerChild = 1;
        int heapEvery = 4;
        bool contiguousFiles = true;
        bool unlinkFiles = true;
        std::uint32_t heapPages = 512;
        double computeUs = 30, syscallUs = 10, diskUs = 10;
        double hitsPerJob = 580;
    };

    class Fserver final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            const auto& p = ctx.params;
            Kernel& k = ctx.k;
            m_k = &k;
            m_sim = &ctx.sim;
            m_p.users = p.at("users").get<int>();
            double runtime = p.at("runtime_s").get<double>();
            m_p.end = ns(runtime * 1e9);
            m_p.warmup = ns(runtime * p.at("warmup_fraction").get<double>() * 1e9);
            for (int f = 0; f < kSharedFiles; ++f)
                m_p.filePages[f] = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
                    p.at(kSharedSizeParam[f]).get<std::uint64_t>() / kPageSize, 1, std::uint64_t(1) << 20));
            m_p.textFaults = p.at("text_faults").get<int>();
            m_p.systemSync = p.at("system_sync").get<bool>();
            m_p.ioPages = std::max<std::uint64_t>(1, p.at("io_size").get<std::uint64_t>() / kPageSize);
            m_p.cacheFilePages = std::max<std::uint64_t>(1, p.at("cache_file_size").get<std::uint64_t>() / kPageSize);
            m_p.testsPerChild = p.at("tests_per_child").get<int>();
            m_p.heapEvery = p.at("heap_every").get<int>();
            m_p.contiguousFiles = p.at("contiguous_files").get<bool>();
            m_p.unlinkFiles = p.at("unlink").get<bool>();
            m_p.heapPages = static_cast<std::uint32_t>(
                std::max<std::uint64_t>(1, p.at("heap_size").get<std::uint64_t>() / kPageSize));
            m_p.computeUs = p.at("compute_us").get<double>();
            m_p.syscallUs = p.at("syscall_us").get<double>();
            m_p.diskUs = p.at("disk_us").get<double>();
            m_p.hitsPerJob = totalHits();
            for (auto& d : kWorkfile)
                m_cum.push_back((m_cum.empty() ? 0 : m_cum.back()) + d.hits);

            // The file server has been running: memory full of the page cache of the shared files and of older
            // files of one size (earlier runs' temp and data files), so that, as on a real file server,
            // compaction's neighbouring pages mostly belong to different files, whose i_mmap and tree locks nobody
            // else wants.
            for (int f = 0; f < kSharedFiles; ++f)
                m_shared.push_back(sys::create_sparse(k, m_p.filePages[f]));
            try {
                sys::fill_page_cache(k, m_shared, m_p.cacheFilePages, p.at("free_fraction").get<double>(),
                    m_p.contiguousFiles, ctx.seed);
            } catch (const std::length_error& e) {
                throw std::invalid_argument(
                    std::string("aim7-fserver: cache_file_size too small for this memory (") + e.what() + ")");
            }
            // The programs: each maps its binary, ld.so and libc, and its first text faults land on the same pages
            // every time (the code every run of it executes).
            m_image = image({ Reaim, LdSo, Libc });
            m_shImage = image({ Sh, LdSo, Libc });
            m_syncImage = image({ Sync, LdSo, Libc });
            // Each user: a re-aim process that maps the same files for its whole life, and its own data file.
            for (int u = 0; u < m_p.users; ++u) {
                Task& t = sys::spawn_process(
                    k, "reaim-" + std::to_string(u), u, Rng::mix(ctx.seed, static_cast<std::uint64_t>(u)));
                for (const auto& map : m_image.mappings)
                    sys::mmap_file(k, t, map.file, map.pgoff, map.pages);
                sys::File file = sys::create_sparse(k, std::uint64_t(1) << 31);
                sys::start(k, t, user(k, t, file));
            }
            // The machine's idle time in the measured window, from snapshots at its two ends (observer events: they
            // change nothing). Over the whole run, a test still under way after the window -- a long compaction --
            // counted every other CPU's idleness in the tail.
            auto snap = [](void* self, std::uint64_t i) {
                auto* w = static_cast<Fserver*>(self);
                w->m_idleAt[i] = sys::idle_time(*w->m_k);
                w->m_idleTaken[i] = true;
            };
            ctx.sim.observeAt(m_p.warmup, snap, this, 0);
            ctx.sim.observeAt(m_p.end, snap, this, 1);
        }

        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            const Kernel& k = ctx.k;
            auto vm = [&](const char* name) { return static_cast<double>(sys::vmstat(k, name)); };
            double window = toSec(m_p.end - m_p.warmup);
            out["tests"] = static_cast<double>(m_tests);
            out["jobs_per_min"] = window > 0 ? static_cast<double>(m_tests) / m_p.hitsPerJob * 60.0 / window : 0.0;
            // The i_mmap lock of the shared files: time waited and held per test, and acquisitions per test.
            Time wait = 0, hold = 0;
            std::uint64_t acq = 0, con = 0;
            for (const sys::File& f : m_shared) {
                LockStat l = sys::i_mmap_lock_stat(k, f);
                wait += l.waitTotal;
                hold += l.holdTotal;
                acq += l.acquisitions;
                con += l.contentions;
            }
            // The i_mmap locks of every file (the users' and the older page cache's too), and libc's alone.
            const LockStat all = sys::lock_stat(k, "mapping->i_mmap_mutex");
            const LockStat allRw = sys::lock_stat(k, "mapping->i_mmap_rwsem");
            double tests = static_cast<double>(std::max<std::uint64_t>(1, m_testsAll));
            double forks = static_cast<double>(std::max<std::uint64_t>(1, m_forks));
            out["i_mmap_wait_us_per_test"] = toUs(wait) / tests;
            out["i_mmap_acquisitions_per_test"] = static_cast<double>(acq) / tests;
            out["i_mmap_acquisitions_per_fork"] = static_cast<double>(acq) / forks;
            out["compact_stall_per_fork"] = vm("compact_stall") / forks;
            out["i_mmap_contentions_per_test"] = static_cast<double>(con) / tests;
            out["i_mmap_hold_ns_per_acq"] = acq ? toNs(hold) / static_cast<double>(acq) : 0.0;
            out["i_mmap_wait_us_per_test_all_files"] = toUs(all.waitTotal + allRw.waitTotal) / tests;
            // Each shared file's lock: waits and acquisitions per test, hold time per acquisition and the longest.
            for (int f = 0; f < kSharedFiles; ++f) {
                const LockStat l = sys::i_mmap_lock_stat(k, m_shared[static_cast<std::size_t>(f)]);
                const std::string name = kSharedName[static_cast<std::size_t>(f)];
                out[name + "_i_mmap_wait_us_per_test"] = toUs(l.waitTotal) / tests;
                out[name + "_i_mmap_acquisitions_per_test"] = static_cast<double>(l.acquisitions) / tests;
                out[name + "_i_mmap_hold_ns_per_acq"]
                    = l.acquisitions ? toNs(l.holdTotal) / static_cast<double>(l.acquisitions) : 0.0;
                out[name + "_i_mmap_hold_us_max"] = toUs(l.holdMax);
            }
            out["system_per_test"] = static_cast<double>(m_systems) / tests;
            // Migration's i_mmap acquisitions per page it moved, and the VMAs each of its walks visited.
            double migrated = std::max(1.0, vm("pgmigrate_success") + vm("pgmigrate_fail"));
            out["migrate_i_mmap_acq_per_page"] = vm("migrate_rmap_walks") / migrated;
            out["migrate_rmap_vmas_per_walk"] = vm("migrate_rmap_vmas") / std::max(1.0, vm("migrate_rmap_walks"));
            // Steady state: the tests of the measured window's second half against its first (0 = level).
            double h0 = static_cast<double>(m_testsHalf[0]), h1 = static_cast<double>(m_testsHalf[1]);
            out["steady_state_drift"] = h0 + h1 > 0 ? (h1 - h0) / ((h0 + h1) / 2) : 0.0;
            out["migrated_per_test"] = vm("pgmigrate_success") / tests;
            out["thp_fault_alloc_per_fork"] = vm("thp_fault_alloc") / forks;
            out["thp_fault_fallback_per_fork"] = vm("thp_fault_fallback") / forks;
            out["migrated_per_fork"] = vm("pgmigrate_success") / forks;
            // Why the direct compactions gave up, per compaction (compact_stall): async compaction abandons the zone
            // at the first contended zone->lock or lru_lock (3.7-3.16) -- what keeps THP faults from being served.
            double stalls = std::max(1.0, vm("compact_stall"));
            out["compact_abort_zone_lock_per_stall"] = vm("compact_abort_zone_lock") / stalls;
            out["compact_abort_lru_lock_per_stall"] = vm("compact_abort_lru_lock") / stalls;
            out["compact_abort_resched_per_stall"] = vm("compact_abort_resched") / stalls;
            out["compact_sync_per_stall"] = vm("compact_sync_stall") / stalls; // never give up
            out["migrated_per_stall"] = vm("pgmigrate_success") / stalls;
            // The most 2ebba6b7e1d9 can give back: migration's i_mmap round-trips for pages no one maps (waits
            // included), per test and as a share of the machine's time (CPUs x run time). Zero with the patch.
            const Time now = sys::now(k);
            const double cpus = sys::nr_cpus(k);
            const double rmapNs = vm("migrate_unmapped_rmap_ns");
            out["unmapped_rmap_us_per_test"] = rmapNs / 1000.0 / tests;
            out["unmapped_rmap_walks_per_test"] = vm("migrate_unmapped_rmap_walks") / tests;
            out["unmapped_rmap_share"] = now > 0 ? rmapNs * 1e-9 / (toSec(now) * cpus) : 0.0;
            // Idle CPU time in the measured window (up to the run's end if it ended inside the window).
            const Time idleNow = sys::idle_time(k);
            Time from = m_idleTaken[0] ? m_p.warmup : now, to = m_idleTaken[1] ? m_p.end : now;
            Time idle = (m_idleTaken[1] ? m_idleAt[1] : idleNow) - (m_idleTaken[0] ? m_idleAt[0] : idleNow);
            out["idle_fraction"] = to > from ? toSec(idle) / (toSec(to - from) * cpus) : 0.0;
        }

        // Runs for a fixed simulated time (the tests under way at the end then finish: a little past 1.0).
        double progress() const override { return timeProgress(m_sim, m_p.end); }

    private:
        int pickTest(Rng& rng) const
        {
            auto r = static_cast<int>(rng.below(static_cast<std::uint64_t>(m_cum.back())));
            for (std::size_t i = 0; i < m_cum.size(); ++i)
                if (r < m_cum[i])
                    return static_cast<int>(i);
            return 0;
        }

        // An ELF program and its libraries as the loader maps each file: a text VMA over the whole file (r-x, with
        // the read-only data) and a data VMA over its last pages (rw-, private), and the text faults at evenly
        // spaced pages of each file.
        sys::ExecImage image(std::initializer_list<SharedFile> files) const
        {
            sys::ExecImage img;
            for (SharedFile f : files) {
                std::uint32_t n = m_p.filePages[f];
                std::uint32_t data = std::max<std::uint32_t>(1, n / kDataShare);
                img.mappings.push_back({ m_shared[f], 0, n });
                img.mappings.push_back({ m_shared[f], n - data, data });
                for (int i = 0; i < m_p.textFaults; ++i)
                    img.faults.push_back(
                        { m_shared[f], static_cast<std::uint64_t>(i) * (n - data) / std::max(1, m_p.textFaults) });
            }
            return img;
        }

        // glibc's system("sync"): fork; the child execs /bin/sh -c sync, which execs /bin/sync (bash runs the last
        // command of -c in place), which calls sync(2) and exits; the caller waits for it.
        Co<> system_sync(Kernel& k, Task& t)
        {
            co_await sys::fork(k, t);
            if (!sys::killed(k, t))
                co_await sys::execve(k, t, m_shImage);
            if (!sys::killed(k, t))
                co_await sys::execve(k, t, m_syncImage);
            if (!sys::killed(k, t))
                co_await sys::sync(k, t);
            co_await sys::exit(k, t);
            co_await sys::wait(k, t);
            ++m_systems;
        }

        // A disk test: write io_size to the user's file through the page cache, read it back, with the test's
        // system("sync") calls: all but the last after the write, the last at the end (disk1.c).
        Co<> diskTest(Kernel& k, Task& t, sys::File file, std::uint64_t& offset, int syncs)
        {
            std::uint64_t start = offset;
            offset += m_p.ioPages; // the file grows: every write meets new pages, whatever the number of users
            co_await sys::pwrite(k, t, file, start, m_p.ioPages);
            for (int i = 0; m_p.systemSync && i + 1 < syncs && !sys::killed(k, t); ++i)
                co_await system_sync(k, t);
            co_await sys::pread(k, t, file, start, m_p.ioPages);
            if (m_p.unlinkFiles) // the test's temp file goes: its pages leave the page cache
                co_await sys::punch_hole(k, t, file, start, m_p.ioPages);
            if (m_p.systemSync && syncs > 0 && !sys::killed(k, t))
                co_await system_sync(k, t);
        }

        // One test of the workfile, drawn by its weight.
        Co<> runTest(Kernel& k, Task& t, sys::File file, std::uint64_t& offset)
        {
            const TestDef& d = kWorkfile[static_cast<std::size_t>(pickTest(t.rng))];
            double jitter = 0.5 + t.rng.uniform();
            switch (d.cls) {
            case TestClass::Disk:
                co_await diskTest(k, t, file, offset, d.syncs);
                sys::compute(t, m_p.diskUs * 1000.0 * d.cpuWeight * jitter);
                break;
            case TestClass::Compute:
                sys::compute(t, m_p.computeUs * 1000.0 * d.cpuWeight * jitter);
                break;
            case TestClass::Syscall:
                sys::syscall_work(t, m_p.syscallUs * 1000.0 * d.cpuWeight * jitter);
                break;
            }
            co_await sys::preempt(k, t);
            if (sys::killed(k, t))
                co_return; // killed during the test: not completed
            ++m_testsAll;
            Time now = sys::now(k);
            if (now >= m_p.warmup && now < m_p.end) {
                ++m_tests;
                ++m_testsHalf[now < m_p.warmup + (m_p.end - m_p.warmup) / 2 ? 0 : 1];
            }
        }

        // A re-aim user: forks a child that execs the program, runs tests_per_child tests (the scenario: the whole
        // workfile, one job) and exits; waits for it and forks the next. Every heap_every tests the child's work
        // buffer goes through one malloc / touch / free cycle: the THP fault (and its compaction) and the heap trim
        // that splits it.
        Co<> user(Kernel& k, Task& t, sys::File file)
        {
            std::uint64_t offset = 0;
            while (sys::clock(k, t) < m_p.end) {
                // A child the OOM killer picks (its allocation found nothing left to reclaim) gets SIGKILL: it
                // stops at its next step, runs no more tests (re-aim counts only the tests a child completes), and
                // exits, which frees its memory; the user forks the next child as usual.
                co_await sys::fork(k, t);
                if (!sys::killed(k, t))
                    co_await sys::execve(k, t, m_image);
                for (int i = 0; i < m_p.testsPerChild && !sys::killed(k, t) && sys::clock(k, t) < m_p.end; ++i) {
                    bool cycleStart = i % m_p.heapEvery == 0;
                    if (cycleStart) { // malloc: brk grows the heap; the buffer's first touch faults it in
                        co_await sys::brk(k, t, m_p.heapPages);
                        co_await sys::touch_heap(k, t);
                    }
                    if (sys::killed(k, t))
                        break;
                    co_await runTest(k, t, file, offset);
                    bool cycleEnd = (i + 1) % m_p.heapEvery == 0 || i + 1 == m_p.testsPerChild;
                    if (cycleEnd && !sys::killed(k, t)) // free: glibc trims the heap top (M_TRIM_THRESHOLD)
                        co_await sys::brk(k, t, 0);
                }
                co_await sys::exit(k, t); // the rest of the heap goes with the child's mm
                co_await sys::wait(k, t);
                ++m_forks;
                co_await sys::preempt(k, t);
            }
        }

        Params m_p;
        const Kernel* m_k = nullptr;
        const Simulator* m_sim = nullptr;
        std::array<Time, 2> m_idleAt {}; // sys::idle_time() at the window's start and end
        std::array<bool, 2> m_idleTaken {};
        std::vector<int> m_cum;
        std::vector<sys::File> m_shared;
        sys::ExecImage m_image, m_shImage, m_syncImage; // re-aim, /bin/sh, /bin/sync
        std::uint64_t m_tests = 0, m_testsAll = 0, m_forks = 0, m_systems = 0;
        std::array<std::uint64_t, 2> m_testsHalf {}; // tests completed in each half of the measured window
    };
} // namespace

WorkloadKind aim7FserverKind()
{
    return {
        "aim7-fserver",
        "re-aim-7 workfile.new_fserver: N users run the workfile's tests, each in a forked and exec'd child; disk "
        "tests fill the page cache; the children's THP faults and fork's high-order allocations compact (seed 004)",
        {
            { "users", ParamKind::Int, 61, false, "re-aim users (forked children running tests)", 1, 4096 },
            { "runtime_s", ParamKind::Double, 0.2, true, "simulated seconds per point", 0.001, 3600 },
            { "warmup_fraction", ParamKind::Double, 0.25, false, "the first part of the run, not measured", 0, 0.9 },
            // The shared files, whole in the page cache (GUESS: the sizes of SLES 11's glibc 2.11 x86_64 ld.so and
            // libc.so, bash 3.2 and coreutils' sync; the re-aim binary as osdl-aim-7 builds it).
            { "ld_size", ParamKind::Size, "152KiB", false, "page cache of ld.so", 4096, 1e10 },
            { "libc_size", ParamKind::Size, "1792KiB", false, "page cache of libc", 4096, 1e10 },
            { "reaim_size", ParamKind::Size, "256KiB", false, "page cache of the re-aim binary", 4096, 1e10 },
            { "sh_size", ParamKind::Size, "688KiB", false, "page cache of /bin/sh (bash)", 4096, 1e10 },
            { "sync_size", ParamKind::Size, "32KiB", false, "page cache of /bin/sync", 4096, 1e10 },
            { "text_faults", ParamKind::Int, 4, false,
                "text faults a program takes in each file it maps (GUESS; each maps its fault-around window)", 0,
                1024 },
            { "system_sync", ParamKind::Bool, true, false,
                "disk tests call system(\"sync\") as re-aim does without -y (mmtests before 2015)", 0, 1 },
            { "io_size", ParamKind::Size, "1MiB", false, "bytes a disk_* test writes and reads back", 4096, 1e9 },
            { "cache_file_size", ParamKind::Size, "1MiB", false,
                "size of the files of the older page cache that fills memory at the start", 4096, 1e12 },
            { "unlink", ParamKind::Bool, false, false, "disk tests unlink their temp file (its page cache is freed)", 0,
                1 },
            { "tests_per_child", ParamKind::Int, 4, false,
                "tests a forked child runs before it exits (the scenario: the workfile's 580)", 1, 100000 },
            { "heap_every", ParamKind::Int, 4, false,
                "tests per work-buffer cycle (malloc, THP fault, heap trim) of a child", 1, 100000 },
            { "contiguous_files", ParamKind::Bool, false, false,
                "the older page cache's files lie in consecutive frames (else in random frames)", 0, 1 },
            { "free_fraction", ParamKind::Double, 0.02, false,
                "free memory left scattered by reclaim when the run starts", 0, 0.9 },
            { "heap_size", ParamKind::Size, "2MiB", true,
                "anonymous memory (malloc'ed work buffers) each child touches", 4096, 1e9 },
            { "compute_us", ParamKind::Double, 30.0, false,
                "user CPU time of a compute test (x its weight, x 0.5..1.5)", 0, 1e6 },
            { "syscall_us", ParamKind::Double, 10.0, false, "system CPU time of a syscall test", 0, 1e6 },
            { "disk_us", ParamKind::Double, 10.0, false, "user CPU time of a disk test beyond its page-cache work", 0,
                1e6 },
        },
        [] { return std::unique_ptr<Workload>(new Fserver); },
    };
}

} // namespace mms
