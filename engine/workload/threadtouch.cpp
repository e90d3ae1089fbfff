// Jakub Jelinek's microbenchmark of the MADV_FREE thread (2007-04, <20070403202937.GE355@devserv.devel.redhat.com>,
// quoted in <4612DCC6.7000504@cosmosbay.com>): one process of `threads` threads; each, `loops` times, touches
// `pages` pages of its own region and gives them back -- in Jakub's and Andrew Morton's form as glibc's heap
// shrink and grow do it, mmap(PROT_NONE, MAP_FIXED) then mprotect(PROT_READ | PROT_WRITE), both with mmap_sem for
// write; in Rik van Riel's form with madvise (the variant's advice: MADV_DONTNEED, or his lazy MADV_FREE).
// `time` of the whole run gives real, user and sys; vmstat gives idle and context switches.
//
// Each thread's region is its own (a glibc arena per thread): GUESS, the quoted program is not in the thread; the
// mails say only "each loop touches 128 pages". A touch is one store per page: its write fault, or where MADV_FREE left
// the page mapped, the page walk that sets the dirty and accessed bits again (CostModel::adBitWalkNs).
#include "workload/threadtouch.h"

namespace mms {

namespace {
    struct Params {
        int threads = 32;
        std::uint32_t pages = 128;
        int loops = 1000;
        int cpus = 0; // taskset -c 0-(cpus-1); 0: every CPU
        bool mmapMprotect = false; // give the pages back with mmap(PROT_NONE) + mprotect, else madvise
        Advice advice = Advice::DontNeed;
    };

    Co<> thread(Kernel& k, Task& t, const Params& p, std::uint32_t start)
    {
        for (int loop = 0; loop < p.loops; ++loop) {
            for (std::uint32_t i = 0; i < p.pages; ++i) {
                co_await sys::touch(k, t, start + i, sys::Access::Write);
                ++t.opsDone;
            }
            if (p.mmapMprotect) {
                co_await sys::mmap_prot_none(k, t, start, p.pages);
                co_await sys::mprotect(k, t, start, p.pages);
            } else
                co_await sys::madvise(k, t, start, p.pages, p.advice);
            co_await sys::preempt(k, t);
        }
    }

    // main(): each thread's region, then the threads (main runs the first one's loop itself).
    Co<> threadMain(Kernel& k, Task& t, const Params& p, std::vector<Task*>& threads)
    {
        std::vector<std::uint32_t> regions;
        for (int i = 0; i < p.threads; ++i) {
            const std::uint32_t start = sys::mmap(k, t, p.pages);
            if (start == sys::MAP_FAILED)
                throw ProgramError("thread-touch: mmap: Cannot allocate memory");
            regions.push_back(start);
        }
        for (int i = 1; i < p.threads; ++i) {
            Task& th = sys::spawn_thread(k, t, "touch-" + std::to_string(i), i % sys::nr_cpus(k),
                Rng::mix(t.rng.next(), static_cast<std::uint64_t>(i)));
            threads.push_back(&th);
            sys::start(k, th, thread(k, th, p, regions[static_cast<std::size_t>(i)]));
        }
        co_await thread(k, t, p, regions.front());
    }

    class ThreadTouch final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            const auto& j = ctx.params;
            m_p.threads = j.at("threads").get<int>();
            m_p.pages = j.at("pages").get<std::uint32_t>();
            m_p.loops = j.at("loops").get<int>();
            m_p.mmapMprotect = j.at("mmap_mprotect").get<bool>();
            m_p.advice = ctx.user.advice;
            m_p.cpus = j.at("taskset_cpus").get<int>();
            Task& main = sys::spawn_process(ctx.k, "touch-0", 0, ctx.seed);
            sys::sched_setaffinity(ctx.k, main, 0, m_p.cpus);
            m_tasks.push_back(&main);
            sys::start(ctx.k, main, threadMain(ctx.k, main, m_p, m_tasks));
        }

        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            ownTimes(m_tasks, out);
            const double idle = toSec(sys::idle_time(ctx.k));
            out["idle_s"] = idle;
            // vmstat's id column over the run: idle CPU time of all CPUs' time (every CPU, taskset or not).
            const double cpuTime = out["elapsed_s"] * sys::nr_cpus(ctx.k);
            out["idle_pct"] = cpuTime > 0 ? 100.0 * std::min(idle, cpuTime) / cpuTime : 0.0;
        }

        double progress() const override
        {
            std::uint64_t done = 0;
            for (const Task* t : m_tasks)
                done += t->opsDone;
            const double planned = double(m_p.threads) * m_p.pages * m_p.loops;
            return planned > 0 ? double(done) / planned : -1.0;
        }

    private:
        Params m_p;
        std::vector<Task*> m_tasks;
    };
} // namespace

WorkloadKind threadTouchKind()
{
    return WorkloadKind {
        "thread-touch",
        "one process of N threads, each `loops` x { touch its pages; give them back } (the MADV_FREE thread's "
        "microbenchmark)",
        {
            { "threads", ParamKind::Int, 32, false, "threads of the one process", 1, 4096 },
            { "pages", ParamKind::Int, 128, false, "pages each thread touches per loop (its own region)", 1, 1 << 20 },
            { "loops", ParamKind::Int, 1000, true, "touch-and-give-back iterations of each thread", 1, 1e7 },
            { "taskset_cpus", ParamKind::Int, 0, false,
                "run the process on CPUs 0..N-1 only (taskset -c 0-(N-1); 0: every CPU)", 0, 4096 },
            { "mmap_mprotect", ParamKind::Bool, false, false,
                "a loop gives the pages back with mmap(PROT_NONE, MAP_FIXED) + mprotect(PROT_READ|PROT_WRITE), as "
                "glibc's heap shrink and grow do (false: madvise with the variant's advice)" },
        },
        [] { return std::unique_ptr<Workload>(new ThreadTouch); },
        [](const nlohmann::json& q, std::uint64_t, std::uint64_t) {
            return WorkloadFootprint { q.at("threads").get<std::uint64_t>() * q.at("pages").get<std::uint64_t>(), 0, 0 };
        },
    };
}

} // namespace mms
