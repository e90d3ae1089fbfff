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
    Co<> dd(Kernel& k, Task& t, AddressSpace& m, DdSpec spec)
    {
        for (std::uint64_t index = 0;; ++index) {
            if (spec.end > 0 && k.s.sim().now() + t.debt >= spec.end)
                break;
            Sched::burn(t, k.cost.faultEntryNs); // read(): syscall entry/exit, vfs_read -> xfs_file_read_iter
            bool ok = co_await generic_file_buffered_read(k, t, m, index);
            if (!ok)
                break;
            Sched::burn(t, k.cost.faultEntryNs); // write() to /dev/null: entry/exit, write_null returns at once
            ++t.opsDone;
            if ((index + 1) % kPagesPerResched == 0)
                co_await k.s.cond_resched(t);
        }
        // dd's last pagevecs stay per-CPU (lru_add_drain happens on the next reclaim or drain), like the kernel's.
    }

    class FileReaders final : public Workload {
    public:
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
            int j = 0;
            for (int f = 0; f < files; ++f) {
                AddressSpace& m = new_address_space(k, pages);
                for (int r = 0; r < readers; ++r, ++j) {
                    Task& t = ctx.s.spawn("dd-" + std::to_string(f) + (readers > 1 ? "." + std::to_string(r) : ""),
                        j % ctx.s.cpuCount(), false, nullptr, Rng::mix(ctx.seed, static_cast<std::uint64_t>(j)));
                    if (j == 0) // this run's placement of memory: one draw for the whole run
                        k.memCostJitter = t.rng.jitter(p.at("run_jitter").get<double>());
                    m_tasks.push_back(&t);
                    ctx.s.start(t, dd(k, t, m, spec));
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
            const LockStat& lru = ctx.k.lruvec.lru_lock.stat();
            // Busy fraction of lru_lock (hold time over the run) and its hold time per page read.
            out["lru_lock_busy"] = end > 0 ? static_cast<double>(lru.holdTotal) / static_cast<double>(end) : 0.0;
            out["lru_lock_hold_ns_per_page"] = pagesRead ? toNs(lru.holdTotal) / static_cast<double>(pagesRead) : 0.0;
            out["lru_lock_wait_ns_per_page"] = pagesRead ? toNs(lru.waitTotal) / static_cast<double>(pagesRead) : 0.0;
            out["ns_per_page"] = pagesRead && m_tasks.size() == 1 ? toNs(end - m_tasks[0]->started) / static_cast<double>(pagesRead) : 0.0;
        }

    private:
        std::vector<Task*> m_tasks;
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

    std::unique_ptr<Workload> make() { return std::unique_ptr<Workload>(new FileReaders); }
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

} // namespace mms
