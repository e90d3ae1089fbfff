#pragma once
// The order in which the runner's workers take the runs of its pool, within a host-memory budget: the first run not
// taken yet whose estimate fits beside the runs in flight. When none fits, a worker waits for a run to end, unless
// none is in flight (then the first goes alone, whatever its size). The runner sorts the pool largest first, so a
// large run goes beside the largest of the small ones that fit, and two large ones never go together while the
// budget forbids it. Which worker runs what never changes a result (each run is seeded from its own identity).

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace mms {

class PoolQueue {
public:
    // `bytes`: each run's estimate (estimateRunMemory), in the pool's order.
    PoolQueue(std::vector<std::uint64_t> bytes, std::uint64_t budget)
        : m_bytes(std::move(bytes))
        , m_taken(m_bytes.size(), false)
        , m_budget(budget)
    {
    }

    // The next run for a worker, or size() when every run is taken; may wait for a run in flight to end.
    std::size_t take()
    {
        std::unique_lock<std::mutex> lock(m_lock);
        for (;;) {
            while (m_first < m_bytes.size() && m_taken[m_first])
                ++m_first;
            if (m_first == m_bytes.size())
                return m_first;
            std::size_t k = m_first;
            while (k < m_bytes.size() && (m_taken[k] || m_inFlight + m_bytes[k] > m_budget))
                ++k;
            if (k == m_bytes.size() && m_running == 0)
                k = m_first;
            if (k < m_bytes.size()) {
                m_taken[k] = true;
                m_inFlight += m_bytes[k];
                ++m_running;
                return k;
            }
            m_ended.wait(lock);
        }
    }

    // Run k (from take()) has ended: its share of the budget is free again.
    void done(std::size_t k)
    {
        {
            std::lock_guard<std::mutex> lock(m_lock);
            m_inFlight -= m_bytes[k];
            --m_running;
        }
        m_ended.notify_all();
    }

    std::size_t size() const { return m_bytes.size(); }

private:
    const std::vector<std::uint64_t> m_bytes;
    std::mutex m_lock;
    std::condition_variable m_ended;
    std::vector<bool> m_taken;
    std::size_t m_first = 0; // every run before it is taken
    std::uint64_t m_inFlight = 0;
    std::size_t m_running = 0;
    const std::uint64_t m_budget;
};

} // namespace mms
