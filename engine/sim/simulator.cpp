#include "sim/simulator.h"

#include <algorithm>

namespace mms {

// Every call out of the common path is a tail call, so that it needs no callee-saved registers (their saves and
// restores were a fifth of its instructions).
void Simulator::push(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg)
{
    assert(t < kNever);
    std::uint32_t slot = m_freeSlot;
    if (slot == kNoSlot) [[unlikely]]
        return pushNewSlot(t, key, fn, ctx, arg);
    Payload& p = m_slots[slot];
    m_freeSlot = static_cast<std::uint32_t>(p.seq);
    p.seq = m_seq++;
    p.fn = fn;
    p.ctx = ctx;
    p.arg = arg;
    if (!m_sorted) [[unlikely]]
        return heapPush(Entry { t, key, slot });
    // Insert into the latest-first array from a hole at the end: shift the earlier entries one place up. Those
    // strictly earlier in time first, one compare of the times each; then the few at the very same time with a
    // key no larger (a new event's sequence number is above every pending one's, so at equal time and key it goes
    // after them). The place one loop over before() finds; the sentinel stops both walks.
    Entry* q = m_s + m_n + 1;
    while (q[-1].t < t) {
        q[0] = q[-1];
        --q;
    }
    while (q[-1].t == t && q[-1].key <= key) {
        assert(m_slots[q[-1].slot].seq < m_slots[slot].seq);
        q[0] = q[-1];
        --q;
    }
    *q = Entry { t, key, slot };
    if (++m_n > kSortedMax) [[unlikely]]
        return toHeap();
}

void Simulator::pushNewSlot(Time t, std::uint32_t key, Callback fn, void* ctx, std::uint64_t arg)
{
    assert(m_freeSlot == kNoSlot);
    m_freeSlot = static_cast<std::uint32_t>(m_slots.size());
    m_slots.push_back(Payload { kNoSlot, nullptr, nullptr, 0 });
    push(t, key, fn, ctx, arg);
}

void Simulator::heapPush(Entry e)
{
    if (m_hasFront) {
        if (before(e, m_front))
            std::swap(e, m_front);
    } else if (before(e, m_heap.front())) {
        m_front = e;
        m_hasFront = true;
        return;
    }
    heapSiftUp(e);
}

void Simulator::heapSiftUp(Entry e)
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

// The array, latest first, reversed: earliest first, every parent before its children.
void Simulator::toHeap()
{
    assert(m_sorted && !m_hasFront);
    m_heap.assign(std::make_reverse_iterator(m_s + m_n + 1), std::make_reverse_iterator(m_s + 1));
    m_n = 0;
    m_sorted = false;
}

void Simulator::toSorted()
{
    assert(!m_sorted && !m_hasFront && m_heap.size() <= kSortedMax);
    std::sort(m_heap.begin(), m_heap.end(), [this](const Entry& a, const Entry& b) { return before(b, a); });
    std::copy(m_heap.begin(), m_heap.end(), m_s + 1);
    m_n = m_heap.size();
    m_heap.clear();
    m_sorted = true;
}

Simulator::Entry Simulator::heapPop()
{
    if (m_hasFront) {
        m_hasFront = false;
        return m_front;
    }
    Entry top = m_heap.front();
    Entry last = m_heap.back();
    m_heap.pop_back();
    std::size_t n = m_heap.size();
    if (n > 0) {
        // sift `last` down from a hole at the root
        std::size_t i = 0;
        for (;;) {
            std::size_t first = i * kArity + 1;
            if (first >= n)
                break;
            std::size_t best = first;
            std::size_t end = first + kArity < n ? first + kArity : n;
            for (std::size_t c = first + 1; c < end; ++c)
                if (before(m_heap[c], m_heap[best]))
                    best = c;
            if (!before(m_heap[best], last))
                break;
            m_heap[i] = m_heap[best];
            i = best;
        }
        m_heap[i] = last;
    }
    if (n <= kSortedMin)
        toSorted();
    return top;
}

void Simulator::dropObservers()
{
    while (!empty()) {
        Entry e = m_sorted ? m_s[m_n--] : heapPop();
        assert(e.key == kObserverKey);
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
            e = heapPop();
        // What to run leaves the slot before the slot is freed: the event may push the next one into it.
        const Payload& p = m_slots[e.slot];
        Callback fn = p.fn;
        void* ctx = p.ctx;
        std::uint64_t arg = p.arg;
        freeSlot(e.slot);
        if (e.key == kObserverKey) [[unlikely]] {
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
