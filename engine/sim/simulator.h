#pragma once
// The discrete-event kernel. Deterministic by construction: events are ordered by (time, cpu, sequence number), and
// nothing in here depends on the host (no clocks, no addresses, no thread ids).
//
// Units: simulated time is an integer count of picoseconds (Time), so sub-nanosecond costs from the cost model
// accumulate exactly and identically on every host. Use ns()/us()/ms() to build times, toNs()/toSec() to print them.

#include <cassert>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace mms {

using Time = std::int64_t; // picoseconds

constexpr Time ns(double v) { return static_cast<Time>(v * 1000.0 + (v >= 0 ? 0.5 : -0.5)); }
constexpr Time us(double v) { return ns(v * 1000.0); }
constexpr Time ms(double v) { return ns(v * 1.0e6); }
constexpr double toNs(Time t) { return static_cast<double>(t) / 1000.0; }
constexpr double toUs(Time t) { return static_cast<double>(t) / 1.0e6; }
constexpr double toSec(Time t) { return static_cast<double>(t) / 1.0e12; }

// Checked by long loops so a run can be cancelled (OpenVDB's interrupter idea). Progress is a fraction 0..1.
class Interrupter {
public:
    virtual ~Interrupter() = default;
    virtual bool wasInterrupted() { return false; }
    virtual void progress(double /*fraction*/) { }
};

class Simulator {
public:
    using Callback = void (*)(void* ctx, std::uint64_t arg);

    Time now() const { return m_now; }
    std::uint64_t eventsProcessed() const { return m_events; }

    // Resume a suspended coroutine at time t. `key` orders simultaneous events (the CPU number, or a device id
    // above the CPU range), then insertion order breaks the remaining ties.
    void resumeAt(Time t, std::uint32_t key, std::coroutine_handle<> h)
    {
        assert(h && "resuming a null coroutine handle");
#ifndef NDEBUG
        assert(!h.done() && "resuming a finished coroutine");
        for (const Event& e : m_debugPending)
            assert(e.h != h && "a coroutine scheduled twice");
        m_debugPending.push_back(Event { t, key, 0, h, nullptr, nullptr, 0 });
#endif
        push(Event { t, key, m_seq++, h, nullptr, nullptr, 0 });
    }
    void callAt(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg)
    {
        push(Event { t, key, m_seq++, {}, fn, ctx, arg });
    }

    // Runs until no event is left, stop() is called or the interrupter fires. Returns false when interrupted.
    bool run(Interrupter* interrupter = nullptr);
    void stop() { m_stopped = true; }
    bool empty() const { return m_queue.empty(); }

private:
    struct Event {
        Time t;
        std::uint32_t key;
        std::uint64_t seq;
        std::coroutine_handle<> h;
        Callback fn;
        void* ctx;
        std::uint64_t arg;
    };
    struct Later {
        bool operator()(const Event& a, const Event& b) const
        {
            if (a.t != b.t)
                return a.t > b.t;
            if (a.key != b.key)
                return a.key > b.key;
            return a.seq > b.seq;
        }
    };
    void push(const Event& e) { m_queue.push(e); }

    std::priority_queue<Event, std::vector<Event>, Later> m_queue;
#ifndef NDEBUG
    std::vector<Event> m_debugPending; // debug builds: coroutines scheduled and not yet resumed
#endif
    Time m_now = 0;
    std::uint64_t m_seq = 0;
    std::uint64_t m_events = 0;
    bool m_stopped = false;
};

// Awaitable that suspends the current coroutine until simulated time `at`.
struct ResumeAt {
    Simulator& sim;
    Time at;
    std::uint32_t key;
    bool await_ready() const noexcept { return at <= sim.now(); }
    void await_suspend(std::coroutine_handle<> h) const { sim.resumeAt(at, key, h); }
    void await_resume() const noexcept { }
};

} // namespace mms
