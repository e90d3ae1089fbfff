// Seed 000's test program: N processes, each mmap(size) and `loops` times { memset(buf); madvise(buf, advice) },
// then exit. A parent forks them one after another and waits for them (`fork_children`), so each starts when its
// fork returns, on the CPU the scheduler balances it to: their phases differ by what the forks cost, and drift from
// there through their own faults and reclaim. /usr/bin/time of the whole run gives user, sys and elapsed; swapins
// are /proc/vmstat pswpin; memset_mbps is what usemem (vm-scalability's swap-w-seq) prints and sums over its
// processes for the same sequential write: each process's bytes over the time its memsets took, added up.
#include "workload/memsetmadvise.h"

namespace mms {

namespace {
    constexpr int kTouchBatch = 64; // pages memset between cond_resched() checks of the user loop

    // `memsetTime`: the time this process spent in its memsets, for memset_mbps.
    Co<> process(
        Kernel& k, Task& t, std::uint32_t pages, int loops, Advice advice, PageContent filled, Time& memsetTime)
    {
        const double memsetPage = sys::machine_costs(k).userMemsetPageNs;
        std::uint32_t start = sys::mmap(k, t, pages);
        if (start == sys::MAP_FAILED)
            throw ProgramError("memset+madvise: mmap: Cannot allocate memory");
        for (int loop = 0; loop < loops; ++loop) {
            const Time from = sys::clock(k, t);
            for (std::uint32_t i = 0; i < pages; ++i) {
                co_await sys::touch(k, t, start + i, sys::Access::Write);
                sys::stream(k, t, start + i, memsetPage);
                sys::fill(k, t, start + i, filled);
                ++t.opsDone;
                if ((i + 1) % kTouchBatch == 0)
                    co_await sys::preempt(k, t);
            }
            memsetTime += sys::clock(k, t) - from;
            co_await sys::madvise(k, t, start, pages, advice);
        }
        co_await sys::exit(k, t);
    }

    class MemsetMadvise final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            int n = ctx.params.at("processes").get<int>();
            auto bytes = ctx.params.at("size").get<std::uint64_t>();
            auto pages = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, bytes / kPageSize));
            int loops = ctx.params.at("loops").get<int>();
            m_plannedOps = static_cast<std::uint64_t>(n) * pages * static_cast<std::uint64_t>(loops);
            Kernel& k = ctx.k;
            const Advice advice = ctx.user.advice;
            const PageContent filled = ctx.params.at("fill_byte").get<int>() == 0 ? PageContent::Zero : PageContent::Same;
            auto seed = [base = ctx.seed](int i) { return Rng::mix(base, static_cast<std::uint64_t>(i)); };
            m_pageBytes = static_cast<double>(pages) * kPageSize * loops;
            m_memsetTime.assign(static_cast<std::size_t>(n), 0);
            auto body = [this, &k, pages, loops, advice, filled](Task& t, int i) {
                return process(k, t, pages, loops, advice, filled, m_memsetTime[static_cast<std::size_t>(i)]);
            };
            if (!ctx.params.at("fork_children").get<bool>()) { // all at the same instant, one per CPU in turn
                for (int i = 0; i < n; ++i) {
                    Task& t = sys::spawn_process(k, "memset-" + std::to_string(i), i % sys::nr_cpus(k), seed(i));
                    m_tasks.push_back(&t);
                    sys::start(k, t, body(t, i));
                }
                return;
            }
            Task& parent = sys::spawn_process(k, "memset", 0, seed(n));
            m_tasks.push_back(&parent);
            const Time gap = us(ctx.params.at("fork_gap_us").get<double>());
            sys::start(k, parent, forkChildren(k, parent, n, gap, seed, body));
        }
        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            ownTimes(m_tasks, out);
            out["swapins"] = static_cast<double>(sys::vmstat(ctx.k, "pswpin"));
            out["swapouts"] = static_cast<double>(sys::vmstat(ctx.k, "pswpout"));
            double mbps = 0; // usemem's "bytes / usecs" of each process, summed (MB: 1e6 bytes)
            for (Time spent : m_memsetTime)
                if (spent > 0)
                    mbps += m_pageBytes / 1e6 / toSec(spent);
            out["memset_mbps"] = mbps;
        }

        double progress() const override
        {
            std::uint64_t done = 0; // pages memset, over all processes and loops
            for (const Task* t : m_tasks)
                done += t->opsDone;
            return m_plannedOps ? static_cast<double>(done) / static_cast<double>(m_plannedOps) : -1.0;
        }

    private:
        // The parent: fork() n times (each child runs `body`), sleeping `gap` between two forks (a launcher such as
        // `for ...; do ./test & sleep ...; done`), then wait() for them -- asleep, so its task may end.
        Co<> forkChildren(Kernel& k, Task& parent, int n, Time gap, std::function<std::uint64_t(int)> seed,
            std::function<Co<>(Task&, int)> body)
        {
            for (int i = 0; i < n; ++i) {
                if (i > 0 && gap > 0)
                    co_await sys::nanosleep(k, parent, gap);
                co_await sys::fork_process(k, parent, "memset-" + std::to_string(i), seed(i), [&](Task& child) {
                    m_tasks.push_back(&child);
                    return body(child, i);
                });
            }
        }

        std::vector<Task*> m_tasks;
        std::vector<Time> m_memsetTime; // by process
        double m_pageBytes = 0; // bytes one process memsets over all its loops
        std::uint64_t m_plannedOps = 0;
    };
} // namespace

WorkloadKind memsetMadviseKind()
{
    return WorkloadKind {
        "memset-madvise",
        "N processes, each mmap(size) + `loops` x { memset; madvise(advice) } (seed 000)",
        {
            { "processes", ParamKind::Int, 12, false, "number of processes", 1, 4096 },
            { "size", ParamKind::Size, "512MiB", true, "mmap size per process", 4096, 1e13 },
            { "loops", ParamKind::Int, 5, false, "memset+madvise iterations", 1, 1000 },
            // The post does not give memset's byte. GUESS 1: a test of MADV_FREE writes a non-zero value, so that a
            // page freed under it (read back as zeros) would show. It matters only to zram, where a zero page is
            // stored as a flag and any other byte is compressed.
            { "fill_byte", ParamKind::Int, 1, false, "the byte memset writes (0: zero pages)", 0, 255 },
            { "fork_children", ParamKind::Bool, true, false,
                "a parent forks the processes one after another (false: all start at the same instant)" },
            { "fork_gap_us", ParamKind::Double, 0.0, true,
                "the parent's sleep between two forks, microseconds, scaled as the memsets it offsets (0: one fork "
                "right after another)",
                0, 1e9 },
        },
        [] { return std::unique_ptr<Workload>(new MemsetMadvise); },
        [](const nlohmann::json& q, std::uint64_t, std::uint64_t) {
            return WorkloadFootprint {
                q.at("processes").get<std::uint64_t>() * (q.at("size").get<std::uint64_t>() / kPageSize), 0, 0 };
        },
    };
}

} // namespace mms
