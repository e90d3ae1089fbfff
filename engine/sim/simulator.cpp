#include "sim/simulator.h"

#include <algorithm>

namespace mms {

void Simulator::toHeap()
{
    std::reverse(m_heap.begin(), m_heap.end()); // earliest first: every parent before its children
    m_sorted = false;
}

void Simulator::toSorted()
{
    std::sort(m_heap.begin(), m_heap.end(), [this](const Entry& a, const Entry& b) { return before(b, a); });
    m_sorted = true;
}

Simulator::Entry Simulator::popHeap()
{
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
        Entry e;
        if (m_hasFront) {
            m_hasFront = false;
            e = m_front;
        } else
            e = popTop();
        assert(e.key == kObserverKey);
        m_freeSlots.push_back(e.slot);
    }
    m_observers = 0;
}

bool Simulator::run(Interrupter* interrupter)
{
    m_stopped = false;
    updateInlineUntil();
    while (!m_stopped) {
        Entry e;
        if (m_hasFront) {
            m_hasFront = false;
            e = m_front;
        } else if (!m_heap.empty())
            e = popTop();
        else
            break;
        Payload p = m_slots[e.slot];
        m_freeSlots.push_back(e.slot);
        if (e.key == kObserverKey) [[unlikely]] {
            --m_observers;
            if (pending() == m_observers) { // nothing but observers left: the simulation is over
                dropObservers();
                break;
            }
            m_now = e.t;
            p.fn(p.ctx, p.arg);
            continue;
        }
        m_now = e.t;
        ++m_events;
        if (p.fn)
            p.fn(p.ctx, p.arg);
        else {
#ifndef NDEBUG
            for (auto it = m_debugPending.begin(); it != m_debugPending.end(); ++it)
                if (*it == p.h) {
                    m_debugPending.erase(it);
                    break;
                }
#endif
            p.h.resume();
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
