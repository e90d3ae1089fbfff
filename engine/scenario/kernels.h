#pragma once
// The kernel releases a scenario may name and the era rules (mm/toggles.h: kernelRules) as values the front ends
// hold: `mmscope-cli kernels [VERSION]`, the note a run prints when --set kernel= moves a scenario to another
// release, and docs/kernels.md, which is generated from the same table.

#include <string>
#include <vector>

namespace mms {

struct KernelRuleInfo {
    std::string version; // the first release with the change
    std::string commit; // 12 hex digits, or what stands for one ("not verified", "out of tree")
    std::string subject;
    std::string toggle; // empty for a change the survey lists but the model does not follow
    std::string from, to; // the toggle's value before `version` and from it on
    std::string note; // what it changes in the model's terms; for one not modelled, why not
    bool modelled() const { return !toggle.empty(); }
};

// Every rule, ordered by release.
std::vector<KernelRuleInfo> kernelRuleTable();
// Every release the rules cover, oldest first: 2.6.20 .. 2.6.39, 3.0 .. 3.19, 4.0 .. 4.20, 5.0 .. 5.19, 6.0 .. 6.12.
std::vector<std::string> kernelReleases();
// The release of kernelReleases() that `version` is (4.19.3 and v4.19-rc2 are 4.19), or "" for a version outside
// 2.6.20 .. 6.12 or not a version.
std::string kernelRelease(const std::string& version);
// "X.Y" or "X.Y.Z" of a release from 2.6.20 to 6.12 (a stable update such as 4.19.3 included).
bool isKernelRelease(const std::string& version);
// True when rule release `rule` is in kernel `version` (both valid versions).
bool kernelHasRule(const std::string& version, const std::string& rule);
// The modelled rules whose release lies after the older of `a` and `b` and up to the newer: the rules in force in
// one and not the other.
std::vector<KernelRuleInfo> kernelRulesBetween(const std::string& a, const std::string& b);
// docs/kernels.md: the survey and the rules, one table row per rule.
std::string kernelsMarkdown();

// A toggle as `mmscope-cli toggles` lists it: what --set takes, its value in one release, and the releases whose
// rules change it ("2.6.25 ticket").
struct ToggleInfo {
    std::string name;
    std::string accepts; // "one of byte|ticket|queued", "an integer in [1, 512]", "true or false"
    std::vector<std::string> values; // each value it takes, where they are named (empty for a number)
    std::string value; // in the release asked for
    std::vector<std::string> changes;
};
// Every toggle, by name, with its value in `version` (a valid release).
std::vector<ToggleInfo> toggleTable(const std::string& version);

} // namespace mms
