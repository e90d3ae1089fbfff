// ebizzy (Val Henson), as Rik van Riel ran it beside sysbench in seed 001's thread: one process allocates `chunks`
// chunks of `chunk_size` and starts N threads; each thread repeatedly picks a chunk at random, mallocs a copy,
// memcpy()s the chunk into it, binary-searches the copy for a random key and frees it (search_mem()). One such
// round is a record. With glibc's dynamic mmap threshold the copies come from the thread's arena after the first
// free, so every free of a copy trims the heap and the next malloc regrows it: the same shrink/regrow traffic as
// MySQL's, at a far higher rate (workload/glibcarena.h). Reported like ebizzy plus /usr/bin/time: records/s over the
// run, elapsed, user and sys.
#include "workload/ebizzy.h"

#include "workload/glibcarena.h"

#include <cmath>

namespace mms {

namespace {
    constexpr std::uint64_t kRecordSize = 64; // ebizzy's default record size (-r)

    struct Params {
        int threads = 4;
        int chunks = 10;
        std::uint64_t chunkSize = 0;
        ArenaParams arena;
        Time end = 0;
        std::uint32_t chunkStart = 0; // first vpn of the chunks (allocated by main())
        UserSpace user;
    };

    Co<> searchThread(Kernel& k, Task& t, const Params& p, std::uint64_t& records)
    {
        GlibcArena arena(k, t, p.arena, p.user, 0);
        const CostModel& c = sys::machine_costs(k);
        double compares = std::log2(static_cast<double>(p.chunkSize / kRecordSize));
        while (sys::now(k) < p.end) {
            t.rng.below(static_cast<std::uint64_t>(p.chunks)); // the chunk: all are resident, so which one is free
            std::uint64_t copy = co_await arena.malloc(t, p.chunkSize);
            // memcpy: read the source (mapped, no faults), write the copy; a 4 KiB copy per page.
            co_await arena.touch(t, copy, p.chunkSize, c.copyPageNs);
            sys::compute(t, compares * 2.0 * c.lineSameSocketNs); // bsearch: a cache miss per probe
            co_await arena.free(t);
            co_await sys::preempt(k, t);
            ++records;
            ++t.opsDone;
        }
    }

    // main(): allocate and fill the chunks, then start the threads.
    Co<> ebizzyMain(Kernel& k, Task& t, Params& p, std::vector<Task*>& threads, std::uint64_t& records)
    {
        const std::uint64_t bytes = static_cast<std::uint64_t>(p.chunks) * p.chunkSize;
        p.chunkStart = sys::mmap(k, t, bytes / kPageSize);
        if (p.chunkStart == sys::MAP_FAILED)
            throw ProgramError("ebizzy: mmap of the chunks: Cannot allocate memory");
        const auto pages = static_cast<std::uint32_t>(bytes / kPageSize);
        for (std::uint32_t i = 0; i < pages; ++i) {
            co_await sys::touch(k, t, p.chunkStart + i, sys::Access::Write);
            sys::stream(k, t, p.chunkStart + i, sys::machine_costs(k).userMemsetPageNs); // fill with random records
        }
        co_await sys::flush(k, t);
        p.end += sys::now(k);
        for (int i = 0; i < p.threads; ++i) {
            Task& th = sys::spawn_thread(k, t, "ebizzy-" + std::to_string(i), i % sys::nr_cpus(k),
                Rng::mix(t.rng.next(), static_cast<std::uint64_t>(i)));
            threads.push_back(&th);
            sys::start(k, th, searchThread(k, th, p, records));
        }
    }

    class Ebizzy final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            m_sim = &ctx.sim;
            const auto& j = ctx.params;
            m_p.user = ctx.user;
            m_p.threads = j.at("threads").get<int>();
            m_p.chunks = j.at("chunks").get<int>();
            m_p.chunkSize = j.at("chunk_size").get<std::uint64_t>();
            m_p.arena.trimThreshold = j.at("trim_threshold").get<std::uint64_t>();
            m_p.arena.topPad = j.at("top_pad").get<std::uint64_t>();
            m_p.end = ms(j.at("duration_s").get<double>() * 1000.0);
            m_duration = m_p.end;
            Task& t = sys::spawn_process(ctx.k, "ebizzy", 0, ctx.seed);
            m_main = &t;
            sys::start(ctx.k, t, ebizzyMain(ctx.k, t, m_p, m_threads, m_records));
        }
        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            Time user = m_main->userTime, sys = m_main->sysTime, end = m_main->finished;
            for (Task* t : m_threads) {
                user += t->userTime;
                sys += t->sysTime;
                end = std::max(end, t->finished);
            }
            out["records"] = static_cast<double>(m_records);
            out["records_per_s"] = static_cast<double>(m_records) / toSec(m_duration);
            out["user_s"] = toSec(user);
            out["sys_s"] = toSec(sys);
            out["elapsed_s"] = toSec(end);
            (void)ctx;
        }

        // Simulated time against the end of the run (the threads run for a fixed simulated time).
        double progress() const override
        {
            return timeProgress(m_sim, m_p.end);
        }

    private:
        const Simulator* m_sim = nullptr;
        Params m_p;
        Time m_duration = 1;
        Task* m_main = nullptr;
        std::vector<Task*> m_threads;
        std::uint64_t m_records = 0;
    };
} // namespace

WorkloadKind ebizzyKind()
{
    return WorkloadKind {
        "ebizzy",
        "ebizzy: N threads malloc a copy of a random chunk, memcpy, bsearch, free (seed 001)",
        {
            { "threads", ParamKind::Int, 4, false, "search threads (-t)", 1, 1024 },
            { "chunks", ParamKind::Int, 10, false, "memory chunks (-n)", 1, 100000 },
            { "chunk_size", ParamKind::Size, "512KiB", false, "chunk size (-s)", 4096, 1e12 },
            { "trim_threshold", ParamKind::Size, "128KiB", false, "M_TRIM_THRESHOLD", 0, 1e12 },
            { "top_pad", ParamKind::Size, "128KiB", false, "M_TOP_PAD", 0, 1e12 },
            { "duration_s", ParamKind::Double, 1.0, true, "simulated seconds the threads run (-S)", 1e-4, 1e6 },
        },
        [] { return std::unique_ptr<Workload>(new Ebizzy); },
    };
}

} // namespace mms
