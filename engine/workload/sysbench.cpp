// Seed 001's load: sysbench 0.4 --test=oltp against MySQL on the same machine. Two processes: mysqld, one
// connection thread per client thread (one mm, so a TLB shootdown reaches every CPU running any of them), and
// sysbench, whose threads each hold one loopback TCP connection. A transaction is `queries` statements; for each, the
// client thread builds the statement and sends it, and blocks in recv() until the result comes back; the connection
// thread, woken by the statement, does its share of the transaction's CPU work while it writes the memory it
// allocated from its malloc arena (MEM_ROOT blocks, sort and join buffers: a size drawn per statement), frees it when
// the statement ends, sends the result and blocks in recv() for the next. Whether a free gives memory back to the
// kernel, and what growing it again costs, is decided by the arena model (workload/glibcarena.h) and the toggles; no
// per-transaction count of system calls or faults is fixed here.
//
// throughput = transactions whose last result reached the client in the measured window / window length (sysbench's
// "transactions/sec").
#include "workload/sysbench.h"

#include "workload/glibcarena.h"
#include "workload/usersync.h"

#include <algorithm>
#include <cmath>

namespace mms {

namespace {
    struct Params {
        int threads = 4;
        int queries = 18;
        double txCpuNs = 0;
        double memMean = 0; // bytes
        double memMax = 0;
        double touchFraction = 1.0;
        std::uint64_t heapBase = 0;
        ArenaParams arena;
        UserSpace user;
        int appLocksPerQuery = 0;
        double appLockHoldNs = 0;
        bool innodbMutex = true;
        double clientCpuNs = 0; // per statement
        Time warmup = 0;
        Time end = 0;
    };

    // Exponentially distributed statement memory, capped (inverse-CDF sampling on our own generator).
    std::uint64_t drawQueryMemory(Rng& rng, const Params& p)
    {
        double u = rng.uniform();
        double b = -p.memMean * std::log(1.0 - u);
        return static_cast<std::uint64_t>(std::min(b, p.memMax));
    }

    struct Counters {
        std::uint64_t transactions = 0; // completed inside the window
        std::uint64_t trims = 0; // heap_trim() calls that shrank a heap (whole run)
        std::uint64_t growSyscalls = 0; // grow_heap() calls that needed mprotect (whole run)
    };

    // mysqld's global lock (InnoDB's kernel_mutex and friends): InnoDB 5.0's own mutex, or a glibc pthread mutex
    // (workload/usersync.h). The contended paths of both are futex calls, which in 2.6.20 take mmap_sem for read.
    class AppLock {
    public:
        AppLock(Kernel& k, bool innodb)
            : m_pthread(k)
            , m_array(k)
            , m_innodb(k, m_array)
            , m_isInnodb(innodb)
        {
        }
        Co<> lock(Kernel& k, Task& t) { return m_isInnodb ? m_innodb.enter(k, t) : m_pthread.lock(k, t); }
        Co<> unlock(Kernel& k, Task& t) { return m_isInnodb ? m_innodb.exit(k, t) : m_pthread.unlock(k, t); }
        const InnodbMutex& innodb() const { return m_innodb; }

    private:
        LowLevelLock m_pthread;
        InnodbSyncArray m_array;
        InnodbMutex m_innodb;
        bool m_isInnodb;
    };

    // A client connection: statements one way, results the other.
    struct Connection {
        Connection(Kernel& k, const Task& client, const Task& server)
            : statements(k, client)
            , results(k, server)
        {
        }
        sys::Socket statements;
        sys::Socket results;
    };

    // One mysqld connection thread: a statement at a time, as long as its client sends them.
    Co<> connectionThread(Kernel& k, Task& t, const Params& p, Counters& c, AppLock& appLock, Connection& conn)
    {
        GlibcArena arena(k, t, p.arena, p.user, p.heapBase);
        // The connection's long-lived memory (THD, net buffers, caches) is allocated and written once.
        std::uint64_t base = co_await arena.malloc(t, p.heapBase);
        co_await arena.touch(t, base, p.heapBase, 0.0);
        double queryCpu = p.txCpuNs / p.queries;
        while (co_await sys::recv(k, t, conn.statements)) {
            std::uint64_t bytes = drawQueryMemory(t.rng, p);
            double cpu = queryCpu * t.rng.jitter(0.2);
            std::uint64_t off = co_await arena.malloc(t, bytes);
            // The statement's work is spread over the memory it writes; part of it runs under mysqld's lock.
            double locked = std::min(cpu, p.appLockHoldNs * p.appLocksPerQuery);
            double free = cpu - locked;
            // Buffers are allocated whole (sort_buffer_size, read_buffer_size) but written only as far as the
            // statement's rows reach. Of each page's slice of the work, writing the page is a memory stream (a
            // memset's: 4 KiB stored); the rest is the statement's own work in the caches.
            auto written = static_cast<std::uint64_t>(static_cast<double>(bytes) * p.touchFraction);
            double slice = free / static_cast<double>((written + kPageSize - 1) / kPageSize + 1);
            double write = std::min(slice, sys::machine_costs(k).userMemsetPageNs);
            co_await arena.touch(t, off, written, write, slice - write);
            sys::compute(t, slice);
            for (int l = 0; l < p.appLocksPerQuery; ++l) {
                co_await appLock.lock(k, t);
                sys::compute(t, locked / p.appLocksPerQuery);
                co_await appLock.unlock(k, t);
            }
            co_await arena.free(t);
            co_await sys::send(k, t, conn.results);
        }
        c.trims += arena.trims();
        c.growSyscalls += arena.grows();
    }

    // One sysbench thread: transactions until the measured window ends, then it closes its connection. A lost
    // connection (mysqld killed) ends the thread too, as sysbench's error handling does.
    Co<> clientThread(Kernel& k, Task& t, const Params& p, Counters& c, Connection& conn)
    {
        bool connected = true;
        while (sys::now(k) < p.end) {
            for (int q = 0; q < p.queries && connected; ++q) {
                sys::compute(t, p.clientCpuNs * t.rng.jitter(0.2)); // build the statement, read the last result
                co_await sys::send(k, t, conn.statements);
                connected = co_await sys::recv(k, t, conn.results);
            }
            if (!connected)
                break;
            co_await sys::flush(k, t);
            Time now = sys::now(k);
            if (now >= p.warmup && now <= p.end) {
                ++c.transactions;
                ++t.opsDone;
            }
        }
        co_await sys::shutdown(k, t, conn.statements);
    }

    class SysbenchOltp final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            m_sim = &ctx.sim;
            const auto& j = ctx.params;
            m_p.user = ctx.user;
            m_p.threads = j.at("threads").get<int>();
            m_p.queries = j.at("queries").get<int>();
            m_p.txCpuNs = j.at("tx_cpu_us").get<double>() * 1000.0;
            m_p.memMean = static_cast<double>(j.at("query_memory").get<std::uint64_t>());
            m_p.memMax = static_cast<double>(j.at("query_memory_max").get<std::uint64_t>());
            m_p.touchFraction = j.at("touch_fraction").get<double>();
            m_p.heapBase = j.at("heap_base").get<std::uint64_t>();
            m_p.arena.trimThreshold = j.at("trim_threshold").get<std::uint64_t>();
            m_p.arena.topPad = j.at("top_pad").get<std::uint64_t>();
            m_p.appLocksPerQuery = j.at("app_locks").get<int>();
            m_p.appLockHoldNs = j.at("app_lock_hold_us").get<double>() * 1000.0;
            m_p.innodbMutex = j.at("innodb_mutex").get<bool>();
            m_p.clientCpuNs = j.at("client_cpu_us").get<double>() * 1000.0;
            m_p.warmup = ms(j.at("warmup_s").get<double>() * 1000.0);
            m_p.end = m_p.warmup + ms(j.at("duration_s").get<double>() * 1000.0);
            m_window = m_p.end - m_p.warmup;
            m_appLock = std::make_unique<AppLock>(ctx.k, m_p.innodbMutex);
            // Two processes, each a leader and its threads: mysqld's connection threads share one address space,
            // sysbench's another.
            Task* mysqld = nullptr;
            Task* sysbench = nullptr;
            auto thread = [&ctx](Task*& leader, const std::string& name, int i, std::uint64_t stream) -> Task& {
                int cpu = i % sys::nr_cpus(ctx.k);
                std::uint64_t seed = Rng::mix(ctx.seed, stream);
                Task& t = leader ? sys::spawn_thread(ctx.k, *leader, name + "-" + std::to_string(i), cpu, seed)
                                 : sys::spawn_process(ctx.k, name + "-" + std::to_string(i), cpu, seed);
                leader = leader ? leader : &t;
                return t;
            };
            for (int i = 0; i < m_p.threads; ++i) {
                auto n = static_cast<std::uint64_t>(i);
                Task& server = thread(mysqld, "mysqld", i, n);
                Task& client = thread(sysbench, "sysbench", i, n + static_cast<std::uint64_t>(m_p.threads));
                Connection& conn = *m_connections.emplace_back(std::make_unique<Connection>(ctx.k, client, server));
                m_tasks.push_back(&server);
                sys::start(ctx.k, server, connectionThread(ctx.k, server, m_p, m_counters, *m_appLock, conn));
                sys::start(ctx.k, client, clientThread(ctx.k, client, m_p, m_counters, conn));
            }
        }
        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            Time user = 0, sys = 0;
            for (Task* t : m_tasks) {
                user += t->userTime;
                sys += t->sysTime;
            }
            out["throughput"] = static_cast<double>(m_counters.transactions) / toSec(m_window);
            out["transactions"] = static_cast<double>(m_counters.transactions);
            out["heap_trims"] = static_cast<double>(m_counters.trims);
            out["heap_grow_syscalls"] = static_cast<double>(m_counters.growSyscalls);
            out["user_s"] = toSec(user);
            out["sys_s"] = toSec(sys);
            out["elapsed_s"] = toSec(sys::now(ctx.k));
            out["idle_s"] = toSec(sys::idle_time(ctx.k));
            if (m_p.innodbMutex) { // SHOW ENGINE INNODB STATUS's mutex spin waits, yields and OS waits, per second
                const InnodbMutex& m = m_appLock->innodb();
                const double seconds = toSec(sys::now(ctx.k));
                out["app_lock_spin_waits_per_s"] = static_cast<double>(m.spinWaits()) / seconds;
                out["app_lock_yields_per_s"] = static_cast<double>(m.yields()) / seconds;
                out["app_lock_os_waits_per_s"] = static_cast<double>(m.osWaits()) / seconds;
            }
        }

        // Simulated time against the end of the run (the threads run for a fixed simulated time).
        double progress() const override
        {
            return timeProgress(m_sim, m_p.end);
        }

    private:
        const Simulator* m_sim = nullptr;
        Params m_p;
        Counters m_counters;
        std::unique_ptr<AppLock> m_appLock;
        std::vector<std::unique_ptr<Connection>> m_connections;
        Time m_window = 1;
        std::vector<Task*> m_tasks; // mysqld's threads: user_s and sys_s are theirs
    };
} // namespace

WorkloadKind sysbenchOltpKind()
{
    return WorkloadKind {
        "sysbench-oltp",
        "MySQL sysbench OLTP: N connection threads in one process; statements allocate through glibc per-thread arenas "
        "(seed 001)",
        {
            { "threads", ParamKind::Int, 4, false, "client (= mysqld connection) threads", 1, 1024 },
            { "queries", ParamKind::Int, 18, false,
                "statements per transaction (sysbench 0.4 oltp: 10 point selects, 4 ranges, 2 updates, delete, insert)",
                1, 1000 },
            { "tx_cpu_us", ParamKind::Double, 1100.0, false, "mysqld's user CPU per transaction, us", 1, 1e9 },
            { "query_memory", ParamKind::Size, "48KiB", false,
                "mean memory a statement allocates and writes (exponential)", 0, 1e12 },
            { "query_memory_max", ParamKind::Size, "2MiB", false, "cap on one statement's memory", 0, 1e12 },
            { "touch_fraction", ParamKind::Double, 1.0, false, "part of a statement's memory it writes", 0, 1 },
            { "heap_base", ParamKind::Size, "256KiB", false, "long-lived memory per connection in its arena", 0, 1e12 },
            { "trim_threshold", ParamKind::Size, "128KiB", false, "M_TRIM_THRESHOLD", 0, 1e12 },
            { "top_pad", ParamKind::Size, "128KiB", false, "M_TOP_PAD", 0, 1e12 },
            { "app_locks", ParamKind::Int, 2, false,
                "times a statement takes mysqld's global lock (InnoDB kernel_mutex-like)", 0, 1000 },
            { "app_lock_hold_us", ParamKind::Double, 3.0, false, "CPU time per hold of that lock, us", 0, 1e9 },
            { "innodb_mutex", ParamKind::Bool, true, false,
                "that lock is InnoDB 5.0's mutex (spin, sched_yield, wait array, an event whose set wakes every "
                "waiter); false: a glibc pthread mutex (a futex wait, one waiter woken)" },
            { "client_cpu_us", ParamKind::Double, 11.0, false,
                "sysbench's user CPU per statement, us (build it, read the result)", 0, 1e9 },
            { "warmup_s", ParamKind::Double, 0.1, true, "simulated seconds before the measured window", 0, 1e6 },
            { "duration_s", ParamKind::Double, 1.0, true, "simulated seconds measured", 1e-4, 1e6 },
        },
        [] { return std::unique_ptr<Workload>(new SysbenchOltp); },
    };
}

} // namespace mms
