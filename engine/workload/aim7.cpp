// Seed 004's workload, aim7-fserver: its parameters. The program is aim7::Fserver (workload/aim7fserver.h).
#include "workload/aim7.h"

#include "workload/aim7fserver.h"

#include <memory>

namespace mms {

WorkloadKind aim7FserverKind()
{
    return {
        "aim7-fserver",
        "re-aim-7 workfile.new_fserver as mmtests ran it: N users, each a forked child that runs its task list of the "
        "workfile's tests (104 for -j 100) and exits; jobs per minute over the load point, as driver.c counts them "
        "(seed 004)",
        {
            { "users", ParamKind::Int, 61, false, "re-aim users (forked children running tests)", 1, 4096 },
            { "jobs", ParamKind::Int, 100, false,
                "re-aim -j: each test runs hits / 570 x jobs times per child, rounded, at least once (100: 104 tests)",
                1, 100000 },
            { "task_share", ParamKind::Double, 1.0, true,
                "the share of its task list a child runs before it exits (at least one test; --scale shrinks it)", 0,
                1 },
            { "runtime_s", ParamKind::Double, 0.0, true,
                "0: the load point, until every child has exited; else the users fork children until this simulated "
                "time and the jobs are counted in its window",
                0, 3600 },
            { "warmup_fraction", ParamKind::Double, 0.25, false, "with runtime_s: the first part, not measured", 0,
                0.9 },
            // The shared files, whole in the page cache (GUESS: the sizes of SLES 11's glibc 2.11 x86_64 ld.so and
            // libc.so, bash 3.2 and coreutils' sync; the re-aim binary as osdl-aim-7 builds it).
            { "ld_size", ParamKind::Size, "152KiB", false, "page cache of ld.so", 4096, 1e10 },
            { "libc_size", ParamKind::Size, "1792KiB", false, "page cache of libc", 4096, 1e10 },
            { "reaim_size", ParamKind::Size, "256KiB", false, "page cache of the re-aim binary", 4096, 1e10 },
            { "sh_size", ParamKind::Size, "688KiB", false, "page cache of /bin/sh (bash)", 4096, 1e10 },
            { "sync_size", ParamKind::Size, "32KiB", false, "page cache of /bin/sync", 4096, 1e10 },
            { "text_runs", ParamKind::Int, 4, false,
                "places in each file it maps where a program, once exec'd, touches its text (GUESS)", 0, 1024 },
            { "text_run_pages", ParamKind::Int, 16, false,
                "pages of text touched at each place, from there on (GUESS: 64 KiB of code)", 1, 4096 },
            { "system_sync", ParamKind::Bool, true, false,
                "disk tests call system(\"sync\") as re-aim does without -y (mmtests before 2015)", 0, 1 },
            { "exec_child", ParamKind::Bool, false, false,
                "each child execs the re-aim binary after fork (re-aim's children do not)", 0, 1 },
            { "file_size", ParamKind::Size, "10KiB", false, "re-aim FILESIZE (mmtests: 10k)", 1024, 1e9 },
            { "pool_size", ParamKind::Size, "1MiB", false,
                "re-aim POOLSIZE (mmtests: 1m): a disk test's file is FILESIZE + POOLSIZE / users", 0, 1e12 },
            { "cache_file_size", ParamKind::Size, "1MiB", false,
                "size of the files of the older page cache that fills memory at the start", 4096, 1e12 },
            { "heap_every", ParamKind::Int, 0, false,
                "0: none; else a work-buffer cycle (malloc, THP fault, heap trim) every this many tests of a child "
                "(re-aim's tests malloc at most 40 KB)",
                0, 100000 },
            { "contiguous_files", ParamKind::Bool, false, false,
                "the older page cache's files lie in consecutive frames (else in random frames)", 0, 1 },
            { "free_fraction", ParamKind::Double, 0.02, false,
                "free memory left scattered by reclaim when the run starts", 0, 0.9 },
            { "heap_size", ParamKind::Size, "2MiB", true, "the heap_every work buffer", 4096, 1e9 },
        },
        [] { return std::unique_ptr<Workload>(new aim7::Fserver); },
        // Its processes map the shared files' text and data, within RAM; each user adds its own state: its task
        // and coroutine frames, an mm whose page tables cover each VMA in whole tables, its data file and the
        // children it forks. 64 KiB a user: 47-60 KiB measured from 61 to 1921 users (tests/engine/tst_memory.cpp
        // checks the estimate against the peak of the largest point).
        [](const nlohmann::json& q, std::uint64_t ramPages, std::uint64_t) {
            return WorkloadFootprint { ramPages, 0, q.at("users").get<std::uint64_t>() * (std::uint64_t { 64 } << 10) };
        },
    };
}

} // namespace mms
