#include "clikernels.h"

#include "scenario/kernels.h"

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

int cmdKernels(const std::vector<std::string>& args, std::ostream& out)
{
    if (args.size() > 2)
        throw BadInput("kernels: expected at most one VERSION (or --markdown)");
    if (args.size() == 1) {
        listReleases(out);
        return 0;
    }
    if (args[1] == "--markdown") {
        out << kernelsMarkdown();
        return 0;
    }
    if (!isKernelRelease(args[1]))
        throw BadInput("kernels " + args[1] + ": expected a release from " + kernelReleases().front() + " to "
            + kernelReleases().back() + ", such as 4.19 or 5.10.3");
    listRules(args[1], out);
    return 0;
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
