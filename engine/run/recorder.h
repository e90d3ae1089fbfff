#pragma once
// Records a run into a Recording while it executes (see recording.h): a periodic sampling event plus the
// scheduler's TraceSink for per-CPU activity.

#include "kernel/kernel.h"
#include "run/recording.h"
#include "run/run.h"
#include "workload/workload.h"

#include <chrono>
#include <map>
#include <memory>
#include <unordered_map>

namespace mms {

class Recorder final : public TraceSink {
public:
    // `workload` (may be null) tells its progress: the run's length, estimated from it, sets the interval early.
    Recorder(Kernel& k, Sched& s, const RecordingOptions& opts, const Workload* workload = nullptr);
    ~Recorder() override;
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    void span(int cpu, Time begin, Time end, SpanKind kind, const char* fn) override;
    // Takes the final frame and hands the recording over.
    std::shared_ptr<const Recording> finish();

private:
    // The page map of one frame: each page frame's state, flags and owner, indexed by pfn.
    struct PageFrame {
        std::vector<std::uint8_t> state;
        std::vector<std::uint16_t> flags, owners;
    };
    // One lock name's lockstat, cumulative, summed over its instances.
    struct LockTotals {
        std::uint64_t acq = 0, cont = 0;
        Time wait = 0, hold = 0;
        std::vector<Time> waitCpu; // per CPU
    };

    void sample(Time at); // a frame at time `at` (now, or the run's end)
    void samplePages(std::size_t f);
    void sampleCounters();
    void sampleLocks(std::size_t f);
    std::map<std::string, LockTotals> lockTotals() const;
    void decimateWhenDue();
    void schedule();
    void decimate();
    void mergeCpuBins(const Recording& r, Recording& out);
    static void appendPageFrame(Recording& r, std::size_t f, const PageFrame& cur, const PageFrame& prev);
    static Recording coarserEmpty(const Recording& r);
    static void mergeLockFrames(const Recording& r, std::size_t from, std::size_t to, Recording& out, std::size_t frame);
    bool coarserForRunLength() const;
    void findEvents(Recording& r) const;
    // A copy of the recording so far, as finish() would leave it, to RecordingOptions::live when its period is due.
    void publishWhenDue();
    // The bins past the last frame's (a span ends after the frame was taken) and the events of interest.
    void close(Recording& r) const;
    void nameOwners();
    std::uint16_t intern(const char* fn);
    Time binWidth() const { return m_rec->binWidth(); }

    Kernel& m_k;
    Sched& m_s;
    RecordingOptions m_opts;
    const Workload* m_workload;
    std::shared_ptr<Recording> m_rec;
    PageFrame m_last; // the page map of the previous frame
    std::unordered_map<const char*, std::uint16_t> m_fnIds;
    std::unordered_map<std::string, std::uint16_t> m_fnByName;
    std::vector<std::vector<float>> m_topShare; // per cpu, per bin: share of the current topFn
    std::vector<std::vector<float>> m_sleepShare; // per cpu, per bin: share of the current sleepFn's longest sleep
    std::vector<Time> m_holdSeen; // per cpu: end of the latest spinlock hold counted
    std::map<std::string, LockTotals> m_prevLocks; // cumulative lockstat at the previous frame, by lock name
    bool m_done = false;
    std::chrono::steady_clock::duration m_livePeriod; // RecordingOptions::livePeriodSeconds
    std::chrono::steady_clock::time_point m_nextPublish; // host time of the next live copy
};

} // namespace mms
