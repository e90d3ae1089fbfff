// Shell completion from the commands' CLI11 definitions (clicommand.h). `mmscope-cli completion bash` prints a bash
// script that asks mmscope-cli itself what may follow (`mmscope-cli __complete WORD...`, the words after the
// program's name, the last one the word being completed): command names, a command's options, the values an
// option names in its help ("text | markdown | csv"), the built-in scenario ids, a scenario's variants and
// fields, the kernel releases. Where a file may follow, the answer's last line is "@files" and the script adds the
// shell's own file names.
#include "clicommand.h"
#include "cliinput.h"

#include "scenario/kernels.h"
#include "scenario/scenario.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <set>

namespace mms::cli {

namespace {
    // The bash side: the words up to the cursor go to mmscope-cli, its lines come back as the candidates.
    constexpr const char* kBashScript = R"(# bash completion for mmscope-cli, written by `mmscope-cli completion bash`.
# Install: mmscope-cli completion bash > ~/.local/share/bash-completion/completions/mmscope-cli
# (the Debian package installs it for every user).
_mmscope_cli()
{
    local cur=${COMP_WORDS[COMP_CWORD]} line files=0
    local -a words=("${COMP_WORDS[@]:1:COMP_CWORD}")
    COMPREPLY=()
    # --set PATH=VALUE: bash splits at '=' (COMP_WORDBREAKS); complete the whole PATH=VALUE word.
    local i=$COMP_CWORD
    if [[ $cur == "=" ]]; then
        cur="${COMP_WORDS[i-1]}="
        words=("${COMP_WORDS[@]:1:i-2}" "$cur")
    elif (( i > 2 )) && [[ ${COMP_WORDS[i-1]} == "=" ]]; then
        cur="${COMP_WORDS[i-2]}=$cur"
        words=("${COMP_WORDS[@]:1:i-3}" "$cur")
    fi
    while IFS= read -r line; do
        if [[ $line == "@files" ]]; then files=1; else COMPREPLY+=("$line"); fi
    done < <("${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null)
    if [[ $cur == *=* ]]; then
        for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#*=}; done
    fi
    # A --set PATH= waits for its value.
    [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
    if (( files )); then
        compopt -o filenames 2>/dev/null
        COMPREPLY+=($(compgen -f -- "$cur"))
    fi
}
complete -F _mmscope_cli mmscope-cli
)";

    bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

    const CLI::Option* optionNamed(const CLI::App* app, const std::string& name)
    {
        for (const CLI::Option* o : app->get_options())
            if (o->nonpositional() && o->check_lname(name.substr(name.rfind('-') == std::string::npos ? 0 : 2)))
                return o;
        return nullptr;
    }

    bool takesValue(const CLI::Option* o) { return o->get_type_size() > 0; }

    // The choices an option's help lists before any parenthesis: "text | markdown | csv (default: text)".
    std::vector<std::string> choicesIn(const std::string& help)
    {
        std::vector<std::string> out;
        const std::string head = help.substr(0, help.find('('));
        if (head.find(" | ") == std::string::npos)
            return out;
        std::size_t at = 0;
        while (at < head.size()) {
            std::size_t bar = head.find('|', at);
            std::string w = head.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
            w.erase(0, w.find_first_not_of(' '));
            w.erase(w.find_last_not_of(' ') + 1);
            if (!w.empty() && w.find(' ') == std::string::npos)
                out.push_back(w);
            if (bar == std::string::npos)
                break;
            at = bar + 1;
        }
        return out;
    }

    // Dotted paths of a scenario's fields that --set takes (objects opened; arrays, the variants, id and title left).
    void fieldPaths(const OJson& j, const std::string& prefix, std::vector<std::string>& out)
    {
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string path = prefix + it.key();
            if (path == "variants" || path == "id" || path == "title")
                continue;
            if (it->is_object() && !it->empty())
                fieldPaths(*it, path + ".", out);
            else
                out.push_back(path + "=");
        }
    }

    struct Completion {
        std::vector<std::string> words;
        bool files = false;
    };

    // What the scenario given so far (the command's first positional) offers, or nothing when it does not load.
    std::optional<Scenario> scenarioOf(const std::vector<std::string>& given)
    {
        try {
            for (const std::string& w : given)
                if (!startsWith(w, "-"))
                    return loadScenario(w);
        } catch (const std::exception&) {
        }
        return std::nullopt;
    }

    void completeValue(const CLI::Option* o, const std::string& cur, const std::vector<std::string>& given,
        Completion& c)
    {
        const std::string type = o->get_type_name();
        const std::string name = o->get_lnames().empty() ? std::string() : o->get_lnames().front();
        if (type.find("FILE") != std::string::npos || type.find(".json") != std::string::npos) {
            c.files = true;
            return;
        }
        if (name == "variant") {
            if (auto sc = scenarioOf(given))
                c.words = sc->variantNames();
            return;
        }
        if (name == "set") {
            if (startsWith(cur, "kernel=")) {
                for (const std::string& r : kernelReleases())
                    c.words.push_back("kernel=" + r);
                return;
            }
            if (const std::size_t eq = cur.find('='); eq != std::string::npos) {
                // A toggle's values: every one it takes, or for a number those its kernel rules move it between.
                const std::string toggle = cur.substr(0, eq);
                for (const ToggleInfo& t : toggleTable(kernelReleases().back()))
                    if (t.name == toggle)
                        for (const std::string& v : t.values)
                            c.words.push_back(toggle + "=" + v);
                for (const KernelRuleInfo& r : kernelRuleTable())
                    if (r.toggle == toggle)
                        c.words.insert(c.words.end(), { toggle + "=" + r.from, toggle + "=" + r.to });
                return;
            }
            if (auto sc = scenarioOf(given)) {
                fieldPaths(sc->json(), "", c.words);
                // A toggle --set holds for every variant: those the variants set, and every kernel rule's.
                for (const auto& [variant, toggles] : sc->json()["variants"].items())
                    for (const auto& [toggle, value] : toggles.items())
                        c.words.push_back(toggle + "=");
            }
            for (const ToggleInfo& t : toggleTable(kernelReleases().back()))
                c.words.push_back(t.name + "=");
            return;
        }
        c.words = choicesIn(o->get_description());
    }

    void completePositional(const Command& cmd, const std::vector<std::string>& given, Completion& c,
        const CommandLine& cl)
    {
        std::size_t index = 0; // positionals before the word being completed
        for (std::size_t i = 0; i < given.size(); ++i) {
            if (startsWith(given[i], "-")) {
                const CLI::Option* o = optionNamed(cmd.app, given[i]);
                if (o && takesValue(o))
                    ++i;
                continue;
            }
            ++index;
        }
        const std::string name = cmd.app->get_name();
        if (name == "help") {
            for (const auto& other : cl.commands())
                c.words.push_back(other->app->get_name());
        } else if (name == "import") {
            if (index == 0)
                c.words = { "lockstat", "perf-lock" };
            else
                c.files = true;
        } else if (name == "kernels" || name == "toggles") {
            c.words = kernelReleases();
        } else if (name == "completion") {
            c.words = { "bash" };
        } else if (name == "merge") {
            c.files = true;
        } else if (name == "list" || name == "reproduce" || name == "presets") {
        } else if (index == 0) {
            // SCENARIO: a built-in id or a scenario file.
            for (const ScenarioInfo& s : builtinScenarios())
                c.words.push_back(s.id);
            c.files = true;
        }
    }

    Completion complete(const CommandLine& cl, const std::vector<std::string>& words)
    {
        Completion c;
        const std::string cur = words.empty() ? std::string() : words.back();
        if (words.size() <= 1) {
            for (const auto& cmd : cl.commands())
                c.words.push_back(cmd->app->get_name());
            c.words.insert(c.words.end(), { "--help", "--version" });
        } else if (const Command* cmd = cl.find(words.front())) {
            const std::vector<std::string> given(words.begin() + 1, words.end() - 1);
            const CLI::Option* prev = given.empty() ? nullptr : optionNamed(cmd->app, given.back());
            if (prev && takesValue(prev) && startsWith(given.back(), "-"))
                completeValue(prev, cur, given, c);
            else if (startsWith(cur, "-")) {
                for (const CLI::Option* o : cmd->app->get_options())
                    if (o->nonpositional())
                        for (const std::string& l : o->get_lnames())
                            c.words.push_back("--" + l);
                c.words.push_back("--help");
            } else
                completePositional(*cmd, given, c, cl);
        }
        std::vector<std::string> kept;
        std::set<std::string> seen;
        for (const std::string& w : c.words)
            if (startsWith(w, cur) && seen.insert(w).second)
                kept.push_back(w);
        c.words = std::move(kept);
        return c;
    }
} // namespace

void addCompletionCommand(CommandLine& cl)
{
    auto shell = std::make_shared<std::vector<std::string>>();
    Command& c = cl.add("completion", "bash", "the shell completion script",
        "Print the bash completion script: command names, each command's options, the values an option lists, "
        "the built-in scenario ids, a scenario's variants and --set fields, and the kernel releases complete with "
        "Tab. Load it with `source <(mmscope-cli completion bash)`, or save it as "
        "~/.local/share/bash-completion/completions/mmscope-cli (the Debian package installs it for every user).");
    c.app->add_option("SHELL", *shell, "bash");
    c.run = [shell](std::ostream& out, std::ostream&) {
        if (shell->size() != 1 || shell->front() != "bash")
            throw BadInput("completion: expected the shell: bash");
        out << kBashScript;
        return 0;
    };
}

int runCompletionQuery(const CommandLine& cl, const std::vector<std::string>& words, std::ostream& out)
{
    const Completion c = complete(cl, words);
    for (const std::string& w : c.words)
        out << w << "\n";
    if (c.files)
        out << "@files\n";
    return 0;
}

} // namespace mms::cli
