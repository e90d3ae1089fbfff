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

struct WorkloadKind {
    std::string kind;
    std::string description;
    std::vector<ParamSpec> params;
    std::unique_ptr<Workload> (*make)(); // callers include workload/workload.h
    // Pages the workload's processes map in all, from its (scaled) parameters: the model's page tables are dense
    // (one PTE per mapped page), so the host memory a run needs grows with them (estimateRunMemory). Null: the
    // mappings are within the machine's RAM + swap (already counted).
    std::uint64_t (*mappedPages)(const nlohmann::json& params) = nullptr;
};

const std::vector<WorkloadKind>& workloadKinds();
const WorkloadKind* findWorkload(const std::string& kind);

} // namespace mms
