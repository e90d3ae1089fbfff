// Seed 003's test: vm-scalability case-swap-w-rand, i.e. `usemem -n N --random (MemAvailable + SwapTotal) * 3/4 / N`:
// N processes each write their share of memory in random order, pushing most of it out to swap, then exit. The
// figure of interest is usemem's timing_free, "usecs to free memory": here the duration of each process's
// exit_mmap(), averaged over the processes, and the average duration of one swapcache_free_entries() call.
//
// The fill is fast-forwarded: setup() asks the kernel for the state the fill leaves behind
// (sys::fast_forward_touch_swapping) without simulating its hours of swap-out; only the exit is simulated.
#include "workload/usemem.h"

#include <algorithm>
#include <numeric>

namespace mms {

namespace {
    class Usemem final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            Kernel& k = ctx.k;
            int n = ctx.params.at("processes").get<int>();
            double ratio = ctx.params.at("ratio").get<double>();
            // usemem's size: (MemAvailable + SwapTotal) x ratio / N, from /proc/meminfo.
            const sys::MemInfo mem = sys::meminfo(k);
            auto perProcess
                = static_cast<std::uint32_t>(static_cast<double>(mem.memAvailable + mem.swapTotal) * ratio / n);

            std::vector<std::vector<std::uint32_t>> order(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i) {
                int cpu = i * sys::nr_cpus(k) / n; // the scheduler spreads the processes over the sockets
                Task& t = sys::spawn_process(
                    k, "usemem-" + std::to_string(i), cpu, Rng::mix(ctx.seed, static_cast<std::uint64_t>(i)));
                std::uint32_t start = sys::mmap(k, t, perProcess);
                if (start == sys::MAP_FAILED)
                    throw ProgramError("usemem: mmap: Cannot allocate memory");
                auto& o = order[static_cast<std::size_t>(i)];
                o.resize(perProcess);
                std::iota(o.begin(), o.end(), start);
                shuffle(o, t.rng);
                m_tasks.push_back(&t);
            }
            sys::fast_forward_touch_swapping(k, m_tasks, order, Rng::mix(ctx.seed, 0x05e3e3));
            for (const Task* t : m_tasks)
                m_mappedAtExit += sys::vm_rss_swap(*t);
            m_freeTime.assign(static_cast<std::size_t>(n), 0);
            // Each usemem process frees its memory right after its own fill and times that alone ("usecs to free
            // memory" follows each process's "bytes / usecs" line), and the fills do not end together: the frees
            // begin evenly over `free_spread_ms` (0: all at once).
            const Time spread = ms(ctx.params.at("free_spread_ms").get<double>());
            for (std::size_t i = 0; i < m_tasks.size(); ++i) {
                const Time delay = n > 1 ? spread * static_cast<Time>(i) / (n - 1) : 0;
                sys::start(k, *m_tasks[i], exitProcess(k, *m_tasks[i], delay, m_freeTime[i]));
            }
        }

        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            Time sum = 0, worst = 0;
            for (Time f : m_freeTime) {
                sum += f;
                worst = std::max(worst, f);
            }
            Time end = 0;
            for (Task* t : m_tasks)
                end = std::max(end, t->finished);
            out["free_time_s"] = toSec(sum) / static_cast<double>(std::max<std::size_t>(1, m_freeTime.size()));
            out["free_time_max_s"] = toSec(worst);
            out["elapsed_s"] = toSec(end);
            auto calls = sys::vmstat(ctx.k, "swapcache_free_entries_calls");
            auto freeTime = static_cast<Time>(sys::vmstat(ctx.k, "swapcache_free_entries_ps"));
            out["free_entries_calls"] = static_cast<double>(calls);
            out["free_entries_call_us"] = calls ? toUs(freeTime) / static_cast<double>(calls) : 0.0;
            auto slots = sys::vmstat(ctx.k, "swapcache_free_entries_slots");
            out["free_entry_us"] = slots ? toUs(freeTime) / static_cast<double>(slots) : 0.0;
            out["swapouts"] = static_cast<double>(sys::vmstat(ctx.k, "pswpout"));
            Time sys = 0;
            for (Task* t : m_tasks)
                sys += t->sysTime;
            out["sys_s"] = toSec(sys);
        }

    private:
        static Co<> exitProcess(Kernel& k, Task& t, Time delay, Time& freeTime)
        {
            if (delay > 0)
                co_await sys::nanosleep(k, t, delay);
            co_await sys::flush(k, t);
            Time start = sys::now(k);
            co_await sys::exit(k, t);
            co_await sys::flush(k, t);
            freeTime = sys::now(k) - start;
        }

        // Fisher-Yates with the task's own stream. The draws do not depend on the array, so they are made a
        // batch ahead and the random elements prefetched (host-side only: the same draws, swaps and order; at
        // full size each process's order is 6 MiB and every swap a cache miss).
        static void shuffle(std::vector<std::uint32_t>& o, Rng& rng)
        {
            constexpr std::size_t kAhead = 16;
            std::size_t r[kAhead];
            for (auto j = static_cast<std::uint32_t>(o.size()); j > 1;) {
                std::size_t n = std::min<std::size_t>(kAhead, j - 1);
                for (std::size_t m = 0; m < n; ++m) {
                    r[m] = static_cast<std::size_t>(rng.below(j - m));
                    __builtin_prefetch(o.data() + r[m], 1);
                }
                for (std::size_t m = 0; m < n; ++m, --j)
                    std::swap(o[j - 1], o[r[m]]);
            }
        }

    public:
        // exit_mmap() zaps every present PTE (rss) and swap entry (swapents): the share zapped so far.
        double progress() const override
        {
            if (m_mappedAtExit == 0)
                return -1.0;
            std::uint64_t left = 0;
            for (const Task* t : m_tasks)
                left += sys::vm_rss_swap(*t);
            return 1.0 - static_cast<double>(left) / static_cast<double>(m_mappedAtExit);
        }

    private:
        std::vector<Task*> m_tasks;
        std::vector<Time> m_freeTime;
        std::uint64_t m_mappedAtExit = 0;
    };
} // namespace

WorkloadKind usememKind()
{
    return WorkloadKind {
        "usemem",
        "vm-scalability case-swap-w-rand: N processes fill (MemAvailable + SwapTotal) x ratio at random, then exit (seed 003)",
        {
            { "processes", ParamKind::Int, 16, false, "number of usemem processes (-n)", 1, 4096 },
            { "ratio", ParamKind::Double, 0.75, false, "fraction of MemAvailable + SwapTotal filled", 0.01, 0.95 },
            { "free_spread_ms", ParamKind::Double, 0.0, true,
                "the span over which the processes' frees begin, evenly, ms (each frees after its own fill; 0: all "
                "at once)",
                0, 1e9 },
        },
        [] { return std::unique_ptr<Workload>(new Usemem); },
        // The processes map (RAM + swap) x ratio; while they are filled, the set-up holds each one's random order
        // of its pages (4 bytes a page) and the fill's ring of resident pages (8 bytes a page of RAM).
        [](const nlohmann::json& q, std::uint64_t ramPages, std::uint64_t swapPages) {
            const auto mapped
                = static_cast<std::uint64_t>(static_cast<double>(ramPages + swapPages) * q.at("ratio").get<double>());
            return WorkloadFootprint { mapped, 0, mapped * sizeof(std::uint32_t) + ramPages * sizeof(std::uint64_t) };
        },
    };
}

} // namespace mms
