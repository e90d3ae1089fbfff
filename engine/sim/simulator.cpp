#include "sim/simulator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mms {

// Every call out of the common path is a tail call, so that it needs no callee-saved registers (their saves and
// restores were a fifth of its instructions).
void Simulator::push(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg)
{
    assert(t < kNever);
    std::uint32_t slot = m_freeSlot;
    if (slot == kNoSlot || key >= kKeyLimit || m_seq >= m_rareFrom) [[unlikely]] // (kObserverKey is past kKeyLimit)
        return pushRare(t, key, fn, ctx, arg);
    Payload& p = m_slots[slot];
    m_freeSlot = static_cast<std::uint32_t>(p.next);
    p.fn = fn;
    p.ctx = ctx;
    p.arg = arg;
    const std::uint64_t ks = std::uint64_t { key } << kSeqBits | m_seq++;
    if (!m_sorted) [[unlikely]]
        return m_radix.push(Entry { t, ks, slot });
    // Insert into the latest-first array from a hole at the end: shift the earlier entries one place up. Those
    // strictly earlier in time first, one compare of the times each; then the few at the very same time with a
    // smaller key, or the same key and so a smaller sequence number (a new event's is above every pending one's).
    // The place one loop over before() finds; the sentinel stops both walks.
    Entry* q = m_s + m_n + 1;
    while (q[-1].t < t) {
        q[0] = q[-1];
        --q;
    }
    while (q[-1].t == t && q[-1].ks < ks) {
        q[0] = q[-1];
        --q;
    }
    *q = Entry { t, ks, slot };
    if (++m_n > kSortedMax) [[unlikely]]
        return toHeap();
}

// push() off its common path: no free slot, the observers' key (or a key past the entry's bits), the sequence
// numbers' bits used up, or a trace to record.
void Simulator::pushRare(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg)
{
    if (m_trace)
        m_trace->push_back(TracedPush { t, key, static_cast<std::uint32_t>(pending()) });
    std::uint64_t k = key;
    if (key == kObserverKey)
        k = kKeyLimit; // after every other key
    else if (key >= kKeyLimit)
        throw std::length_error("an event key past the simulator's " + std::to_string(kKeyLimit) + " keys");
    if (m_freeSlot == kNoSlot) {
        m_freeSlot = static_cast<std::uint32_t>(m_slots.size());
        m_slots.push_back(Payload { kNoSlot, nullptr, nullptr, 0 });
    }
    if (m_seq >= m_seqLimit)
        renumber();
    std::uint32_t slot = m_freeSlot;
    Payload& p = m_slots[slot];
    m_freeSlot = static_cast<std::uint32_t>(p.next);
    p.fn = fn;
    p.ctx = ctx;
    p.arg = arg;
    const Entry e { t, k << kSeqBits | m_seq++, slot };
    if (!m_sorted)
        return m_radix.push(e);
    Entry* q = m_s + m_n + 1;
    while (before(q[-1], e)) {
        q[0] = q[-1];
        --q;
    }
    *q = e;
    if (++m_n > kSortedMax)
        toHeap();
}

// Every pending event gets a new sequence number, 0, 1, 2, ... in the queue's order; the next push continues
// from there. Only the order of the sequence numbers is ever read, so nothing that compares them changes.
void Simulator::renumber()
{
    constexpr std::uint64_t seqMask = (std::uint64_t { 1 } << kSeqBits) - 1;
    // The entries' orders, earliest first, and each entry's new number by its slot (unique among pending events).
    m_drained.clear();
    if (m_sorted)
        for (std::size_t i = m_n; i >= 1; --i)
            m_drained.push_back(m_s[i]);
    else
        m_radix.updateAll([this](const Entry& e) { m_drained.push_back(e); });
    std::sort(m_drained.begin(), m_drained.end(), [](const Entry& a, const Entry& b) { return before(a, b); });
    std::vector<std::uint64_t> seqOf(m_slots.size());
    for (std::size_t i = 0; i < m_drained.size(); ++i)
        seqOf[m_drained[i].slot] = i;
    // Renumbering keeps each entry's order with every other, so the radix heap stays valid and the array sorted.
    auto renumberOne = [&](Entry& e) { e.ks = (e.ks & ~seqMask) | seqOf[e.slot]; };
    if (m_sorted)
        for (std::size_t i = 1; i <= m_n; ++i)
            renumberOne(m_s[i]);
    else
        m_radix.updateAll(renumberOne);
    m_seq = m_drained.size();
}

// The array's entries into the radix heap, its buckets placed around the clock.
void Simulator::toHeap()
{
    assert(m_sorted);
    m_radix.reset(m_now);
    for (std::size_t i = m_n; i >= 1; --i)
        m_radix.push(m_s[i]);
    m_n = 0;
    m_sorted = false;
}

void Simulator::toSorted()
{
    assert(!m_sorted && m_radix.size() <= kSortedMax);
    m_drained.clear();
    m_radix.drainInto(m_drained);
    std::sort(m_drained.begin(), m_drained.end(), [](const Entry& a, const Entry& b) { return before(b, a); });
    std::copy(m_drained.begin(), m_drained.end(), m_s + 1);
    m_n = m_drained.size();
    m_sorted = true;
}

Simulator::Entry Simulator::radixPop()
{
    Entry top = m_radix.pop();
    if (m_radix.size() <= kSortedMin)
        toSorted();
    return top;
}

void Simulator::dropObservers()
{
    while (!empty()) {
        Entry e = m_sorted ? m_s[m_n--] : radixPop();
        assert(isObserver(e));
        freeSlot(e.slot);
    }
    m_observers = 0;
}

bool Simulator::run(Interrupter* interrupter)
{
    m_stopped = false;
    updateInlineUntil();
    while (!m_stopped) {
        Entry e;
        if (m_sorted) [[likely]] {
            if (m_n == 0)
                break;
            e = m_s[m_n--];
        } else
            e = radixPop();
        // What to run leaves the slot before the slot is freed: the event may push the next one into it.
        const Payload& p = m_slots[e.slot];
        Callback fn = p.fn;
        void* ctx = p.ctx;
        std::uint64_t arg = p.arg;
        freeSlot(e.slot);
        if (isObserver(e)) [[unlikely]] {
            --m_observers;
            if (pending() == m_observers) { // nothing but observers left: the simulation is over
                dropObservers();
                break;
            }
            m_now = e.t;
            fn(ctx, arg);
            continue;
        }
        m_now = e.t;
        ++m_events;
        if (fn)
            fn(ctx, arg);
        else {
#ifndef NDEBUG
            for (auto it = m_debugPending.begin(); it != m_debugPending.end(); ++it)
                if (it->address() == ctx) {
                    m_debugPending.erase(it);
                    break;
                }
#endif
            std::coroutine_handle<>::from_address(ctx).resume();
        }
        if (m_events >= m_nextCheck) {
            m_nextCheck = m_events + kCheckEvery;
            updateInlineUntil();
            if (interrupter && interrupter->wasInterrupted())
                return false;
        }
    }
    return true;
}

} // namespace mms
