// Scenario::normalise(): a scenario document validated, section by section, with every default filled in.

#include "scenario/field.h"
#include "scenario/runsetup.h"
#include "scenario/scale.h"
#include "scenario/scenario.h"
#include "scenario/size.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <set>

namespace mms {

namespace {
    [[noreturn]] void fail(const std::string& origin, const std::string& path, const std::string& expected, const OJson* got = nullptr)
    {
        std::string msg = origin + ": " + path + ": expected " + expected;
        if (got)
            msg += ", got " + describeValue(*got);
        throw ScenarioError(msg);
    }

    const std::set<std::string> kTopKeys = { "id", "title", "description", "source", "kernel", "machine", "workload", "variants", "sweep", "metrics", "table", "reps", "seed", "published", "faithful_scale" };

    KernelVersion kernelOf(const OJson& v, const std::string& origin)
    {
        std::optional<KernelVersion> k;
        if (v.is_string())
            k = KernelVersion::parse(v.get<std::string>());
        if (!k || *k < KernelVersion { 2, 6, 0 })
            fail(origin, "kernel",
                "a kernel version \"X.Y\" or \"X.Y.Z\" from 2.6 on, such as \"2.6.20\", \"4.11\" or \"v5.6-rc4\"", &v);
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

    // The document is an object of known fields.
    void checkTopLevel(const OJson& d, const std::string& o)
    {
        if (!d.is_object())
            fail(o, "(top level)", "a JSON object", &d);
        for (auto& [k, v] : d.items())
            if (!kTopKeys.count(k))
                fail(o, k, "one of the fields id, title, description, source, kernel, machine, workload, variants, sweep, metrics, table, reps, seed, published, faithful_scale (unknown field)");
    }

    // id, title, description and source: what the scenario is and which post it reproduces.
    void normaliseIdentity(OJson& d, const std::string& o)
    {
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
    }

    // kernel: sets the defaults of its era's toggles (Toggles::forKernel).
    KernelVersion normaliseKernel(OJson& d, const std::string& o)
    {
        if (!d.contains("kernel"))
            d["kernel"] = kDefaultKernel;
        return kernelOf(d["kernel"], o);
    }

    // machine.swap: at most 31 devices, each of a size and a device preset (the machine preset's when not given).
    void normaliseSwap(OJson& m, const MachineSpec& preset, const std::string& o)
    {
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
    }

    // machine.guest: bare metal (none, the default) or a KVM guest (hw/guest.h); machine.guest_preempt: in a guest, the
    // share of its time the host has a running vCPU descheduled (MachineSpec::guestPreempt). Written only where they
    // differ from bare metal, so that a bare machine's scenario reads as it did before there were guests.
    void normaliseGuest(OJson& m, const std::string& o)
    {
        if (m.contains("guest")) {
            std::string names;
            for (auto& n : guestNames())
                names += (names.empty() ? "" : "|") + n;
            if (!m["guest"].is_string() || !guestFromName(m["guest"]))
                fail(o, "machine.guest", "one of " + names, &m["guest"]);
            if (m["guest"] == guestName(Guest::None))
                m.erase("guest");
        }
        if (m.contains("guest_preempt")) {
            OJson& p = m["guest_preempt"];
            if (p.is_string()) { // --set machine.guest_preempt=0.01
                try {
                    std::size_t end = 0;
                    double v = std::stod(p.get<std::string>(), &end);
                    if (end == p.get<std::string>().size())
                        p = v;
                } catch (const std::exception&) {
                }
            }
            if (!p.is_number() || p.get<double>() < 0 || p.get<double>() > kMaxGuestPreempt)
                fail(o, "machine.guest_preempt", "a share of time in [0, " + describeValue(kMaxGuestPreempt) + "]", &p);
            if (p.get<double>() == 0)
                m.erase("guest_preempt");
            else if (!m.contains("guest"))
                fail(o, "machine.guest_preempt", "0 on bare metal (set machine.guest to kvm first)", &p);
        }
    }

    // machine: a preset, and the sockets, numa, cpus, memory and swap it gives unless the scenario says otherwise.
    void normaliseMachine(OJson& d, const std::string& o)
    {
        if (!d.contains("machine") || !d["machine"].is_object())
            fail(o, "machine", "an object with a \"preset\"", d.contains("machine") ? &d["machine"] : nullptr);
        OJson& m = d["machine"];
        for (auto& [k, v] : m.items())
            if (!isMachineKey(k))
                fail(o, "machine." + k,
                    "one of preset, sockets, numa, cpus, cores_per_llc, memory, swap, guest, guest_preempt (unknown field)");
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
        // The cores that share a last-level cache (MachineSpec::coresPerLlc), only where the scenario sets them: 0 for
        // one cache a socket; the preset's grouping otherwise.
        if (m.contains("cores_per_llc"))
            intOf(m["cores_per_llc"], o, "machine.cores_per_llc", 0, cpus);
        if (!m.contains("numa"))
            m["numa"] = preset.numa;
        if (m["numa"].is_string() && (m["numa"] == "true" || m["numa"] == "false")) // --set machine.numa=false
            m["numa"] = m["numa"] == "true";
        if (!m["numa"].is_boolean())
            fail(o, "machine.numa", "true (a node per socket) or false (interleaved: one node)", &m["numa"]);
        if (!m.contains("memory"))
            m["memory"] = formatSize(preset.memoryBytes);
        std::uint64_t mem = sizeOf(m["memory"], o, "machine.memory");
        // At most the largest machine the model encodes (kMaxMemoryPages: 1 TiB of RAM).
        if (mem < (16ULL << 20) || mem / kPageSize > kMaxMemoryPages)
            fail(o, "machine.memory", "a size between 16MiB and 1TiB", &m["memory"]);
        m["memory"] = formatSize(mem);
        normaliseSwap(m, preset, o);
        normaliseGuest(m, o);
    }

    // A workload parameter's value within the parameter's range; a size written back as formatSize() writes it.
    void normaliseParam(OJson& v, const ParamSpec& p, const std::string& o)
    {
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
                fail(o, path, "a number in [" + OJson(p.min).dump() + ", " + OJson(p.max).dump() + "]", &v);
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

    // workload: a kind and its parameters, each within its range.
    void normaliseWorkload(OJson& d, const std::string& o)
    {
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
            normaliseParam(w[p.name], p, o);
        }
    }

    // variants: named sets of toggles over the kernel's defaults.
    void normaliseVariants(OJson& d, const std::string& o, const KernelVersion& kernel)
    {
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
            if (const auto [toggle, err] = t.eraError(kernel); !err.empty())
                fail(o, p + "." + toggle, err, toggles.contains(toggle) ? &toggles[toggle] : nullptr);
        }
    }

    // sweep: {axis: [values]}, each axis a field a value can be applied to.
    void normaliseSweep(OJson& d, const std::string& o)
    {
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
    }

    // metrics and table: what the tables show.
    void normaliseTable(OJson& d, const std::string& o)
    {
        if (!d.contains("metrics"))
            d["metrics"] = OJson::array();
        if (!d["metrics"].is_array() || std::any_of(d["metrics"].begin(), d["metrics"].end(), [](const OJson& v) { return !v.is_string(); }))
            fail(o, "metrics", "an array of metric names", &d["metrics"]);
        if (!d.contains("table"))
            d["table"] = OJson::object();
        if (!d["table"].is_object())
            fail(o, "table", "an object", &d["table"]);
    }

    // reps and seed.
    void normaliseRepetitions(OJson& d, const std::string& o)
    {
        if (!d.contains("reps"))
            d["reps"] = 1;
        intOf(d["reps"], o, "reps", 1, 1000);
        if (!d.contains("seed"))
            d["seed"] = 1;
        if (!d["seed"].is_number_unsigned() && !(d["seed"].is_number_integer() && d["seed"].get<long long>() >= 0))
            fail(o, "seed", "a non-negative integer", &d["seed"]);
    }

    // The post's figures as the tables read them: `rows` of a variant's figures (a metric, or its `_sd`, each a
    // number), or a sweep's `columns` (a variant's figures in the order of the axis's values, listed under the
    // axis's name) of one `metric`; the rest is text for the reader (seed, setup, notes) or lists.
    void checkPublished(const OJson& pub, const OJson& sweep, const std::string& o)
    {
        for (auto& [k, v] : pub.items()) {
            const std::string path = "published." + k;
            if (k == "rows") {
                if (!v.is_array())
                    fail(o, path, "an array of rows, each {\"variant\": NAME, METRIC: number, ...}", &v);
                for (std::size_t i = 0; i < v.size(); ++i) {
                    const OJson& row = v[i];
                    const std::string at = path + "[" + std::to_string(i) + "]";
                    if (!row.is_object() || !row.contains("variant") || !row["variant"].is_string())
                        fail(o, at, "an object with a \"variant\" name and the post's figures", &row);
                    for (auto& [m, x] : row.items())
                        if (m != "variant" && !x.is_number())
                            fail(o, at + "." + m, "a number (the post's figure)", &x);
                }
            } else if (k == "columns") {
                if (!v.is_object())
                    fail(o, path, "an object of variant -> the figures along the sweep axis", &v);
                for (auto& [variant, xs] : v.items()) {
                    if (!xs.is_array())
                        fail(o, path + "." + variant, "an array of numbers (one per value of the axis)", &xs);
                    for (std::size_t i = 0; i < xs.size(); ++i)
                        if (!xs[i].is_number())
                            fail(o, path + "." + variant + "[" + std::to_string(i) + "]",
                                "a number (the post's figure)", &xs[i]);
                }
            } else if (k == "metric") {
                if (!v.is_string())
                    fail(o, path, "a metric name (the one the columns give)", &v);
            } else if (sweep.contains(k) ? !v.is_array() : !v.is_string() && !v.is_array()) {
                fail(o, path, sweep.contains(k) ? "an array (the sweep axis's values the columns follow)"
                                                : "a string, or an array (a sweep axis's values)", &v);
            }
        }
    }

    // faithful_scale and published: what the run is set against.
    void normalisePublished(OJson& d, const std::string& o)
    {
        // The smallest --scale at which the ratios the post is about stay within 10 % of their value at scale 1
        // (run/ratio.h); 1 when not measured.
        if (!d.contains("faithful_scale"))
            d["faithful_scale"] = 1.0;
        if (!d["faithful_scale"].is_number() || !(d["faithful_scale"].get<double>() >= kMinScale && d["faithful_scale"].get<double>() <= 1.0))
            fail(o, "faithful_scale", "a number in [0.001, 1] (the smallest scale whose ratios stay within 10 % of scale 1's)",
                &d["faithful_scale"]);
        if (!d.contains("published")) {
            const auto& all = publishedFigures();
            std::string id = d["id"];
            d["published"] = all.contains(id) ? OJson::parse(all[id].dump()) : OJson::object();
        }
        if (!d["published"].is_object())
            fail(o, "published", "an object (the post's figures)", &d["published"]);
        checkPublished(d["published"], d["sweep"], o);
    }
} // namespace

// The sections in the order of a scenario file: the first error found is thrown, naming its path in the file.
void Scenario::normalise()
{
    checkTopLevel(m_doc, m_origin);
    normaliseIdentity(m_doc, m_origin);
    const KernelVersion kernel = normaliseKernel(m_doc, m_origin);
    normaliseMachine(m_doc, m_origin);
    normaliseWorkload(m_doc, m_origin);
    normaliseVariants(m_doc, m_origin, kernel);
    normaliseSweep(m_doc, m_origin);
    normaliseTable(m_doc, m_origin);
    normaliseRepetitions(m_doc, m_origin);
    normalisePublished(m_doc, m_origin);
    validateSweepPoints();
}

// Every sweep point validated once, so a bad axis value is reported now and not in the middle of a run.
void Scenario::validateSweepPoints() const
{
    const std::string& o = m_origin;
    for (const OJson& pt : points())
        for (auto& [axis, value] : pt.items()) {
            OJson copy = m_doc;
            try {
                applyField(copy, axis, value);
                Scenario probe;
                probe.m_doc = copy;
                probe.m_doc["sweep"] = OJson::object();
                probe.m_origin = o;
                probe.normalise();
            } catch (const ScenarioError& e) {
                throw ScenarioError(o + ": sweep." + axis + ": the value " + describeValue(value) + " is not valid: " + e.what());
            }
        }
}

} // namespace mms
