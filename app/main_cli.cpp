#include "cli.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>

namespace {
// Host performance only, no effect on any result: glibc's malloc asks for transparent huge pages on the large
// blocks it maps (the page and swap arrays, the PTEs) only when the glibc.malloc.hugetlb tunable is set, and
// tunables are read at start-up. On hosts where THP is "madvise" (the default of many distributions) the engine's
// random walks over those arrays otherwise miss the TLB on nearly every access (swap-free-sort: about 15 % of its
// CPU time). So the CLI restarts itself once with the tunable added. MMSCOPE_NO_THP=1 turns this off.
void reexecWithHugePages(char** argv)
{
    if (std::getenv("MMSCOPE_THP_REEXEC")) { // this is the restarted process: keep the marker from its children
        unsetenv("MMSCOPE_THP_REEXEC");
        return;
    }
    const char* off = std::getenv("MMSCOPE_NO_THP");
    if (off && std::strcmp(off, "0") != 0)
        return;
    // Under valgrind the restarted process would run natively, outside the tool (callgrind would count nothing).
    const char* preload = std::getenv("LD_PRELOAD");
    if (preload && std::strstr(preload, "vgpreload"))
        return;
    const char* old = std::getenv("GLIBC_TUNABLES");
    std::string tunables = old && *old ? std::string(old) + ":glibc.malloc.hugetlb=1" : "glibc.malloc.hugetlb=1";
    if (old && std::strstr(old, "glibc.malloc.hugetlb"))
        return; // the caller chose
    setenv("MMSCOPE_THP_REEXEC", "1", 1); // never twice, even where the tunable is ignored
    setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
    execv("/proc/self/exe", argv);
    // No /proc (or exec refused): carry on without.
}
} // namespace

int main(int argc, char** argv)
{
    reexecWithHugePages(argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    return mms::runCli(args, std::cout, std::cerr);
}
