#include "cli.h"

#include "clicommand.h"
#include "cliinput.h"
#include "cliinterrupt.h"
#include "run/render.h"
#include "run/runner.h"
#include "scenario/scenario.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ostream>

namespace mms {

using namespace cli;

namespace cli {

    CommandLine::CommandLine()
        : m_app("simulate Linux memory-management paths and reproduce linux-mm benchmark tables", "mmscope-cli")
    {
        // Help and version are read before CLI11 sees the line (runCommand), so that `--help` anywhere shows help
        // even beside a bad option; CLI11's own flags are off.
        m_app.set_help_flag();
        m_app.allow_extras();
        m_app.require_subcommand(0, 1);
    }

    Command& CommandLine::add(const std::string& name, const std::string& synopsis, const std::string& summary,
        const std::string& description)
    {
        auto c = std::make_unique<Command>();
        c->app = m_app.add_subcommand(name, description);
        c->app->set_help_flag();
        c->app->allow_extras();
        c->synopsis = synopsis;
        c->summary = summary;
        m_commands.push_back(std::move(c));
        return *m_commands.back();
    }

    const Command* CommandLine::find(const std::string& name) const
    {
        for (const auto& c : m_commands)
            if (c->app->get_name() == name)
                return c.get();
        return nullptr;
    }

    CLI::Option* addValue(CLI::App* app, const std::string& name, std::string& into, const std::string& valueName,
        const std::string& help)
    {
        return app->add_option(name, into, help)
            ->type_name(valueName)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }

    CLI::Option* addValues(CLI::App* app, const std::string& name, std::vector<std::string>& into,
        const std::string& valueName, const std::string& help)
    {
        return app->add_option(name, into, help)->type_name(valueName)->allow_extra_args(false);
    }

    void addScenarioCommands(CommandLine& cl)
    {
        Command& list = cl.add("list", "", "the built-in scenarios",
            "Print the built-in scenarios: id, title and the benchmark post each one reproduces.");
        list.run = [](std::ostream& out, std::ostream&) {
            for (const ScenarioInfo& s : builtinScenarios()) {
                char buf[96];
                std::snprintf(buf, sizeof buf, "%-22s ", s.id.c_str());
                out << buf << s.title << "\n"
                    << std::string(23, ' ') << "seeds/" << s.seed << ": " << s.measured << "\n";
            }
            return 0;
        };
        auto shown = std::make_shared<std::vector<std::string>>();
        Command& show = cl.add("show", "SCENARIO", "the scenario's JSON with every default filled in",
            "Print the scenario's full JSON with every default filled in, ready to save, edit and run as a file.");
        show.app->add_option("SCENARIO", *shown, "a built-in id or a scenario file");
        show.run = [shown](std::ostream& out, std::ostream&) {
            if (shown->size() != 1)
                throw BadInput("show: expected exactly one SCENARIO");
            out << loadScenario(shown->front()).json().dump(2) << "\n";
            return 0;
        };
    }

} // namespace cli

namespace {
    void addHelpCommand(CommandLine& cl, bool& man, std::vector<std::string>& topic)
    {
        Command& help = cl.add("help", "[COMMAND] [--man]", "this usage, a command's help, or the man page",
            "Print the usage, or the help of COMMAND; with --man, the manual page in roff (man -l - reads it).");
        help.app->add_option("COMMAND", topic, "a command");
        help.app->add_flag("--man", man, "the manual page mmscope-cli(1), generated from the same definitions");
    }

    bool isHelp(const std::string& a) { return a == "--help" || a == "-h"; }

    std::string commandNames(const CommandLine& cl)
    {
        std::string s;
        const auto& cs = cl.commands();
        for (std::size_t i = 0; i < cs.size(); ++i)
            s += (i == 0 ? "" : i + 1 == cs.size() ? " or " : ", ") + cs[i]->app->get_name();
        return s;
    }

    // An option CLI11 did not know, or a word no command takes: the first of them, as the old parser said it.
    void refuseExtras(const CommandLine& cl, const CLI::App* sub, const std::vector<std::string>& extras)
    {
        if (extras.empty())
            return;
        const std::string& x = extras.front();
        if (!sub) {
            if (x.rfind("-", 0) == 0)
                throw BadInput(x + ": unknown option (see mmscope-cli --help)");
            throw BadInput(x + ": unknown command; expected " + commandNames(cl) + " (see mmscope-cli --help)");
        }
        const std::string name = sub->get_name();
        if (x.rfind("-", 0) == 0)
            throw BadInput(x + ": unknown option (see mmscope-cli " + name + " --help)");
        throw BadInput(name + ": " + x + ": unexpected argument (see mmscope-cli " + name + " --help)");
    }

    // CLI11's own parse errors in the words of the rest of the CLI: an option without its value names the option.
    [[noreturn]] void rethrowParseError(const CLI::ParseError& e)
    {
        std::string what = e.what();
        if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && what.rfind("-", 0) == 0)
            throw BadInput(what.substr(0, what.find(':')) + ": expected a value after it");
        throw BadInput(what);
    }

    int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
    {
        CommandLine cl;
        addScenarioCommands(cl);
        addRunCommands(cl);
        addReproduceCommand(cl);
        addImportCommand(cl);
        addNativeCommand(cl);
        addKernelsCommand(cl);
        addTogglesCommand(cl);
        addPresetsCommand(cl);
        addCompletionCommand(cl);
        bool man = false;
        std::vector<std::string> topic;
        addHelpCommand(cl, man, topic);
        try {
            if (args.empty()) {
                err << usageText(cl);
                return 2;
            }
            if (args.front() == "__complete")
                return runCompletionQuery(cl, std::vector<std::string>(args.begin() + 1, args.end()), out);
            // `--help` anywhere: the named command's help (every help lists all commands), else the usage.
            if (std::any_of(args.begin(), args.end(), isHelp)) {
                const Command* c = cl.find(args.front());
                out << (c && c->app->get_name() != "help" ? commandHelp(cl, *c) : usageText(cl));
                return 0;
            }
            if (args.front() == "--version") {
                out << "mmscope-cli " << engineVersion() << "\n";
                return 0;
            }
            std::vector<std::string> reversed(args.rbegin(), args.rend());
            try {
                cl.app().parse(reversed);
            } catch (const CLI::ParseError& e) {
                rethrowParseError(e);
            }
            const std::vector<CLI::App*> chosen = cl.app().get_subcommands();
            const CLI::App* sub = chosen.empty() ? nullptr : chosen.front();
            refuseExtras(cl, nullptr, cl.app().remaining());
            if (!sub)
                throw BadInput("expected a command: " + commandNames(cl) + " (see mmscope-cli --help)");
            refuseExtras(cl, sub, sub->remaining());
            if (sub->get_name() == "help") {
                if (man) {
                    out << manPage(cl);
                    return 0;
                }
                const Command* c = topic.empty() ? nullptr : cl.find(topic.front());
                if (!topic.empty() && !c)
                    throw BadInput("help " + topic.front() + ": unknown command; expected " + commandNames(cl));
                out << (c ? commandHelp(cl, *c) : usageText(cl));
                return 0;
            }
            return cl.find(sub->get_name())->run(out, err);
        } catch (const Interrupted& e) {
            err << "mmscope-cli: " << e.what() << "\n";
            return 130;
        } catch (const BadInput& e) {
            err << "mmscope-cli: " << e.what() << "\n";
            return 2;
        } catch (const ScenarioError& e) {
            err << "mmscope-cli: " << e.what() << "\n";
            return 2;
        } catch (const std::exception& e) {
            err << "mmscope-cli: internal error: " << e.what() << "\n";
            return 1;
        }
    }
} // namespace

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    SigintScope sigint;
    errno = 0;
    int code = runCommand(args, out, err);
    // A full disk or a closed pipe on standard output must not look like success.
    if (!out.flush()) {
        err << "mmscope-cli: standard output: write failed"
            << (errno ? " (" + std::string(std::strerror(errno)) + ")" : std::string()) << "\n";
        return code ? code : 2;
    }
    return code;
}

} // namespace mms
