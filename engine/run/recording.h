#pragma once
// A recording of one run, for the desktop app to play: frames at a fixed simulated interval (frame f at f x
// interval(), the last one at the run's end, when the last user task exited) with
//  - the page-state map (one PageMapState byte per page), delta-encoded against the previous frame with a full
//    keyframe every kKeyframeEvery frames, so any frame decodes from at most that many deltas (stepping back costs
//    what stepping forward does);
//  - counters (vmstat, throughput) per frame;
//  - per-lock activity per frame (acquisitions, contentions, wait and hold time in the frame, summed by name);
//  - per-CPU activity binned at kCpuBinsPerFrame bins per frame: the share of each bin spent running, spinning for
//    a lock, holding a lock and idle, the time its tasks slept on I/O or on a sleeping lock (while the CPU ran
//    another task or idled), and the kernel function that ran longest in it (KernelShark-style binning: memory
//    does not grow with the number of events).
// The interval adapts to the run's length, which nobody knows beforehand: recording starts at a fine interval and
// whenever the frames pass kMaxFrames, every other frame is merged away and the interval doubled, so a run of any
// length gets up to kMaxFrames frames, kMaxFrames / 2 or more when the workload's progress tells its length well
// (a 2 ms run as many as a 5 s one; see Recorder::coarserForRunLength). A memory budget
// bounds it too: past the budget, frames are decimated the same way (counted by decimations()), never dropped
// silently. A merge keeps the even frames, so the frames stay at multiples of the (doubled) interval.

#include "sim/pagestate.h"
#include "sim/simulator.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mms {

struct LockFrame {
    std::uint64_t acquisitions = 0;
    std::uint64_t contentions = 0;
    Time wait = 0;
    Time hold = 0;
};

struct CpuBin {
    float run = 0; // share of the bin (0..1) in each state
    float lockWait = 0; // part of run: spinning for a lock (a spinlock, a mutex's optimistic spin)
    float lockHold = 0; // part of run: time holding a spinlock (sleeping locks are not CPU time)
    float ioWait = 0; // a task of this CPU slept on I/O (the CPU may run another)
    // Tasks of this CPU asleep on a mutex or rwsem, summed (so above 1 when several slept at once): not CPU time,
    // the CPU runs another task or idles meanwhile.
    float lockSleep = 0;
    std::uint16_t topFn = 0; // index into functionNames(); 0 = idle
    std::uint16_t sleepFn = 0; // the lock slept on longest in the bin (index into functionNames()); 0 = none
};

// What the page map shows of a page: the kernel's PageState as recorded (sim/pagestate.h).
using PageMapState = PageState;
// "anon active", "swap cache": the kernel's name of the state (pageStateName).
const char* pageMapStateName(PageMapState s);

// The node part of a lock's name: "node1 " of "node1 zone->lru_lock", empty for a lock named for no node (what
// precedes lockClass(), sync/lockstat.h).
std::string_view lockNodePrefix(std::string_view lockName);

// One page at one frame, for the page map's tooltip.
struct PageInfo {
    PageMapState state = PageMapState::Free;
    std::uint16_t flags = 0; // PageFlag bits (mm/page.h)
    std::uint16_t owner = 0; // mm id + 1 (anon) or mapping id + 1 (file); 0 = none

    // "PG_lru|PG_active|PG_swapbacked" ("none" for 0), as pageFlagNames() names them.
    std::string flagNames() const;
    // The list the page sits on: an LRU list's name, "buddy", "pagevec", "isolated" or "none" (pageListName()).
    const char* listName() const;
};

struct InterestingEvent {
    Time at = 0;
    std::size_t frame = 0;
    std::string kind; // "first-contention", "reclaim-starts", "first-swapin", "ipi-storm", "oom-kill"
    std::string what;
};

class Recording {
public:
    static constexpr std::size_t kKeyframeEvery = 16;
    static constexpr std::size_t kCpuBinsPerFrame = 8;
    // Frames kept before the interval doubles (with RecordingOptions::interval = 0), and the interval recording
    // starts at: 10 us is 1.25 us per CPU bin, finer than the shortest runs need (a 2 ms run gets 200 frames).
    static constexpr std::size_t kMaxFrames = 512;
    static constexpr Time kFirstInterval = 10'000'000; // 10 us

    Time interval() const { return m_interval; }
    std::size_t frameCount() const { return m_frameTimes.size(); }
    Time frameTime(std::size_t f) const { return m_frameTimes[f]; }
    std::uint32_t pageCount() const { return m_pages; }
    int cpuCount() const { return m_cpus; }
    // Where each CPU sits: its socket and its last-level cache (numbered across the machine; hw/machine.h); socket
    // and cache 0 for a CPU the recording does not place.
    struct CpuPlace {
        int socket = 0;
        int llc = 0;
    };
    CpuPlace cpuPlace(int cpu) const
    {
        const auto i = static_cast<std::size_t>(cpu);
        return cpu >= 0 && i < m_cpuPlaces.size() ? m_cpuPlaces[i] : CpuPlace {};
    }
    // The first page frame of each NUMA node, ascending: node n holds [nodeStarts()[n], nodeStarts()[n + 1]) (the
    // last one up to pageCount()). {0} on a machine of one node.
    const std::vector<std::uint32_t>& nodeStarts() const { return m_nodeStarts; }
    int nodeCount() const { return static_cast<int>(m_nodeStarts.size()); }
    // The node page frame pfn belongs to (the kernel's page_to_nid()); the last node for a pfn past the end.
    int nodeOf(std::uint32_t pfn) const;

    // The page map at frame f (decoded from the nearest keyframe at or before f).
    std::vector<std::uint8_t> pageMap(std::size_t f) const;
    // State, flags and owner of one page at frame f: the keyframe's entry plus a binary search in each delta after it
    // (no whole frame is decoded).
    PageInfo pageInfo(std::size_t f, std::uint32_t pfn) const;
    // "memset-3" (the first task of the mm), "file 2" or "mm 3"; "none" for owner 0. Anon pages (PG_swapbacked or
    // PG_anon) are owned by an mm, the others by a page-cache mapping.
    std::string ownerName(std::uint16_t owner, std::uint16_t flags) const;
    // Pages per state at frame f (PageMapState order).
    std::vector<std::uint64_t> stateCounts(std::size_t f) const { return m_stateCounts[f]; }

    const std::vector<std::string>& counterNames() const { return m_counterNames; }
    // Counter values at frame f (cumulative since the start, in counterNames() order).
    const std::vector<double>& counters(std::size_t f) const { return m_counters[f]; }
    std::size_t counterIndex(const std::string& name) const;

    const std::vector<std::string>& lockNames() const { return m_lockNames; }
    const LockFrame& lockFrame(std::size_t lock, std::size_t f) const { return m_locks[lock][f]; }
    // Time CPU `cpu` waited for the lock (all instances of the name) during frame f; 0 for a lock never contended.
    Time lockCpuWait(std::size_t lock, int cpu, std::size_t f) const;

    const std::vector<std::string>& functionNames() const { return m_fnNames; }
    // CPU activity binned by time: bin b covers [b, b + 1) x binWidth() of simulated time, so frame f (at
    // f x interval()) starts bin f x kCpuBinsPerFrame. A CPU's vector ends with its last activity (shorter for a
    // CPU idle at the end); no bin lies past the run's end, the last frame's time.
    const std::vector<CpuBin>& cpuBins(int cpu) const { return m_cpuBins[static_cast<std::size_t>(cpu)]; }
    Time binWidth() const { return m_interval / static_cast<Time>(kCpuBinsPerFrame); }
    // Bins needed to cover the run, 0 to the last frame's time.
    std::size_t binCount() const;
    // What the CPU was doing at frame f, in the kernel's words ("zap_pte_range", "waiting for swap_info[0].lock"):
    // over the interval after the frame (before it, for the last frame: nothing runs after the run's end).
    std::string explain(int cpu, std::size_t f) const;

    const std::vector<InterestingEvent>& events() const { return m_events; }
    // The next event of interest strictly after frame f (or frameCount() if none).
    std::size_t nextEventFrame(std::size_t f) const;

    std::size_t memoryBytes() const;
    // Merges forced by the memory budget (the adaptive interval's merges are not counted: they lose nothing).
    std::size_t decimations() const { return m_decimations; }

private:
    friend class Recorder;
    struct Delta {
        std::uint32_t pfn;
        std::uint8_t state;
        std::uint16_t flags;
        std::uint16_t owner;
    };
    Time m_interval = 0;
    std::uint32_t m_pages = 0;
    int m_cpus = 0;
    std::vector<CpuPlace> m_cpuPlaces;
    std::vector<std::uint32_t> m_nodeStarts { 0 };
    std::vector<Time> m_frameTimes;
    std::vector<std::vector<std::uint8_t>> m_keyframes; // one per kKeyframeEvery frames
    std::vector<std::vector<std::uint16_t>> m_keyFlags; // page flags per keyframe
    std::vector<std::vector<std::uint16_t>> m_keyOwners; // page owner per keyframe
    std::vector<std::vector<Delta>> m_deltas; // per frame (empty for keyframes)
    std::vector<std::vector<std::uint64_t>> m_stateCounts;
    std::vector<std::string> m_counterNames;
    std::vector<std::vector<double>> m_counters;
    std::vector<std::string> m_lockNames;
    std::vector<std::vector<LockFrame>> m_locks; // [lock][frame]
    // [lock] -> [frame * cpus + cpu] wait in the frame; empty until the lock is first contended
    std::vector<std::vector<Time>> m_lockCpuWait;
    std::vector<std::string> m_mmNames; // [mm id]
    std::vector<std::string> m_fileNames; // [mapping id]
    std::vector<std::string> m_fnNames { "idle" };
    std::vector<std::vector<CpuBin>> m_cpuBins;
    std::vector<InterestingEvent> m_events;
    std::size_t m_decimations = 0;
};

} // namespace mms
