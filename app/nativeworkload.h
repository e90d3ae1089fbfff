#pragma once
// A scenario's workload as real processes on the host kernel (mmscope-cli native): the same program the engine's
// workload runs (engine/workload/), written with the real system calls. Supported: memset-madvise (seed 000: N
// processes, each mmap + `loops` x { memset; madvise }) and dd (seed 002: dd bs=4k of a sparse file it creates).
// What it measures is what time(1), getrusage(2) and /proc/vmstat say; nothing here knows the simulator.

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace mms::cli {

struct NativeProgram {
    std::string kind; // "memset-madvise" or "dd"
    // memset-madvise
    int processes = 1;
    std::uint64_t bytes = 0; // per process (memset-madvise) or per file (dd)
    int loops = 1;
    bool madvFree = false; // MADV_FREE, else MADV_DONTNEED
    int fillByte = 1;
    bool forkChildren = true; // one after another from a parent, else all at once (the same on a host)
    // dd
    int files = 1;
    int readers = 1;
};

struct NativeMeasure {
    double elapsedS = 0; // wall, from the first fork to the last child reaped
    double userS = 0, sysS = 0; // getrusage(RUSAGE_CHILDREN) over the children
    double minorFaults = 0, majorFaults = 0; // the same, ru_minflt and ru_majflt
    std::map<std::string, double> vmstat; // /proc/vmstat deltas over the run (the whole host's)
    double pagesRead = 0; // dd: 4 KiB pages read
};

// Runs the program: files in `workdir`, every process in the cgroup whose directory is `cgroup` (none when empty).
// Polls `interrupted` while it waits; when it says so, the children are killed and reaped before it returns false.
// Throws std::runtime_error with the call that failed (fork, a file in workdir).
bool runNative(const NativeProgram& p, const std::string& workdir, const std::string& cgroup,
    const std::function<bool()>& interrupted, NativeMeasure& m);

// /proc/vmstat as name -> value.
std::map<std::string, double> readVmstat();

} // namespace mms::cli
