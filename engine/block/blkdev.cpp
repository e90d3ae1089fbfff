#include "block/blkdev.h"

#include <algorithm>

namespace mms {

BlockDevice::BlockDevice(Sched& s, DeviceSpec spec, int index)
    : m_s(s)
    , m_spec(std::move(spec))
    , m_index(index)
{
}

Co<> BlockDevice::waitForSlot(Task& t)
{
    while (m_outstanding >= m_spec.queueDepth) {
        co_await m_s.flush(t);
        m_throttled.emplace_back(&t, t.sleepGen + 1);
        const Time since = m_s.sim().now();
        const int cpu = t.cpu;
        co_await m_s.sleep(t);
        m_s.traceSleep(cpu, since, SpanKind::IoWait, "get_request_wait"); // the queue is full
    }
}

std::uint64_t BlockDevice::submit(bool write, std::vector<Pfn> pages)
{
    std::uint32_t id;
    if (!m_freeIds.empty()) {
        id = m_freeIds.back();
        m_freeIds.pop_back();
    } else {
        id = static_cast<std::uint32_t>(m_requests.size());
        m_requests.emplace_back();
        m_live.push_back(false);
        m_serial.push_back(0);
    }
    m_serial[id] = m_nextSerial++;
    IoRequest& r = m_requests[id];
    r.write = write;
    r.pages = std::move(pages);
    r.waiters.clear();
    r.submitted = m_s.sim().now();
    m_live[id] = true;
    ++m_outstanding;
    if (write) {
        // __get_request() (block/blk-core.c, 4.0): an allocation that brings the async count to the on threshold
        // marks the queue congested (blk_set_queue_congested).
        if (m_asyncRequests + 1 >= congestionOnThreshold(m_spec.queueDepth))
            m_asyncCongested = true;
        ++m_asyncRequests;
    }

    (write ? m_writes : m_reads) += 1;
    (write ? m_pagesWritten : m_pagesRead) += r.pages.size();
    (write ? m_writeQ : m_readQ).push_back(id);
    if (!m_busy)
        startNext();
    return (static_cast<std::uint64_t>(m_serial[id]) << 32) | id;
}

Time BlockDevice::transferTime(const IoRequest& r) const
{
    double bytes = static_cast<double>(r.pages.size() * kPageSize);
    return ns(m_spec.requestOverheadNs + bytes / (m_spec.bandwidthMBps * 1e6) * 1e9);
}

void BlockDevice::startNext()
{
    // deadline's writes_starved: reads go first, but a waiting write is served after every kWritesStarved reads.
    constexpr int kWritesStarved = 2;
    bool write = m_readQ.empty() || (!m_writeQ.empty() && m_readsInARow >= kWritesStarved);
    Fifo<std::uint32_t>& q = write ? m_writeQ : m_readQ;
    if (q.empty()) {
        m_busy = false;
        return;
    }
    m_readsInARow = write ? 0 : m_readsInARow + 1;
    std::uint32_t id = q.front();
    q.pop_front();
    m_busy = true;
    Time transfer = transferTime(m_requests[id]);
    m_busyTotal += transfer;
    // Device events are keyed after every CPU so that same-time CPU events run first.
    m_s.sim().callAt(
        m_s.sim().now() + transfer, static_cast<std::uint32_t>(m_s.cpuCount() + m_index),
        [](void* ctx, std::uint64_t rid) { static_cast<BlockDevice*>(ctx)->transferDone(static_cast<std::uint32_t>(rid)); },
        this, id);
}

void BlockDevice::transferDone(std::uint32_t id)
{
    IoRequest& r = m_requests[id];
    r.completes = m_s.sim().now() + ns(r.write ? m_spec.writeLatencyNs : m_spec.readLatencyNs);
    m_s.sim().callAt(
        r.completes, static_cast<std::uint32_t>(m_s.cpuCount() + m_index),
        [](void* ctx, std::uint64_t rid) { static_cast<BlockDevice*>(ctx)->complete(static_cast<std::uint32_t>(rid)); },
        this, id);
    startNext();
}

Co<> BlockDevice::waitFor(Task& t, std::uint64_t handle)
{
    if (!inFlight(handle))
        co_return;
    co_await m_s.flush(t);
    if (!inFlight(handle))
        co_return;
    auto id = static_cast<std::uint32_t>(handle);
    m_requests[id].waiters.emplace_back(&t, t.sleepGen + 1);
    const Time since = m_s.sim().now();
    const int cpu = t.cpu;
    co_await m_s.sleep(t);
    m_s.traceSleep(cpu, since, SpanKind::IoWait, "io_schedule");
}

void BlockDevice::complete(std::uint32_t id)
{
    IoRequest& r = m_requests[id];
    --m_outstanding;
    m_live[id] = false;
    if (r.write) {
        // freed_request() -> __freed_request() (block/blk-core.c, 4.0): below the off threshold the queue is no
        // longer congested. The count drops before the completion handler runs: the handler's page work
        // (end_swap_bio_write) does not read it, and its congestion wake-up is the one __freed_request() makes
        // once blk_finish_request() has freed the request.
        --m_asyncRequests;
        if (asyncBelowCongestionOff())
            m_asyncCongested = false;
    }
    if (m_completion)
        m_completion(*this, r);
    for (auto [t, gen] : r.waiters)
        m_s.wakeIf(*t, gen);
    r.waiters.clear();
    r.pages.clear();
    m_freeIds.push_back(id);
    if (!m_throttled.empty()) {
        auto [t, gen] = m_throttled.front();
        m_throttled.pop_front();
        m_s.wakeIf(*t, gen);
    }
}

} // namespace mms
