#pragma once
// Records a run into a Recording while it executes (see recording.h): a periodic sampling event plus the
// scheduler's TraceSink for per-CPU activity.

#include "mm/kernel.h"
#include "run/recording.h"
#include "run/run.h"

#include <map>
#include <memory>
#include <unordered_map>

namespace mms {

class Recorder final : public TraceSink {
public:
    Recorder(Kernel& k, Sched& s, const RecordingOptions& opts);
    ~Recorder() override;
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    void span(int cpu, Time begin, Time end, SpanKind kind, const char* fn) override;
    // Takes the final frame and hands the recording over.
    std::shared_ptr<const Recording> finish();

private:
    void sample();
    void schedule();
    void decimate();
    void findEvents();
    void nameOwners();
    std::uint16_t intern(const char* fn);
    Time binWidth() const { return m_rec->m_interval / static_cast<Time>(Recording::kCpuBinsPerFrame); }

    struct LockTotals {
        std::uint64_t acq = 0, cont = 0;
        Time wait = 0, hold = 0;
        std::vector<Time> waitCpu; // per CPU
    };

    Kernel& m_k;
    Sched& m_s;
    RecordingOptions m_opts;
    std::shared_ptr<Recording> m_rec;
    std::vector<std::uint8_t> m_last; // page map of the previous frame
    std::vector<std::uint16_t> m_lastFlags, m_lastOwners; // page flags and owners of the previous frame
    std::unordered_map<const char*, std::uint16_t> m_fnIds;
    std::unordered_map<std::string, std::uint16_t> m_fnByName;
    std::vector<std::vector<float>> m_topShare; // per cpu, per bin: share of the current topFn
    std::vector<Time> m_holdSeen; // per cpu: end of the latest spinlock hold counted
    std::map<std::string, LockTotals> m_prevLocks; // cumulative lockstat at the previous frame, by lock name
    bool m_done = false;
};

} // namespace mms
