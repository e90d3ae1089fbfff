#include "cliinterrupt.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace mms::cli {

namespace {
    std::atomic<int> g_sigints { 0 }; // lock-free, so safe to touch in a signal handler
    std::atomic<bool> g_interrupted { false };
    std::atomic<bool> g_mustCleanUp { false };
    static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);
    extern "C" void onSigint(int)
    {
        if (g_sigints.fetch_add(1) > 0 && !g_mustCleanUp)
            _exit(130);
        g_interrupted = true;
    }
} // namespace

SigintScope::SigintScope()
{
    g_sigints = 0;
    g_interrupted = false;
    m_previous = std::signal(SIGINT, onSigint);
}

SigintScope::~SigintScope() { std::signal(SIGINT, m_previous); }

CleanupSignals::CleanupSignals()
{
    g_mustCleanUp = true;
    m_term = std::signal(SIGTERM, onSigint);
    m_hup = std::signal(SIGHUP, onSigint);
}

CleanupSignals::~CleanupSignals()
{
    std::signal(SIGTERM, m_term);
    std::signal(SIGHUP, m_hup);
    g_mustCleanUp = false;
}

bool interrupted() { return g_interrupted.load(); }

void checkInterrupted()
{
    if (interrupted())
        throw Interrupted();
}

} // namespace mms::cli
