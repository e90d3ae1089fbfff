#pragma once
// The simulated hardware: CPUs in sockets, memory, swap devices and the cost model. Presets are named after the
// machines of the posts; a scenario picks a preset and may override its size fields (cpus, memory, swap).

#include "hw/costmodel.h"
#include "hw/pfn.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mms {

// A block device used for swap. Requests pass one transfer stage (bandwidth, FIFO) and then a fixed latency
// (in parallel); at most queueDepth requests are outstanding, further submitters sleep (nr_requests throttling).
struct DeviceSpec {
    std::string kind; // "ssd-2015", "hdd-2007", "pmem-ram", "nvme-2020"
    double readLatencyNs = 0; // time from transfer end to completion for a read
    double writeLatencyNs = 0;
    double bandwidthMBps = 0; // transfer stage, MB/s (1e6 bytes)
    double requestOverheadNs = 0; // per-request command overhead in the transfer stage
    int queueDepth = 128; // nr_requests
};

struct SwapSpec {
    std::uint64_t sizeBytes = 0;
    DeviceSpec device;
};

struct MachineSpec {
    std::string preset;
    std::string description;
    int sockets = 1;
    int cpus = 1;
    std::uint64_t memoryBytes = 0;
    std::vector<SwapSpec> swap;
    CostModel cost;

    int socketOf(int cpu) const { return cpu * sockets / cpus; }
    std::uint64_t memoryPages() const { return memoryBytes / kPageSize; }
};

std::optional<MachineSpec> machinePreset(const std::string& name);
std::vector<std::string> machinePresetNames();
std::optional<DeviceSpec> devicePreset(const std::string& kind);
std::vector<std::string> devicePresetNames();

} // namespace mms
