#pragma once
// The discrete-event kernel. Deterministic by construction: events are ordered by (time, cpu, sequence number), and
// nothing in here depends on the host (no clocks, no addresses, no thread ids).
//
// Units: simulated time is an integer count of picoseconds (Time), so sub-nanosecond costs from the cost model
// accumulate exactly and identically on every host. Use ns()/us()/ms() to build times, toNs()/toSec() to print them.

#include "sim/radixqueue.h"

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
    static constexpr std::uint32_t kKeyLimit = (1u << 24) - 1; // every other key lies below it (push() checks)

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
        push(t, key, nullptr, h.address(), 0);
    }
    void callAt(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg)
    {
        assert(key < kObserverKey && fn);
        push(t, key, fn, ctx, arg);
    }
    // An observer's event (a recorder's sampling tick), after every other event at time t. It must only look: the
    // simulation goes on without it. run() ends when only observer events are left, dropping them, so the clock
    // stops at the last simulated event as it would unobserved, and eventsProcessed() does not count them.
    void observeAt(Time t, Callback fn, void* ctx, std::uint64_t arg)
    {
        assert(fn);
        ++m_observers;
        push(t, kObserverKey, fn, ctx, arg);
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
        const Entry& top = queueTop(); // an empty queue's top is the sentinel, after every event
        return t < top.t || (t == top.t && key < (top.ks >> kSeqBits)); // (the sentinel's key part is kKeyLimit)
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

    // Tests: renumber the pending events once `n` sequence numbers have been used since the last renumbering (the
    // real limit, 2^40, is never reached by a test), to show that the order survives it.
    void setSequenceLimit(std::uint64_t n)
    {
        m_seqLimit = n < m_seqLimit ? n : m_seqLimit;
        m_rareFrom = m_trace ? 0 : m_seqLimit;
    }

    // The queue's operations of a run, for the event-queue benchmark (tests/bench/bench_queue): each push's time and
    // key and the number of events pending just before it. The pops between two pushes are what that number says
    // (as many as bring the queue down to it), and after the last push the queue empties. Off (nullptr) by default;
    // while on, every push takes push()'s rare path, which records it.
    struct TracedPush {
        Time t;
        std::uint32_t key;
        std::uint32_t pending;
    };
    void setTrace(std::vector<TracedPush>* trace)
    {
        m_trace = trace;
        m_rareFrom = m_trace ? 0 : m_seqLimit;
    }

    // Runs until no event is left, stop() is called or the interrupter fires. Returns false when interrupted.
    bool run(Interrupter* interrupter = nullptr);
    void stop()
    {
        m_stopped = true;
        updateInlineUntil();
    }
    bool empty() const { return pending() == 0; }
    std::size_t pending() const { return m_sorted ? m_n : m_radix.size(); }

private:
    // Two shapes of queue, ordered by (t, key, seq) either way; which one holds the events is a host-side choice
    // that changes no order.
    //
    // A short queue is a sorted array (m_sorted): m_s[1..m_n], latest first, so the next event is m_s[m_n] and a
    // pop is a decrement. A run on a dozen CPUs keeps about one event per CPU pending; inserting into a dozen
    // sorted entries moves a few entries with one compare each. m_s[0] is a sentinel later than every event, so
    // the insertion's walk needs no bounds check and an empty queue's top is the sentinel.
    //
    // Past kSortedMax entries (the 144-CPU machines, hundreds of tasks, thousands of timers) the events move to a
    // radix heap on their times (sim/radixqueue.h), and back to the array when it has shrunk to kSortedMin. An entry
    // carries its whole order, (t, key, seq), as one 128-bit number.
    //
    // The sequence number lives in the entry's low kSeqBits bits, below the key. It counts from the last
    // renumbering: when it would overflow those bits (after 2^40 events, never in a real run), the pending events
    // are numbered afresh 0, 1, 2, ... in their order, which keeps every comparison's answer.
    //
    // What to run waits in a slot of a free-listed array, so sorting moves 24 bytes, not 48, and no event
    // allocates once the arrays have grown. push() is one out-of-line function whose common path (a slot from the
    // free list, the sorted insertion) makes tail calls only, and whose arguments are the payload's fields,
    // written straight into the slot (a Payload built by the caller and copied in was read back before the
    // caller's stores had left the store buffer: a host store-forwarding stall per event).
    static constexpr unsigned kSeqBits = 40;
    static_assert(std::uint64_t { kKeyLimit } < std::uint64_t { 1 } << (64 - kSeqBits)); // a key and the observers'
    using Entry = QueueEntry; // t, ks = key << kSeqBits | sequence number, slot
    // A resumption has no fn and its coroutine's address in ctx. A free slot keeps the next free slot's index in
    // next (the free list is LIFO, so the slot reused is the one whose line was touched last).
    struct Payload {
        std::uint64_t next;
        Callback fn;
        void* ctx;
        std::uint64_t arg;
    };
    static constexpr std::size_t kSortedMax = 32;
    static constexpr std::size_t kSortedMin = 16;
    static constexpr std::uint32_t kNoSlot = ~0u;
    static constexpr Time kNever = INT64_MAX; // the sentinel's time; no event is scheduled there

    static bool before(const Entry& a, const Entry& b) { return a.order() < b.order(); }
    static bool isObserver(const Entry& e) { return e.ks >> kSeqBits == kKeyLimit; }
    void push(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg);
    void pushRare(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg);
    void freeSlot(std::uint32_t slot)
    {
        m_slots[slot].next = m_freeSlot;
        m_freeSlot = slot;
    }
    const Entry& queueTop() const
    {
        if (m_sorted) [[likely]]
            return m_s[m_n];
        return m_radix.top();
    }
    Entry radixPop();
    void dropObservers();
    void toHeap();
    void toSorted();
    void renumber();

    bool m_sorted = true;
    std::size_t m_n = 0; // entries in m_s (sorted mode)
    Entry m_s[kSortedMax + 2] = { { kNever, ~std::uint64_t { 0 }, kNoSlot } }; // the sentinel, then the entries
    RadixQueue m_radix; // past kSortedMax pending events
    std::vector<Entry> m_drained; // toSorted()'s and renumber()'s scratch
    std::vector<Payload> m_slots;
    std::uint32_t m_freeSlot = kNoSlot; // head of the free slots' list
#ifndef NDEBUG
    std::vector<std::coroutine_handle<>> m_debugPending; // debug builds: coroutines scheduled and not yet resumed
#endif
    Time m_now = 0;
    std::uint64_t m_seq = 0; // the next event's sequence number, counted from the last renumbering
    std::uint64_t m_seqLimit = std::uint64_t { 1 } << kSeqBits; // renumber() when m_seq reaches it
    std::uint64_t m_rareFrom = m_seqLimit; // push() takes its rare path when m_seq reaches it (m_seqLimit, or 0)
    std::vector<TracedPush>* m_trace = nullptr;
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
