#include "workload/aim7fserver.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mms::aim7 {

void Fserver::setup(WorkloadContext& ctx)
{
    Kernel& k = ctx.k;
    m_k = &k;
    m_sim = &ctx.sim;
    m_p = readParams(ctx.params);
    m_clockScale = kTestClockGHz / sys::machine_costs(k).clockGHz;
    fillPageCache(k, ctx.seed);
    // The programs: each maps its binary, ld.so and libc, and its first text faults land on the same pages every
    // time (the code every run of it executes).
    m_image = image({ Reaim, LdSo, Libc });
    m_shImage = image({ Sh, LdSo, Libc });
    m_syncImage = image({ Sync, LdSo, Libc });
    spawnUsers(k, ctx.seed);
    observeWindow(ctx.sim);
}

double Fserver::progress() const
{
    if (m_p.end > 0)
        return timeProgress(m_sim, m_p.end);
    return static_cast<double>(m_testsAll) / (static_cast<double>(m_p.users) * m_p.testsPerChild);
}

Params Fserver::readParams(const nlohmann::json& p)
{
    Params r;
    r.users = p.at("users").get<int>();
    double runtime = p.at("runtime_s").get<double>();
    r.end = ns(runtime * 1e9);
    r.warmup = ns(runtime * p.at("warmup_fraction").get<double>() * 1e9);
    for (int f = 0; f < kSharedFiles; ++f)
        r.filePages[f] = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
            p.at(kSharedSizeParam[f]).get<std::uint64_t>() / kPageSize, 1, std::uint64_t(1) << 20));
    r.textRuns = p.at("text_runs").get<int>();
    r.textRunPages = p.at("text_run_pages").get<std::uint32_t>();
    r.systemSync = p.at("system_sync").get<bool>();
    r.execChild = p.at("exec_child").get<bool>();
    // driver.c: disk_iteration_count = filesize + poolsize / users, in 1 KiB blocks (NBUFSIZE).
    r.fileBlocks = p.at("file_size").get<std::uint64_t>() / 1024
        + p.at("pool_size").get<std::uint64_t>() / 1024 / static_cast<std::uint64_t>(r.users);
    r.fileBlocks = std::max<std::uint64_t>(1, r.fileBlocks);
    r.cacheFilePages = std::max<std::uint64_t>(1, p.at("cache_file_size").get<std::uint64_t>() / kPageSize);
    r.freeFraction = p.at("free_fraction").get<double>();
    r.tasks = taskCounts(p.at("jobs").get<int>());
    int listed = 0;
    for (int n : r.tasks)
        listed += n;
    r.testsPerChild = std::max(
        1, static_cast<int>(std::lround(listed * std::clamp(p.at("task_share").get<double>(), 0.0, 1.0))));
    r.heapEvery = p.at("heap_every").get<int>();
    r.contiguousFiles = p.at("contiguous_files").get<bool>();
    r.heapPages
        = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, p.at("heap_size").get<std::uint64_t>() / kPageSize));
    return r;
}

// The file server has been running: memory full of the page cache of the shared files and of older files of one
// size (earlier runs' temp and data files), so that, as on a real file server, compaction's neighbouring pages mostly
// belong to different files, whose i_mmap and tree locks nobody else wants.
void Fserver::fillPageCache(Kernel& k, std::uint64_t seed)
{
    for (int f = 0; f < kSharedFiles; ++f)
        m_shared.push_back(sys::create_sparse(k, m_p.filePages[f]));
    // The disk tests' directory (DISKDIR), shared by every child, disk_src's fakeh subdirectories, and tmpa.common,
    // the file the driver writes before the load point for disk_cp to copy.
    m_diskDir = sys::create_dir(k);
    for (int i = 0; i < kFakehDirs; ++i)
        m_fakeh.push_back(sys::create_dir(k));
    m_common = sys::create_sparse(k, pagesOf(m_p.fileBlocks));
    std::vector<sys::File> cached = m_shared;
    cached.push_back(m_common);
    try {
        sys::fill_page_cache(k, cached, m_p.cacheFilePages, m_p.freeFraction, m_p.contiguousFiles, seed);
    } catch (const std::length_error& e) {
        throw std::invalid_argument(
            std::string("aim7-fserver: cache_file_size too small for this memory (") + e.what() + ")");
    }
}

// Each user: a re-aim process that maps the same files for its whole life, and its own data file.
void Fserver::spawnUsers(Kernel& k, std::uint64_t seed)
{
    for (int u = 0; u < m_p.users; ++u) {
        Task& t = sys::spawn_process(k, "reaim-" + std::to_string(u), u, Rng::mix(seed, static_cast<std::uint64_t>(u)));
        for (const auto& map : m_image.mappings)
            sys::mmap_file(k, t, map.file, map.pgoff, map.pages);
        sys::File file = sys::create_sparse(k, std::uint64_t(1) << 31);
        sys::start(k, t, user(k, t, file));
    }
}

// The machine's idle time in the measured window, from snapshots at its two ends (observer events: they change
// nothing). Over the whole run, a test still under way after the window -- a long compaction -- counted every other
// CPU's idleness in the tail.
void Fserver::observeWindow(Simulator& sim)
{
    auto snap = [](void* self, std::uint64_t i) {
        auto* w = static_cast<Fserver*>(self);
        w->m_idleAt[i] = sys::idle_time(*w->m_k);
        w->m_idleTaken[i] = true;
    };
    if (m_p.end > 0) {
        sim.observeAt(m_p.warmup, snap, this, 0);
        sim.observeAt(m_p.end, snap, this, 1);
    }
}

// An ELF program and its libraries as the loader maps each file: a text VMA over the whole file (r-x, with the
// read-only data) and a data VMA over its last pages (rw-, private), and the text the program touches first: runs of
// pages at evenly spaced places of each file's text.
sys::ExecImage Fserver::image(std::initializer_list<SharedFile> files) const
{
    sys::ExecImage img;
    for (SharedFile f : files) {
        std::uint32_t n = m_p.filePages[f];
        std::uint32_t data = std::max<std::uint32_t>(1, n / kDataShare);
        img.mappings.push_back({ m_shared[f], 0, n });
        img.mappings.push_back({ m_shared[f], n - data, data });
        for (int i = 0; i < m_p.textRuns; ++i)
            img.text.push_back({ m_shared[f],
                static_cast<std::uint64_t>(i) * (n - data) / static_cast<std::uint64_t>(std::max(1, m_p.textRuns)),
                m_p.textRunPages });
    }
    return img;
}

} // namespace mms::aim7
