#pragma once
// The discrete-event kernel. Deterministic by construction: events are ordered by (time, cpu, sequence number), and
// nothing in here depends on the host (no clocks, no addresses, no thread ids).
//
// Units: simulated time is an integer count of picoseconds (Time), so sub-nanosecond costs from the cost model
// accumulate exactly and identically on every host. Use ns()/us()/ms() to build times, toNs()/toSec() to print them.

#include <cassert>
#include <coroutine>
#include <cstdint>
#include <utility>
#include <vector>

namespace mms {

using Time = std::int64_t; // picoseconds

// Rounds half away from zero. The sign is copied onto the 0.5 rather than chosen by a compare (the same value for
// every v, -0.0 included; fewer instructions in Sched::burn, which converts a cost at nearly every line of a path).
constexpr Time ns(double v) { return static_cast<Time>(v * 1000.0 + __builtin_copysign(0.5, v)); }
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
    static constexpr std::uint32_t kObserverKey = ~0u; // the key of observeAt's events; no other event uses it

    // Resume a suspended coroutine at time t. `key` orders simultaneous events (the CPU number, or a device id
    // above the CPU range), then insertion order breaks the remaining ties.
    void resumeAt(Time t, std::uint32_t key, std::coroutine_handle<> h)
    {
        assert(h && "resuming a null coroutine handle");
        assert(key < kObserverKey);
#ifndef NDEBUG
        assert(!h.done() && "resuming a finished coroutine");
        for (std::coroutine_handle<> p : m_debugPending)
            assert(p != h && "a coroutine scheduled twice");
        m_debugPending.push_back(h);
#endif
        push(t, key, Payload { m_seq++, h, nullptr, nullptr, 0 });
    }
    void callAt(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg)
    {
        assert(key < kObserverKey);
        push(t, key, Payload { m_seq++, {}, fn, ctx, arg });
    }
    // An observer's event (a recorder's sampling tick), after every other event at time t. It must only look: the
    // simulation goes on without it. run() ends when only observer events are left, dropping them, so the clock
    // stops at the last simulated event as it would unobserved, and eventsProcessed() does not count them.
    void observeAt(Time t, Callback fn, void* ctx, std::uint64_t arg)
    {
        ++m_observers;
        push(t, kObserverKey, Payload { m_seq++, {}, fn, ctx, arg });
    }

    // The inline fast path of an awaiter that would suspend its coroutine with resumeAt(t, key, self) and return
    // to the event loop: true when that event would be the very next one the loop pops (earlier than every
    // pending event, or as early with a smaller key). Nothing can then run between the push and the pop, so the
    // caller may take it at once with takeInline(t) and carry on without suspending: the clock, the event count
    // and the order of everything else are exactly those of the push/pop round trip, without the queue.
    // False every 64 Ki events so that the loop still checks the interrupter of an otherwise inline run.
    bool runsNext(Time t, std::uint32_t key) const
    {
        if (m_events + 1 >= m_inlineUntil)
            return false;
        if (empty())
            return true;
        const Entry& top = m_hasFront ? m_front : heapTop();
        return t < top.t || (t == top.t && key < top.key);
    }
    // runsNext() for two events in a row at (t, key) with nothing pushed between them (a lock attempt and the
    // grant it makes at the same moment): the queue's answer is the same for both, so only the 64 Ki check differs.
    bool runsNextTwice(Time t, std::uint32_t key) const { return m_events + 2 < m_inlineUntil && runsNext(t, key); }
    void takeInline(Time t)
    {
        assert(t >= m_now);
        m_now = t;
        ++m_events;
        ++m_seq; // the sequence number the pushed event would have used
    }

    // Tests: with the inline path off, every resumption goes through the queue (the results must not change).
    void setInline(bool on)
    {
        m_inline = on;
        updateInlineUntil();
    }

    // Runs until no event is left, stop() is called or the interrupter fires. Returns false when interrupted.
    bool run(Interrupter* interrupter = nullptr);
    void stop()
    {
        m_stopped = true;
        updateInlineUntil();
    }
    bool empty() const { return !m_hasFront && m_heap.empty(); }
    std::size_t pending() const { return m_heap.size() + (m_hasFront ? 1 : 0); }

private:
    // The queue is a 4-ary min-heap of 16-byte entries (four children share a cache line), ordered by
    // (t, key, seq). The rest of an event (its sequence number and what to run) waits in a slot of a free-listed
    // array, so sifting moves 16 bytes, not 56, and no event allocates once the arrays have grown.
    //
    // The earliest event may wait outside the heap, in m_front: an event pushed while the front is empty and
    // earlier than the heap's top goes there, and the next pop takes it without a sift. That is the common
    // shape of an event handler's last act -- a lock attempt that schedules the holder's resumption, a timer
    // whose wake-up schedules the switch-in -- which then costs neither a sift-up nor a sift-down. Invariant:
    // when m_hasFront is set, m_front is before every heap entry, so the order is the heap's exactly.
    //
    // Below the front, a short queue is kept as a sorted array instead of a heap (m_sorted): latest first, so the
    // next event is the last entry and a pop is a pop_back. A run on a dozen CPUs keeps about one event per CPU
    // pending; inserting into a dozen sorted entries moves a few 16-byte entries with one compare each, where the
    // heap's pop sifts through two levels of four children and its push sifts up. Past kSortedMax entries (the
    // 144-CPU machines) the array turns into the heap (reversed, a sorted array is a valid heap), and back when
    // the heap has shrunk to kSortedMin. Either way the entries leave in (t, key, seq) order.
    struct Entry {
        Time t;
        std::uint32_t key;
        std::uint32_t slot;
    };
    struct Payload {
        std::uint64_t seq;
        std::coroutine_handle<> h;
        Callback fn;
        void* ctx;
        std::uint64_t arg;
    };
    static constexpr std::size_t kArity = 4;
    static constexpr std::size_t kSortedMax = 32;
    static constexpr std::size_t kSortedMin = 16;

    bool before(const Entry& a, const Entry& b) const
    {
        if (a.t != b.t)
            return a.t < b.t;
        if (a.key != b.key)
            return a.key < b.key;
        return m_slots[a.slot].seq < m_slots[b.slot].seq;
    }
    void push(Time t, std::uint32_t key, const Payload& p)
    {
        std::uint32_t slot;
        if (!m_freeSlots.empty()) {
            slot = m_freeSlots.back();
            m_freeSlots.pop_back();
            m_slots[slot] = p;
        } else {
            slot = static_cast<std::uint32_t>(m_slots.size());
            m_slots.push_back(p);
        }
        Entry e { t, key, slot };
        if (m_hasFront) {
            if (before(e, m_front))
                std::swap(e, m_front);
            heapPush(e);
        } else if (m_heap.empty() || before(e, heapTop())) {
            m_front = e;
            m_hasFront = true;
        } else
            heapPush(e);
    }
    const Entry& heapTop() const { return m_sorted ? m_heap.back() : m_heap.front(); }
    void heapPush(Entry e)
    {
        if (m_sorted) [[likely]] {
            // Insert into the latest-first array: shift the earlier entries one place towards the end. Those
            // strictly earlier in time first, one compare of the times each; then the few at e's very time, by key
            // and sequence number. The same place as one loop over before() finds.
            m_heap.push_back(e);
            Entry* a = m_heap.data();
            std::size_t n = m_heap.size();
            std::size_t i = n - 1;
            while (i > 0 && a[i - 1].t < e.t) {
                a[i] = a[i - 1];
                --i;
            }
            while (i > 0 && a[i - 1].t == e.t && before(a[i - 1], e)) {
                a[i] = a[i - 1];
                --i;
            }
            a[i] = e;
            if (n > kSortedMax) [[unlikely]]
                toHeap();
            return;
        }
        heapSiftUp(e);
    }
    [[gnu::noinline]] void heapSiftUp(Entry e)
    {
        // sift up from a hole at the end
        std::size_t i = m_heap.size();
        m_heap.push_back(e);
        while (i > 0) {
            std::size_t parent = (i - 1) / kArity;
            if (!before(e, m_heap[parent]))
                break;
            m_heap[i] = m_heap[parent];
            i = parent;
        }
        m_heap[i] = e;
    }
    Entry popTop()
    {
        if (m_sorted) {
            Entry top = m_heap.back();
            m_heap.pop_back();
            return top;
        }
        return popHeap();
    }
    Entry popHeap();
    void dropObservers();
    void toHeap();
    void toSorted();

    Entry m_front {};
    bool m_hasFront = false;
    std::vector<Entry> m_heap; // a 4-ary heap, or latest first when m_sorted
    bool m_sorted = true;
    std::vector<Payload> m_slots;
    std::vector<std::uint32_t> m_freeSlots;
#ifndef NDEBUG
    std::vector<std::coroutine_handle<>> m_debugPending; // debug builds: coroutines scheduled and not yet resumed
#endif
    Time m_now = 0;
    std::uint64_t m_seq = 0;
    std::uint64_t m_events = 0;
    std::uint64_t m_observers = 0; // observeAt() events pending
    std::uint64_t m_nextCheck = kCheckEvery;
    bool m_stopped = false;
    bool m_inline = true;
    // runsNext's three conditions in one compare: 0 while inline is off or the run stopped, else m_nextCheck.
    std::uint64_t m_inlineUntil = kCheckEvery;
    void updateInlineUntil() { m_inlineUntil = m_inline && !m_stopped ? m_nextCheck : 0; }
    static constexpr std::uint64_t kCheckEvery = 0x10000;
};

// Awaitable that suspends the current coroutine until simulated time `at`.
struct ResumeAt {
    Simulator& sim;
    Time at;
    std::uint32_t key;
    bool await_ready() const noexcept { return at <= sim.now(); }
    bool await_suspend(std::coroutine_handle<> h) const
    {
        if (sim.runsNext(at, key)) {
            sim.takeInline(at);
            return false;
        }
        sim.resumeAt(at, key, h);
        return true;
    }
    void await_resume() const noexcept { }
};

} // namespace mms
