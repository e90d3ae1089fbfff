// The system-call entry points (kernel/syscalls.h): each enters the kernel function it names.
#include "kernel/syscalls.h"

#include "fs/fs.h"
#include "kernel/process.h"
#include "mm/page_alloc.h"
#include "kernel/kernel.h"
#include "mm/futex.h"
#include "mm/madvise.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/prefault.h"
#include "mm/rmap.h"
#include "net/tcp.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mms::sys {

namespace {
    // do_exit() for SIGKILL at the return to user space: the last thread of the process to get here gives its
    // memory back (exit_mm: the heap and every mapping; a child forked into a task of its own also its stack and
    // slab), TIF_MEMDIE goes, and the thread ends without returning to its program (its frames are reclaimed with
    // the scheduler's).
    Co<> die(Kernel& k, Task& t)
    {
        FnScope fn(t, "do_exit");
        co_await do_exit(k, t);
        co_await k.s.flush(t);
        struct Exit {
            Sched& s;
            Task& t;
            bool await_ready() const noexcept { return false; }
            void await_suspend(std::coroutine_handle<>) { s.taskExit(t); }
            void await_resume() const noexcept { }
        };
        co_await Exit { k.s, t };
    }

    // A preemption point where the task leaves or enters its own code: a woken task of a better priority that is
    // waiting for this CPU (TIF_NEED_RESCHED, Sched::setO1) runs first. At the entry to the kernel it stands for the
    // reschedule IPI that would have taken the task off the CPU while it ran its own code: the model takes it once
    // that code's time has passed, before the call takes any lock.
    MaybeCo kernel_entry(Kernel& k, Task& t)
    {
        if (k.s.preemptPending(t)) [[unlikely]]
            return k.s.preempt(t);
        return {};
    }

    // The return to user space (exit_to_user_mode): the run's watchdog hears that a user task made progress, a
    // task with SIGKILL pending exits instead of returning, and a pending preemption is taken (kernel_entry). A
    // forked child runs in its parent's task: its program sees killed() and exits into its parent.
    MaybeCo ret_to_user(Kernel& k, Task& t)
    {
        k.noteUserProgress();
        if (t.sigkill && !current_process(k, t).parent)
            return die(k, t);
        return kernel_entry(k, t);
    }
} // namespace

Task& spawn_process(Kernel& k, std::string name, int cpu, std::uint64_t seed)
{
    return k.s.spawn(std::move(name), cpu, false, &k.mm_alloc(), seed);
}

Task& spawn_thread(Kernel& k, Task& leader, std::string name, int cpu, std::uint64_t seed)
{
    // clone() keeps the leader's affinity: a CPU outside it becomes one inside, in turn.
    if (!leader.allowedOn(cpu))
        cpu = leader.cpusFirst + cpu % leader.cpusCount;
    Task& t = k.s.spawn(std::move(name), cpu, false, leader.mm, seed);
    t.cpusFirst = leader.cpusFirst;
    t.cpusCount = leader.cpusCount;
    return t;
}

void sched_setaffinity(Kernel& k, Task& t, int first, int count)
{
    const int n = k.s.cpuCount();
    first = std::clamp(first, 0, n - 1);
    count = std::clamp(count, 0, n - first);
    t.cpusFirst = first;
    t.cpusCount = count;
}

void start(Kernel& k, Task& t, Co<> body) { k.s.start(t, std::move(body)); }

void cgroup_attach(Kernel& k, Task& t, int memcg) { k.setTaskMemcg(t, memcg); }

Co<> fork(Kernel& k, Task& t)
{
    co_await do_fork(k, t);
    co_await ret_to_user(k, t);
}

Co<> fork_process(Kernel& k, Task& t, std::string name, std::uint64_t seed, const std::function<Co<>(Task&)>& body)
{
    Task* child = co_await do_fork_task(k, t, std::move(name), seed);
    k.s.start(*child, body(*child));
    co_await ret_to_user(k, t);
}

Co<> execve(Kernel& k, Task& t, const ExecImage& image)
{
    co_await do_execve(k, t, image);
    co_await ret_to_user(k, t);
}

Co<> exit(Kernel& k, Task& t) { co_await do_exit(k, t); }

Co<> sync(Kernel& k, Task& t)
{
    Sched::burn(t, k.cost.faultEntryNs); // the syscall's entry and exit
    co_await ksys_sync(k, k.vfs(), t);
    co_await ret_to_user(k, t);
}

Co<> fsync(Kernel& k, Task& t, File f)
{
    Sched::burn(t, k.cost.faultEntryNs);
    co_await vfs_fsync(k, k.vfs(), t, *f.mapping());
    co_await ret_to_user(k, t);
}

Co<bool> wait(Kernel& k, Task& t) { co_return co_await do_wait(k, t); }

Dir create_dir(Kernel& k)
{
    return Dir(&k.dirs.mkdir());
}

namespace {
    // A name operation: the syscall and its path walks, the filesystem's part under the directory's i_mutex, then
    // what follows the unlock.
    enum class DirOp : std::uint8_t { Create, ReCreate, Link, Unlink, UnlinkLast };

    Co<> dir_op(Kernel& k, Task& t, Dir d, DirOp op, const char* fn, int walks, double underLock, double after)
    {
        {
            FnScope scope(t, fn);
            Sched::burn(t, k.cost.faultEntryNs + walks * k.cost.pathWalkNs);
            Directory& dir = *d.dir();
            Vfs& fs = k.vfs();
            co_await mutex_lock(k.s, t, dir.i_mutex);
            Sched::burn(t, underLock);
            switch (op) { // the filesystem's part, in a journal handle
            case DirOp::Create:
                co_await vfs_create(k, fs, t, dir);
                break;
            case DirOp::ReCreate: // O_TRUNC of an empty file: nothing to journal
                break;
            case DirOp::Link:
                co_await vfs_link(k, fs, t, dir);
                break;
            case DirOp::Unlink:
            case DirOp::UnlinkLast:
                co_await vfs_unlink(k, fs, t, dir, op == DirOp::UnlinkLast);
                break;
            }
            mutex_unlock(k.s, t, dir.i_mutex);
            Sched::burn(t, after);
            if (op == DirOp::UnlinkLast)
                co_await evict_inode(k, fs, t); // iput of the last reference: ext4_evict_inode
        }
        co_await ret_to_user(k, t);
    }
} // namespace

Co<> creat(Kernel& k, Task& t, Dir d, bool existing)
{
    // close(2) of the file: fput's last reference, outside the lock.
    co_await dir_op(k, t, d, existing ? DirOp::ReCreate : DirOp::Create, "sys_creat", 1,
        existing ? k.cost.pathWalkNs : k.cost.dirCreateNs, k.cost.faultEntryNs);
}

Co<> link(Kernel& k, Task& t, Dir d)
{
    co_await dir_op(k, t, d, DirOp::Link, "sys_link", 2, k.cost.dirLinkNs, 0);
}

Co<> unlink(Kernel& k, Task& t, Dir d, bool lastLink)
{
    co_await dir_op(k, t, d, lastLink ? DirOp::UnlinkLast : DirOp::Unlink, "sys_unlink", 1, k.cost.dirUnlinkNs,
        lastLink ? k.cost.inodeEvictNs : 0.0);
}

bool killed(const Kernel&, const Task& t) { return fatal_signal_pending(t); }

namespace {
    // A page range a user program names must lie in its page table, or the program is wrong (a real kernel answers
    // SIGSEGV or ENOMEM): checked here, at the boundary, so that no bad index reaches the page tables. The run ends
    // with the message (an internal error: the workload model is at fault, not the user's input).
    void checkUserRange(const Task& t, std::uint64_t start, std::uint64_t pages, const char* call)
    {
        if (start + pages > t.mm->pte.size())
            throw std::out_of_range(std::string(call) + ": " + t.name + " names pages [" + std::to_string(start) + ", "
                + std::to_string(start + pages) + ") beyond its mappings (" + std::to_string(t.mm->pte.size())
                + " pages)");
    }

    // do_mmap aligns the start to a page table (512 pages); the page index is 32 bits, MAP_FAILED excluded.
    bool addressSpaceFits(const MmStruct& mm, std::uint64_t pages) { return mm.pte.size() + 512 + pages < MAP_FAILED; }
} // namespace

std::uint32_t mmap(Kernel& k, Task& t, std::uint64_t pages)
{
    if (!addressSpaceFits(*t.mm, pages) || !vm_enough_memory(k, pages))
        return MAP_FAILED;
    return k.do_mmap(*t.mm, static_cast<std::uint32_t>(pages));
}

std::uint32_t mmap_noreserve(Kernel& k, Task& t, std::uint64_t pages)
{
    if (!addressSpaceFits(*t.mm, pages))
        return MAP_FAILED;
    return k.do_mmap(*t.mm, static_cast<std::uint32_t>(pages));
}

Co<> mmap_prot_none(Kernel& k, Task& t, std::uint32_t start, std::uint32_t pages)
{
    checkUserRange(t, start, pages, "mmap");
    co_await kernel_entry(k, t);
    co_await sys_mmap_prot_none(k, t, *t.mm, start, pages);
    co_await ret_to_user(k, t);
}

Co<> mprotect(Kernel& k, Task& t, std::uint32_t start, std::uint32_t pages)
{
    checkUserRange(t, start, pages, "mprotect");
    co_await kernel_entry(k, t);
    co_await sys_mprotect(k, t, *t.mm, start, pages);
    co_await ret_to_user(k, t);
}

Co<> madvise(Kernel& k, Task& t, std::uint32_t start, std::uint32_t pages, Advice advice)
{
    checkUserRange(t, start, pages, "madvise");
    co_await kernel_entry(k, t);
    co_await sys_madvise(k, t, *t.mm, start, pages, advice);
    co_await ret_to_user(k, t);
}

namespace {
    Co<> touch_fault(Kernel& k, Task& t, std::uint32_t vpn, Access access)
    {
        co_await kernel_entry(k, t);
        MmStruct& mm = *t.mm;
        const Time from = k.s.sim().now() + t.debt;
        co_await handle_mm_fault(k, t, mm, vpn, access == Access::Write);
        k.faultTime += k.s.sim().now() + t.debt - from;
        if (access == Access::Read && pte::present(mm.pte[vpn]))
            mm.pte[vpn] |= pte::kYoung; // the load that faulted completes
        if (access == Access::Write && pte::present(mm.pte[vpn]))
            k.pages.setContent(pte::pfn(mm.pte[vpn]), PageContent::Data); // the store that faulted completes
        co_await ret_to_user(k, t);
    }
} // namespace

MaybeCo touch(Kernel& k, Task& t, std::uint32_t vpn, Access access)
{
    MmStruct& mm = *t.mm;
    if (vpn >= mm.pte.size()) [[unlikely]]
        checkUserRange(t, vpn, 1, "page fault");
    Pte e = mm.pte[vpn];
    if (!pte::present(e))
        return touch_fault(k, t, vpn, access);
    // The hardware sets the accessed bit, and for a store the dirty bit, that the kernel cleared: a page walk
    // and a locked update of the PTE, in the user's instruction.
    const Pte needed = access == Access::Read ? pte::kYoung : pte::kYoung | pte::kDirty;
    if ((e & needed) != needed)
        Sched::burn(t, k.cost.adBitWalkNs, Acct::User);
    if (access == Access::Read) {
        mm.pte[vpn] = e | pte::kYoung;
    } else {
        mm.pte[vpn] = e | pte::kYoung | pte::kDirty;
        k.pages.clear(pte::pfn(e), PG_lazyfree);
        k.pages.setContent(pte::pfn(e), PageContent::Data);
    }
    k.noteUserProgress();
    return {};
}

void fill(Kernel& k, Task& t, std::uint32_t vpn, PageContent content)
{
    if (t.mm && vpn < t.mm->pte.size() && pte::present(t.mm->pte[vpn]))
        k.pages.setContent(pte::pfn(t.mm->pte[vpn]), content);
}

Co<> brk(Kernel& k, Task& t, std::uint32_t pages)
{
    co_await sys_brk(k, t, *t.mm, pages);
    co_await ret_to_user(k, t);
}

Co<> touch_heap(Kernel& k, Task& t)
{
    const Time from = k.s.sim().now() + t.debt;
    co_await heap_touch(k, t, *t.mm);
    k.faultTime += k.s.sim().now() + t.debt - from;
    co_await ret_to_user(k, t);
}

File create_sparse(Kernel& k, std::uint64_t pages) { return File(&new_address_space(k, pages)); }

std::uint32_t mmap_file(Kernel& k, Task& t, File f, std::uint64_t pgoff, std::uint32_t pages)
{
    return k.do_mmap_file(*t.mm, *f.mapping(), pgoff, pages);
}

namespace {
    // A read that needed the slow path, then the return to user space: a task killed meanwhile (its allocation
    // failing with -ENOMEM, say) dies there rather than seeing the error.
    Co<bool> pread_slow(Kernel& k, Task& t, ValueOrCo<bool> read)
    {
        bool ok = co_await read;
        co_await ret_to_user(k, t);
        co_return ok;
    }
} // namespace

ValueOrCo<bool> pread(Kernel& k, Task& t, File f, std::uint64_t index)
{
    Sched::burn(t, k.cost.faultEntryNs); // syscall entry/exit, vfs_read -> xfs_file_read_iter
    k.noteUserProgress();
    if (!fatal_signal_pending(t) && generic_file_read_cached(k, t, *f.mapping(), index))
        return true;
    ValueOrCo<bool> read = generic_file_buffered_read(k, t, *f.mapping(), index);
    if (read.await_ready() && !fatal_signal_pending(t))
        return read.await_resume(); // past the end of the file
    return pread_slow(k, t, std::move(read));
}

std::uint64_t pread_cached_run(
    Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t nr, bool thenWriteNull, Time end)
{
    const Time syscall = ns(k.cost.faultEntryNs);
    k.noteUserProgress();
    return generic_file_read_cached_run(k, t, *f.mapping(), index, nr, thenWriteNull ? 2 * syscall : syscall, end);
}

void fill_page_cache(Kernel& k, const std::vector<File>& files, std::uint64_t oldFilePages, double freeFraction,
    bool contiguous, std::uint64_t seed)
{
    std::vector<AddressSpace*> m;
    for (const File& f : files)
        m.push_back(f.mapping());
    mms::fill_page_cache(k, m, oldFilePages, freeFraction, contiguous, seed);
}

Co<std::uint64_t> pread(Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t pages)
{
    Sched::burn(t, k.cost.faultEntryNs); // syscall entry/exit, vfs_read
    std::uint64_t n = 0;
    for (; n < pages; ++n)
        if (!co_await generic_file_buffered_read(k, t, *f.mapping(), index + n))
            break;
    co_await ret_to_user(k, t);
    co_return n;
}

Co<> pwrite(Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t pages, std::uint64_t calls)
{
    Sched::burn(t, k.cost.faultEntryNs); // syscall entry/exit, vfs_write
    co_await generic_perform_write(k, t, *f.mapping(), index, pages);
    co_await ext4_file_write(k, k.vfs(), t, *f.mapping(), index, pages, std::max<std::uint64_t>(1, calls));
    co_await ret_to_user(k, t);
}

Co<> punch_hole(Kernel& k, Task& t, File f, std::uint64_t index, std::uint64_t pages)
{
    Sched::burn(t, k.cost.faultEntryNs); // syscall entry/exit, vfs_fallocate
    co_await truncate_inode_pages_range(k, t, *f.mapping(), index, index + pages);
    if (k.hasVfs())
        co_await ext4_punch_hole(k, k.vfs(), t, *f.mapping());
    co_await ret_to_user(k, t);
}

void write_null(Kernel& k, Task& t) { Sched::burn(t, k.cost.faultEntryNs); }

Co<> loopback_messages(Kernel& k, Task& t, int msgs)
{
    if (msgs <= 0)
        co_return;
    {
        FnScope fn(t, "tcp_sendmsg");
        Process& p = current_process(k, t);
        if (p.taskFrag == kNoPage) { // skb_page_frag_refill(32768, pfrag, GFP_KERNEL)
            p.taskFragOrder = 3; // SKB_FRAG_PAGE_ORDER
            p.taskFrag = co_await alloc_pages(k, t, 3, GFP_NORETRY);
            if (p.taskFrag == kNoPage && !fatal_signal_pending(t)) {
                p.taskFragOrder = 0;
                p.taskFrag = co_await alloc_pages(k, t, 0);
            }
        }
        Sched::burn(t, static_cast<double>(msgs) * (2 * k.cost.faultEntryNs + k.cost.loopbackMsgNs));
    }
    co_await ret_to_user(k, t);
}

Futex::Futex(Kernel& k)
    : m_q(std::make_unique<FutexQueue>())
{
    m_q->key = ++k.futexesMade;
}

Futex::~Futex() = default;

Co<> futex_wait(Kernel& k, Task& t, Futex& f, const int& word, int expected)
{
    co_await kernel_entry(k, t);
    co_await mms::futex_wait(k, t, *t.mm, f.queue(), word, expected);
    co_await ret_to_user(k, t);
}

Co<> futex_wake(Kernel& k, Task& t, Futex& f, int nr)
{
    co_await kernel_entry(k, t);
    co_await mms::futex_wake(k, t, *t.mm, f.queue(), nr);
    co_await ret_to_user(k, t);
}

Co<int> futex_cmp_requeue(
    Kernel& k, Task& t, Futex& f, Futex& to, const int& word, int expected, int nrWake, int nrRequeue)
{
    co_await kernel_entry(k, t);
    const int n
        = co_await mms::futex_cmp_requeue(k, t, *t.mm, f.queue(), to.queue(), word, expected, nrWake, nrRequeue);
    co_await ret_to_user(k, t);
    co_return n;
}

Socket::Socket(Kernel& k, const Task& writer)
    : m_q(std::make_shared<SocketQueue>())
{
    m_q->writer = writer.mm;
    std::erase_if(k.sockets, [](const std::weak_ptr<SocketQueue>& w) { return w.expired(); });
    k.sockets.push_back(m_q);
}

Socket::~Socket() = default;

Co<> send(Kernel& k, Task& t, Socket& s)
{
    co_await kernel_entry(k, t);
    co_await tcp_sendmsg(k.s, t, s.queue());
    co_await ret_to_user(k, t);
}

Co<bool> recv(Kernel& k, Task& t, Socket& s)
{
    co_await kernel_entry(k, t);
    bool got = co_await tcp_recvmsg(k.s, t, s.queue());
    co_await ret_to_user(k, t);
    co_return got;
}

Co<> shutdown(Kernel& k, Task& t, Socket& s)
{
    co_await tcp_shutdown(k.s, t, s.queue());
    co_await ret_to_user(k, t);
}

void atomic_rmw(Kernel& k, Task& t, int& lastCpu)
{
    Sched::burn(t, k.cost.lockedRmwNs + k.s.lineTransferNs(lastCpu, t.cpu), Acct::User);
    lastCpu = t.cpu;
}

void compute(Task& t, double nsCost) { Sched::burn(t, nsCost, Acct::User); }
void syscall_work(Task& t, double nsCost) { Sched::burn(t, nsCost, Acct::Sys); }
void stream(Kernel& k, Task& t, std::uint32_t vpn, double aloneNs)
{
    const Pte e = t.mm && vpn < t.mm->pte.size() ? t.mm->pte[vpn] : Pte(0);
    const int nid = pte::present(e) ? k.page_to_nid(pte::pfn(e)) : k.cpu_to_node(t.cpu);
    Sched::burnTime(t, k.s.memTransfer(t, nid, aloneNs * k.cost.memCoreGBps), Acct::User);
}
const CostModel& machine_costs(const Kernel& k) { return k.cost; }
int nr_cpus(const Kernel& k) { return k.s.cpuCount(); }

Time now(const Kernel& k) { return k.s.sim().now(); }
Time clock(const Kernel& k, const Task& t) { return k.s.sim().now() + t.debt; }
Sched::Flush flush(Kernel& k, Task& t) { return k.s.flush(t); }
bool need_resched(const Kernel& k, const Task& t) { return k.s.need_resched(t); }
Co<> preempt(Kernel& k, Task& t)
{
    co_await k.s.cond_resched(t);
    co_await ret_to_user(k, t); // the tick's return to user space delivers signals too
}

Co<> sched_yield(Kernel& k, Task& t)
{
    co_await k.s.yield(t);
    co_await ret_to_user(k, t);
}

Co<> nanosleep(Kernel& k, Task& t, Time d)
{
    co_await k.s.sleepFor(t, d, true); // hrtimer_nanosleep: TASK_INTERRUPTIBLE
    co_await ret_to_user(k, t);
}

std::uint64_t vmstat(const Kernel& k, std::string_view name)
{
    for (std::size_t i = 0; i < static_cast<std::size_t>(Vm::Count); ++i)
        if (name == vmName(static_cast<Vm>(i)))
            return k.vm.v[i];
    throw std::out_of_range("no /proc/vmstat field " + std::string(name));
}

LockStat lock_stat(const Kernel& k, std::string_view name, int* instances)
{
    LockStat sum;
    sum.name = name;
    if (instances)
        *instances = 0;
    for (const LockStat* l : k.lockStats()) {
        if (lockClass(l->name) != name)
            continue;
        if (instances)
            ++*instances;
        sum.kind = l->kind;
        sum.acquisitions += l->acquisitions;
        sum.acqBounces += l->acqBounces;
        sum.contentions += l->contentions;
        sum.conBounces += l->conBounces;
        sum.holdTotal += l->holdTotal;
        sum.waitTotal += l->waitTotal;
        sum.holdMin = std::min(sum.holdMin, l->holdMin);
        sum.holdMax = std::max(sum.holdMax, l->holdMax);
        sum.waitMin = std::min(sum.waitMin, l->waitMin);
        sum.waitMax = std::max(sum.waitMax, l->waitMax);
    }
    return sum;
}

LockStat i_mmap_lock_stat(const Kernel&, File f)
{
    const AddressSpace& m = *f.mapping();
    switch (m.i_mmap_kind) {
    case IMmapLock::Spinlock:
        return m.i_mmap_lock.stat();
    case IMmapLock::Mutex:
        return m.i_mmap_mutex.stat();
    case IMmapLock::Rwsem:
        break;
    }
    return m.i_mmap_rwsem.stat();
}

Time idle_time(const Kernel& k) { return k.s.idleTotal(); }

TimeBreakdown time_breakdown(const Kernel& k)
{
    TimeBreakdown b;
    for (const auto& t : k.s.tasks()) {
        b.user += toSec(t->userTime);
        b.sys += toSec(t->sysTime);
    }
    b.faults = toSec(k.faultTime);
    b.compaction = toSec(k.compactStallTime);
    if (const Vfs* fs = k.vfsIfMounted()) {
        b.sync = toSec(fs->syncTime);
        b.syncWait = toSec(fs->syncWait);
        b.journalWait = toSec(fs->journalWait);
        b.syncs = fs->syncs;
        b.commits = fs->journal.commits;
        b.pagesWrittenBack = fs->wb.pagesWritten;
    }
    std::vector<std::pair<std::string, double>> waits;
    for (const LockStat* l : k.lockStats()) {
        if (l->waitTotal == 0)
            continue;
        const std::string name(lockClass(l->name));
        auto it = std::find_if(waits.begin(), waits.end(), [&](const auto& w) { return w.first == name; });
        if (it == waits.end())
            waits.emplace_back(name, toSec(l->waitTotal));
        else
            it->second += toSec(l->waitTotal);
    }
    std::stable_sort(waits.begin(), waits.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    b.lockWait = std::move(waits);
    return b;
}

MemInfo meminfo(const Kernel& k)
{
    MemInfo m;
    m.memFree = k.nrFreePages();
    m.memAvailable = m.memFree;
    for (const auto& si : k.swap)
        m.swapTotal += si->nrSlots() - 1;
    return m;
}

std::uint64_t vm_rss_swap(const Task& t) { return t.mm ? t.mm->rss + t.mm->swapents : 0; }

void fast_forward_touch_swapping(
    Kernel& k, const std::vector<Task*>& tasks, const std::vector<std::vector<std::uint32_t>>& order, std::uint64_t seed)
{
    prefault_swapping(k, tasks, order, seed);
}

} // namespace mms::sys
