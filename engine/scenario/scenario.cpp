#include "scenario/scenario.h"

#include "hw/machine.h"
#include "scenario/field.h"
#include "scenario/runsetup.h"
#include "scenario/size.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace mms {

const std::vector<std::pair<std::string_view, std::string_view>>& embeddedScenarios();
std::string_view embeddedPublishedFigures();
const std::vector<std::pair<std::string_view, std::string_view>>& embeddedSeeds();

namespace {
    OJson parseValue(const std::string& text)
    {
        try {
            return OJson::parse(text);
        } catch (const nlohmann::json::exception&) {
            return OJson(text);
        }
    }
} // namespace

Scenario Scenario::fromJson(const OJson& doc, const std::string& origin)
{
    Scenario s;
    s.m_doc = doc;
    s.m_origin = origin;
    s.normalise();
    return s;
}

Scenario Scenario::fromText(const std::string& text, const std::string& origin)
{
    OJson doc;
    try {
        doc = OJson::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw ScenarioError(origin + ": not valid JSON: " + e.what());
    }
    return fromJson(doc, origin);
}

std::vector<std::string> Scenario::variantNames() const
{
    std::vector<std::string> v;
    for (auto& [k, t] : m_doc["variants"].items())
        v.push_back(k);
    return v;
}

std::string Scenario::baseline() const
{
    const OJson& v = m_doc["variants"];
    return v.empty() ? std::string() : v.begin().key();
}

std::vector<std::string> Scenario::metrics() const { return m_doc["metrics"].get<std::vector<std::string>>(); }

std::vector<std::string> Scenario::axes() const
{
    std::vector<std::string> v;
    for (auto& [k, vals] : m_doc["sweep"].items())
        v.push_back(k);
    return v;
}

std::vector<OJson> Scenario::points() const
{
    std::vector<OJson> pts { OJson::object() };
    for (auto& [axis, values] : m_doc["sweep"].items()) {
        std::vector<OJson> next;
        for (const OJson& p : pts)
            for (const OJson& v : values) {
                OJson q = p;
                q[axis] = v;
                next.push_back(q);
            }
        pts = std::move(next);
    }
    return pts;
}

void Scenario::set(const std::string& path, const std::string& value)
{
    std::string origin = "--set " + path + "=" + value;
    // A scenario is JSON text, which is UTF-8; a value that is not would make the normalised document unprintable
    // (nlohmann throws type_error 316 on dump). Found by tests/fuzz/fuzz_set.
    try {
        (void)OJson(path + value).dump();
    } catch (const nlohmann::json::type_error&) {
        throw ScenarioError(origin + ": expected UTF-8 text");
    }
    OJson v = parseValue(value);
    OJson doc = m_doc;
    bool machineField = false;
    if (doc["sweep"].contains(path)) {
        doc["sweep"][path] = OJson::array({ v });
    } else if (path == "kernel") {
        doc[path] = value; // a string even where it reads as a number: "4.10" is not 4.1
    } else if (path == "reps" || path == "seed" || path == "title" || path == "id") {
        doc[path] = v;
    } else {
        try {
            if (!applyField(doc, path, v))
                throw ScenarioError(origin
                    + ": expected a scenario field (machine.cpus, workload.size, kernel, reps, seed), a toggle (e.g. "
                      "i_mmap.lock; `mmscope-cli toggles` lists them) or a sweep axis of this scenario");
            machineField = path.rfind("machine.", 0) == 0 || path == "swap.devices";
            // Another preset brings its own sockets, numa, cpus, memory and swap; what --set gave the machine before
            // still holds on the new one.
            if (path == "machine.preset") {
                doc = Scenario::fromJson(doc, origin).m_doc;
                for (auto& [p, pv] : m_machineSets)
                    applyField(doc, p, pv);
            }
        } catch (const ScenarioError& e) {
            if (std::string(e.what()).rfind("--set", 0) == 0)
                throw;
            throw ScenarioError(origin + ": " + e.what());
        }
    }
    m_doc = Scenario::fromJson(doc, origin).m_doc;
    if (machineField && path != "machine.preset")
        m_machineSets.emplace_back(path, v);
}

void Scenario::set(const std::vector<std::pair<std::string, std::string>>& sets)
{
    std::vector<std::pair<std::string, std::string>> pending = sets;
    while (!pending.empty()) {
        std::vector<std::pair<std::string, std::string>> refused;
        std::optional<ScenarioError> first;
        for (auto& [path, value] : pending) {
            try {
                set(path, value);
            } catch (const ScenarioError& e) {
                refused.emplace_back(path, value);
                if (!first)
                    first = e;
            }
        }
        if (refused.size() == pending.size())
            throw *first;
        pending = std::move(refused);
    }
}

void Scenario::setReps(int reps) { set("reps", std::to_string(reps)); }
void Scenario::setSeed(std::uint64_t seed) { set("seed", std::to_string(seed)); }

void Scenario::selectVariants(const std::vector<std::string>& names)
{
    if (names.empty())
        return;
    OJson kept = OJson::object();
    for (auto& n : names) {
        if (!m_doc["variants"].contains(n)) {
            std::string all;
            for (auto& v : variantNames())
                all += (all.empty() ? "" : ", ") + v;
            throw ScenarioError("--variant " + n + ": expected one of " + all);
        }
        kept[n] = m_doc["variants"][n];
    }
    m_doc["variants"] = kept;
}

RunSetup Scenario::resolve(const std::string& variant, const OJson& point, double scale) const
{
    OJson doc = m_doc;
    for (auto& [axis, value] : point.items())
        applyField(doc, axis, value);
    if (!point.empty()) { // a machine.preset axis leaves the new machine's fields to fill in
        Scenario probe;
        probe.m_doc = doc;
        probe.m_doc["sweep"] = OJson::object();
        probe.m_origin = m_origin;
        probe.normalise();
        doc = probe.m_doc;
    }
    RunSetup r;
    const OJson& m = doc["machine"];
    r.machine = *machinePreset(m["preset"]);
    r.machine.cpus = m["cpus"];
    r.machine.sockets = m["sockets"];
    if (m.contains("cores_per_llc"))
        r.machine.coresPerLlc = m["cores_per_llc"];
    r.machine.numa = m["numa"];
    if (m.contains("guest")) { // absent on bare metal (normalise.cpp)
        r.machine.guest = *guestFromName(m["guest"]);
        r.machine.cost = guestCostModel(r.machine.cost, r.machine.guest);
        r.machine.guestPreempt = m.value("guest_preempt", 0.0);
    }
    auto scaled = [scale](std::uint64_t bytes) {
        auto pages = static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes / kPageSize) * scale));
        return std::max<std::uint64_t>(pages, 1) * kPageSize;
    };
    r.machine.memoryBytes = scaled(*parseSize(m["memory"]));
    // --scale above 1 can take a valid machine past the largest the model encodes (hw/machine.h); refuse rather
    // than wrap.
    std::ostringstream atScale;
    atScale << " at scale " << scale;
    if (r.machine.memoryBytes / kPageSize > kMaxMemoryPages)
        throw ScenarioError(m_origin + ": machine.memory: " + formatSize(r.machine.memoryBytes) + atScale.str()
            + ": expected at most 1TiB (a PTE's 28-bit pfn)");
    r.machine.swap.clear();
    for (auto& sw : m["swap"]) {
        std::uint64_t bytes = scaled(*parseSize(sw["size"]));
        if (bytes / kPageSize > kMaxSwapDevicePages)
            throw ScenarioError(m_origin + ": machine.swap: " + formatSize(bytes) + atScale.str()
                + ": expected at most 128GiB per device (a swap entry's 25-bit offset)");
        r.machine.swap.push_back(SwapSpec { bytes, *devicePreset(sw["device"]) });
    }
    if (!doc["variants"].contains(variant))
        throw ScenarioError(m_origin + ": no variant named " + variant);
    const KernelVersion kernel = *KernelVersion::parse(doc["kernel"].get<std::string>());
    r.toggles = Toggles::forKernel(kernel);
    for (auto& [k, v] : doc["variants"][variant].items())
        r.toggles.set(k, nlohmann::json::parse(v.dump()));
    if (const auto [toggle, err] = r.toggles.eraError(kernel); !err.empty()) // a sweep's value (normalise() checks the rest)
        throw ScenarioError(m_origin + ": variants." + variant + "." + toggle + ": expected " + err);
    const OJson& w = doc["workload"];
    r.workload = findWorkload(w["kind"]);
    r.params = nlohmann::json::object();
    for (const ParamSpec& p : r.workload->params) {
        const OJson& v = w[p.name];
        switch (p.kind) {
        case ParamKind::Size: {
            std::uint64_t b = *parseSize(v);
            r.params[p.name] = p.scaled ? scaled(b) : b;
            break;
        }
        case ParamKind::Int:
            r.params[p.name] = p.scaled ? std::max<long long>(1, std::llround(v.get<double>() * scale)) : v.get<long long>();
            break;
        case ParamKind::Double:
            r.params[p.name] = p.scaled ? v.get<double>() * scale : v.get<double>();
            break;
        default:
            r.params[p.name] = nlohmann::json::parse(v.dump());
        }
    }
    return r;
}

std::vector<ScenarioInfo> builtinScenarios()
{
    std::vector<ScenarioInfo> out;
    for (auto& [name, text] : embeddedScenarios()) {
        Scenario s = Scenario::fromText(std::string(text), "built-in:" + std::string(name));
        out.push_back({ s.id(), s.title(), s.json()["source"]["seed"], s.json()["source"]["measured"] });
    }
    return out;
}

Scenario loadScenario(const std::string& idOrPath)
{
    for (auto& [name, text] : embeddedScenarios()) {
        OJson doc = OJson::parse(text);
        if (doc.value("id", std::string()) == idOrPath)
            return Scenario::fromJson(doc, "built-in:" + idOrPath);
    }
    std::error_code ec;
    if (std::filesystem::is_directory(idOrPath, ec))
        throw ScenarioError(idOrPath + ": is a directory: expected a scenario file or a built-in id");
    std::ifstream in(idOrPath);
    if (!in && std::filesystem::exists(idOrPath, ec))
        throw ScenarioError(idOrPath + ": cannot read (" + std::strerror(errno) + ")");
    if (!in) {
        std::string ids;
        for (auto& [name, text] : embeddedScenarios())
            ids += (ids.empty() ? "" : ", ") + OJson::parse(text).value("id", std::string());
        throw ScenarioError(idOrPath + ": no such scenario: expected a built-in id (" + ids + ") or a readable scenario file");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        throw ScenarioError(idOrPath + ": read failed (" + std::strerror(errno) + ")");
    return Scenario::fromText(ss.str(), idOrPath);
}

const nlohmann::json& publishedFigures()
{
    static const nlohmann::json figures = nlohmann::json::parse(embeddedPublishedFigures());
    return figures;
}

std::string_view sourcePost(const std::string& seedFile)
{
    for (auto& [name, text] : embeddedSeeds())
        if (name == seedFile)
            return text;
    return {};
}

} // namespace mms
