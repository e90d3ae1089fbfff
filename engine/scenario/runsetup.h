#pragma once
// Everything one run needs, resolved from a scenario (Scenario::resolve) for one variant, sweep point and scale:
// the machine, the kernel's toggles and the workload. Apart from scenario.h because the toggles are the kernel's.

#include "hw/machine.h"
#include "mm/toggles.h"
#include "workload/kind.h"

#include <nlohmann/json.hpp>

namespace mms {

struct RunSetup {
    MachineSpec machine;
    Toggles toggles;
    const WorkloadKind* workload = nullptr;
    nlohmann::json params; // workload parameters, scaled, sizes in bytes
};

} // namespace mms
