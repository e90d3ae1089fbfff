#pragma once
// The simulated hardware: CPUs in sockets, memory, swap devices and the cost model. Presets are named after the
// machines of the posts; a scenario picks a preset and may override its size fields (cpus, memory, swap).

#include "hw/costmodel.h"
#include "hw/device.h"
#include "hw/guest.h"
#include "hw/pfn.h"

#include <algorithm>
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
    int threadsPerCore = 1; // SMT siblings per core: they share the core's units and its memory bandwidth
    // Cores that share one last-level cache, 0 for the whole socket: a die's L2 where a package holds two dies (the
    // Core 2 Quad), a CCX's L3 (AMD Zen). A line moves between two cores of one cache through it
    // (CostModel::lineSameLlcNs), between caches of a socket over the package's bus or fabric; the scheduler's
    // lowest domain above SMT is the cores of a cache (sd_llc).
    int coresPerLlc = 0;
    // One socket's memory bandwidth, GB/s (1e9 B/s): its channels' peak (channels x transfers/s x 8 B, from the
    // datasheet) at the fraction STREAM reaches; 0 is unlimited.
    double socketMemGBps = 0;
    // Each socket's memory is its NUMA node (true), or the firmware interleaves the memory of every socket into one
    // node (false: the BIOS's "node interleaving", what a kernel reports as NUMA disabled on a multi-socket board):
    // consecutive cache lines alternate between the sockets' memory controllers, so every page's lines are spread
    // evenly over all of them. The memory is then one pool of every socket's bandwidth, and a line comes from the
    // reader's own socket for 1 in `sockets` lines and from another for the rest.
    bool numa = true;
    // Bare metal, or a KVM guest whose vCPUs are the CPUs above: `cost` is then guestCostModel() of the preset's.
    Guest guest = Guest::None;
    // In a guest, the share of its time the host has a running vCPU descheduled (host load: other guests' vCPUs, the
    // host's own threads), each time for CostModel::vcpuPreemptMaxNs: the task on it makes no progress meanwhile
    // (steal time), and an IPI or a lock's hand-off that reaches it waits for the host to run it again
    // (sched/sched.h, HostPreemption). 0: every vCPU always runs; at most kMaxGuestPreempt.
    double guestPreempt = 0;
    std::uint64_t memoryBytes = 0;
    std::vector<SwapSpec> swap;
    CostModel cost;

    int socketOf(int cpu) const { return cpu * sockets / cpus; }
    // The NUMA nodes: one per socket, or one for the whole interleaved memory. A CPU's node is its socket's.
    int nodes() const { return numa ? sockets : 1; }
    int nodeOf(int cpu) const { return numa ? socketOf(cpu) : 0; }
    // How much slower than local memory the memory of `node` streams to, and answers, a CPU of `socket`:
    // CostModel::remoteMemLatencyRatio for another socket's node; interleaved, the mean over the lines of a page
    // (1 for the reader's own socket's share, the ratio for the others').
    double memSlowdown(int socket, int node) const
    {
        if (!numa)
            return (1.0 + (sockets - 1) * cost.remoteMemLatencyRatio) / sockets;
        return node == socket ? 1.0 : cost.remoteMemLatencyRatio;
    }
    // The physical core of a CPU, numbered across the machine. Within a socket Linux enumerates the first thread of
    // every core, then the second ones: CPUs i and i + cores-per-socket of a socket are siblings.
    int coresPerSocket() const { return std::max(1, cpus / sockets / std::max(1, threadsPerCore)); }
    int coreCount() const { return coresPerSocket() * sockets; }
    int coreOf(int cpu) const
    {
        const int first = (socketOf(cpu) * cpus + sockets - 1) / sockets; // the socket's first CPU
        return socketOf(cpu) * coresPerSocket() + (cpu - first) % coresPerSocket();
    }
    // The last-level caches: each socket's cores in consecutive groups of coresPerLlc (a socket's last group may hold
    // fewer), numbered across the machine; the socket's one cache where coresPerLlc is 0 or covers the socket.
    int llcsPerSocket() const
    {
        return coresPerLlc > 0 ? std::max(1, (coresPerSocket() + coresPerLlc - 1) / coresPerLlc) : 1;
    }
    int llcCount() const { return std::max(1, sockets) * llcsPerSocket(); }
    int llcOf(int cpu) const
    {
        const int core = coreOf(cpu) - socketOf(cpu) * coresPerSocket(); // the core's index in its socket
        return socketOf(cpu) * llcsPerSocket() + (coresPerLlc > 0 ? core / coresPerLlc : 0);
    }
    std::uint64_t memoryPages() const { return memoryBytes / kPageSize; }
};

std::optional<MachineSpec> machinePreset(const std::string& name);
std::vector<std::string> machinePresetNames();

// The most of its time a guest's host may have a vCPU descheduled (MachineSpec::guestPreempt). No hardware source: a
// bound on the setting, chosen so that the vCPU still runs a tenth of its time and every run ends.
constexpr double kMaxGuestPreempt = 0.9; // GUESS, no hardware source: a bound on the setting (a vCPU keeps 10 %)

// The largest machine and swap device the model encodes. A simulated page-table entry is 32 bits (mm/pte.h): its
// pfn has 28 bits and a swap entry's offset 25, so a machine has at most 2^28 page frames (1 TiB of RAM) and a swap
// device at most 2^25 - 1 slots (128 GiB); scenarios are refused past these rather than let a pfn or an offset
// wrap. mm/pte.h static_asserts that its encoding covers both.
constexpr std::uint64_t kMaxMemoryPages = 1ULL << 28;
constexpr std::uint64_t kMaxSwapDevicePages = (1ULL << 25) - 1;

} // namespace mms
