#include "cliinterrupt.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace mms::cli {

namespace {
    std::atomic<int> g_sigints { 0 }; // lock-free, so safe to touch in a signal handler
    std::atomic<bool> g_interrupted { false };
    static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);
    extern "C" void onSigint(int)
    {
        if (g_sigints.fetch_add(1) > 0)
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

bool interrupted() { return g_interrupted.load(); }

void checkInterrupted()
{
    if (interrupted())
        throw Interrupted();
}

} // namespace mms::cli
