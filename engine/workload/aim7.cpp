// Seed 004's workload: re-aim-7 with workfile.new_fserver as mmtests ran it in 2014, on a machine whose page cache
// fills memory.
//
// Each load point forks N users' children at once (re-aim's driver.c). A child runs its task list -- each of the
// workfile's tests hits / 570 x jobs times (signal_test excluded, as mmtests excluded it; 104 tests for -j 100), in an
// order drawn as driver.c draws it -- and exits; jobs per minute = the tests completed x 60 / the time until the last
// child has exited. What a test does is its source's (osdl-aim-7/src): its user-space work (the body built with
// re-aim's flags and timed, clock-scaled) and its system calls:
//  - creat_clo re-creats one file 1000 times, link_test links and unlinks 70 names, the disk tests create, write,
//    read and unlink a file of FILESIZE + POOLSIZE / N (10 KiB + 1 MiB / N) 1 KiB at a time, all in the one shared
//    DISKDIR, whose i_mutex every O_CREAT open, link and unlink takes (3.12's do_last and vfs_*); disk_src creates and
//    unlinks 43 names in the shared fakeh directories;
//  - the disk tests call system("sync") where disk1.c does (DO_SYNC without -y, as mmtests ran it before 2015: 55 a
//    child): glibc's system() forks, the child execs /bin/sh -c sync, which execs /bin/sync (bash runs the last
//    command of -c in place), which calls sync(2) and exits, and the caller waits. Each of those processes maps ld.so
//    and libc: the i_mmap trees of the shared files change all through the run, under each file's i_mmap lock;
//  - tcp_test and udp_test send 89 and 99 loopback messages within the process; the rest are short system calls
//    (stat, lseek, getdents, NSS lookups through files) or none.
// Every process maps the re-aim binary (or sh, sync), ld.so and libc as the ELF loader does (a text VMA over the whole
// file and a data VMA over its last pages), so a library page no process maps still lies under every process's VMAs:
// before 2ebba6b7e1d9, compaction migrating it walks the file's i_mmap tree twice under its lock. Memory is full of
// page cache, so kswapd and direct reclaim run and the free memory they leave is fragmented; what compacts is fork's
// high-order allocations (kernel stacks, SLUB's order-3 slabs). heap_every adds a THP work buffer per child, which
// re-aim's tests (40 KB mallocs at most) do not have.
//
// With runtime_s the users fork children until then and jobs are counted in the window after warmup_fraction; the
// load point's steady_state_drift compares the tests completed in the last and middle thirds of the span where every
// child runs.
#include "workload/aim7.h"

#include "kernel/syscalls.h"
#include "workload/workload.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

namespace mms {

namespace {

    // One test of workfile.new_fserver as re-aim-7 runs it (osdl-aim-7/src/*.c, with the arguments its suite table
    // gives): its user-space work and the system calls of one invocation.
    struct TestDef {
        const char* name;
        int hits; // workfile.new_fserver
        double userUs; // user CPU of one invocation at 2.8 GHz: the body built with re-aim's flags, timed, clock-scaled
        int creatUnlink = 0; // a new file created and unlinked in the shared directory (disk_src: its fakeh dirs)
        int reCreat = 0; // creat(2) of an existing name in the shared directory (creat_clo's same file) + close
        int linkUnlink = 0; // link(2) + unlink(2) pairs in the shared directory
        int writeFiles = 0; // the test file written through the page cache, 1 KiB a write(2), this many times
        int readFiles = 0; // ... read back
        bool readCommon = false; // disk_cp reads the shared tmpa.common (the driver writes it per load point)
        int syncs = 0; // system("sync") (disk1.c's DO_SYNC without -y)
        int socketMsgs = 0; // loopback write + read pairs within the process (pipe_test.c)
        int otherSyscalls = 0; // short ones: stat, lseek, close, getdents64, getuid, ...
    };
    // workfile.new_fserver less signal_test (mmtests' REAIM_EXCLUDE): 27 tests, 570 hits. User times: measured here
    // and scaled by clock (the div_* bodies are integer divides, slower on IvyBridge than on the host: GUESS low).
    constexpr std::array<TestDef, 27> kWorkfile = { {
        { "add_int", 20, 5090 }, { "add_long", 20, 5070 }, { "add_short", 20, 2020 },
        { "creat_clo", 20, 75, 1, 999, 0, 0, 0, false, 0, 0, 1 },
        { "dir_rtns_1", 20, 40, 0, 0, 0, 0, 0, false, 0, 0, 250 }, // GUESS: /bin of ~120 entries read 10,000 times
        { "disk_cp", 30, 10, 1, 0, 0, 1, 0, true, 3, 0, 5 }, { "disk_rd", 30, 10, 1, 0, 0, 1, 1, false, 2, 0, 4 },
        { "disk_rr", 30, 10, 1, 0, 0, 1, 1, false, 2, 0, 3 }, // (and an lseek per block read, not counted)
        { "disk_rw", 30, 10, 1, 0, 0, 2, 0, false, 2, 0, 3 }, // (and an lseek per block rewritten, not counted)
        { "disk_src", 30, 10, 43, 0, 0, 0, 0, false, 0, 0, 110 }, { "disk_wrt", 30, 10, 1, 0, 0, 1, 0, false, 2, 0, 1 },
        { "div_int", 10, 1370 }, { "div_long", 10, 1600 }, { "div_short", 10, 1370 }, { "jmp_test", 10, 15 },
        { "link_test", 20, 5, 1, 0, 70, 0, 0, false, 0, 0, 9 }, { "mem_rtns_1", 40, 1230 }, { "mem_rtns_2", 10, 16 },
        { "misc_rtns_1", 20, 20, 0, 0, 0, 0, 0, false, 0, 0, 320 }, // GUESS: NSS through files, no nscd
        { "mul_int", 10, 134 }, { "mul_long", 10, 133 }, { "mul_short", 10, 160 }, { "ram_copy", 20, 3 },
        { "sort_rtns_1", 30, 1330 }, { "string_rtns", 30, 930, 0, 0, 0, 0, 0, false, 0, 0, 100 },
        { "tcp_test", 10, 5, 0, 0, 0, 0, 0, false, 0, 89, 13 }, { "udp_test", 40, 5, 0, 0, 0, 0, 0, false, 0, 99, 9 },
    } };
    constexpr double kTestClockGHz = 2.8; // the clock the user times are given at
    constexpr int kFakehDirs = 7; // disk_src's fakeh subdirectories, shared by every child

    // The task list of one child: driver.c's runloop() gives each test hits / total hits x jobs invocations, rounded
    // half up, at least one.
    std::vector<int> taskCounts(int jobs)
    {
        int total = 0;
        for (const TestDef& d : kWorkfile)
            total += d.hits;
        std::vector<int> n;
        for (const TestDef& d : kWorkfile) {
            double load = static_cast<double>(d.hits) / total * jobs;
            int whole = static_cast<int>(load);
            if (load - whole >= 0.5)
                ++whole;
            else if (whole == 0 && load > 0)
                whole = 1;
            n.push_back(whole);
        }
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
        Time end = 0, warmup = 0; // runtime_s: 0 = the load point
        std::array<std::uint32_t, kSharedFiles> filePages {}; // page cache of each shared file (the whole file)
        int textFaults = 4;
        bool systemSync = true;
        bool execChild = false;
        std::uint64_t fileBlocks = 26; // a disk test's file in 1 KiB blocks: FILESIZE + POOLSIZE / users
        std::uint64_t cacheFilePages = 256;
        std::vector<int> tasks; // invocations of each test in a child's task list
        int testsPerChild = 0; // the tests a child runs: its list, or the first task_share of its draws
        int heapEvery = 0;
        bool contiguousFiles = true;
        std::uint32_t heapPages = 512;
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
            m_p.execChild = p.at("exec_child").get<bool>();
            // driver.c: disk_iteration_count = filesize + poolsize / users, in 1 KiB blocks (NBUFSIZE).
            m_p.fileBlocks = p.at("file_size").get<std::uint64_t>() / 1024
                + p.at("pool_size").get<std::uint64_t>() / 1024 / static_cast<std::uint64_t>(m_p.users);
            m_p.fileBlocks = std::max<std::uint64_t>(1, m_p.fileBlocks);
            m_p.cacheFilePages = std::max<std::uint64_t>(1, p.at("cache_file_size").get<std::uint64_t>() / kPageSize);
            m_p.tasks = taskCounts(p.at("jobs").get<int>());
            int listed = 0;
            for (int n : m_p.tasks)
                listed += n;
            m_p.testsPerChild = std::max(1,
                static_cast<int>(std::lround(listed * std::clamp(p.at("task_share").get<double>(), 0.0, 1.0))));
            m_p.heapEvery = p.at("heap_every").get<int>();
            m_p.contiguousFiles = p.at("contiguous_files").get<bool>();
            m_p.heapPages = static_cast<std::uint32_t>(
                std::max<std::uint64_t>(1, p.at("heap_size").get<std::uint64_t>() / kPageSize));
            m_clockScale = kTestClockGHz / sys::machine_costs(k).clockGHz;

            // The file server has been running: memory full of the page cache of the shared files and of older
            // files of one size (earlier runs' temp and data files), so that, as on a real file server,
            // compaction's neighbouring pages mostly belong to different files, whose i_mmap and tree locks nobody
            // else wants.
            for (int f = 0; f < kSharedFiles; ++f)
                m_shared.push_back(sys::create_sparse(k, m_p.filePages[f]));
            // The disk tests' directory (DISKDIR), shared by every child, disk_src's fakeh subdirectories, and
            // tmpa.common, the file the driver writes before the load point for disk_cp to copy.
            m_diskDir = sys::create_dir(k);
            for (int i = 0; i < kFakehDirs; ++i)
                m_fakeh.push_back(sys::create_dir(k));
            m_common = sys::create_sparse(k, pagesOf(m_p.fileBlocks));
            std::vector<sys::File> cached = m_shared;
            cached.push_back(m_common);
            try {
                sys::fill_page_cache(k, cached, m_p.cacheFilePages, p.at("free_fraction").get<double>(),
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
            if (m_p.end > 0) {
                ctx.sim.observeAt(m_p.warmup, snap, this, 0);
                ctx.sim.observeAt(m_p.end, snap, this, 1);
            }
        }

        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            const Kernel& k = ctx.k;
            auto vm = [&](const char* name) { return static_cast<double>(sys::vmstat(k, name)); };
            const Time now = sys::now(k);
            const double cpus = sys::nr_cpus(k);
            double h0 = 0, h1 = 0; // the tests completed in the two parts steady_state_drift compares
            if (m_p.end == 0) {
                // re-aim's driver.c: jobs per minute = the tests the children completed x 60 / the time from the
                // first fork to the last child's exit. Steady state: in the span where every user's child runs (from
                // the last one's first test to the first exit), the tests of its last third against its middle third
                // (the first third holds the start, when every child begins at once and no lock has a queue yet).
                const double elapsed = toSec(m_lastExit);
                out["tests"] = static_cast<double>(m_testsAll);
                out["elapsed_s"] = elapsed;
                out["jobs_per_min"] = elapsed > 0 ? static_cast<double>(m_testsAll) * 60.0 / elapsed : 0.0;
                const Time third = m_firstExit > m_allStarted ? (m_firstExit - m_allStarted) / 3 : 0;
                for (Time at : m_doneAt) {
                    if (at >= m_allStarted + third && at < m_firstExit)
                        ++(at < m_allStarted + 2 * third ? h0 : h1);
                }
                out["full_load_share"] = m_lastExit > 0 && m_firstExit > m_allStarted
                    ? toSec(m_firstExit - m_allStarted) / elapsed
                    : 0.0;
                out["idle_fraction"] = now > 0 ? toSec(sys::idle_time(k)) / (toSec(now) * cpus) : 0.0;
            } else {
                const double window = toSec(m_p.end - m_p.warmup);
                out["tests"] = static_cast<double>(m_tests);
                out["jobs_per_min"] = window > 0 ? static_cast<double>(m_tests) * 60.0 / window : 0.0;
                h0 = static_cast<double>(m_testsHalf[0]);
                h1 = static_cast<double>(m_testsHalf[1]);
                // Idle CPU time in the window (up to the run's end if it ended inside the window).
                const Time idleNow = sys::idle_time(k);
                Time from = m_idleTaken[0] ? m_p.warmup : now, to = m_idleTaken[1] ? m_p.end : now;
                Time idle = (m_idleTaken[1] ? m_idleAt[1] : idleNow) - (m_idleTaken[0] ? m_idleAt[0] : idleNow);
                out["idle_fraction"] = to > from ? toSec(idle) / (toSec(to - from) * cpus) : 0.0;
            }
            out["steady_state_drift"] = h0 + h1 > 0 ? (h1 - h0) / ((h0 + h1) / 2) : 0.0;
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
            const double rmapNs = vm("migrate_unmapped_rmap_ns");
            out["unmapped_rmap_us_per_test"] = rmapNs / 1000.0 / tests;
            out["unmapped_rmap_walks_per_test"] = vm("migrate_unmapped_rmap_walks") / tests;
            out["unmapped_rmap_share"] = now > 0 ? rmapNs * 1e-9 / (toSec(now) * cpus) : 0.0;
        }

        // The load point: the tests completed of all the children's; with runtime_s, the simulated time (the tests
        // under way at the end then finish: a little past 1.0).
        double progress() const override
        {
            if (m_p.end > 0)
                return timeProgress(m_sim, m_p.end);
            return static_cast<double>(m_testsAll) / (static_cast<double>(m_p.users) * m_p.testsPerChild);
        }

    private:
        // driver.c's draw: a random test among those the child has invocations of left.
        static int pickTest(Rng& rng, std::vector<int>& left)
        {
            int kinds = 0;
            for (int n : left)
                kinds += n > 0;
            auto r = static_cast<int>(rng.below(static_cast<std::uint64_t>(kinds)));
            for (std::size_t i = 0; i < left.size(); ++i) {
                if (left[i] > 0 && r-- == 0) {
                    --left[i];
                    return static_cast<int>(i);
                }
            }
            return 0;
        }

        static std::uint64_t pagesOf(std::uint64_t blocks) { return (blocks * 1024 + kPageSize - 1) / kPageSize; }

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

        // A disk test (disk1.c): creat a file in the shared directory, write it 1 KiB at a time through the page
        // cache, read it back, unlink it (its page cache goes with the last close), with the test's system("sync")
        // calls: all but the last after the write, the last at the end. disk_cp reads the shared tmpa.common.
        Co<> diskTest(Kernel& k, Task& t, const TestDef& d, sys::File file, std::uint64_t& offset)
        {
            const std::uint64_t pages = pagesOf(m_p.fileBlocks);
            const double perCall = sys::machine_costs(k).faultEntryNs; // the other 1 KiB write(2)s and read(2)s
            std::uint64_t start = offset;
            offset += pages; // a new file each time: every write meets new pages
            co_await sys::creat(k, t, m_diskDir);
            if (d.readCommon) {
                co_await sys::pread(k, t, m_common, 0, pages);
                sys::syscall_work(t, perCall * static_cast<double>(m_p.fileBlocks - 1));
            }
            for (int i = 0; i < d.writeFiles; ++i) {
                co_await sys::pwrite(k, t, file, start, pages);
                sys::syscall_work(t, perCall * static_cast<double>(m_p.fileBlocks - 1));
            }
            for (int i = 0; m_p.systemSync && i + 1 < d.syncs && !sys::killed(k, t); ++i)
                co_await system_sync(k, t);
            for (int i = 0; i < d.readFiles; ++i) {
                co_await sys::pread(k, t, file, start, pages);
                sys::syscall_work(t, perCall * static_cast<double>(m_p.fileBlocks - 1));
            }
            co_await sys::unlink(k, t, m_diskDir);
            co_await sys::punch_hole(k, t, file, start, pages);
            if (m_p.systemSync && d.syncs > 0 && !sys::killed(k, t))
                co_await system_sync(k, t);
        }

        // One invocation of test `i`: its user work, then its system calls.
        Co<> runTest(Kernel& k, Task& t, int i, sys::File file, std::uint64_t& offset)
        {
            const TestDef& d = kWorkfile[static_cast<std::size_t>(i)];
            const CostModel& c = sys::machine_costs(k);
            sys::compute(t, d.userUs * 1000.0 * m_clockScale);
            if (d.writeFiles > 0 || d.readCommon) {
                co_await diskTest(k, t, d, file, offset);
            } else if (d.creatUnlink > 1) { // disk_src: its names spread over the fakeh subdirectories
                auto dir = static_cast<std::size_t>(t.rng.below(kFakehDirs));
                for (int n = 0; n < d.creatUnlink && !sys::killed(k, t); ++n, dir = (dir + 1) % kFakehDirs) {
                    co_await sys::creat(k, t, m_fakeh[dir]);
                    co_await sys::unlink(k, t, m_fakeh[dir]);
                }
            } else if (d.creatUnlink == 1) { // creat_clo, link_test: one file, its re-creats or links, unlink
                co_await sys::creat(k, t, m_diskDir);
                for (int n = 0; n < d.reCreat && !sys::killed(k, t); ++n)
                    co_await sys::creat(k, t, m_diskDir, true);
                for (int n = 0; n < d.linkUnlink && !sys::killed(k, t); ++n) {
                    co_await sys::link(k, t, m_diskDir);
                    co_await sys::unlink(k, t, m_diskDir, false);
                }
                co_await sys::unlink(k, t, m_diskDir);
            }
            sys::syscall_work(t,
                d.otherSyscalls * (c.faultEntryNs + c.shortSyscallNs)
                    + d.socketMsgs * (2 * c.faultEntryNs + c.loopbackMsgNs));
            co_await sys::preempt(k, t);
            if (sys::killed(k, t))
                co_return; // killed during the test: not completed
            ++m_testsAll;
            Time now = sys::now(k);
            if (m_p.end == 0)
                m_doneAt.push_back(now);
            else if (now >= m_p.warmup && now < m_p.end) {
                ++m_tests;
                ++m_testsHalf[now < m_p.warmup + (m_p.end - m_p.warmup) / 2 ? 0 : 1];
            }
        }

        // A re-aim user: forks a child that runs tests_per_child tests and exits (with exec_child, the child first
        // execs the program, as a shell would run it), and waits for it. The load point ends when every user's child
        // has exited (re-aim's driver.c); with runtime_s, the users fork children until then instead. A heap_every
        // cycle puts the child's work buffer through malloc / touch / free: a THP fault (and its compaction) and the
        // heap trim that splits it -- which re-aim's tests, whose largest malloc is 8 KiB, never do.
        Co<> user(Kernel& k, Task& t, sys::File file)
        {
            std::uint64_t offset = 0;
            do {
                // A child the OOM killer picks (its allocation found nothing left to reclaim) gets SIGKILL: it
                // stops at its next step, runs no more tests (re-aim counts only the tests a child completes), and
                // exits, which frees its memory.
                co_await sys::fork(k, t);
                if (m_p.execChild && !sys::killed(k, t))
                    co_await sys::execve(k, t, m_image);
                m_allStarted = std::max(m_allStarted, sys::clock(k, t));
                std::vector<int> left = m_p.tasks;
                for (int i = 0; i < m_p.testsPerChild && !sys::killed(k, t) && !pastEnd(k, t); ++i) {
                    bool heapCycle = m_p.heapEvery > 0;
                    if (heapCycle && i % m_p.heapEvery == 0) { // malloc: brk grows the heap; the first touch faults
                        co_await sys::brk(k, t, m_p.heapPages);
                        co_await sys::touch_heap(k, t);
                    }
                    if (sys::killed(k, t))
                        break;
                    co_await runTest(k, t, pickTest(t.rng, left), file, offset);
                    bool cycleEnd = heapCycle && ((i + 1) % m_p.heapEvery == 0 || i + 1 == m_p.testsPerChild);
                    if (cycleEnd && !sys::killed(k, t)) // free: glibc trims the heap top (M_TRIM_THRESHOLD)
                        co_await sys::brk(k, t, 0);
                }
                co_await sys::exit(k, t); // the rest of the heap goes with the child's mm
                co_await sys::wait(k, t);
                ++m_forks;
                const Time now = sys::now(k);
                if (m_firstExit == 0)
                    m_firstExit = now;
                m_lastExit = std::max(m_lastExit, now);
                co_await sys::preempt(k, t);
            } while (m_p.end > 0 && sys::clock(k, t) < m_p.end);
        }

        // With runtime_s: the users start no test after it.
        bool pastEnd(const Kernel& k, const Task& t) const { return m_p.end > 0 && sys::clock(k, t) >= m_p.end; }

        Params m_p;
        const Kernel* m_k = nullptr;
        const Simulator* m_sim = nullptr;
        std::array<Time, 2> m_idleAt {}; // sys::idle_time() at the window's start and end
        std::array<bool, 2> m_idleTaken {};
        double m_clockScale = 1.0; // the tests' user times at this machine's clock
        sys::Dir m_diskDir; // DISKDIR: every child's temp files
        std::vector<sys::Dir> m_fakeh; // disk_src's directories
        sys::File m_common; // tmpa.common
        std::vector<sys::File> m_shared;
        sys::ExecImage m_image, m_shImage, m_syncImage; // re-aim, /bin/sh, /bin/sync
        std::uint64_t m_tests = 0, m_testsAll = 0, m_forks = 0, m_systems = 0;
        std::array<std::uint64_t, 2> m_testsHalf {}; // with runtime_s: tests completed in each half of the window
        std::vector<Time> m_doneAt; // the load point: when each test completed
        Time m_allStarted = 0, m_firstExit = 0, m_lastExit = 0; // every child running; the first and last exit
    };
} // namespace

WorkloadKind aim7FserverKind()
{
    return {
        "aim7-fserver",
        "re-aim-7 workfile.new_fserver as mmtests ran it: N users, each a forked child that runs its task list of the "
        "workfile's tests (104 for -j 100) and exits; jobs per minute over the load point, as driver.c counts them "
        "(seed 004)",
        {
            { "users", ParamKind::Int, 61, false, "re-aim users (forked children running tests)", 1, 4096 },
            { "jobs", ParamKind::Int, 100, false,
                "re-aim -j: each test runs hits / 570 x jobs times per child, rounded, at least once (100: 104 tests)",
                1, 100000 },
            { "task_share", ParamKind::Double, 1.0, true,
                "the share of its task list a child runs before it exits (at least one test; --scale shrinks it)", 0,
                1 },
            { "runtime_s", ParamKind::Double, 0.0, true,
                "0: the load point, until every child has exited; else the users fork children until this simulated "
                "time and the jobs are counted in its window",
                0, 3600 },
            { "warmup_fraction", ParamKind::Double, 0.25, false, "with runtime_s: the first part, not measured", 0,
                0.9 },
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
            { "exec_child", ParamKind::Bool, false, false,
                "each child execs the re-aim binary after fork (re-aim's children do not)", 0, 1 },
            { "file_size", ParamKind::Size, "10KiB", false, "re-aim FILESIZE (mmtests: 10k)", 1024, 1e9 },
            { "pool_size", ParamKind::Size, "1MiB", false,
                "re-aim POOLSIZE (mmtests: 1m): a disk test's file is FILESIZE + POOLSIZE / users", 0, 1e12 },
            { "cache_file_size", ParamKind::Size, "1MiB", false,
                "size of the files of the older page cache that fills memory at the start", 4096, 1e12 },
            { "heap_every", ParamKind::Int, 0, false,
                "0: none; else a work-buffer cycle (malloc, THP fault, heap trim) every this many tests of a child "
                "(re-aim's tests malloc at most 40 KB)",
                0, 100000 },
            { "contiguous_files", ParamKind::Bool, false, false,
                "the older page cache's files lie in consecutive frames (else in random frames)", 0, 1 },
            { "free_fraction", ParamKind::Double, 0.02, false,
                "free memory left scattered by reclaim when the run starts", 0, 0.9 },
            { "heap_size", ParamKind::Size, "2MiB", true, "the heap_every work buffer", 4096, 1e9 },
        },
        [] { return std::unique_ptr<Workload>(new Fserver); },
    };
}

} // namespace mms
