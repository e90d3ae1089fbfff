#include "scenario/field.h"

#include "scenario/runsetup.h"
#include "scenario/size.h"

#include <set>

namespace mms {

std::string describeValue(const OJson& v)
{
    // replace, not throw, on invalid UTF-8: the value came from the user and the message must still be written.
    std::string s = v.dump(-1, ' ', false, OJson::error_handler_t::replace);
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

bool isMachineKey(const std::string& key)
{
    static const std::set<std::string> keys = { "preset", "sockets", "numa", "cpus", "cores_per_llc", "memory", "swap",
        "guest", "guest_preempt" };
    return keys.count(key) > 0;
}

bool applyField(OJson& doc, const std::string& name, const OJson& value)
{
    if (name == "swap.devices") {
        OJson& swap = doc["machine"]["swap"];
        if (swap.empty())
            throw ScenarioError("swap.devices: the machine has no swap device to split");
        if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 31)
            throw ScenarioError("swap.devices: expected an integer in [1, 31], got " + describeValue(value));
        std::uint64_t total = 0;
        for (auto& d : swap)
            total += parseSize(d["size"].get<std::string>()).value_or(0);
        auto n = value.get<std::uint64_t>();
        std::string device = swap[0]["device"];
        swap = OJson::array();
        for (std::uint64_t i = 0; i < n; ++i)
            swap.push_back(OJson { { "size", formatSize(total / n / kPageSize * kPageSize) }, { "device", device } });
        return true;
    }
    if (name.rfind("machine.", 0) == 0) {
        std::string key = name.substr(8);
        if (!isMachineKey(key))
            return false;
        if (key == "preset") // another machine: its sockets, numa, cpus, memory and swap, filled in by normalise()
            doc["machine"] = OJson::object();
        doc["machine"][key] = value;
        return true;
    }
    if (Toggles::isToggle(name)) {
        for (auto& [v, toggles] : doc["variants"].items())
            toggles[name] = value;
        return true;
    }
    std::string key = name.rfind("workload.", 0) == 0 ? name.substr(9) : name;
    if (const WorkloadKind* w = findWorkload(doc["workload"].value("kind", std::string())))
        for (auto& p : w->params)
            if (p.name == key) {
                doc["workload"][key] = value;
                return true;
            }
    return false;
}

bool isAxisName(const OJson& doc, const std::string& name)
{
    OJson copy = doc;
    try {
        return applyField(copy, name, name == "swap.devices" ? OJson(1) : OJson(nullptr));
    } catch (const ScenarioError&) {
        return true;
    }
}

} // namespace mms
