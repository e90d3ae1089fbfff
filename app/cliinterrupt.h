#pragma once
// Ctrl-C in mmscope-cli: SIGINT sets a flag that the runner polls between events, so a run stops at an event
// boundary and nothing is written; a second SIGINT quits at once (output files are written to a temporary name and
// renamed, so even that leaves no half-written file).

#include "run/runner.h"

#include <stdexcept>

namespace mms::cli {

// Installs the SIGINT handler for the lifetime of one runCli() call.
class SigintScope {
public:
    SigintScope();
    ~SigintScope();
    SigintScope(const SigintScope&) = delete;
    SigintScope& operator=(const SigintScope&) = delete;

private:
    void (*m_previous)(int);
};

// While one lives, a second SIGINT no longer quits at once, and SIGTERM and SIGHUP count as SIGINT: for a command
// that must remove what it made on the host (native's processes, cgroup and files) before it ends.
class CleanupSignals {
public:
    CleanupSignals();
    ~CleanupSignals();
    CleanupSignals(const CleanupSignals&) = delete;
    CleanupSignals& operator=(const CleanupSignals&) = delete;

private:
    void (*m_term)(int);
    void (*m_hup)(int);
};

// Thrown where an interrupted command stops (exit 130).
struct Interrupted : std::runtime_error {
    Interrupted()
        : std::runtime_error("interrupted: no results written")
    {
    }
};

bool interrupted();
// Throws Interrupted once SIGINT came.
void checkInterrupted();

// What the runner polls.
class SignalInterrupter final : public Interrupter {
public:
    bool wasInterrupted() override { return interrupted(); }
};

} // namespace mms::cli
