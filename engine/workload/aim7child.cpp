// What re-aim's processes run: a user forks children that run their task lists (driver.c), and a child's tests do
// what their sources in osdl-aim-7/src do (aim7workfile.h), through the system calls of kernel/syscalls.h.
#include "workload/aim7fserver.h"

#include <algorithm>

namespace mms::aim7 {

// glibc's system("sync"): fork; the child execs /bin/sh -c sync, which execs /bin/sync (bash runs the last
// command of -c in place), which calls sync(2) and exits; the caller waits for it.
Co<> Fserver::system_sync(Kernel& k, Task& t)
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
Co<> Fserver::diskTest(Kernel& k, Task& t, const TestDef& d, sys::File file, std::uint64_t& offset)
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
        co_await sys::pwrite(k, t, file, start, pages, m_p.fileBlocks); // 1 KiB a write(2)
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
Co<> Fserver::runTest(Kernel& k, Task& t, int i, sys::File file, std::uint64_t& offset)
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
    sys::syscall_work(t, d.otherSyscalls * (c.faultEntryNs + c.shortSyscallNs));
    co_await sys::loopback_messages(k, t, d.socketMsgs);
    co_await sys::preempt(k, t);
    if (sys::killed(k, t))
        co_return; // killed during the test: not completed
    testCompleted(k);
}

// A test the child completed: the load point notes when, a window run counts it if it ended in the window.
void Fserver::testCompleted(const Kernel& k)
{
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
Co<> Fserver::user(Kernel& k, Task& t, sys::File file)
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

} // namespace mms::aim7
