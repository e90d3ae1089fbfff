#pragma once
// mmscope-cli's commands, defined once on CLI11: each command's name, synopsis, description, options and what it
// does. The usage (`--help`), each command's help and the man page are all written from these definitions.
//
// A command lives in its own file with an add*Command(CommandLine&) function that registers it; runCli() (cli.cpp)
// calls each of them once.

#include <CLI/App.hpp>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace mms::cli {

struct Command {
    CLI::App* app = nullptr; // the CLI11 subcommand: name, description, options, positionals
    std::string synopsis; // what follows the name in a usage line: "SCENARIO [options]"
    std::string summary; // one line for the list of commands
    // Runs the command once its line has parsed; returns the exit code. Throws BadInput, ScenarioError or
    // Interrupted like the rest of the CLI.
    std::function<int(std::ostream& out, std::ostream& err)> run;
};

class CommandLine {
public:
    CommandLine();
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    // A new command; the caller adds its options to `app` and sets `run`. `description` is the paragraph of its
    // help and its man page entry (plain text, paragraphs separated by an empty line).
    Command& add(const std::string& name, const std::string& synopsis, const std::string& summary,
        const std::string& description);

    CLI::App& app() { return m_app; }
    const CLI::App& app() const { return m_app; }
    const std::vector<std::unique_ptr<Command>>& commands() const { return m_commands; }
    const Command* find(const std::string& name) const;

private:
    CLI::App m_app;
    std::vector<std::unique_ptr<Command>> m_commands;
};

// What every option that takes a value is read as: text, checked by the command (its messages name the option,
// the value and what was expected). A repeated option keeps its last value, as before CLI11.
CLI::Option* addValue(
    CLI::App* app, const std::string& name, std::string& into, const std::string& valueName, const std::string& help);
CLI::Option* addValues(CLI::App* app, const std::string& name, std::vector<std::string>& into,
    const std::string& valueName, const std::string& help);

// The commands, each in its own file.
void addScenarioCommands(CommandLine& cl); // list, show (cli.cpp)
void addRunCommands(CommandLine& cl); // run, report, merge (clirun.cpp)
void addReproduceCommand(CommandLine& cl); // reproduce (clireproduce.cpp)
void addImportCommand(CommandLine& cl); // import lockstat|perf-lock (cliimport.cpp)
void addNativeCommand(CommandLine& cl); // native (clinative.cpp)
void addKernelsCommand(CommandLine& cl); // kernels (clikernels.cpp)
void addTogglesCommand(CommandLine& cl); // toggles (clikernels.cpp)
void addPresetsCommand(CommandLine& cl); // presets (clipresets.cpp)
void addCompletionCommand(CommandLine& cl); // completion bash (clicomplete.cpp)

// `mmscope-cli __complete WORD...` (what the completion script asks): one candidate per line for the last WORD,
// then "@files" where a file name may stand there too.
int runCompletionQuery(const CommandLine& cl, const std::vector<std::string>& words, std::ostream& out);

// clihelp.cpp: the usage, one command's help, the man page in roff.
std::string usageText(const CommandLine& cl);
std::string commandHelp(const CommandLine& cl, const Command& c);
std::string manPage(const CommandLine& cl);

} // namespace mms::cli
