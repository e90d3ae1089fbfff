#pragma once
// mm/oom_kill.c: the OOM killer. When the page allocator gives up on reclaim (__alloc_pages_may_oom), out_of_memory()
// scores every process as the kernel's era does (oom.badness: 2.6.20's badness() of virtual size, children, CPU and
// run time; 2.6.36's oom_badness() of the memory a kill gives back, with the era's root bonus, oom.root_bonus),
// picks the highest, kills one of its children instead where the era does (oom.sacrifice_child), and sends SIGKILL
// to every thread of the victim, which allocates below the min watermark (TIF_MEMDIE) until its memory is back. A
// killed thread ends at its next return to user space (kernel/syscalls.cpp): the last of its process to get there
// frees the process's memory (exit_mm) and then clears TIF_MEMDIE of every thread (exit_oom_victims); one that gets
// there before clears only its own (exit_oom_victim), so that no second victim is chosen while the memory is still
// held. A forked child, which runs in its parent's task, exits back into its parent instead.

#include "sim/simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mms {

class Mm;
struct MmStruct;
struct Task;

// The kernel log's "Killed process" line.
struct OomKill {
    Time at;
    std::string task; // the victim process's first thread
    std::uint64_t pages; // its oom_badness(): what the kill gives back
};

// The OOM killer's state: its victims so far, and those whose memory is not back yet.
struct OomState {
    std::uint64_t nrKill = 0; // vm.oom_kill
    std::vector<OomKill> kills;
    std::vector<std::uint32_t> victims; // task ids: TIF_MEMDIE, until their process's memory is back
};

// out_of_memory(): false when there was no one to kill. A caller with SIGKILL pending is selected itself and kills
// no one ("so that it may quickly exit and free its memory"); while an earlier victim has not given its memory
// back, it kills no one either (the allocation waits and retries).
bool out_of_memory(Mm& k, const Task& t);
// The score out_of_memory() gives t's process now, by the era's rules (oom.badness, oom.root_bonus): what
// /proc/<pid>/oom_score shows, in pages where the kernel from 2.6.36 on shows thousandths of RAM and swap.
std::uint64_t oom_badness(const Mm& k, const Task& t);
// exit_oom_victim(): this thread's TIF_MEMDIE cleared.
void exit_oom_victim(Mm& k, const Task& t);
// The memory of the process whose address space is `mm` is back: every thread's TIF_MEMDIE cleared.
void exit_oom_victims(Mm& k, const MmStruct& mm);

} // namespace mms
