#pragma once
// net/ipv4/tcp.c over loopback, as far as a request/response program needs it: one direction of a connected TCP
// socket, whose receive queue holds whole messages. On loopback the sender runs the whole path -- tcp_sendmsg(),
// the loopback device's xmit, netif_rx() and tcp_v4_rcv() in its own softirq -- and ends by waking the reader asleep
// in sk_wait_data(); the reader's tcp_recvmsg() then copies the message out. The socket lock (lock_sock) is not
// modelled: each direction has one writer and one reader, who take turns. When the writer's process exits (its last
// thread), its end is closed (exit_files): the reader sees end of stream.

#include "sim/co.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mms {

class Sched;
struct MmStruct;
struct Task;

struct SocketQueue {
    std::uint64_t queued = 0; // messages in sk_receive_queue
    bool shutdown = false; // the writer closed its end (RCV_SHUTDOWN at the reader)
    const MmStruct* writer = nullptr; // the process whose file table holds the writing end (its address space)
    Task* reader = nullptr; // asleep in sk_wait_data(), with the sleep generation it sleeps
    std::uint32_t readerGen = 0;
};

// Every connection end the programs opened (sys::Socket), for exit_files() to close a dying process's.
using SocketTable = std::vector<std::weak_ptr<SocketQueue>>;

// sendmsg(): queues one message and wakes the reader if it sleeps.
Co<> tcp_sendmsg(Sched& s, Task& t, SocketQueue& q);
// recvmsg(): takes one message, sleeping (interruptibly) until one is queued; false at end of stream (shutdown,
// queue empty) or when a signal came first.
Co<bool> tcp_recvmsg(Sched& s, Task& t, SocketQueue& q);
// shutdown(SHUT_WR) / close() of the writer's end: a reader waiting on an empty queue sees end of stream.
Co<> tcp_shutdown(Sched& s, Task& t, SocketQueue& q);
// exit_files() of the process whose address space is `mm`: every connection end it writes is closed.
void tcp_close_process(Sched& s, const SocketTable& sockets, Task& t, const MmStruct& mm);

} // namespace mms
