#pragma once
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
//
// The program is in three files: setting the machine up and spawning the users (aim7fserver.cpp), what a user and
// its children run (aim7child.cpp), and the metrics at the end (aim7metrics.cpp); the tests are in aim7workfile.h.

#include "workload/aim7workfile.h"
#include "workload/workload.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace mms::aim7 {

// The files every process maps: ld.so and libc (every program), and the programs re-aim runs.
enum SharedFile : std::uint8_t { LdSo, Libc, Reaim, Sh, Sync, kSharedFiles };
constexpr std::array<const char*, kSharedFiles> kSharedName = { "ld", "libc", "reaim", "sh", "sync" };
constexpr std::array<const char*, kSharedFiles> kSharedSizeParam = { "ld_size", "libc_size", "reaim_size", "sh_size",
    "sync_size" };

// The data segment's share of a shared object's file (GUESS: libc 2.11's .data, .bss-backed pages and RELRO are
// a few per cent of its size).
constexpr std::uint32_t kDataShare = 16;

struct Params {
    int users = 61;
    Time end = 0, warmup = 0; // runtime_s: 0 = the load point
    std::array<std::uint32_t, kSharedFiles> filePages {}; // page cache of each shared file (the whole file)
    int textRuns = 4;
    std::uint32_t textRunPages = 16;
    bool systemSync = true;
    bool execChild = false;
    std::uint64_t fileBlocks = 26; // a disk test's file in 1 KiB blocks: FILESIZE + POOLSIZE / users
    std::uint64_t cacheFilePages = 256;
    double freeFraction = 0.02; // free memory left scattered in the filled page cache
    std::vector<int> tasks; // invocations of each test in a child's task list
    int testsPerChild = 0; // the tests a child runs: its list, or the first task_share of its draws
    int heapEvery = 0;
    bool contiguousFiles = true;
    std::uint32_t heapPages = 512;
};

class Fserver final : public Workload {
public:
    void setup(WorkloadContext& ctx) override;
    void finish(WorkloadContext& ctx, Metrics& out) override;
    // The load point: the tests completed of all the children's; with runtime_s, the simulated time (the tests
    // under way at the end then finish: a little past 1.0).
    double progress() const override;

private:
    // The tests completed in the two parts of the run that steady_state_drift compares.
    struct DriftParts {
        double earlier = 0, later = 0;
    };

    // setup(), in the order it changes the kernel (aim7fserver.cpp).
    static Params readParams(const nlohmann::json& p);
    void fillPageCache(Kernel& k, std::uint64_t seed);
    void spawnUsers(Kernel& k, std::uint64_t seed);
    void observeWindow(Simulator& sim);
    sys::ExecImage image(std::initializer_list<SharedFile> files) const;
    static std::uint64_t pagesOf(std::uint64_t blocks) { return (blocks * 1024 + kPageSize - 1) / kPageSize; }

    // The program of a user and of its children (aim7child.cpp).
    Co<> user(Kernel& k, Task& t, sys::File file);
    Co<> runTest(Kernel& k, Task& t, int i, sys::File file, std::uint64_t& offset);
    Co<> diskTest(Kernel& k, Task& t, const TestDef& d, sys::File file, std::uint64_t& offset);
    Co<> system_sync(Kernel& k, Task& t);
    void testCompleted(const Kernel& k);
    bool pastEnd(const Kernel& k, const Task& t) const { return m_p.end > 0 && sys::clock(k, t) >= m_p.end; }

    // finish()'s parts (aim7metrics.cpp).
    DriftParts loadPointMetrics(const Kernel& k, Metrics& out) const;
    DriftParts windowMetrics(const Kernel& k, Metrics& out) const;
    void iMmapMetrics(const Kernel& k, Metrics& out) const;
    void compactionMetrics(const Kernel& k, Metrics& out) const;
    void breakdownMetrics(const Kernel& k, Metrics& out) const;
    double testsDone() const; // at least 1, to divide by
    double forksDone() const;

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

} // namespace mms::aim7
