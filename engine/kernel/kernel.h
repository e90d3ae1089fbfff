#pragma once
// The simulated kernel of one run: memory management (mm/mm.h) and the subsystems above it -- the process table
// (kernel/process.h), the loopback sockets (net/tcp.h) and the directories (fs/namei.h). The system calls
// (kernel/syscalls.h) and the process lifecycle take this; the mm paths take the Mm it is.

#include "fs/namei.h"
#include "mm/mm.h"
#include "net/tcp.h"

#include <memory>
#include <vector>

namespace mms {

struct Process; // kernel/process.h
struct Vfs; // fs/fs.h

class Kernel : public Mm {
public:
    Kernel(Sched& s, const Toggles& toggles, std::uint64_t reservedPages = 0);
    ~Kernel();

    // The processes forked, exec'd and exited through kernel/process.h, by task id (null for a task that never did).
    std::vector<std::unique_ptr<Process>> procs;
    SocketTable sockets;
    Directories dirs;
    // Futex words made so far (sys::Futex): each one's number stands for its hash key, which orders two buckets'
    // locks (double_lock_hb()) the same way in every run.
    std::uint64_t futexesMade = 0;
    // The filesystem (fs/fs.h), mounted on first use: a run that never writes, syncs or names a file has none.
    Vfs& vfs();
    bool hasVfs() const { return m_vfs != nullptr; }
    const Vfs* vfsIfMounted() const { return m_vfs.get(); }
    // The time user tasks spent in page faults (handle_mm_fault from a load or store, waits included), picoseconds.
    Time faultTime = 0;

    // The last time a user task returned from a system call or ran its own code (the run's livelock watchdog).
    Time lastUserProgress = 0;
    void noteUserProgress() { lastUserProgress = s.sim().now(); }

    // Every lock, for lockstat (instances with the same name are summed by the reports).
    LockStats lockStats() const;

private:
    std::unique_ptr<Vfs> m_vfs;
};

} // namespace mms
