#pragma once
// The fields of a scenario document that a value can be applied to by name: machine.FIELD, swap.devices, a toggle
// (held for every variant) or a workload parameter. What --set, a sweep axis and Scenario::resolve() change.

#include "scenario/scenario.h"

#include <string>

namespace mms {

// One of the fields of a scenario's "machine" object: preset, sockets, numa, cpus, memory, swap, guest,
// guest_preempt.
bool isMachineKey(const std::string& key);

// A value as an error message quotes it: compact JSON, cut to 60 characters.
std::string describeValue(const OJson& value);

// Applies one value to a scenario document: a machine field, a workload parameter or a toggle. Returns false if
// `name` is none of these; throws ScenarioError for a swap.devices it cannot apply.
bool applyField(OJson& doc, const std::string& name, const OJson& value);
// Whether a sweep axis `name` names a field of this document: one applyField() knows, or refuses only for its
// value (swap.devices on a machine without swap; the sweep's points then report it).
bool isAxisName(const OJson& doc, const std::string& name);

} // namespace mms
