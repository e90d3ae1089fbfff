#pragma once
// re-aim-7's workfile.new_fserver as mmtests ran it in 2014 (osdl-aim-7/src): the tests, what one invocation of each
// does, and driver.c's task list and draw.

#include "sim/rng.h"

#include <array>
#include <vector>

namespace mms::aim7 {

// One test of workfile.new_fserver as re-aim-7 runs it (osdl-aim-7/src/*.c, with the arguments its suite table
// gives): its user-space work and the system calls of one invocation.
struct TestDef {
    const char* name;
    int hits; // workfile.new_fserver
    double userUs; // user CPU of one invocation at 2.8 GHz: the body built with re-aim's flags, timed, clock-scaled
    int creatUnlink = 0; // a new file created and unlinked in the shared directory (disk_src: its fakeh dirs)
    int reCreat = 0; // creat(2) of an existing name in the shared directory (creat_clo's same file) + close
    int linkUnlink = 0; // link(2) + unlink(2) pairs in the shared directory
    int writeFiles = 0; // the test file written through the page cache, 1 KiB a write(2), this many times
    int readFiles = 0; // ... read back
    bool readCommon = false; // disk_cp reads the shared tmpa.common (the driver writes it per load point)
    int syncs = 0; // system("sync") (disk1.c's DO_SYNC without -y)
    int socketMsgs = 0; // loopback write + read pairs within the process (pipe_test.c)
    int otherSyscalls = 0; // short ones: stat, lseek, close, getdents64, getuid, ...
};
// workfile.new_fserver less signal_test (mmtests' REAIM_EXCLUDE): 27 tests, 570 hits. User times: measured here
// and scaled by clock (the div_* bodies are integer divides, slower on IvyBridge than on the host: GUESS low).
inline constexpr std::array<TestDef, 27> kWorkfile = { {
    { "add_int", 20, 5090 }, { "add_long", 20, 5070 }, { "add_short", 20, 2020 },
    { "creat_clo", 20, 75, 1, 999, 0, 0, 0, false, 0, 0, 1 },
    { "dir_rtns_1", 20, 40, 0, 0, 0, 0, 0, false, 0, 0, 250 }, // GUESS: /bin of ~120 entries read 10,000 times
    { "disk_cp", 30, 10, 1, 0, 0, 1, 0, true, 3, 0, 5 }, { "disk_rd", 30, 10, 1, 0, 0, 1, 1, false, 2, 0, 4 },
    { "disk_rr", 30, 10, 1, 0, 0, 1, 1, false, 2, 0, 3 }, // (and an lseek per block read, not counted)
    { "disk_rw", 30, 10, 1, 0, 0, 2, 0, false, 2, 0, 3 }, // (and an lseek per block rewritten, not counted)
    { "disk_src", 30, 10, 43, 0, 0, 0, 0, false, 0, 0, 110 }, { "disk_wrt", 30, 10, 1, 0, 0, 1, 0, false, 2, 0, 1 },
    { "div_int", 10, 1370 }, { "div_long", 10, 1600 }, { "div_short", 10, 1370 }, { "jmp_test", 10, 15 },
    { "link_test", 20, 5, 1, 0, 70, 0, 0, false, 0, 0, 9 }, { "mem_rtns_1", 40, 1230 }, { "mem_rtns_2", 10, 16 },
    { "misc_rtns_1", 20, 20, 0, 0, 0, 0, 0, false, 0, 0, 320 }, // GUESS: NSS through files, no nscd
    { "mul_int", 10, 134 }, { "mul_long", 10, 133 }, { "mul_short", 10, 160 }, { "ram_copy", 20, 3 },
    { "sort_rtns_1", 30, 1330 }, { "string_rtns", 30, 930, 0, 0, 0, 0, 0, false, 0, 0, 100 },
    { "tcp_test", 10, 5, 0, 0, 0, 0, 0, false, 0, 89, 13 }, { "udp_test", 40, 5, 0, 0, 0, 0, 0, false, 0, 99, 9 },
} };
constexpr double kTestClockGHz = 2.8; // the clock the user times are given at
constexpr int kFakehDirs = 7; // disk_src's fakeh subdirectories, shared by every child

// The task list of one child: driver.c's runloop() gives each test hits / total hits x jobs invocations, rounded
// half up, at least one.
std::vector<int> taskCounts(int jobs);

// driver.c's draw: a random test among those the child has invocations of left (one fewer of it left after).
int pickTest(Rng& rng, std::vector<int>& left);

} // namespace mms::aim7
