#pragma once
// A block device under swap: requests pass one transfer stage (per-request overhead + bytes / bandwidth) and then
// a fixed latency that overlaps with other requests. The transfer stage serves queued reads before queued writes,
// as the deadline and CFQ elevators favour synchronous reads over async writeback, but lets a write through after
// every two reads (deadline's writes_starved = 2). At most queueDepth requests are
// in flight; a submitter beyond that sleeps until one completes (the block layer's nr_requests throttling).
//
// The request list also keeps the legacy (non-blk-mq) queue's async count and congestion state, as 4.0 does:
// rl->count[BLK_RW_ASYNC] counts async requests from allocation (__get_request) to free (__freed_request). Every
// write here is a swap-out from pageout(), which writes with WB_SYNC_NONE, so __swap_writepage() submits it without
// REQ_SYNC and rw_is_sync() calls it async; every read (swap-in) is sync. So the async count is the count of
// writes submitted and not yet completed.

#include "hw/device.h"
#include "hw/pfn.h"
#include "sched/sched.h"

#include "sim/fifo.h"
#include <algorithm>
#include <functional>
#include <vector>

namespace mms {

struct IoRequest {
    bool write = false;
    std::vector<Pfn> pages;
    std::vector<std::pair<Task*, std::uint32_t>> waiters; // tasks sleeping until this request completes (+ sleep gen)
    Time submitted = 0;
    Time completes = 0;
};

class BlockDevice {
public:
    using Completion = std::function<void(BlockDevice&, IoRequest&)>;
    BlockDevice(Sched& s, DeviceSpec spec, int index);

    // Waits (sleeping) while the queue is full.
    Co<> waitForSlot(Task& t);
    // Submits a request for `pages` now; returns its handle (slot and serial, never reused while the request
    // lives). Completion runs the device's completion handler.
    std::uint64_t submit(bool write, std::vector<Pfn> pages);
    // The caller sleeps until the request completes (wait_on_page_locked / wait_on_page_writeback).
    Co<> waitFor(Task& t, std::uint64_t handle);
    bool inFlight(std::uint64_t handle) const
    {
        auto slot = static_cast<std::uint32_t>(handle);
        return slot < m_live.size() && m_live[slot] && m_serial[slot] == (handle >> 32);
    }

    void setCompletion(Completion c) { m_completion = std::move(c); }
    const DeviceSpec& spec() const { return m_spec; }
    int index() const { return m_index; }
    int outstanding() const { return m_outstanding; }
    std::uint64_t reads() const { return m_reads; }
    std::uint64_t writes() const { return m_writes; }
    std::uint64_t pagesRead() const { return m_pagesRead; }
    std::uint64_t pagesWritten() const { return m_pagesWritten; }
    Time busyTime() const { return m_busyTotal; }

    // The congestion thresholds of a queue of `nrRequests` requests, as blk_queue_congestion_threshold()
    // (block/blk-core.c, 4.0) sets q->nr_congestion_on/off (read by queue_congestion_on/off_threshold(),
    // block/blk.h): on = nr - nr/8 + 1 capped at nr (113 of 128), off = nr - nr/8 - nr/16 - 1 at least 1 (103 of 128).
    static int congestionOnThreshold(int nrRequests)
    {
        return std::min(nrRequests, nrRequests - nrRequests / 8 + 1);
    }
    static int congestionOffThreshold(int nrRequests)
    {
        return std::max(1, nrRequests - nrRequests / 8 - nrRequests / 16 - 1);
    }
    // Async (write) requests allocated and not yet freed: rl->count[BLK_RW_ASYNC].
    int asyncRequests() const { return m_asyncRequests; }
    // BDI_async_congested of the queue's backing_dev_info: set when an allocation brings the async count to the
    // on threshold, cleared when a free leaves it below the off threshold.
    bool asyncCongested() const { return m_asyncCongested; }
    // Whether a freed async request left the count below the off threshold: then __freed_request() calls
    // blk_clear_queue_congested() -> clear_bdi_congested(BLK_RW_ASYNC), which wakes congestion_wait() sleepers.
    bool asyncBelowCongestionOff() const { return m_asyncRequests < congestionOffThreshold(m_spec.queueDepth); }

private:
    void complete(std::uint32_t id);
    void startNext();
    void transferDone(std::uint32_t id);
    Time transferTime(const IoRequest& r) const;

    Sched& m_s;
    DeviceSpec m_spec;
    int m_index;
    bool m_busy = false;
    int m_readsInARow = 0;
    Fifo<std::uint32_t> m_readQ, m_writeQ;
    Time m_busyTotal = 0;
    int m_outstanding = 0;
    int m_asyncRequests = 0;
    bool m_asyncCongested = false;
    std::vector<IoRequest> m_requests;
    std::vector<bool> m_live;
    std::vector<std::uint32_t> m_serial;
    std::uint32_t m_nextSerial = 1;
    std::vector<std::uint32_t> m_freeIds;
    Fifo<std::pair<Task*, std::uint32_t>> m_throttled;
    Completion m_completion;
    std::uint64_t m_reads = 0, m_writes = 0, m_pagesRead = 0, m_pagesWritten = 0;
};

} // namespace mms
