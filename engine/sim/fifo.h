#pragma once
// Fifo<T>: a first-in first-out queue in a power-of-two ring buffer, for the run queues, wait lists and device
// queues on the event path. std::deque allocated a 512-byte chunk on the way in and freed it on the way out every
// few dozen entries (and two blocks when merely constructed, once per lock instance); a ring grows by doubling
// and then never touches the heap again.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mms {

template <typename T>
class Fifo {
public:
    bool empty() const { return m_head == m_tail; }
    std::size_t size() const { return static_cast<std::size_t>(m_tail - m_head); }
    T& front() { return m_buf[m_head & mask()]; }
    const T& front() const { return m_buf[m_head & mask()]; }

    void push_back(const T& v)
    {
        if (size() == m_buf.size())
            grow();
        m_buf[m_tail++ & mask()] = v;
    }
    template <typename... Args>
    void emplace_back(Args&&... args)
    {
        push_back(T { std::forward<Args>(args)... });
    }
    void pop_front() { ++m_head; }
    // Back at the head of the queue (a waiter that was woken but found its turn taken).
    void push_front(const T& v)
    {
        if (size() == m_buf.size())
            grow();
        m_buf[--m_head & mask()] = v;
    }
    void clear() { m_head = m_tail = 0; }
    // The i-th entry from the front, and its removal (the entries behind it move up one): for a wait list whose
    // next owner is not always the first (an unfair lock).
    T& operator[](std::size_t i) { return m_buf[(m_head + i) & mask()]; }
    const T& operator[](std::size_t i) const { return m_buf[(m_head + i) & mask()]; }
    void erase(std::size_t i)
    {
        for (std::size_t j = i; j > 0; --j)
            (*this)[j] = std::move((*this)[j - 1]);
        ++m_head;
    }

private:
    std::size_t mask() const { return m_buf.size() - 1; }
    void grow()
    {
        std::vector<T> bigger(m_buf.empty() ? 8 : 2 * m_buf.size());
        std::size_t n = size();
        for (std::size_t i = 0; i < n; ++i)
            bigger[i] = std::move(m_buf[(m_head + i) & mask()]);
        m_buf = std::move(bigger);
        m_head = 0;
        m_tail = n;
    }

    std::vector<T> m_buf; // capacity a power of two; entries m_head .. m_tail-1 (indices taken modulo it)
    std::uint64_t m_head = 0;
    std::uint64_t m_tail = 0;
};

} // namespace mms
