#pragma once
// What the scenario and result layers know of workloads: the kinds by name, their parameters and the metrics a run
// reports. Values only; the Workload interface, which runs on the simulated kernel, is in workload/workload.h.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mms {

class Workload;

enum class ParamKind : std::uint8_t { Size, Int, Double, String, Bool };

struct ParamSpec {
    std::string name;
    ParamKind kind;
    nlohmann::json defaultValue;
    bool scaled = false; // multiplied by --scale (amounts of memory and work)
    std::string help;
    double min = 0; // for Int, Double and Size
    double max = 1e18;
};

using Metrics = std::map<std::string, double>;

// What a workload makes the model hold on the host beyond the machine's own arrays, at most (estimateRunMemory).
struct WorkloadFootprint {
    // Pages its processes map in all: the model's page tables are dense (a PTE per page of every VMA), and only
    // these pages can be swapped out (the swap map is written only where they go).
    std::uint64_t mappedPages = 0;
    // The page-cache index of its files: dense from offset 0 to the last page read or written.
    std::uint64_t filePages = 0;
    // Host arrays its set-up holds while it builds the machine's state (e.g. a fill order per process).
    std::uint64_t setupBytes = 0;
};

struct WorkloadKind {
    std::string kind;
    std::string description;
    std::vector<ParamSpec> params;
    std::unique_ptr<Workload> (*make)(); // callers include workload/workload.h
    // The footprint from the (scaled) parameters and the machine's RAM and swap in pages. Null: the workload maps
    // at most RAM + swap and keeps no file in the page cache.
    WorkloadFootprint (*footprint)(const nlohmann::json& params, std::uint64_t ramPages, std::uint64_t swapPages)
        = nullptr;
};

const std::vector<WorkloadKind>& workloadKinds();
const WorkloadKind* findWorkload(const std::string& kind);

} // namespace mms
