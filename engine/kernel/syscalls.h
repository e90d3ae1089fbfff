#pragma once
// The system-call boundary: everything a user program (engine/workload) may ask of the simulated kernel. A workload's
// tasks compute, touch their memory and call these entry points, like a test program under strace; they never read
// or write kernel state, and the kernel never knows which program calls it.
//
// Conventions. `k` is the kernel (opaque here), `t` the calling thread (`current`). Addresses are virtual page
// numbers in the caller's address space; sizes are pages unless a name says bytes. Calls that may sleep or wait on a
// contended lock are coroutines (`co_await sys::madvise(...)`); where the common case finishes at once they return a
// MaybeCo or ValueOrCo (mm/fastpath.h), awaited the same way. Calls marked "set-up" are for a workload's setup(),
// before the simulation runs: no simulated time passes (the state a program reaches before the measured part, like a
// benchmark's warm-up that the post does not time). Each entry point says which kernel function it enters, so the
// per-CPU timeline reads against the kernel source.

#include "hw/machine.h" // CostModel: what the program's own instructions and memory traffic cost on this machine
#include "mm/fastpath.h"
#include "mm/toggles.h" // Advice, GlibcTrim: the user-space choices a variant makes
#include "sched/sched.h" // Task: the calling thread (its PRNG stream, its /usr/bin/time accounting)
#include "sim/co.h"
#include "sim/pagecontent.h"
#include "sync/lockstat.h" // LockStat: one row of /proc/lock_stat

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mms {

class Kernel;
struct AddressSpace;
struct Directory;
struct FutexQueue;
struct SocketQueue;

namespace sys {

    // --- processes and threads -------------------------------------------------------------------------------------

    // Set-up: a new process (its own address space) whose one thread starts on `cpu` once the simulation runs, with
    // its own PRNG stream seeded from `seed`. start() gives it its program.
    Task& spawn_process(Kernel& k, std::string name, int cpu, std::uint64_t seed);
    // Set-up: a thread of `leader`'s process (clone(CLONE_VM | CLONE_THREAD)): it shares the address space.
    Task& spawn_thread(Kernel& k, Task& leader, std::string name, int cpu, std::uint64_t seed);
    // Set-up: sched_setaffinity(), as `taskset -c FIRST-(FIRST+COUNT-1) program` starts it: the task, its threads
    // and children run only on those CPUs (COUNT 0: all). The task is one spawned on one of them.
    void sched_setaffinity(Kernel& k, Task& t, int first, int count);
    // Set-up: the thread runs `body` when the simulation starts.
    void start(Kernel& k, Task& t, Co<> body);
    // Set-up: put the task in memory cgroup `memcg` (echo PID > cgroup.procs); 0 is the root.
    void cgroup_attach(Kernel& k, Task& t, int memcg);

    // The current process has a fatal signal pending (the OOM killer chose it). A process started at set-up never
    // sees it: its threads end at their next return to user space, where the first frees its memory. A forked child,
    // which runs in its parent's task, checks it at each step and exits into its parent.
    bool killed(const Kernel& k, const Task& t);

    // --- memory ----------------------------------------------------------------------------------------------------

    // mmap(MAP_ANONYMOUS | MAP_PRIVATE) of `pages`: the first page of the new mapping. Creating the VMA costs no
    // simulated time (its pages fault in on first touch, which is what the model charges). MAP_FAILED (ENOMEM) when
    // the overcommit heuristic refuses it (__vm_enough_memory, the `overcommit` toggle) or the process's address space, in
    // the model one 32-bit page index (16 TiB), has no room for it.
    inline constexpr std::uint32_t MAP_FAILED = 0xffffffffu;
    std::uint32_t mmap(Kernel& k, Task& t, std::uint64_t pages);
    // mmap(PROT_NONE, MAP_NORESERVE) of `pages`, glibc's new_heap() reserving HEAP_MAX_SIZE of address space: not
    // writable, so not accounted; MAP_FAILED only when the address space has no room.
    std::uint32_t mmap_noreserve(Kernel& k, Task& t, std::uint64_t pages);
    // mmap(PROT_NONE, MAP_FIXED) over part of a mapping: zaps its pages (mmap_sem for write), glibc's shrink_heap.
    Co<> mmap_prot_none(Kernel& k, Task& t, std::uint32_t start, std::uint32_t pages);
    // mprotect(PROT_READ | PROT_WRITE) of part of a mapping (mmap_sem for write, vma_adjust).
    Co<> mprotect(Kernel& k, Task& t, std::uint32_t start, std::uint32_t pages);
    // madvise(start, pages, advice).
    Co<> madvise(Kernel& k, Task& t, std::uint32_t start, std::uint32_t pages, Advice advice);

    // A load from or store to page `vpn`. A page not mapped faults (handle_mm_fault); a mapped one gets its PTE's
    // accessed bit, and with a store its dirty bit, from the CPU (a lazily freed page is then in use again), whose
    // page walk costs the task CostModel::adBitWalkNs where a bit was clear.
    enum class Access : std::uint8_t { Read, Write };
    // A store leaves program data in the page (PageContent::Data) unless the program says otherwise with fill().
    MaybeCo touch(Kernel& k, Task& t, std::uint32_t vpn, Access access);
    // What the program's stores to page `vpn` (mapped: just touched for writing) left there, when it is not
    // program data: memset(p, 0, n) leaves PageContent::Zero, memset(p, c, n) PageContent::Same. Bookkeeping of the
    // bytes themselves, no simulated time: the kernel reads them only where it reads a page's bytes (zram's
    // zero-page check and compressor).
    void fill(Kernel& k, Task& t, std::uint32_t vpn, PageContent content);

    // brk(): the process's heap becomes `pages` long. Growing it maps nothing (the pages fault on first touch);
    // shrinking it (glibc's trim of the heap top) zaps the pages above the new break: a huge page there is split
    // first (split_huge_page), and every page goes back through this CPU's per-cpu free list. exit() frees the rest.
    Co<> brk(Kernel& k, Task& t, std::uint32_t pages);
    // A store to every page of the heap, first to last: each page not yet faulted in faults. With thp.enabled a
    // 2 MiB-aligned range inside the heap faults in one huge page (do_huge_pmd_anonymous_page: an order-9
    // allocation, direct compaction when no block is free, clear_huge_page); when none can be had, the range faults
    // 4 KiB at a time (thp_fault_fallback).
    Co<> touch_heap(Kernel& k, Task& t);

    // /proc/meminfo, in pages.
    struct MemInfo {
        std::uint64_t memFree = 0;
        std::uint64_t memAvailable = 0; // free pages (the page cache the model could drop is not counted)
        std::uint64_t swapTotal = 0;
    };
    MemInfo meminfo(const Kernel& k);
    // /proc/PID/status VmRSS + VmSwap of the task's process, in pages.
    std::uint64_t vm_rss_swap(const Task& t);

    // Set-up fast-forward (mm/prefault.h): each task's process has written every page of order[i] once, in that
    // order, the processes interleaved at random (PRNG `seed`), while reclaim kept the resident pages within the free
    // memory above the high watermark by swapping out the page touched longest ago from the CPU that needed a page
    // (its swap slots cache, as get_swap_page() hands slots out). Builds the state that leaves, without simulating
    // it; when swap fills up, the rest stays untouched.
    void fast_forward_touch_swapping(Kernel& k, const std::vector<Task*>& tasks,
        const std::vector<std::vector<std::uint32_t>>& order, std::uint64_t seed);

    // --- files -----------------------------------------------------------------------------------------------------

    // An open file (its page cache is the kernel's). Copyable; valid for the kernel's lifetime.
    class File {
    public:
        File() = default;
        explicit File(AddressSpace* mapping)
            : m_mapping(mapping)
        {
        }
        AddressSpace* mapping() const { return m_mapping; }

    private:
        AddressSpace* m_mapping = nullptr;
    };

    // Set-up: `truncate -s` of a new file of `pages` pages: every page a hole (a sparse file on tmpfs or xfs).
    File create_sparse(Kernel& k, std::uint64_t pages);
    // Set-up: mmap(MAP_SHARED) of `pages` of `f` from page `pgoff`; the first page of the mapping.
    std::uint32_t mmap_file(Kernel& k, Task& t, File f, std::uint64_t pgoff, std::uint32_t pages);
    // Set-up: the machine has been running a while (kswapd0 is up) and memory is full of page cache: every page of
    // `files` cached, in random frames (read in over the machine's life); the rest the cache of older files of
    // `oldFilePages` pages each, but for a `freeFraction` of the frames, left free where reclaim freed them.
    // `contiguous`: an older file's pages lie in consecutive frames (written in one go), else in random frames.
    // `seed` draws where. Throws std::length_error if the older files would be more than 65535.
    void fill_page_cache(Kernel& k, const std::vector<File>& files, std::uint64_t oldFilePages, double freeFraction,
        bool contiguous, std::uint64_t seed);

    // pread() of one page at `index` into a user buffer: the syscall's entry and exit, then the buffered read path
    // (generic_file_buffered_read: readahead, page-cache lookup, copy_page_to_iter). false past EOF.
    ValueOrCo<bool> pread(Kernel& k, Task& t, File f, std::uint64_t index);
    // Host-side batching of a reader's loop, no simulated difference: pread() of pages index, index + 1, ... (at most
    // `nr`) while each page is cached and nothing would wait, each followed by a write() to /dev/null when
    // `thenWriteNull`, stopping at the first that is not or when the caller's clock reaches `end` (0: no limit).
    // Returns the pages read; the one it stopped at is untouched, for pread() to read.
    std::uint64_t pread_cached_run(
        Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t nr, bool thenWriteNull, Time end);
    // pread() of `pages` pages from `index` in one call: the syscall's entry and exit, then the buffered read of each
    // page. Returns the pages read (fewer at EOF).
    Co<std::uint64_t> pread(Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t pages);
    // pwrite() of `pages` pages at `index`, in `calls` write(2) calls of equal size: each call's entry and exit and
    // the filesystem's handle (ext4_da_write_begin/end: the inode's new size in its inode-table block, journaled),
    // and generic_perform_write: each page not cached is allocated and added to the page cache (__GFP_NORETRY:
    // short of memory, fewer), then each is copied from the user buffer and left dirty for writeback.
    Co<> pwrite(Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t pages, std::uint64_t calls = 1);
    // fsync(2): the file's dirty pages written back and waited for, then the journal's commit of its transaction.
    Co<> fsync(Kernel& k, Task& t, File f);
    // fallocate(FALLOC_FL_PUNCH_HOLE) of `pages` pages at `index`: truncate_inode_pages_range() takes them out of the
    // page cache and frees them; a page someone else holds (isolated by reclaim or compaction, in a pagevec,
    // locked, referenced) stays cached, for reclaim to take later.
    Co<> punch_hole(Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t pages);
    // `msgs` messages sent and received over a loopback TCP or UDP connection within the process (re-aim's
    // tcp_test, udp_test): per message a sendmsg and a recvmsg and the loopback path between them
    // (CostModel::loopbackMsgNs). The first send of a task fills its page frag (sk_page_frag_refill ->
    // skb_page_frag_refill: an order-3 page with __GFP_NORETRY | __GFP_NOWARN, order 0 if none; 3.12), kept until
    // the task is freed: loopback's receiver has let go of each message's bytes before the next send reuses them.
    Co<> loopback_messages(Kernel& k, Task& t, int msgs);
    // write() to /dev/null: entry and exit, write_null returns at once.
    void write_null(Kernel& k, Task& t);
    // sync(2) (fs/sync.c, 3.12): wakeup_flusher_threads; sync_inodes_sb, which queues a WB_SYNC_ALL work for the
    // flusher thread (every dirty inode's pages written back) and waits for it, then wait_sb_inodes, which walks
    // every inode under inode_sb_list_lock and, for each with page cache, grabs it (__iget), drops and re-takes the
    // lock around filemap_fdatawait and iput; ext4_sync_fs, a journal commit, waited for; and the block device's
    // dirty metadata written back and waited for (iterate_bdevs). fs/fs.h.
    Co<> sync(Kernel& k, Task& t);

    // --- names in a directory ---------------------------------------------------------------------------------------

    // A directory: its inode's i_mutex serialises the filesystem's part of every creat, link and unlink in it.
    class Dir {
    public:
        Dir() = default;
        explicit Dir(Directory* d)
            : m_dir(d)
        {
        }
        Directory* dir() const { return m_dir; }

    private:
        Directory* m_dir = nullptr;
    };
    // Set-up: a new, empty directory.
    Dir create_dir(Kernel& k);
    // creat(2) of a name in `d` and its close(2): the path walk, then, under the directory's i_mutex (do_last ->
    // lookup_open, taken for every O_CREAT open), the new dentry and the filesystem's inode and directory entry --
    // or, for an `existing` name, the dentry found and the empty file truncated.
    Co<> creat(Kernel& k, Task& t, Dir d, bool existing = false);
    // link(2) of an existing file to a new name in `d`: the two path walks, then vfs_link under `d`'s i_mutex.
    Co<> link(Kernel& k, Task& t, Dir d);
    // unlink(2) of a name in `d`: the path walk, vfs_unlink under `d`'s i_mutex, then (the last link of a closed
    // file) the inode's eviction after the lock is dropped.
    Co<> unlink(Kernel& k, Task& t, Dir d, bool lastLink = true);

    // --- fork, exec, exit, wait -----------------------------------------------------------------------------------
    //
    // A forked child runs in its parent's task: fork() returns in the child, which runs on the parent's CPU while the
    // parent sleeps in wait4() (a driver that forks and waits, like re-aim's or a shell's), and the child's exit()
    // returns in the parent, which then reaps it with wait(). Children may fork in turn.

    // An executable and what its loader maps: the binary, the interpreter and the libraries (each mapping a File's
    // pages from `pgoff`), and the text the program touches first: runs of `pages` file pages from `index`. A touched
    // page inside a mapping whose PTE is none takes a page fault, which maps it (and, with fault.around, the cached
    // pages of its window); a run outside every mapping reads `readaround` pages there into the page cache
    // (filemap_fault's readaround).
    struct ExecImage {
        struct Mapping {
            File file;
            std::uint64_t pgoff = 0;
            std::uint32_t pages = 0;
        };
        struct TextRun {
            File file;
            std::uint64_t index = 0;
            std::uint32_t pages = 1;
        };
        std::vector<Mapping> mappings;
        std::vector<TextRun> text;
        int readaround = 0;
    };

    // fork(): do_fork -> copy_process: the kernel stack (order fork.stack_order), now and then a new slab for the
    // task's slab objects (SLUB's order 3 with __GFP_NORETRY, then order 1), dup_mm (a pgd; dup_mmap under the
    // parent's mmap_sem: each VMA copied, each file VMA linked into its file's i_mmap tree under the i_mmap lock
    // for write). Returns in the child.
    Co<> fork(Kernel& k, Task& t);
    // fork() in a parent that goes on running (a program that forks its workers, then waits for them): the child is
    // a new task with a process and an mm of its own (the parent's VMAs copied), placed as wake_up_new_task() places
    // it (Sched::forkBalanceCpu), and runs `body` from the moment the parent's fork is done.
    Co<> fork_process(Kernel& k, Task& t, std::string name, std::uint64_t seed, const std::function<Co<>(Task&)>& body);
    // execve(): a new mm and its pgd; exec_mmap drops the old one (exit_mmap: its file VMAs unlinked, each under its
    // file's i_mmap lock); each of the image's mappings linked (mmap_sem and i_mmap lock for write); the first text
    // touches (their page tables, the faults that map text, the readaround of the others).
    Co<> execve(Kernel& k, Task& t, const ExecImage& image);
    // exit(): do_exit -> exit_mm -> mmput -> exit_mmap (the heap and every VMA zapped, file VMAs unlinked under their
    // i_mmap locks), free_pgtables. In a forked child it returns in the parent, back from wait4; in a process started
    // at set-up the thread ends when its body returns.
    Co<> exit(Kernel& k, Task& t);
    // wait4(): reaps the child exit() ended (release_task: its kernel stack and slab freed). false if there is none.
    Co<bool> wait(Kernel& k, Task& t);

    // --- user-space synchronisation and time ------------------------------------------------------------------------

    // A futex word's kernel side (its hash bucket and wait queue). Owned by the program that uses the word.
    class Futex {
    public:
        explicit Futex(Kernel& k);
        ~Futex();
        Futex(const Futex&) = delete;
        Futex& operator=(const Futex&) = delete;
        FutexQueue& queue() const { return *m_q; }

    private:
        std::unique_ptr<FutexQueue> m_q;
    };
    // FUTEX_WAIT: sleeps unless `word` no longer holds `expected`. FUTEX_WAKE: wakes up to `nr` waiters.
    Co<> futex_wait(Kernel& k, Task& t, Futex& f, const int& word, int expected);
    Co<> futex_wake(Kernel& k, Task& t, Futex& f, int nr);
    // FUTEX_CMP_REQUEUE: unless `word` no longer holds `expected`, wakes up to `nrWake` of f's waiters and moves up to
    // `nrRequeue` more to `to`, where a FUTEX_WAKE of `to` finds them. Returns how many it woke and moved.
    Co<int> futex_cmp_requeue(
        Kernel& k, Task& t, Futex& f, Futex& to, const int& word, int expected, int nrWake, int nrRequeue);

    // One direction of a connected loopback TCP socket between two threads (of one process or two), message by
    // message: what one end writes, the other reads. Owned by the program that made the connection; the writing end
    // belongs to `writer`'s process (its file table) from the start, and when that process exits, the reader sees
    // end of stream -- whether or not it ever wrote.
    class Socket {
    public:
        Socket(Kernel& k, const Task& writer);
        ~Socket();
        Socket(const Socket&) = delete;
        Socket& operator=(const Socket&) = delete;
        SocketQueue& queue() const { return *m_q; }

    private:
        std::shared_ptr<SocketQueue> m_q;
    };
    // send(): one message (tcp_sendmsg; on loopback the sender also runs the receive path and wakes the reader).
    Co<> send(Kernel& k, Task& t, Socket& s);
    // recv(): one message, sleeping until it arrives (tcp_recvmsg); false at end of stream.
    Co<bool> recv(Kernel& k, Task& t, Socket& s);
    // shutdown(SHUT_WR): the reader's recv() returns false once the queue is empty.
    Co<> shutdown(Kernel& k, Task& t, Socket& s);

    // A user-space atomic read-modify-write (lock cmpxchg/xchg) on a shared cache line: the locked operation, and
    // the line's transfer when another CPU wrote it last. `lastCpu` is the line's owner, updated to the caller's CPU.
    void atomic_rmw(Kernel& k, Task& t, int& lastCpu);

    // CPU time the program spends in its own code (user time), or inside a system call the model does not break
    // down (system time: creat, link, a loopback send, ...).
    void compute(Task& t, double nsCost);
    void syscall_work(Task& t, double nsCost);
    // User time streaming the page mapped at `vpn` through memory (a memset, a copy, a read of every word):
    // `aloneNs` is what it takes one core alone (machine_costs(): userMemsetPageNs, copyPageNs); with other cores
    // streaming it takes as long as the memory of the page's node and the core's bandwidth allow.
    void stream(Kernel& k, Task& t, std::uint32_t vpn, double aloneNs);
    // What the machine's CPUs and memory cost (clock, memory bandwidth, atomics): for the program's own work.
    const CostModel& machine_costs(const Kernel& k);
    int nr_cpus(const Kernel& k);

    // The simulated clock, and the caller's own clock: now plus the CPU time it has used but not yet pushed onto
    // the global clock (what clock_gettime() would return in the thread).
    Time now(const Kernel& k);
    Time clock(const Kernel& k, const Task& t);
    // Brings the global clock to the caller's own (every access to shared state does this first).
    Sched::Flush flush(Kernel& k, Task& t);
    // Preemption at a point in user code: the timer tick finds the slice used up and others waiting on this CPU.
    bool need_resched(const Kernel& k, const Task& t);
    Co<> preempt(Kernel& k, Task& t);
    // sched_yield(): the caller goes behind the tasks waiting on its CPU, if any.
    Co<> sched_yield(Kernel& k, Task& t);
    // Blocks for `d` without using the CPU (nanosleep).
    Co<> nanosleep(Kernel& k, Task& t, Time d);

    // --- what a program (or the person running it) reads back -----------------------------------------------------

    // A /proc/vmstat field by name (as vmName() spells it); throws std::out_of_range for an unknown name.
    std::uint64_t vmstat(const Kernel& k, std::string_view name);
    // /proc/lock_stat: the summed row of every lock instance with this class name (empty row if none), and how many
    // instances there are in `instances` when given.
    LockStat lock_stat(const Kernel& k, std::string_view name, int* instances = nullptr);
    // /proc/lock_stat's row of one file's i_mmap lock (the kind i_mmap.lock names).
    LockStat i_mmap_lock_stat(const Kernel& k, File f);
    // /proc/stat: the CPUs' idle time so far, summed.
    Time idle_time(const Kernel& k);
    // Where the tasks' time went, summed over every task of the run (seconds): their user and system time, and of
    // the elapsed time in the kernel, page faults (a program's loads and stores), sync(2) (its waits for the flusher
    // and the journal apart), waits for a locked journal transaction, direct compaction, and each lock class's
    // waits (lockstat's wait-total, named as /proc/lock_stat names it).
    struct TimeBreakdown {
        double user = 0, sys = 0, faults = 0, sync = 0, syncWait = 0, journalWait = 0, compaction = 0;
        std::uint64_t syncs = 0, commits = 0, pagesWrittenBack = 0;
        std::vector<std::pair<std::string, double>> lockWait; // by class, largest first
    };
    TimeBreakdown time_breakdown(const Kernel& k);

} // namespace sys
} // namespace mms
