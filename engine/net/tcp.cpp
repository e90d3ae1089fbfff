// One direction of a loopback TCP connection (net/tcp.h). The costs are the machine's `loopbackMsgNs`, one
// message sent and received, split evenly between the sender's path (tcp_sendmsg through tcp_v4_rcv) and the
// reader's copy-out; each system call also pays its entry and exit.
#include "net/tcp.h"

#include "sched/sched.h"
#include "sched/signal.h"

#include <memory>

namespace mms {

namespace {
    void wakeReader(Sched& s, Task& t, SocketQueue& q)
    {
        if (!q.reader)
            return;
        Sched::burn(t, s.wakeupNs()); // sk_data_ready -> try_to_wake_up
        Task* r = q.reader;
        q.reader = nullptr;
        s.wakeIf(*r, q.readerGen, &t);
    }
} // namespace

Co<> tcp_sendmsg(Sched& s, Task& t, SocketQueue& q)
{
    FnScope fn(t, "tcp_sendmsg");
    Sched::burn(t, s.cost().faultEntryNs + s.cost().loopbackMsgNs / 2);
    co_await s.flush(t);
    ++q.queued;
    wakeReader(s, t, q);
}

Co<bool> tcp_recvmsg(Sched& s, Task& t, SocketQueue& q)
{
    FnScope fn(t, "tcp_recvmsg");
    Sched::burn(t, s.cost().faultEntryNs);
    co_await s.flush(t);
    while (q.queued == 0 && !q.shutdown && !fatal_signal_pending(t)) { // sk_wait_data(), interruptible
        q.reader = &t;
        q.readerGen = t.sleepGen + 1;
        co_await s.sleep(t, true);
    }
    if (q.reader == &t)
        q.reader = nullptr; // a signal woke it (finish_wait)
    if (q.queued == 0)
        co_return false;
    --q.queued;
    Sched::burn(t, s.cost().loopbackMsgNs / 2); // skb_copy_datagram_iovec, freeing the skb
    co_return true;
}

Co<> tcp_shutdown(Sched& s, Task& t, SocketQueue& q)
{
    FnScope fn(t, "tcp_shutdown");
    Sched::burn(t, s.cost().faultEntryNs);
    co_await s.flush(t);
    q.shutdown = true;
    wakeReader(s, t, q);
}

void tcp_close_process(Sched& s, const SocketTable& sockets, Task& t, const MmStruct& mm)
{
    for (const std::weak_ptr<SocketQueue>& w : sockets)
        if (std::shared_ptr<SocketQueue> q = w.lock(); q && q->writer == &mm && !q->shutdown) {
            q->shutdown = true;
            wakeReader(s, t, *q);
        }
}

} // namespace mms
