#include "clikernels.h"

#include "clicommand.h"
#include "scenario/kernels.h"

#include <memory>

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace mms::cli {

namespace {
    std::string ruleLine(const KernelRuleInfo& r, const std::string& value)
    {
        char buf[160];
        std::snprintf(buf, sizeof buf, "  %-7s %-14s %-40s ", r.version.c_str(), r.commit.c_str(),
            r.modelled() ? (r.toggle + "=" + value).c_str() : "(not modelled)");
        return buf + r.subject + "\n";
    }

    void listReleases(std::ostream& out)
    {
        const auto rules = kernelRuleTable();
        out << "releases a scenario's kernel may name (and the modelled rules each brings):\n";
        for (const std::string& v : kernelReleases()) {
            auto n = std::count_if(
                rules.begin(), rules.end(), [&](const KernelRuleInfo& r) { return r.modelled() && r.version == v; });
            out << "  " << v;
            if (n)
                out << std::string(v.size() < 8 ? 8 - v.size() : 1, ' ') << n << (n == 1 ? " rule" : " rules");
            out << "\n";
        }
        out << "a stable update (4.19.3) behaves as its release; `mmscope-cli kernels VERSION` lists its rules\n";
    }

    void listRules(const std::string& version, std::ostream& out)
    {
        const auto rules = kernelRuleTable();
        out << "kernel " << version << ": the modelled rules in force\n";
        for (const KernelRuleInfo& r : rules)
            if (r.modelled() && kernelHasRule(version, r.version))
                out << ruleLine(r, r.to);
        out << "later rules, not in " << version << " (the toggle keeps its earlier value):\n";
        for (const KernelRuleInfo& r : rules)
            if (r.modelled() && !kernelHasRule(version, r.version))
                out << ruleLine(r, r.from);
        out << "changes up to " << version
            << " the survey lists but the model does not follow (docs/kernels.md says why):\n";
        for (const KernelRuleInfo& r : rules)
            if (!r.modelled() && kernelHasRule(version, r.version))
                out << ruleLine(r, {});
    }
} // namespace

void addKernelsCommand(CommandLine& cl)
{
    auto version = std::make_shared<std::vector<std::string>>();
    auto markdown = std::make_shared<bool>(false);
    Command& k = cl.add("kernels", "[VERSION] [--markdown]", "the kernel releases and a release's rules",
        "Print the kernel releases a scenario may name (2.6.20 .. 6.12); with VERSION, the era rules in force in "
        "that release, with their commits; with --markdown, the whole rule table (docs/kernels.md).");
    k.app->add_option("VERSION", *version, "a release, such as 4.19 or 5.10.3");
    k.app->add_flag("--markdown", *markdown, "the whole table as Markdown");
    k.run = [version, markdown](std::ostream& out, std::ostream&) {
        if (version->size() > 1)
            throw BadInput("kernels: expected at most one VERSION (or --markdown)");
        if (*markdown) {
            out << kernelsMarkdown();
            return 0;
        }
        if (version->empty()) {
            listReleases(out);
            return 0;
        }
        const std::string& v = version->front();
        if (!isKernelRelease(v))
            throw BadInput("kernels " + v + ": expected a release from " + kernelReleases().front() + " to "
                + kernelReleases().back() + ", such as 4.19 or 5.10.3");
        listRules(v, out);
        return 0;
    };
}

namespace {
    void listToggles(const std::string& version, std::ostream& out)
    {
        const auto table = toggleTable(version);
        std::size_t name = 4, value = 5, takes = 5;
        for (const ToggleInfo& t : table) {
            name = std::max(name, t.name.size());
            value = std::max(value, t.value.size());
            takes = std::max(takes, t.accepts.size());
        }
        out << "the toggles --set NAME=VALUE gives every variant of a run (a scenario's variants set their own),\n"
               "their values in "
            << version << " and the releases whose rules change them (`mmscope-cli kernels VERSION`):\n";
        auto pad = [](const std::string& s, std::size_t w) { return s + std::string(w - s.size() + 2, ' '); };
        out << "  " << pad("NAME", name) << pad("VALUE", value) << pad("TAKES", takes) << "CHANGED IN\n";
        for (const ToggleInfo& t : table) {
            std::string changes;
            for (const std::string& c : t.changes)
                changes += (changes.empty() ? "" : ", ") + c;
            out << "  " << pad(t.name, name) << pad(t.value.empty() ? "-" : t.value, value)
                << (changes.empty() ? t.accepts : pad(t.accepts, takes) + changes) << "\n";
        }
    }
} // namespace

void addTogglesCommand(CommandLine& cl)
{
    auto version = std::make_shared<std::vector<std::string>>();
    Command& t = cl.add("toggles", "[VERSION]", "the kernel's toggles, what each takes and its value in a release",
        "Print every toggle a variant or --set may name, the values it takes, its value in VERSION (default: the "
        "newest release, " + kernelReleases().back() + ") and the releases whose rules change it.");
    t.app->add_option("VERSION", *version, "a release, such as 4.19 or 5.10.3");
    t.run = [version](std::ostream& out, std::ostream&) {
        if (version->size() > 1)
            throw BadInput("toggles: expected at most one VERSION");
        const std::string v = version->empty() ? kernelReleases().back() : version->front();
        if (!isKernelRelease(v))
            throw BadInput("toggles " + v + ": expected a release from " + kernelReleases().front() + " to "
                + kernelReleases().back() + ", such as 4.19 or 5.10.3");
        listToggles(v, out);
        return 0;
    };
}

void noteKernelChange(const RunArgs& r, std::ostream& err)
{
    auto set = std::find_if(r.sets.rbegin(), r.sets.rend(), [](const auto& s) { return s.first == "kernel"; });
    if (set == r.sets.rend())
        return;
    const std::string own = loadScenario(r.scenario).json().value("kernel", std::string());
    const std::string& to = set->second;
    const auto rules = kernelRulesBetween(own, to);
    err << "mmscope-cli: kernel " << to << " instead of the scenario's " << own << ": ";
    if (rules.empty()) {
        err << "no rule differs\n";
        return;
    }
    err << rules.size() << (rules.size() == 1 ? " rule differs" : " rules differ")
        << " (a variant's own toggles still hold):\n";
    for (const KernelRuleInfo& rule : rules)
        err << ruleLine(rule, kernelHasRule(to, rule.version) ? rule.to : rule.from);
}

} // namespace mms::cli
