// Seed 002's workloads. vm-scalability's case-lru-file-readonce starts one `dd bs=4k if=sparse-file-$i
// of=/dev/null` per file; case-lru-file-readtwice starts two per file at once, so every page is read twice and the
// second read activates it. The files are truncated (sparse) on a tmpfs-backed image: no I/O, only page-cache churn
// and, once memory is full, continuous reclaim. The scripts run under `timeout`, so a run is either a fixed
// simulated time (runtime_s) or, with runtime_s = 0, every dd reading its whole file (Shakeel Butt's single dd).
//
// Metrics: throughput_mbps, the average over the dd processes of what each prints (bytes / its elapsed time, MB =
// 1e6 bytes, as dd reports); elapsed_s, when the last dd finished; and lru_lock figures that show the saturation.
#include "mm/kernel.h"
#include "workload/vmscalability.h"

namespace mms {

namespace {
    constexpr int kPagesPerResched = 8; // a read()+write() loop returns to user space; need_resched checked often

    struct DdSpec {
        Time end = 0; // stop at this simulated time (the script's timeout); 0 = read to EOF
    };

    // dd's loop: read(fd, buf, 4096) from the file, write(1, buf, 4096) to /dev/null, until EOF or the timeout.
    Co<> dd(Kernel& k, Task& t, AddressSpace& m, DdSpec spec)
    {
        const Time syscall = ns(k.cost.faultEntryNs); // converted once: the loop charges it twice per page
        for (std::uint64_t index = 0;; ++index) {
            // The pages before the next cond_resched() have no event between them: while they are cached, one
            // plain call reads them as this loop would (the time check, both syscalls' charges and the read each).
            constexpr auto perResched = static_cast<std::uint64_t>(kPagesPerResched);
            std::uint64_t plain = perResched - 1 - index % perResched;
            std::uint64_t read = generic_file_read_cached_run(k, t, m, index, plain, 2 * syscall, spec.end);
            t.opsDone += read;
            index += read;
            if (spec.end > 0 && k.s.sim().now() + t.debt >= spec.end)
                break;
            Sched::burnTime(t, syscall); // read(): syscall entry/exit, vfs_read -> xfs_file_read_iter
            // A cached page is read by a plain call; the rest (readahead, waits) awaits the whole read path.
            bool ok = generic_file_read_cached(k, t, m, index);
            if (!ok)
                ok = co_await generic_file_buffered_read(k, t, m, index);
            if (!ok)
                break;
            Sched::burnTime(t, syscall); // write() to /dev/null: entry/exit, write_null returns at once
            ++t.opsDone;
            if ((index + 1) % kPagesPerResched == 0) {
                // cond_resched(): its flush here, and the coroutine only when it will yield (it flushes again,
                // with nothing left to flush, and finds need_resched() as it was).
                co_await k.s.flush(t);
                if (k.s.need_resched(t))
                    co_await k.s.cond_resched(t);
            }
        }
        // dd's last pagevecs stay per-CPU (lru_add_drain happens on the next reclaim or drain), like the kernel's.
    }

    // usemem -f sparse-file --readonly SIZE: mmap the file and read every page; a page not mapped yet faults
    // (do_read_fault: fault-around, filemap_fault with read-around). Then exit, which unmaps the file.
    Co<> usemem_readonly(Kernel& k, Task& t, MmStruct& mm, std::uint32_t start, std::uint32_t pages, DdSpec spec)
    {
        for (std::uint32_t vpn = start; vpn < start + pages; ++vpn) {
            if (spec.end > 0 && k.s.sim().now() + t.debt >= spec.end)
                break;
            if (!pte::present(mm.pte[vpn]))
                co_await handle_mm_fault(k, t, mm, vpn, false);
            mm.pte[vpn] |= pte::kYoung; // the load sets the accessed bit
            Sched::burn(t, k.cost.userMemsetPageNs); // usemem's loop over the page's words, at memory speed
            ++t.opsDone;
            if ((vpn + 1) % kPagesPerResched == 0)
                co_await k.s.cond_resched(t);
        }
        co_await exit_mmap(k, t, mm);
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
            k.enableLineTracking();
            k.pageCostJitter = p.at("page_jitter").get<double>();
            k.startKswapd(0);
            DdSpec spec;
            spec.end = runtime > 0 ? ns(runtime * 1e9) : 0;
            m_sim = &ctx.k.s.sim();
            m_end = spec.end;
            m_plannedPages = static_cast<std::uint64_t>(files) * static_cast<std::uint64_t>(readers) * pages;
            int j = 0;
            for (int f = 0; f < files; ++f) {
                AddressSpace& m = new_address_space(k, pages);
                for (int r = 0; r < readers; ++r, ++j) {
                    std::string name = (m_mmap ? "usemem-" : "dd-") + std::to_string(f)
                        + (readers > 1 ? "." + std::to_string(r) : "");
                    MmStruct* mm = m_mmap ? &k.mm_alloc() : nullptr;
                    std::uint64_t seed = Rng::mix(ctx.seed, static_cast<std::uint64_t>(j));
                    Task& t = ctx.k.s.spawn(name, j % ctx.k.s.cpuCount(), false, mm, seed);
                    k.setTaskMemcg(t, j); // lru.lruvecs > 1: task j runs in memcg j mod N
                    if (j == 0) // this run's placement of memory: one draw for the whole run
                        k.memCostJitter = t.rng.jitter(p.at("run_jitter").get<double>());
                    m_tasks.push_back(&t);
                    if (m_mmap) {
                        auto n = static_cast<std::uint32_t>(pages);
                        std::uint32_t start = k.do_mmap_file(*mm, m, 0, n);
                        ctx.k.s.start(t, usemem_readonly(k, t, *mm, start, n, spec));
                    } else {
                        ctx.k.s.start(t, dd(k, t, m, spec));
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
            Time hold = 0, wait = 0;
            for (const Lruvec* v : ctx.k.lruvecs) {
                hold += v->lru_lock.stat().holdTotal;
                wait += v->lru_lock.stat().waitTotal;
            }
            auto locks = static_cast<double>(ctx.k.lruvecs.size());
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
            { "run_jitter", ParamKind::Double, 0.01, false,
                "run-to-run spread of the memory-bound page costs (zero, copy): one uniform factor 1 +- x per run", 0, 0.5 },
            { "page_jitter", ParamKind::Double, 0.05, false, "per-page spread of the same costs: 1 +- x", 0, 0.5 },
        };
    }

    std::unique_ptr<Workload> make() { return std::unique_ptr<Workload>(new FileReaders(false)); }
    std::unique_ptr<Workload> makeMmap() { return std::unique_ptr<Workload>(new FileReaders(true)); }
} // namespace

WorkloadKind ddKind()
{
    return { "dd", "dd if=sparse-file of=/dev/null bs=4k: buffered reads of holes, no I/O (seed 002, Shakeel Butt)",
        params(1, 1, "100GiB", 0.0), make };
}

WorkloadKind lruFileReadonceKind()
{
    return { "lru-file-readonce", "vm-scalability case-lru-file-readonce: one dd bs=4k per sparse file, RAM << data",
        params(32, 1, "64GiB", 1.0), make };
}

WorkloadKind lruFileReadtwiceKind()
{
    return { "lru-file-readtwice",
        "vm-scalability case-lru-file-readtwice: two dd bs=4k per sparse file started together, RAM << data",
        params(32, 2, "64GiB", 1.0), make };
}

WorkloadKind lruFileMmapReadKind()
{
    auto p = params(32, 1, "64GiB", 1.0);
    p[1].help = "usemem processes per file (each maps the whole file)";
    p[1].defaultValue = 1;
    return { "lru-file-mmap-read",
        "vm-scalability case-lru-file-mmap-read: one usemem -f sparse-file --readonly per file, mmap faults, RAM << data",
        std::move(p), makeMmap };
}

} // namespace mms
