#pragma once
// include/linux/sched/signal.h, as far as the model signals: SIGKILL only, sent by the OOM killer. A thread with it
// pending ends at its next return to user space (kernel/syscalls.cpp); paths that can fail early check it.

#include "sched/sched.h"

namespace mms {

inline bool fatal_signal_pending(const Task& t) { return t.sigkill; }

// send_sig(SIGKILL) (kernel/signal.c): pending from now on; a thread asleep interruptibly (a futex, a socket read,
// nanosleep) is woken to take it (signal_wake_up), one asleep on a lock or an I/O takes it when that sleep ends.
inline void send_sigkill(Sched& s, Task& t)
{
    t.sigkill = true;
    s.signal_wake_up(t);
}

} // namespace mms
