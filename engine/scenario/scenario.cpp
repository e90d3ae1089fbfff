#include "scenario/scenario.h"

#include "hw/machine.h"
#include "scenario/runsetup.h"
#include "scenario/size.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace mms {

const std::vector<std::pair<std::string_view, std::string_view>>& embeddedScenarios();
std::string_view embeddedPublishedFigures();
const std::vector<std::pair<std::string_view, std::string_view>>& embeddedSeeds();

namespace {
    std::string describe(const OJson& v)
    {
        // replace, not throw, on invalid UTF-8: the value came from the user and the message must still be written.
        std::string s = v.dump(-1, ' ', false, OJson::error_handler_t::replace);
        return s.size() > 60 ? s.substr(0, 57) + "..." : s;
    }

    [[noreturn]] void fail(const std::string& origin, const std::string& path, const std::string& expected, const OJson* got = nullptr)
    {
        std::string msg = origin + ": " + path + ": expected " + expected;
        if (got)
            msg += ", got " + describe(*got);
        throw ScenarioError(msg);
    }

    const std::set<std::string> kTopKeys = { "id", "title", "description", "source", "kernel", "machine", "workload", "variants", "sweep", "metrics", "table", "reps", "seed", "published", "faithful_scale" };
    const std::set<std::string> kMachineKeys = { "preset", "sockets", "cpus", "memory", "swap" };

    KernelVersion kernelOf(const OJson& v, const std::string& origin)
    {
        std::optional<KernelVersion> k;
        if (v.is_string())
            k = KernelVersion::parse(v.get<std::string>());
        if (!k || *k < KernelVersion { 2, 6, 0 })
            fail(origin, "kernel", "a kernel version \"X.Y\" or \"X.Y.Z\" from 2.6 on, such as \"2.6.20\" or \"4.11\"", &v);
        return *k;
    }

    std::uint64_t sizeOf(const OJson& v, const std::string& origin, const std::string& path)
    {
        if (v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0))
            return v.get<std::uint64_t>();
        if (v.is_string())
            if (auto s = parseSize(v.get<std::string>()))
                return *s;
        fail(origin, path, "a size such as \"512MiB\", \"3GiB\" or a number of bytes", &v);
    }

    long long intOf(const OJson& v, const std::string& origin, const std::string& path, long long lo, long long hi)
    {
        if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
            fail(origin, path, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", &v);
        return v.get<long long>();
    }

    OJson parseValue(const std::string& text)
    {
        try {
            return OJson::parse(text);
        } catch (const nlohmann::json::exception&) {
            return OJson(text);
        }
    }

    // Applies one value to a scenario document: a machine field, a workload parameter or a toggle.
    // Returns false if `name` is none of these.
    bool applyField(OJson& doc, const std::string& name, const OJson& value)
    {
        if (name == "swap.devices") {
            OJson& swap = doc["machine"]["swap"];
            if (swap.empty())
                throw ScenarioError("swap.devices: the machine has no swap device to split");
            if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 31)
                throw ScenarioError("swap.devices: expected an integer in [1, 31], got " + describe(value));
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
            if (!kMachineKeys.count(key))
                return false;
            if (key == "preset") // another machine: its sockets, cpus, memory and swap, filled in by normalise()
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

void Scenario::normalise()
{
    const std::string& o = m_origin;
    OJson& d = m_doc;
    if (!d.is_object())
        fail(o, "(top level)", "a JSON object", &d);
    for (auto& [k, v] : d.items())
        if (!kTopKeys.count(k))
            fail(o, k, "one of the fields id, title, description, source, kernel, machine, workload, variants, sweep, metrics, table, reps, seed, published, faithful_scale (unknown field)");

    if (!d.contains("id") || !d["id"].is_string() || !std::regex_match(d["id"].get<std::string>(), std::regex("[a-z0-9][a-z0-9.-]*")))
        fail(o, "id", "a lower-case identifier such as \"madv-free-swapin\"", d.contains("id") ? &d["id"] : nullptr);
    if (!d.contains("title"))
        d["title"] = d["id"];
    if (!d["title"].is_string())
        fail(o, "title", "a string", &d["title"]);
    if (!d.contains("description"))
        d["description"] = "";
    if (!d.contains("source"))
        d["source"] = OJson::object();
    if (!d["source"].is_object())
        fail(o, "source", "an object {\"seed\": ..., \"measured\": ...}", &d["source"]);
    for (const char* k : { "seed", "measured" }) {
        if (!d["source"].contains(k))
            d["source"][k] = "";
        if (!d["source"][k].is_string())
            fail(o, std::string("source.") + k, "a string", &d["source"][k]);
    }

    // kernel: sets the defaults of its era's toggles (Toggles::forKernel)
    if (!d.contains("kernel"))
        d["kernel"] = kDefaultKernel;
    const KernelVersion kernel = kernelOf(d["kernel"], o);

    // machine
    if (!d.contains("machine") || !d["machine"].is_object())
        fail(o, "machine", "an object with a \"preset\"", d.contains("machine") ? &d["machine"] : nullptr);
    OJson& m = d["machine"];
    for (auto& [k, v] : m.items())
        if (!kMachineKeys.count(k))
            fail(o, "machine." + k, "one of preset, sockets, cpus, memory, swap (unknown field)");
    std::string presetNames;
    for (auto& n : machinePresetNames())
        presetNames += (presetNames.empty() ? "" : "|") + n;
    if (!m.contains("preset") || !m["preset"].is_string() || !machinePreset(m["preset"]))
        fail(o, "machine.preset", "one of " + presetNames, m.contains("preset") ? &m["preset"] : nullptr);
    MachineSpec preset = *machinePreset(m["preset"]);
    if (!m.contains("sockets"))
        m["sockets"] = preset.sockets;
    if (!m.contains("cpus"))
        m["cpus"] = preset.cpus;
    long long cpus = intOf(m["cpus"], o, "machine.cpus", 1, 4096);
    intOf(m["sockets"], o, "machine.sockets", 1, std::min<long long>(64, cpus));
    if (!m.contains("memory"))
        m["memory"] = formatSize(preset.memoryBytes);
    std::uint64_t mem = sizeOf(m["memory"], o, "machine.memory");
    // At most the largest machine the model encodes (kMaxMemoryPages: 1 TiB of RAM).
    if (mem < (16ULL << 20) || mem / kPageSize > kMaxMemoryPages)
        fail(o, "machine.memory", "a size between 16MiB and 1TiB", &m["memory"]);
    m["memory"] = formatSize(mem);
    if (!m.contains("swap")) {
        m["swap"] = OJson::array();
        for (auto& sw : preset.swap)
            m["swap"].push_back(OJson { { "size", formatSize(sw.sizeBytes) }, { "device", sw.device.name() } });
    }
    if (!m["swap"].is_array() || m["swap"].size() > 31)
        fail(o, "machine.swap", "an array of at most 31 {\"size\", \"device\"} objects", &m["swap"]);
    std::string deviceNames;
    for (auto& n : devicePresetNames())
        deviceNames += (deviceNames.empty() ? "" : "|") + n;
    for (std::size_t i = 0; i < m["swap"].size(); ++i) {
        OJson& sw = m["swap"][i];
        std::string p = "machine.swap[" + std::to_string(i) + "]";
        if (!sw.is_object())
            fail(o, p, "an object {\"size\", \"device\"}", &sw);
        if (!sw.contains("size"))
            fail(o, p + ".size", "a size");
        std::uint64_t sz = sizeOf(sw["size"], o, p + ".size");
        if (sz < (1ULL << 20) || sz / kPageSize > kMaxSwapDevicePages)
            fail(o, p + ".size", "a size between 1MiB and 128GiB", &sw["size"]);
        sw["size"] = formatSize(sz);
        if (!sw.contains("device"))
            sw["device"] = preset.swap.empty() ? "ssd-2015" : preset.swap[0].device.name();
        if (!sw["device"].is_string() || !devicePreset(sw["device"]))
            fail(o, p + ".device", "one of " + deviceNames, &sw["device"]);
    }

    // workload
    if (!d.contains("workload") || !d["workload"].is_object())
        fail(o, "workload", "an object with a \"kind\"", d.contains("workload") ? &d["workload"] : nullptr);
    OJson& w = d["workload"];
    std::string kinds;
    for (auto& k : workloadKinds())
        kinds += (kinds.empty() ? "" : "|") + k.kind;
    if (!w.contains("kind") || !w["kind"].is_string() || !findWorkload(w["kind"]))
        fail(o, "workload.kind", "one of " + kinds, w.contains("kind") ? &w["kind"] : nullptr);
    const WorkloadKind& wk = *findWorkload(w["kind"]);
    for (auto& item : w.items()) {
        const std::string& k = item.key(); // not a structured binding: clang 14 cannot capture one in a lambda
        if (k == "kind")
            continue;
        if (std::none_of(wk.params.begin(), wk.params.end(), [&](const ParamSpec& p) { return p.name == k; })) {
            std::string names;
            for (auto& p : wk.params)
                names += (names.empty() ? "" : ", ") + p.name;
            fail(o, "workload." + k, "a parameter of " + wk.kind + " (" + names + ")");
        }
    }
    for (const ParamSpec& p : wk.params) {
        if (!w.contains(p.name))
            w[p.name] = p.defaultValue;
        OJson& v = w[p.name];
        std::string path = "workload." + p.name;
        switch (p.kind) {
        case ParamKind::Size: {
            std::uint64_t b = sizeOf(v, o, path);
            if (static_cast<double>(b) < p.min || static_cast<double>(b) > p.max)
                fail(o, path, "a size between " + formatSize(static_cast<std::uint64_t>(p.min)) + " and " + formatSize(static_cast<std::uint64_t>(p.max)), &v);
            v = formatSize(b);
            break;
        }
        case ParamKind::Int:
            intOf(v, o, path, static_cast<long long>(p.min), static_cast<long long>(p.max));
            break;
        case ParamKind::Double:
            if (!v.is_number() || v.get<double>() < p.min || v.get<double>() > p.max)
                fail(o, path, "a number in [" + std::to_string(p.min) + ", " + std::to_string(p.max) + "]", &v);
            break;
        case ParamKind::String:
            if (!v.is_string())
                fail(o, path, "a string", &v);
            break;
        case ParamKind::Bool:
            if (!v.is_boolean())
                fail(o, path, "true or false", &v);
            break;
        }
    }

    // variants
    if (!d.contains("variants") || !d["variants"].is_object() || d["variants"].empty())
        fail(o, "variants", "a non-empty object {name: {toggle: value}}", d.contains("variants") ? &d["variants"] : nullptr);
    for (auto& [name, toggles] : d["variants"].items()) {
        std::string p = "variants." + name;
        if (!std::regex_match(name, std::regex("[A-Za-z0-9][A-Za-z0-9._+-]*")))
            fail(o, p, "a variant name of letters, digits and . _ + -");
        if (!toggles.is_object())
            fail(o, p, "an object {toggle: value}", &toggles);
        Toggles t = Toggles::forKernel(kernel);
        for (auto& [k, v] : toggles.items()) {
            if (!Toggles::isToggle(k)) {
                std::string names;
                for (auto& n : Toggles::names())
                    names += (names.empty() ? "" : ", ") + n;
                fail(o, p + "." + k, "a toggle (" + names + ")");
            }
            nlohmann::json plain = nlohmann::json::parse(v.dump());
            std::string err = t.set(k, plain);
            if (!err.empty())
                fail(o, p + "." + k, err, &v);
        }
    }

    // sweep
    if (!d.contains("sweep"))
        d["sweep"] = OJson::object();
    if (!d["sweep"].is_object())
        fail(o, "sweep", "an object {axis: [values]}", &d["sweep"]);
    for (auto& [axis, values] : d["sweep"].items()) {
        if (!isAxisName(d, axis))
            fail(o, "sweep." + axis, "an axis that is a workload parameter, a toggle, machine.FIELD or swap.devices");
        if (!values.is_array() || values.empty())
            fail(o, "sweep." + axis, "a non-empty array of values", &values);
    }

    if (!d.contains("metrics"))
        d["metrics"] = OJson::array();
    if (!d["metrics"].is_array() || std::any_of(d["metrics"].begin(), d["metrics"].end(), [](const OJson& v) { return !v.is_string(); }))
        fail(o, "metrics", "an array of metric names", &d["metrics"]);
    if (!d.contains("table"))
        d["table"] = OJson::object();
    if (!d["table"].is_object())
        fail(o, "table", "an object", &d["table"]);
    if (!d.contains("reps"))
        d["reps"] = 1;
    intOf(d["reps"], o, "reps", 1, 1000);
    if (!d.contains("seed"))
        d["seed"] = 1;
    if (!d["seed"].is_number_unsigned() && !(d["seed"].is_number_integer() && d["seed"].get<long long>() >= 0))
        fail(o, "seed", "a non-negative integer", &d["seed"]);
    // The smallest --scale at which the ratios the post is about stay within 10 % of their value at scale 1
    // (run/ratio.h); 1 when not measured.
    if (!d.contains("faithful_scale"))
        d["faithful_scale"] = 1.0;
    if (!d["faithful_scale"].is_number() || !(d["faithful_scale"].get<double>() >= 1e-4 && d["faithful_scale"].get<double>() <= 1.0))
        fail(o, "faithful_scale", "a number in [0.0001, 1] (the smallest scale whose ratios stay within 10 % of scale 1's)",
            &d["faithful_scale"]);
    if (!d.contains("published")) {
        const auto& all = publishedFigures();
        std::string id = d["id"];
        d["published"] = all.contains(id) ? OJson::parse(all[id].dump()) : OJson::object();
    }
    if (!d["published"].is_object())
        fail(o, "published", "an object (the post's figures)", &d["published"]);

    // Validate every sweep point once, so a bad axis value is reported now and not in the middle of a run.
    for (const OJson& pt : points())
        for (auto& [axis, value] : pt.items()) {
            OJson copy = d;
            try {
                applyField(copy, axis, value);
                Scenario probe;
                probe.m_doc = copy;
                probe.m_doc["sweep"] = OJson::object();
                probe.m_origin = o;
                probe.normalise();
            } catch (const ScenarioError& e) {
                throw ScenarioError(o + ": sweep." + axis + ": the value " + describe(value) + " is not valid: " + e.what());
            }
        }
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
                throw ScenarioError(origin + ": expected a scenario field (machine.cpus, workload.size, kernel, reps, seed), a toggle (e.g. i_mmap.lock) or a sweep axis of this scenario");
            machineField = path.rfind("machine.", 0) == 0 || path == "swap.devices";
            // Another preset brings its own sockets, cpus, memory and swap; what --set gave the machine before
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
    r.toggles = Toggles::forKernel(*KernelVersion::parse(doc["kernel"].get<std::string>()));
    for (auto& [k, v] : doc["variants"][variant].items())
        r.toggles.set(k, nlohmann::json::parse(v.dump()));
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
