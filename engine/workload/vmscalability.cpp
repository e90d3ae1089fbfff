// Seed 002's workloads. vm-scalability's case-lru-file-readonce starts one `dd bs=4k if=sparse-file-$i
// of=/dev/null` per file; case-lru-file-readtwice starts two per file at once, so every page is read twice and the
// second read activates it. The files are truncated (sparse) on a tmpfs-backed image: no I/O, only page-cache churn
// and, once memory is full, continuous reclaim. The scripts run under `timeout`, so a run is either a fixed
// simulated time (runtime_s) or, with runtime_s = 0, every dd reading its whole file (Shakeel Butt's single dd).
//
// Metrics: throughput_mbps, the average over the dd processes of what each prints (bytes / its elapsed time, MB =
// 1e6 bytes, as dd reports); elapsed_s, when the last dd finished; and lru_lock figures that show the saturation.
#include "workload/vmscalability.h"

namespace mms {

namespace {
    constexpr int kPagesPerResched = 8; // a read()+write() loop returns to user space; need_resched checked often

    struct DdSpec {
        Time end = 0; // stop at this simulated time (the script's timeout); 0 = read to EOF
    };

    // dd's loop: read(fd, buf, 4096) from the file, write(1, buf, 4096) to /dev/null, until EOF or the timeout.
    Co<> dd(Kernel& k, Task& t, sys::File f, DdSpec spec)
    {
        for (std::uint64_t index = 0;; ++index) {
            // The pages before the next preemption point have no event between them: while they are cached, one
            // plain call reads them as this loop would (the time check, both syscalls and the read each).
            constexpr auto perResched = static_cast<std::uint64_t>(kPagesPerResched);
            std::uint64_t plain = perResched - 1 - index % perResched;
            std::uint64_t read = sys::pread_cached_run(k, t, f, index, plain, true, spec.end);
            t.opsDone += read;
            index += read;
            if (spec.end > 0 && sys::clock(k, t) >= spec.end)
                break;
            if (!co_await sys::pread(k, t, f, index))
                break;
            sys::write_null(k, t);
            ++t.opsDone;
            if ((index + 1) % kPagesPerResched == 0) {
                // The preemption point: its flush here, and the coroutine only when it will yield (it flushes
                // again, with nothing left to flush, and finds need_resched() as it was).
                co_await sys::flush(k, t);
                if (sys::need_resched(k, t))
                    co_await sys::preempt(k, t);
            }
        }
        // dd's last pagevecs stay per-CPU (lru_add_drain happens on the next reclaim or drain), like the kernel's.
    }

    // usemem -f sparse-file --readonly SIZE: mmap the file and read every page; a page not mapped yet faults
    // (do_read_fault: fault-around, filemap_fault with read-around). Then exit, which unmaps the file.
    Co<> usemem_readonly(Kernel& k, Task& t, std::uint32_t start, std::uint32_t pages, DdSpec spec)
    {
        const double readPage = sys::machine_costs(k).userMemsetPageNs; // usemem's loop over the page's words
        for (std::uint32_t vpn = start; vpn < start + pages; ++vpn) {
            if (spec.end > 0 && sys::clock(k, t) >= spec.end)
                break;
            co_await sys::touch(k, t, vpn, sys::Access::Read);
            sys::stream(k, t, vpn, readPage);
            ++t.opsDone;
            if ((vpn + 1) % kPagesPerResched == 0)
                co_await sys::preempt(k, t);
        }
        co_await sys::exit(k, t);
    }

    class FileReaders final : public Workload {
    public:
        explicit FileReaders(bool mmap)
            : m_mmap(mmap)
        {
        }

        void setup(WorkloadContext& ctx) override
        {
            const auto& p = ctx.params;
            int files = p.at("files").get<int>();
            int readers = p.at("readers").get<int>();
            auto pages = std::max<std::uint64_t>(1, p.at("size").get<std::uint64_t>() / kPageSize);
            double runtime = p.at("runtime_s").get<double>();
            Kernel& k = ctx.k;
            DdSpec spec;
            spec.end = runtime > 0 ? ns(runtime * 1e9) : 0;
            m_sim = &ctx.sim;
            m_end = spec.end;
            m_plannedPages = static_cast<std::uint64_t>(files) * static_cast<std::uint64_t>(readers) * pages;
            int j = 0;
            for (int f = 0; f < files; ++f) {
                sys::File file = sys::create_sparse(k, pages);
                for (int r = 0; r < readers; ++r, ++j) {
                    std::string name = (m_mmap ? "usemem-" : "dd-") + std::to_string(f)
                        + (readers > 1 ? "." + std::to_string(r) : "");
                    std::uint64_t seed = Rng::mix(ctx.seed, static_cast<std::uint64_t>(j));
                    Task& t = sys::spawn_process(k, name, j % sys::nr_cpus(k), seed);
                    sys::cgroup_attach(k, t, j); // with per-memcg lruvecs (lru.lruvecs > 1): memcg j mod N
                    m_tasks.push_back(&t);
                    if (m_mmap) {
                        if (pages >= sys::MAP_FAILED)
                            throw ProgramError("usemem: mmap of a " + std::to_string(pages)
                                + "-page file: Cannot allocate memory (the model's address space is 2^32 pages)");
                        auto n = static_cast<std::uint32_t>(pages);
                        std::uint32_t start = sys::mmap_file(k, t, file, 0, n);
                        sys::start(k, t, usemem_readonly(k, t, start, n, spec));
                    } else {
                        sys::start(k, t, dd(k, t, file, spec));
                    }
                }
            }
        }

        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            double mbps = 0;
            Time end = 0;
            std::uint64_t pagesRead = 0;
            for (Task* t : m_tasks) {
                Time elapsed = t->finished - t->started;
                if (elapsed > 0)
                    mbps += static_cast<double>(t->opsDone * kPageSize) / 1e6 / toSec(elapsed);
                end = std::max(end, t->finished);
                pagesRead += t->opsDone;
            }
            out["throughput_mbps"] = m_tasks.empty() ? 0.0 : mbps / static_cast<double>(m_tasks.size());
            out["elapsed_s"] = toSec(end);
            out["pages_read"] = static_cast<double>(pagesRead);
            // Busy fraction of lru_lock (hold time over the run; with several lruvecs, the mean over their locks) and
            // its hold and wait time per page read (summed over the locks).
            int instances = 0;
            const LockStat lru = sys::lock_stat(ctx.k, "zone->lru_lock", &instances);
            const Time hold = lru.holdTotal, wait = lru.waitTotal;
            auto locks = static_cast<double>(std::max(1, instances));
            out["lru_lock_busy"] = end > 0 ? static_cast<double>(hold) / static_cast<double>(end) / locks : 0.0;
            out["lru_lock_hold_ns_per_page"] = pagesRead ? toNs(hold) / static_cast<double>(pagesRead) : 0.0;
            out["lru_lock_wait_ns_per_page"] = pagesRead ? toNs(wait) / static_cast<double>(pagesRead) : 0.0;
            out["ns_per_page"] = pagesRead && m_tasks.size() == 1 ? toNs(end - m_tasks[0]->started) / static_cast<double>(pagesRead) : 0.0;
        }

        // Each dd stops at EOF or at the script's timeout, whichever comes first: the further of the two.
        double progress() const override
        {
            std::uint64_t read = 0;
            for (const Task* t : m_tasks)
                read += t->opsDone;
            double f = m_plannedPages ? static_cast<double>(read) / static_cast<double>(m_plannedPages) : 0.0;
            return std::min(std::max(f, timeProgress(m_sim, m_end)), 1.0);
        }

    private:
        bool m_mmap;
        std::vector<Task*> m_tasks;
        const Simulator* m_sim = nullptr;
        Time m_end = 0;
        std::uint64_t m_plannedPages = 0;
    };

    std::vector<ParamSpec> params(int files, int readers, const char* size, double runtime)
    {
        return {
            { "files", ParamKind::Int, files, false, "sparse files, one dd per reader each", 1, 4096 },
            { "readers", ParamKind::Int, readers, false, "dd processes per file, started together (2: readtwice)", 1, 16 },
            { "size", ParamKind::Size, size, true, "size of each sparse file", 4096, 1e14 },
            { "runtime_s", ParamKind::Double, runtime, true,
                "stop every dd after this many simulated seconds (the scripts' timeout); 0 = read to EOF", 0, 3600 },
        };
    }

    std::unique_ptr<Workload> make() { return std::unique_ptr<Workload>(new FileReaders(false)); }
    std::unique_ptr<Workload> makeMmap() { return std::unique_ptr<Workload>(new FileReaders(true)); }

    // Each file's index reaches the last page read: the whole file for a read to EOF; a reader stopped by
    // runtime_s is counted up to the node's memory (the built-in scenarios stop theirs after a few times RAM has
    // been read, over all of the files).
    std::uint64_t indexedPages(const nlohmann::json& q, std::uint64_t ramPages)
    {
        const std::uint64_t size = q.at("size").get<std::uint64_t>() / kPageSize;
        const bool toEof = q.at("runtime_s").get<double>() == 0;
        return q.at("files").get<std::uint64_t>() * (toEof ? size : std::min(size, ramPages));
    }
    WorkloadFootprint readFootprint(const nlohmann::json& q, std::uint64_t ramPages, std::uint64_t)
    {
        return { 0, indexedPages(q, ramPages), 0 };
    }
    // usemem -f FILE --readonly: every reader maps the whole file.
    WorkloadFootprint mmapFootprint(const nlohmann::json& q, std::uint64_t ramPages, std::uint64_t)
    {
        const std::uint64_t mapped = q.at("files").get<std::uint64_t>() * q.at("readers").get<std::uint64_t>()
            * (q.at("size").get<std::uint64_t>() / kPageSize);
        return { mapped, indexedPages(q, ramPages), 0 };
    }
} // namespace

WorkloadKind ddKind()
{
    return { "dd", "dd if=sparse-file of=/dev/null bs=4k: buffered reads of holes, no I/O (seed 002, Shakeel Butt)",
        params(1, 1, "100GiB", 0.0), make, readFootprint };
}

WorkloadKind lruFileReadonceKind()
{
    return { "lru-file-readonce", "vm-scalability case-lru-file-readonce: one dd bs=4k per sparse file, RAM << data",
        params(32, 1, "64GiB", 1.0), make, readFootprint };
}

WorkloadKind lruFileReadtwiceKind()
{
    return { "lru-file-readtwice",
        "vm-scalability case-lru-file-readtwice: two dd bs=4k per sparse file started together, RAM << data",
        params(32, 2, "64GiB", 1.0), make, readFootprint };
}

WorkloadKind lruFileMmapReadKind()
{
    auto p = params(32, 1, "64GiB", 1.0);
    p[1].help = "usemem processes per file (each maps the whole file)";
    p[1].defaultValue = 1;
    return { "lru-file-mmap-read",
        "vm-scalability case-lru-file-mmap-read: one usemem -f sparse-file --readonly per file, mmap faults, RAM << data",
        std::move(p), makeMmap, mmapFootprint };
}

} // namespace mms
