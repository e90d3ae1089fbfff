// What re-aim reports, and what the model can tell beside it: jobs per minute, the steady state, the i_mmap locks
// of the shared files, and what compaction and migration did.
#include "workload/aim7fserver.h"

#include <algorithm>
#include <string>

namespace mms::aim7 {

namespace {
    double vm(const Kernel& k, const char* name) { return static_cast<double>(sys::vmstat(k, name)); }
} // namespace

void Fserver::finish(WorkloadContext& ctx, Metrics& out)
{
    const Kernel& k = ctx.k;
    const DriftParts d = m_p.end == 0 ? loadPointMetrics(k, out) : windowMetrics(k, out);
    out["steady_state_drift"]
        = d.earlier + d.later > 0 ? (d.later - d.earlier) / ((d.earlier + d.later) / 2) : 0.0;
    iMmapMetrics(k, out);
    out["system_per_test"] = static_cast<double>(m_systems) / testsDone();
    compactionMetrics(k, out);
    breakdownMetrics(k, out);
}

// Where a job's (a test's) time went, in ms of task time per test completed: user and system time, and of the elapsed
// time, page faults, sync(2) (its waits for the flusher and the journal's commit apart), waits for a locked journal
// transaction, direct compaction, and the three lock classes waited on longest (each under its own name too).
void Fserver::breakdownMetrics(const Kernel& k, Metrics& out) const
{
    const sys::TimeBreakdown b = sys::time_breakdown(k);
    const double perJob = 1000.0 / testsDone();
    out["user_ms_per_test"] = b.user * perJob;
    out["sys_ms_per_test"] = b.sys * perJob;
    out["fault_ms_per_test"] = b.faults * perJob;
    out["sync_ms_per_test"] = b.sync * perJob;
    out["sync_wait_ms_per_test"] = b.syncWait * perJob;
    out["journal_wait_ms_per_test"] = b.journalWait * perJob;
    out["compaction_ms_per_test"] = b.compaction * perJob;
    out["journal_commits_per_test"] = static_cast<double>(b.commits) / testsDone();
    out["writeback_pages_per_test"] = static_cast<double>(b.pagesWrittenBack) / testsDone();
    double locks = 0;
    for (const auto& [name, s] : b.lockWait) {
        out["wait_ms_per_test." + name] = s * perJob;
        locks += s;
    }
    out["lock_wait_ms_per_test"] = locks * perJob;
    for (std::size_t i = 0; i < 3; ++i)
        out["top_lock_wait_ms_per_test_" + std::to_string(i + 1)] = i < b.lockWait.size() ? b.lockWait[i].second * perJob : 0.0;
}

double Fserver::testsDone() const { return static_cast<double>(std::max<std::uint64_t>(1, m_testsAll)); }
double Fserver::forksDone() const { return static_cast<double>(std::max<std::uint64_t>(1, m_forks)); }

// re-aim's driver.c: jobs per minute = the tests the children completed x 60 / the time from the first fork to the
// last child's exit. Steady state: in the span where every user's child runs (from the last one's first test to the
// first exit), the tests of its last third against its middle third (the first third holds the start, when every
// child begins at once and no lock has a queue yet).
Fserver::DriftParts Fserver::loadPointMetrics(const Kernel& k, Metrics& out) const
{
    const Time now = sys::now(k);
    const double cpus = sys::nr_cpus(k);
    const double elapsed = toSec(m_lastExit);
    out["tests"] = static_cast<double>(m_testsAll);
    out["elapsed_s"] = elapsed;
    out["jobs_per_min"] = elapsed > 0 ? static_cast<double>(m_testsAll) * 60.0 / elapsed : 0.0;
    DriftParts d;
    const Time third = m_firstExit > m_allStarted ? (m_firstExit - m_allStarted) / 3 : 0;
    for (Time at : m_doneAt) {
        if (at >= m_allStarted + third && at < m_firstExit)
            ++(at < m_allStarted + 2 * third ? d.earlier : d.later);
    }
    out["full_load_share"]
        = m_lastExit > 0 && m_firstExit > m_allStarted ? toSec(m_firstExit - m_allStarted) / elapsed : 0.0;
    out["idle_fraction"] = now > 0 ? toSec(sys::idle_time(k)) / (toSec(now) * cpus) : 0.0;
    return d;
}

// With runtime_s: the tests completed in the window after warmup_fraction, and its two halves.
Fserver::DriftParts Fserver::windowMetrics(const Kernel& k, Metrics& out) const
{
    const Time now = sys::now(k);
    const double cpus = sys::nr_cpus(k);
    const double window = toSec(m_p.end - m_p.warmup);
    out["tests"] = static_cast<double>(m_tests);
    out["jobs_per_min"] = window > 0 ? static_cast<double>(m_tests) * 60.0 / window : 0.0;
    // Idle CPU time in the window (up to the run's end if it ended inside the window).
    const Time idleNow = sys::idle_time(k);
    Time from = m_idleTaken[0] ? m_p.warmup : now, to = m_idleTaken[1] ? m_p.end : now;
    Time idle = (m_idleTaken[1] ? m_idleAt[1] : idleNow) - (m_idleTaken[0] ? m_idleAt[0] : idleNow);
    out["idle_fraction"] = to > from ? toSec(idle) / (toSec(to - from) * cpus) : 0.0;
    return { static_cast<double>(m_testsHalf[0]), static_cast<double>(m_testsHalf[1]) };
}

// The i_mmap lock of the shared files: time waited and held per test, and acquisitions per test and per fork.
void Fserver::iMmapMetrics(const Kernel& k, Metrics& out) const
{
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
    const double tests = testsDone();
    out["i_mmap_wait_us_per_test"] = toUs(wait) / tests;
    out["i_mmap_acquisitions_per_test"] = static_cast<double>(acq) / tests;
    out["i_mmap_acquisitions_per_fork"] = static_cast<double>(acq) / forksDone();
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
}

// What compaction and migration did, per fork, per test and per stall.
void Fserver::compactionMetrics(const Kernel& k, Metrics& out) const
{
    const Time now = sys::now(k);
    const double cpus = sys::nr_cpus(k);
    const double tests = testsDone();
    const double forks = forksDone();
    out["compact_stall_per_fork"] = vm(k, "compact_stall") / forks;
    // Migration's i_mmap acquisitions per page it moved, and the VMAs each of its walks visited.
    double migrated = std::max(1.0, vm(k, "pgmigrate_success") + vm(k, "pgmigrate_fail"));
    out["migrate_i_mmap_acq_per_page"] = vm(k, "migrate_rmap_walks") / migrated;
    out["migrate_rmap_vmas_per_walk"] = vm(k, "migrate_rmap_vmas") / std::max(1.0, vm(k, "migrate_rmap_walks"));
    out["migrated_per_test"] = vm(k, "pgmigrate_success") / tests;
    out["thp_fault_alloc_per_fork"] = vm(k, "thp_fault_alloc") / forks;
    out["thp_fault_fallback_per_fork"] = vm(k, "thp_fault_fallback") / forks;
    out["migrated_per_fork"] = vm(k, "pgmigrate_success") / forks;
    // Why the direct compactions gave up, per compaction (compact_stall): async compaction abandons the zone at the
    // first contended zone->lock or lru_lock (3.7-3.16) -- what keeps THP faults from being served.
    double stalls = std::max(1.0, vm(k, "compact_stall"));
    out["compact_abort_zone_lock_per_stall"] = vm(k, "compact_abort_zone_lock") / stalls;
    out["compact_abort_lru_lock_per_stall"] = vm(k, "compact_abort_lru_lock") / stalls;
    out["compact_abort_resched_per_stall"] = vm(k, "compact_abort_resched") / stalls;
    out["compact_sync_per_stall"] = vm(k, "compact_sync_stall") / stalls; // never give up
    out["migrated_per_stall"] = vm(k, "pgmigrate_success") / stalls;
    // The most 2ebba6b7e1d9 can give back: migration's i_mmap round-trips for pages no one maps (waits included),
    // per test and as a share of the machine's time (CPUs x run time). Zero with the patch.
    const double rmapNs = vm(k, "migrate_unmapped_rmap_ns");
    out["unmapped_rmap_us_per_test"] = rmapNs / 1000.0 / tests;
    out["unmapped_rmap_walks_per_test"] = vm(k, "migrate_unmapped_rmap_walks") / tests;
    out["unmapped_rmap_share"] = now > 0 ? rmapNs * 1e-9 / (toSec(now) * cpus) : 0.0;
}

} // namespace mms::aim7
