#include "sim/simulator.h"

namespace mms {

bool Simulator::run(Interrupter* interrupter)
{
    m_stopped = false;
    while (!m_queue.empty() && !m_stopped) {
        Event e = m_queue.top();
        m_queue.pop();
        m_now = e.t;
        ++m_events;
        if (e.fn)
            e.fn(e.ctx, e.arg);
        else {
#ifndef NDEBUG
            for (auto it = m_debugPending.begin(); it != m_debugPending.end(); ++it)
                if (it->h == e.h) {
                    m_debugPending.erase(it);
                    break;
                }
#endif
            e.h.resume();
        }
        if (interrupter && (m_events & 0xffff) == 0 && interrupter->wasInterrupted())
            return false;
    }
    return true;
}

} // namespace mms
