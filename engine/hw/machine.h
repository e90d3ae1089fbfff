#pragma once
// The simulated hardware: CPUs in sockets, memory, swap devices and the cost model. Presets are named after the
// machines of the posts; a scenario picks a preset and may override its size fields (cpus, memory, swap).

#include "hw/costmodel.h"
#include "hw/device.h"
#include "hw/pfn.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mms {

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

// The largest machine and swap device the model encodes. A simulated page-table entry is 32 bits (mm/pte.h): its
// pfn has 28 bits and a swap entry's offset 25, so a machine has at most 2^28 page frames (1 TiB of RAM) and a swap
// device at most 2^25 - 1 slots (128 GiB); scenarios are refused past these rather than let a pfn or an offset
// wrap. mm/pte.h static_asserts that its encoding covers both.
constexpr std::uint64_t kMaxMemoryPages = 1ULL << 28;
constexpr std::uint64_t kMaxSwapDevicePages = (1ULL << 25) - 1;

} // namespace mms
