#include "nativeworkload.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_FREE
#define MADV_FREE 8 // Linux 4.5
#endif

namespace mms::cli {

namespace {
    constexpr std::size_t kBlock = 4096; // dd bs=4k

    [[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

    // In a child, before its program: back to the default SIGINT (a terminal's Ctrl-C ends it), killed with its
    // parent, and in the cgroup. Only async-signal-safe calls: the parent may have threads.
    void enterChild(const std::string& cgroupProcs)
    {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (!cgroupProcs.empty()) {
            int fd = open(cgroupProcs.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd < 0 || write(fd, "0", 1) != 1)
                _exit(3);
            close(fd);
        }
    }

    // seed 000's test program.
    int memsetMadvise(const NativeProgram& p)
    {
        void* buf = mmap(nullptr, p.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED)
            return 4;
        for (int loop = 0; loop < p.loops; ++loop) {
            std::memset(buf, p.fillByte, p.bytes);
            if (madvise(buf, p.bytes, p.madvFree ? MADV_FREE : MADV_DONTNEED) != 0)
                return 5;
        }
        return 0;
    }

    // dd if=FILE of=/dev/null bs=4k.
    int ddRead(const std::string& file)
    {
        int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return 6;
        static char block[kBlock];
        for (;;) {
            ssize_t n = read(fd, block, sizeof block);
            if (n == 0)
                break;
            if (n < 0 && errno != EINTR)
                return 7;
        }
        close(fd);
        return 0;
    }

    std::string childFailure(int code)
    {
        switch (code) {
        case 3:
            return "could not join the memory cgroup";
        case 4:
            return "mmap: Cannot allocate memory";
        case 5:
            return "madvise failed (MADV_FREE needs Linux 4.5)";
        case 6:
            return "could not open its file";
        case 7:
            return "read failed";
        default:
            return "exit status " + std::to_string(code);
        }
    }
} // namespace

std::map<std::string, double> readVmstat()
{
    std::map<std::string, double> v;
    std::ifstream f("/proc/vmstat");
    std::string name;
    double value = 0;
    while (f >> name >> value)
        v[name] = value;
    return v;
}

bool runNative(const NativeProgram& p, const std::string& workdir, const std::string& cgroup,
    const std::function<bool()>& interrupted, NativeMeasure& m)
{
    const std::string procs = cgroup.empty() ? std::string() : cgroup + "/cgroup.procs";
    std::vector<std::string> files;
    if (p.kind == "dd")
        for (int i = 0; i < p.files; ++i) {
            files.push_back(workdir + "/sparse-file-" + std::to_string(i));
            int fd = open(files.back().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd < 0 || ftruncate(fd, static_cast<off_t>(p.bytes)) != 0)
                fail(files.back());
            close(fd);
        }
    std::vector<pid_t> children;
    auto killAll = [&] {
        for (pid_t c : children)
            kill(c, SIGKILL);
        for (pid_t c : children)
            while (waitpid(c, nullptr, 0) < 0 && errno == EINTR) { }
    };
    rusage before {};
    getrusage(RUSAGE_CHILDREN, &before);
    const auto vmBefore = readVmstat();
    const auto t0 = std::chrono::steady_clock::now();
    const int n = p.kind == "dd" ? p.files * p.readers : p.processes;
    for (int i = 0; i < n; ++i) {
        pid_t pid = fork();
        if (pid < 0) {
            int e = errno;
            killAll();
            errno = e;
            fail("fork");
        }
        if (pid == 0) {
            enterChild(procs);
            _exit(p.kind == "dd" ? ddRead(files[static_cast<std::size_t>(i / p.readers)]) : memsetMadvise(p));
        }
        children.push_back(pid);
    }
    std::string failure;
    std::size_t left = children.size();
    std::vector<bool> reaped(children.size(), false);
    while (left > 0) {
        if (interrupted()) {
            killAll();
            return false;
        }
        for (std::size_t i = 0; i < children.size(); ++i) {
            if (reaped[i])
                continue;
            int status = 0;
            pid_t r = waitpid(children[i], &status, WNOHANG);
            if (r == children[i]) {
                reaped[i] = true;
                --left;
                if (failure.empty() && WIFEXITED(status) && WEXITSTATUS(status) != 0)
                    failure = childFailure(WEXITSTATUS(status));
                else if (failure.empty() && WIFSIGNALED(status))
                    failure = std::string("killed by signal ") + strsignal(WTERMSIG(status))
                        + (WTERMSIG(status) == SIGKILL
                                ? " (the OOM killer, if the cgroup's memory and swap are too small)"
                                : "");
            }
        }
        if (left > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    m.elapsedS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto vmAfter = readVmstat();
    rusage after {};
    getrusage(RUSAGE_CHILDREN, &after);
    auto sec = [](const timeval& a, const timeval& b) {
        return double(a.tv_sec - b.tv_sec) + double(a.tv_usec - b.tv_usec) / 1e6;
    };
    m.userS = sec(after.ru_utime, before.ru_utime);
    m.sysS = sec(after.ru_stime, before.ru_stime);
    m.minorFaults = double(after.ru_minflt - before.ru_minflt);
    m.majorFaults = double(after.ru_majflt - before.ru_majflt);
    for (auto& [k, v] : vmAfter)
        if (auto it = vmBefore.find(k); it != vmBefore.end())
            m.vmstat[k] = v - it->second;
    if (p.kind == "dd")
        m.pagesRead = double(p.files) * double(p.readers) * double(p.bytes / kBlock);
    for (const std::string& f : files)
        unlink(f.c_str());
    if (!failure.empty())
        throw std::runtime_error("a workload process failed: " + failure);
    return true;
}

} // namespace mms::cli
