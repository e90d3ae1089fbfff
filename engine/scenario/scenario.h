#pragma once
// Scenarios: JSON files that say which machine, which workload, which variants (sets of toggles), which sweep and
// which metrics reproduce one post's table. A Scenario is always normalised: validated, with every default filled
// in, so `mmscope-cli show` can print it and a user can save, edit and run it as a file.

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mms {

using OJson = nlohmann::ordered_json;

// A bad scenario or value: the message names the file, the path inside it and what was expected.
class ScenarioError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct RunSetup; // scenario/runsetup.h

class Scenario {
public:
    // Parses and validates; `origin` (a file path or "built-in:ID") prefixes every error message.
    static Scenario fromJson(const OJson& doc, const std::string& origin);
    static Scenario fromText(const std::string& text, const std::string& origin);

    const OJson& json() const { return m_doc; } // normalised, every default filled in
    const std::string& origin() const { return m_origin; }
    std::string id() const { return m_doc["id"]; }
    std::string title() const { return m_doc["title"]; }
    std::vector<std::string> variantNames() const;
    // The variant every other is compared with (run/ratio.h): the first one, as in mmtests' compare-kernels.
    std::string baseline() const;
    std::vector<std::string> metrics() const;
    int reps() const { return m_doc["reps"]; }
    std::uint64_t seed() const { return m_doc["seed"]; }
    // The sweep's points in order (cartesian product of the axes, first axis slowest); {} when there is no sweep.
    std::vector<OJson> points() const;
    std::vector<std::string> axes() const;
    const OJson& published() const { return m_doc["published"]; }
    // The smallest --scale at which the ratios the post is about (run/ratio.h) stay within 10 % of their value at
    // scale 1, measured (tests/bench/faithful-scale.sh) and declared in the scenario's "faithful_scale"; 1 when
    // not declared. What mmscope-cli and the app run at when no scale is given.
    double faithfulScale() const { return m_doc["faithful_scale"]; }

    // --set PATH=VALUE: a scenario field (machine.cpus, kernel), a toggle (held for every variant) or a sweep axis
    // (narrowed to that one value). VALUE is JSON if it parses as JSON, else a string. machine.preset=NAME puts
    // the scenario on that machine (its sockets, numa, cpus, memory and swap); machine fields set before or after it
    // hold on the new machine.
    void set(const std::string& path, const std::string& value);
    // Several --set at once, in any order: a value the scenario refuses only because of another field not yet set
    // (machine.cpus=1 before machine.sockets=1) is applied once the others are. The first refusal that stays is
    // thrown.
    void set(const std::vector<std::pair<std::string, std::string>>& sets);
    void setReps(int reps);
    void setSeed(std::uint64_t seed);
    // Keeps only the named variants (in the given order); unknown names are an error.
    void selectVariants(const std::vector<std::string>& names);

    RunSetup resolve(const std::string& variant, const OJson& point, double scale) const;

private:
    void normalise(); // scenario/normalise.cpp
    void validateSweepPoints() const;
    OJson m_doc;
    std::string m_origin;
    std::vector<std::pair<std::string, OJson>> m_machineSets; // --set machine.FIELD / swap.devices, in order
};

// The scenarios built into the binaries (resources/scenarios, embedded at build time).
struct ScenarioInfo {
    std::string id, title, seed, measured;
};
std::vector<ScenarioInfo> builtinScenarios();
// An id of a built-in scenario, or a path to a scenario file.
Scenario loadScenario(const std::string& idOrPath);
// The posts' published figures (resources/published-figures.json).
const nlohmann::json& publishedFigures();
// The text of a source post (resources/seeds) by its file name, as a scenario's source.seed names it; empty if
// no such post is built in.
std::string_view sourcePost(const std::string& seedFile);

} // namespace mms
