// One direction of a loopback TCP connection (net/tcp.h). The costs are the machine's `loopbackMsgNs`, one
// message sent and received, split evenly between the sender's path (tcp_sendmsg through tcp_v4_rcv) and the
// reader's copy-out; each system call also pays its entry and exit.
#include "net/tcp.h"

#include "mm/kernel.h"

#include <memory>

namespace mms {

namespace {
    void wakeReader(Kernel& k, Task& t, SocketQueue& q)
    {
        if (!q.reader)
            return;
        Sched::burn(t, k.cost.wakeupNs); // sk_data_ready -> try_to_wake_up
        Task* r = q.reader;
        q.reader = nullptr;
        k.s.wakeIf(*r, q.readerGen);
    }
} // namespace

Co<> tcp_sendmsg(Kernel& k, Task& t, SocketQueue& q)
{
    FnScope fn(t, "tcp_sendmsg");
    Sched::burn(t, k.cost.faultEntryNs + k.cost.loopbackMsgNs / 2);
    co_await k.s.flush(t);
    ++q.queued;
    wakeReader(k, t, q);
}

Co<bool> tcp_recvmsg(Kernel& k, Task& t, SocketQueue& q)
{
    FnScope fn(t, "tcp_recvmsg");
    Sched::burn(t, k.cost.faultEntryNs);
    co_await k.s.flush(t);
    while (q.queued == 0 && !q.shutdown && !k.fatal_signal_pending(t)) { // sk_wait_data(), interruptible
        q.reader = &t;
        q.readerGen = t.sleepGen + 1;
        co_await k.s.sleep(t, true);
    }
    if (q.reader == &t)
        q.reader = nullptr; // a signal woke it (finish_wait)
    if (q.queued == 0)
        co_return false;
    --q.queued;
    Sched::burn(t, k.cost.loopbackMsgNs / 2); // skb_copy_datagram_iovec, freeing the skb
    co_return true;
}

Co<> tcp_shutdown(Kernel& k, Task& t, SocketQueue& q)
{
    FnScope fn(t, "tcp_shutdown");
    Sched::burn(t, k.cost.faultEntryNs);
    co_await k.s.flush(t);
    q.shutdown = true;
    wakeReader(k, t, q);
}

void tcp_close_process(Kernel& k, Task& t, const MmStruct& mm)
{
    for (const std::weak_ptr<SocketQueue>& w : k.sockets)
        if (std::shared_ptr<SocketQueue> q = w.lock(); q && q->writer == &mm && !q->shutdown) {
            q->shutdown = true;
            wakeReader(k, t, *q);
        }
}

} // namespace mms
