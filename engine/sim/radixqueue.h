#pragma once
// RadixQueue: the simulator's event queue once more than a few dozen events are pending (a radix heap, Ahuja,
// Mehlhorn, Orlin and Tarjan 1990, on the events' times). A discrete-event simulation never schedules an event before
// the last one it ran, which is all a radix heap asks: entries sit in buckets by the highest bit in which their time
// differs from `last` (the time of the earliest pending event when the buckets were last settled), so a push is a
// shift and an append, and only the bucket of the next times is ever looked into. When the front bucket runs dry,
// the first non-empty bucket is spread over the lower ones around its earliest time; an entry moves down a bucket
// at a time, a few times in its life, in sequential copies. Bucket 0 holds the entries at `last` (or earlier: an
// entry pushed into the past still comes out first) as a binary heap on the whole order, (time, key, sequence), so
// simultaneous events leave in exactly the simulator's order. Every entry in a higher bucket is later than every
// entry in a lower one, so the earliest pending entry is bucket 0's top or, when bucket 0 is empty, the first
// non-empty bucket's earliest, which each bucket keeps.
//
// A many-CPU run keeps thousands of events pending (timers, spin-end ticks, I/O completions far ahead of the lock
// hand-offs near the clock); a heap paid a chain of dependent loads down its levels for every one of them.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace mms {

// An event's place in the queue, (time, key, sequence number) as one unsigned 128-bit number (GCC and Clang).
__extension__ typedef unsigned __int128 EventOrder;

struct QueueEntry {
    std::int64_t t; // picoseconds (Time)
    std::uint64_t ks; // key << 40 | sequence number (Simulator)
    std::uint32_t slot;
    EventOrder order() const { return static_cast<EventOrder>(static_cast<std::uint64_t>(t)) << 64 | ks; }
};

class RadixQueue {
public:
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    // Starts empty, with `last` at `now` (the clock: no event is pushed before it).
    void reset(std::int64_t now)
    {
        m_zero.clear();
        for (Bucket& b : m_b)
            b.v.clear();
        m_mask = 0;
        m_size = 0;
        m_last = now;
    }
    void push(const QueueEntry& e)
    {
        insert(e);
        ++m_size;
    }
    // The earliest entry. Not empty().
    const QueueEntry& top() const
    {
        if (!m_zero.empty())
            return m_zero.front();
        return m_b[std::countr_zero(m_mask)].min;
    }
    QueueEntry pop()
    {
        if (m_zero.empty())
            settle();
        std::pop_heap(m_zero.begin(), m_zero.end(), later);
        QueueEntry e = m_zero.back();
        m_zero.pop_back();
        --m_size;
        return e;
    }
    // Every entry, in no particular order, to be changed in place by `f` without changing their order with each
    // other (the simulator's renumbering); the buckets' earliest entries are looked up again after.
    template <typename F>
    void updateAll(F f)
    {
        for (QueueEntry& e : m_zero)
            f(e);
        for (Bucket& b : m_b)
            for (QueueEntry& e : b.v) {
                f(e);
                if (e.t == b.min.t && e.slot == b.min.slot)
                    b.min = e;
            }
    }
    // Moves every entry out into `out` (appended, in no particular order); the queue is empty after.
    void drainInto(std::vector<QueueEntry>& out)
    {
        out.insert(out.end(), m_zero.begin(), m_zero.end());
        for (Bucket& b : m_b)
            out.insert(out.end(), b.v.begin(), b.v.end());
        reset(m_last);
    }

private:
    struct Bucket {
        std::vector<QueueEntry> v;
        QueueEntry min {}; // the earliest of v, when v is not empty
    };
    // A binary min-heap on the whole order with the standard heap functions: `later` is their "less".
    static bool later(const QueueEntry& a, const QueueEntry& b) { return b.order() < a.order(); }

    void insert(const QueueEntry& e)
    {
        if (e.t <= m_last) {
            m_zero.push_back(e);
            std::push_heap(m_zero.begin(), m_zero.end(), later);
            return;
        }
        // 1..63: the highest bit in which the time differs from m_last (both are non-negative).
        const unsigned i = 64u - static_cast<unsigned>(std::countl_zero(static_cast<std::uint64_t>(e.t ^ m_last)));
        Bucket& b = m_b[i];
        if (b.v.empty() || e.order() < b.min.order())
            b.min = e;
        b.v.push_back(e);
        m_mask |= std::uint64_t { 1 } << i;
    }
    // Bucket 0 is empty and another is not: spread the first non-empty bucket around its earliest time, which
    // becomes m_last. Its entries all go to lower buckets (they share its higher bits), its earliest ones to
    // bucket 0.
    void settle()
    {
        const unsigned i = static_cast<unsigned>(std::countr_zero(m_mask));
        Bucket& b = m_b[i];
        m_mask &= ~(std::uint64_t { 1 } << i);
        m_last = b.min.t;
        for (const QueueEntry& e : b.v)
            insert(e);
        b.v.clear();
    }

    std::vector<QueueEntry> m_zero; // bucket 0: the entries at m_last or before, a heap
    Bucket m_b[64]; // m_b[i], i >= 1: times above m_last whose highest bit differing from it is bit i - 1
    std::uint64_t m_mask = 0; // bit i set: m_b[i] is not empty (bit 0 unused)
    std::size_t m_size = 0;
    std::int64_t m_last = 0;
};

} // namespace mms
