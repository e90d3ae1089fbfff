// Seed 004's workload: re-aim-7 with workfile.new_fserver on a machine whose page cache fills memory.
//
// N users (re-aim's forked children) run the workfile's tests, drawn by the workfile's weights (580 hits: the six
// disk_* tests 30 each, mem_rtns_1 and udp_test 40, ...; kernel-mm.md Path D). What this model makes of a test:
//  - it runs in a freshly forked child (the GUESS of kernel-mm.md Path D: AIM7's fork/exec/exit storm). fork
//    allocates the child's kernel stack (order 1: THREAD_SIZE 8 KiB on the SLE 3.0/3.12 kernels of the post), now
//    and then a new order-3 slab for task_struct/mm_struct/signal (SLUB's order for those caches), and page tables;
//    dup_mmap links the child's copies of the shared files' VMAs into their i_mmap trees (vma_link, i_mmap lock
//    for write). exec unlinks them (exit_mmap of the old mm: unlink_file_vma) and maps the binary and libraries
//    again; its page faults read around in the shared files (filemap_fault readahead), which keeps their page
//    cache -- mostly pages no process maps -- in memory. exit unlinks the VMAs and frees the stack, slab and
//    page tables. The child runs on its parent's CPU (the parent sleeps in wait4 meanwhile), so the model runs the
//    child's steps in the user's own task.
//  - disk_* tests write `io_size` to the user's own file through the page cache and read it back; memory is full
//    of page cache, so kswapd and direct reclaim run, and the free memory they leave is fragmented. The other tests
//    are user-space compute (mem_rtns, sort, string, add/div/mul, jmp, ram_copy) or short system calls
//    (creat_clo, link, dir, misc, signal, tcp/udp on loopback) with the CPU costs below.
//  - a high-order allocation that finds no free block of its order enters direct compaction, which migrates
//    page-cache pages -- of the users' files and of the shared files -- and, before 2ebba6b7e1d9, takes the file's
//    i_mmap lock twice per page even when nothing maps it: the same lock every fork, exec and exit takes.
//
// Metric: jobs_per_min = tests completed in the measured window / hits_per_job x 60 / window, a job being one pass
// of the workfile (580 hits). re-aim's own JPM counts each test invocation as a job (driver.c: users x jobs per
// child x 60 / elapsed), and its children run ~98 tests and never exec; see docs/fidelity.md, "What re-aim really
// runs", for that and the other differences from its source.
#include "mm/kernel.h"
#include "workload/aim7.h"

#include "mm/compaction.h"
#include "mm/rmap.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace mms {

namespace {
    enum class TestClass : std::uint8_t { Disk, Compute, Syscall };
    struct TestDef {
        const char* name;
        int hits;
        TestClass cls;
        double cpuWeight; // CPU time relative to the class's base cost
    };
    // workfile.new_fserver (580 hits).
    constexpr std::array<TestDef, 28> kWorkfile = { {
        { "disk_cp", 30, TestClass::Disk, 1.0 }, { "disk_rd", 30, TestClass::Disk, 1.0 },
        { "disk_rr", 30, TestClass::Disk, 1.0 }, { "disk_rw", 30, TestClass::Disk, 1.0 },
        { "disk_src", 30, TestClass::Disk, 1.0 }, { "disk_wrt", 30, TestClass::Disk, 1.0 },
        { "mem_rtns_1", 40, TestClass::Compute, 1.0 }, { "udp_test", 40, TestClass::Syscall, 2.0 },
        { "sort_rtns_1", 30, TestClass::Compute, 1.5 }, { "string_rtns", 30, TestClass::Compute, 1.0 },
        { "creat_clo", 20, TestClass::Syscall, 1.0 }, { "dir_rtns_1", 20, TestClass::Syscall, 1.0 },
        { "link_test", 20, TestClass::Syscall, 1.0 }, { "misc_rtns_1", 20, TestClass::Syscall, 0.5 },
        { "ram_copy", 20, TestClass::Compute, 1.0 }, { "add_double", 20, TestClass::Compute, 0.5 },
        { "add_float", 20, TestClass::Compute, 0.5 }, { "add_int", 20, TestClass::Compute, 0.5 },
        { "add_long", 20, TestClass::Compute, 0.5 }, { "div_double", 10, TestClass::Compute, 0.5 },
        { "div_int", 10, TestClass::Compute, 0.5 }, { "mul_double", 10, TestClass::Compute, 0.5 },
        { "mul_int", 10, TestClass::Compute, 0.5 }, { "jmp_test", 10, TestClass::Compute, 0.5 },
        { "mem_rtns_2", 10, TestClass::Compute, 1.0 }, { "signal_test", 10, TestClass::Syscall, 1.0 },
        { "tcp_test", 10, TestClass::Syscall, 2.0 },
        { "new_fserver", 0, TestClass::Compute, 0.0 }, // sentinel (no hits)
    } };

    int totalHits()
    {
        int n = 0;
        for (auto& d : kWorkfile)
            n += d.hits;
        return n;
    }

    struct Params {
        int users = 61;
        Time end = 0, warmup = 0;
        int sharedFiles = 3;
        std::uint64_t sharedPages = 0; // page cache of each shared file
        std::uint32_t mappedPages = 0; // pages each VMA maps (text whose page cache the model leaves out)
        int vmasPerFile = 2;
        int readaroundPages = 16;
        std::uint64_t ioPages = 16;
        std::uint64_t cacheFilePages = 256;
        int testsPerChild = 1;
        int heapEvery = 4;
        bool contiguousFiles = true;
        bool unlinkFiles = true;
        int stackOrder = 1;
        int slabEvery = 4;
        int pageTables = 4;
        bool thp = true;
        std::uint32_t heapPages = 512;
        double computeUs = 30, syscallUs = 10, diskUs = 10;
        double hitsPerJob = 580;
    };

    // A process: its mm (file VMAs on the shared files' i_mmap trees while it lives), kernel stack, slab and page
    // tables. A user's child reuses one mm from fork to fork (its VMA layout never changes).
    struct Proc {
        MmStruct* mm = nullptr;
        std::vector<Vma> layout; // the child's file VMAs, back in mm->vmas from fork to exit
        Pfn stack = kNoPage;
        Pfn slab = kNoPage;
        int slabOrder = 3;
        std::vector<Pfn> heap; // the work buffer's pages (a THP's 512, or the 4 KiB fallback's)
        std::vector<Pfn> pgtables;
    };

    class Fserver final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            const auto& p = ctx.params;
            Kernel& k = ctx.k;
            m_sim = &ctx.k.s.sim();
            m_p.users = p.at("users").get<int>();
            double runtime = p.at("runtime_s").get<double>();
            m_p.end = ns(runtime * 1e9);
            m_p.warmup = ns(runtime * p.at("warmup_fraction").get<double>() * 1e9);
            m_p.sharedFiles = p.at("shared_files").get<int>();
            m_p.sharedPages = std::max<std::uint64_t>(1, p.at("shared_file_size").get<std::uint64_t>() / kPageSize);
            m_p.mappedPages = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(m_p.sharedPages, p.at("mapped_size").get<std::uint64_t>() / kPageSize));
            m_p.vmasPerFile = p.at("vmas_per_file").get<int>();
            m_p.readaroundPages = p.at("readaround_pages").get<int>();
            m_p.ioPages = std::max<std::uint64_t>(1, p.at("io_size").get<std::uint64_t>() / kPageSize);
            m_p.cacheFilePages = std::max<std::uint64_t>(1, p.at("cache_file_size").get<std::uint64_t>() / kPageSize);
            m_p.testsPerChild = p.at("tests_per_child").get<int>();
            m_p.heapEvery = p.at("heap_every").get<int>();
            m_p.contiguousFiles = p.at("contiguous_files").get<bool>();
            m_p.unlinkFiles = p.at("unlink").get<bool>();
            m_p.stackOrder = p.at("stack_order").get<int>();
            m_p.slabEvery = p.at("slab_every").get<int>();
            m_p.thp = p.at("thp").get<bool>();
            m_p.heapPages = static_cast<std::uint32_t>(
                std::max<std::uint64_t>(1, p.at("heap_size").get<std::uint64_t>() / kPageSize));
            m_p.computeUs = p.at("compute_us").get<double>();
            m_p.syscallUs = p.at("syscall_us").get<double>();
            m_p.diskUs = p.at("disk_us").get<double>();
            m_p.hitsPerJob = totalHits();
            for (auto& d : kWorkfile)
                m_cum.push_back((m_cum.empty() ? 0 : m_cum.back()) + d.hits);

            if (m_p.thp)
                set_recommended_min_free_kbytes(k); // khugepaged's start-up (hugepage_init)
            k.startKswapd(0);
            ctx.k.s.setWakeIdleSibling(true);
            prefill(k, ctx.seed, p.at("free_fraction").get<double>());
            // Each user: a re-aim child that maps the shared files for its whole life, and its own data file.
            for (int u = 0; u < m_p.users; ++u) {
                // The VMAs map file pages past the cached ones: the text every process has faulted in is not
                // modelled (its mapcount would pass the page array's 8 bits at these user counts), and the cached
                // pages compaction meets are, as in the post, mapped by no one and outside every VMA.
                auto parent = std::make_unique<Proc>();
                parent->mm = &k.mm_alloc();
                auto child = std::make_unique<Proc>();
                child->mm = &k.mm_alloc();
                // The child is not forked yet: its VMAs are neither in its mm nor on any tree (do_mmap() and the
                // file, without do_mmap_file()'s vma_link).
                for (AddressSpace* m : m_shared)
                    for (int v = 0; v < m_p.vmasPerFile; ++v) {
                        std::uint64_t pgoff = m_p.sharedPages + static_cast<std::uint64_t>(v) * m_p.mappedPages;
                        k.do_mmap_file(*parent->mm, *m, pgoff, m_p.mappedPages);
                        k.do_mmap(*child->mm, m_p.mappedPages);
                        child->mm->vmas.back().file = m;
                        child->mm->vmas.back().pgoff = pgoff;
                    }
                child->layout = child->mm->vmas;
                child->mm->vmas.clear();
                AddressSpace& file = new_address_space(k, std::uint64_t(1) << 31);
                Task& t = ctx.k.s.spawn(
                    "reaim-" + std::to_string(u), u, false, nullptr, Rng::mix(ctx.seed, static_cast<std::uint64_t>(u)));
                m_tasks.push_back(&t);
                ctx.k.s.start(t, user(k, t, *child, file));
                m_procs.push_back(std::move(parent));
                m_procs.push_back(std::move(child));
            }
            // The machine's idle time in the measured window, from snapshots at its two ends (observer events: they
            // change nothing). Over the whole run, a test still under way after the window -- a long compaction --
            // counted every other CPU's idleness in the tail.
            m_sched = &ctx.k.s;
            auto snap = [](void* self, std::uint64_t i) {
                auto* w = static_cast<Fserver*>(self);
                w->m_idleAt[i] = w->m_sched->idleTotal();
                w->m_idleTaken[i] = true;
            };
            ctx.k.s.sim().observeAt(m_p.warmup, snap, this, 0);
            ctx.k.s.sim().observeAt(m_p.end, snap, this, 1);
        }

        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            double window = toSec(m_p.end - m_p.warmup);
            out["tests"] = static_cast<double>(m_tests);
            out["jobs_per_min"] = window > 0 ? static_cast<double>(m_tests) / m_p.hitsPerJob * 60.0 / window : 0.0;
            // The i_mmap lock of the shared files: time waited and held per test, and acquisitions per test.
            Time wait = 0, hold = 0;
            std::uint64_t acq = 0, con = 0;
            for (AddressSpace* m : m_shared) {
                const LockStat& l
                    = ctx.k.tg.immapLock == IMmapLock::Mutex ? m->i_mmap_mutex.stat() : m->i_mmap_rwsem.stat();
                wait += l.waitTotal;
                hold += l.holdTotal;
                acq += l.acquisitions;
                con += l.contentions;
            }
            double tests = static_cast<double>(std::max<std::uint64_t>(1, m_testsAll));
            out["i_mmap_wait_us_per_test"] = toUs(wait) / tests;
            out["i_mmap_acquisitions_per_test"] = static_cast<double>(acq) / tests;
            out["i_mmap_acquisitions_per_fork"]
                = static_cast<double>(acq) / static_cast<double>(std::max<std::uint64_t>(1, m_forks));
            out["compact_stall_per_fork"] = static_cast<double>(ctx.k.vm.get(Vm::CompactStall))
                / static_cast<double>(std::max<std::uint64_t>(1, m_forks));
            out["i_mmap_contentions_per_test"] = static_cast<double>(con) / tests;
            out["i_mmap_hold_ns_per_acq"] = acq ? toNs(hold) / static_cast<double>(acq) : 0.0;
            out["migrated_per_test"] = static_cast<double>(ctx.k.vm.get(Vm::PgMigrateSuccess)) / tests;
            out["thp_fault_alloc_per_fork"]
                = static_cast<double>(m_thpAlloc) / static_cast<double>(std::max<std::uint64_t>(1, m_forks));
            out["thp_fault_fallback_per_fork"]
                = static_cast<double>(m_thpFallback) / static_cast<double>(std::max<std::uint64_t>(1, m_forks));
            out["migrated_per_fork"] = static_cast<double>(ctx.k.vm.get(Vm::PgMigrateSuccess))
                / static_cast<double>(std::max<std::uint64_t>(1, m_forks));
            // Why the direct compactions gave up, per compaction (compact_stall): async compaction abandons the zone
            // at the first contended zone->lock or lru_lock (3.7-3.16) -- what keeps THP faults from being served.
            double stalls = static_cast<double>(std::max<std::uint64_t>(1, ctx.k.vm.get(Vm::CompactStall)));
            out["compact_abort_zone_lock_per_stall"] = static_cast<double>(ctx.k.vm.get(Vm::CompactAbortZoneLock)) / stalls;
            out["compact_abort_lru_lock_per_stall"] = static_cast<double>(ctx.k.vm.get(Vm::CompactAbortLruLock)) / stalls;
            out["compact_abort_resched_per_stall"] = static_cast<double>(ctx.k.vm.get(Vm::CompactAbortResched)) / stalls;
            out["compact_sync_per_stall"] = static_cast<double>(ctx.k.vm.get(Vm::CompactSyncStall)) / stalls; // never give up
            out["migrated_per_stall"] = static_cast<double>(ctx.k.vm.get(Vm::PgMigrateSuccess)) / stalls;
            // The most 2ebba6b7e1d9 can give back: migration's i_mmap round-trips for pages no one maps (waits
            // included), per test and as a share of the machine's time (CPUs x run time). Zero with the patch.
            const Time now = ctx.k.s.sim().now();
            const double rmapNs = static_cast<double>(ctx.k.vm.get(Vm::MigrateUnmappedRmapNs));
            out["unmapped_rmap_us_per_test"] = rmapNs / 1000.0 / tests;
            out["unmapped_rmap_walks_per_test"] = static_cast<double>(ctx.k.vm.get(Vm::MigrateUnmappedRmapWalks)) / tests;
            out["unmapped_rmap_share"] = now > 0 ? rmapNs * 1e-9 / (toSec(now) * static_cast<double>(ctx.k.s.cpuCount())) : 0.0;
            // Idle CPU time in the measured window (up to the run's end if it ended inside the window).
            const Time idleNow = ctx.k.s.idleTotal();
            Time from = m_idleTaken[0] ? m_p.warmup : now, to = m_idleTaken[1] ? m_p.end : now;
            Time idle = (m_idleTaken[1] ? m_idleAt[1] : idleNow) - (m_idleTaken[0] ? m_idleAt[0] : idleNow);
            out["idle_fraction"] = to > from ? toSec(idle) / (toSec(to - from) * ctx.k.s.cpuCount()) : 0.0;
        }

        // Runs for a fixed simulated time (the tests under way at the end then finish: a little past 1.0).
        double progress() const override { return timeProgress(m_sim, m_p.end); }

    private:
        // Setup-time page cache (no simulated time): page `p` becomes page `index` of `m`, on the LRU.
        void addAtSetup(Kernel& k, AddressSpace& m, Pfn p, std::uint64_t index, bool active)
        {
            if (m.pages.size() <= index)
                m.pages.resize(std::max<std::size_t>(index + 1, m.pages.size() * 2), kNoPage);
            m.pages[index] = p;
            ++m.nrpages;
            k.pages.setFlags(p, active ? PG_active : 0);
            k.pages.setOwner(p, static_cast<std::uint16_t>(m.id + 1));
            k.pages.setIndex(p, static_cast<std::uint32_t>(index));
            k.add_page_to_lru_list(p, Kernel::page_lru(k.pages.flags(p)));
        }

        // The state a file server reaches after running a while: memory full of page cache (the shared files
        // and older data files), with the free pages that reclaim left scattered over it.
        void prefill(Kernel& k, std::uint64_t seed, double freeFraction)
        {
            Rng rng(Rng::mix(seed, 0x5eedu));
            for (int f = 0; f < m_p.sharedFiles; ++f) {
                AddressSpace& m = new_address_space(k, m_p.sharedPages);
                m_shared.push_back(&m);
            }
            // The older page cache: files of one disk test's size each (earlier runs' temp and data files), so
            // that, as on a real file server, compaction's neighbouring pages mostly belong to different files,
            // whose i_mmap and tree locks nobody else wants.
            AddressSpace* old = nullptr;
            std::uint64_t index = 0;
            // Every free page, in the order alloc_page_setup() would hand them out one at a time (rmqueueBulk's
            // contract), without splitting a block again for each page.
            std::vector<Pfn> all(k.zone.nrFree());
            all.resize(k.zone.rmqueueBulk(k.pages, all.size(), all.data()));
            // Shared files' pages at random places (they were read in over the machine's life).
            for (AddressSpace* m : m_shared)
                for (std::uint64_t i = 0; i < m_p.sharedPages && !all.empty(); ++i) {
                    std::size_t j = rng.below(all.size());
                    Pfn p = all[j];
                    all[j] = all.back();
                    all.pop_back();
                    addAtSetup(k, *m, p, i, false);
                }
            // contiguous_files: a data file's pages sit together in frame order (a file written in one go takes
            // its pages from the per-cpu list and the buddy blocks behind it in order), with the pages reclaim
            // freed since scattered between them. Compaction's migrate scanner, whose position all direct
            // compactors of the zone share (compact_cached_migrate_pfn), then hands consecutive 32-page clusters
            // of one file to concurrent compactors, which meet on that file's i_mmap lock. Otherwise frames in a
            // random order: neighbouring frames mostly belong to different files.
            if (m_p.contiguousFiles)
                sortFrames(all, k.pages.size());
            else
                for (std::size_t i = all.size(); i > 1; --i)
                    std::swap(all[i - 1], all[rng.below(i)]);
            for (Pfn p : all) {
                if (rng.uniform() < freeFraction) {
                    k.zone.freeOnePage(k.pages, p, 0);
                    continue;
                }
                if (!old || index == m_p.cacheFilePages) {
                    // struct page's owner is 16 bits here (page.h): a file's id must fit.
                    if (k.mappings.size() >= 0xffff)
                        throw std::invalid_argument("aim7-fserver: cache_file_size too small for this memory (more "
                                                    "than 65535 files)");
                    old = &new_address_space(k, m_p.cacheFilePages);
                    index = 0;
                }
                addAtSetup(k, *old, p, index++, false);
            }
        }

        // std::sort of distinct frame numbers below `nr`, in O(nr): mark each, read the marks back in order. A
        // full-size machine has millions of frames, and the sort was a quarter of a full-scale run's host time.
        static void sortFrames(std::vector<Pfn>& frames, std::uint32_t nr)
        {
            std::vector<bool> present(nr);
            for (Pfn p : frames)
                present[p] = true;
            std::size_t i = 0;
            for (Pfn p = 0; p < nr; ++p)
                if (present[p])
                    frames[i++] = p;
        }

        int pickTest(Rng& rng) const
        {
            auto r = static_cast<int>(rng.below(static_cast<std::uint64_t>(m_cum.back())));
            for (std::size_t i = 0; i < m_cum.size(); ++i)
                if (r < m_cum[i])
                    return static_cast<int>(i);
            return 0;
        }

        Co<> mapShared(Kernel& k, Task& t, Proc& proc)
        {
            proc.mm->vmas = proc.layout;
            for (const Vma& v : proc.mm->vmas)
                if (v.file)
                    co_await vma_link_file_locked(k, t, *v.file, FileVma { proc.mm, v.start, v.pages, v.pgoff });
        }

        Co<> unmapAll(Kernel& k, Task& t, Proc& proc)
        {
            co_await unlink_file_vmas(k, t, *proc.mm);
            proc.mm->vmas.clear();
        }

        // do_fork(): dup_task_struct (stack, slab), mm_init (page tables), dup_mmap (file VMAs).
        Co<> do_fork(Kernel& k, Task& t, Proc& child)
        {
            FnScope fn(t, "do_fork");
            Sched::burn(t, k.cost.faultEntryNs + 20 * k.cost.lockedRmwNs); // syscall, copy_process bookkeeping
            child.stack = co_await alloc_pages(k, t, m_p.stackOrder); // alloc_thread_info_node
            if (m_p.slabEvery > 0 && t.rng.below(static_cast<std::uint64_t>(m_p.slabEvery)) == 0) {
                // new_slab() for task_struct / mm_struct / signal_cache: SLUB tries its order 3 with __GFP_NORETRY,
                // then the cache's minimum order (task_struct: order 1).
                child.slabOrder = 3;
                child.slab = co_await alloc_pages(k, t, 3, GFP_NORETRY);
                if (child.slab == kNoPage && !k.fatal_signal_pending(t)) {
                    child.slabOrder = 1;
                    child.slab = co_await alloc_pages(k, t, 1);
                }
            }
            for (int i = 0; i < m_p.pageTables; ++i) {
                Pfn p = co_await alloc_page(k, t); // pgd_alloc, pud/pmd/pte_alloc
                if (p == kNoPage)
                    break; // an OOM victim (kNoPage: the reserves are empty too); it exits next
                Sched::burn(t, k.cost.zeroPageNs);
                child.pgtables.push_back(p);
            }
            co_await mapShared(k, t, child); // dup_mmap: vma_link of each file VMA
            Sched::burn(t, static_cast<double>(m_p.mappedPages) * m_p.sharedFiles * k.cost.pteOpNs); // copy_page_range
        }

        // do_execve(): exec_mmap drops the old mm (unlink_file_vma), the loader maps the binary and libraries and
        // faults in their text; filemap_fault reads around in the files.
        Co<> do_execve(Kernel& k, Task& t, Proc& child)
        {
            FnScope fn(t, "do_execve");
            Sched::burn(t, k.cost.faultEntryNs + 5 * k.cost.copyPageNs); // syscall, copy strings, load_elf_binary
            co_await unmapAll(k, t, child);
            co_await mapShared(k, t, child);
            // The text faults: fault-around maps 16 pages a fault.
            double faults = static_cast<double>(m_p.mappedPages) * m_p.sharedFiles / 16.0;
            Sched::burn(t,
                faults * k.cost.faultEntryNs
                    + static_cast<double>(m_p.mappedPages) * m_p.sharedFiles * (k.cost.pteOpNs + k.cost.rmapOpNs));
            AddressSpace& m = *m_shared[t.rng.below(m_shared.size())];
            if (m_p.readaroundPages > 0) {
                std::uint64_t start = t.rng.below(m_p.sharedPages);
                for (int i = 0; i < m_p.readaroundPages && start + static_cast<std::uint64_t>(i) < m_p.sharedPages; ++i)
                    co_await generic_file_buffered_read(k, t, m, start + static_cast<std::uint64_t>(i));
            }
        }

        // The child's work buffer (malloc'ed by the workfile's tests: brk grows the heap past 2 MiB): its first
        // touch faults. With transparent_hugepage=always a 2 MiB-aligned heap range faults in one THP
        // (do_huge_pmd_anonymous_page -> alloc_hugepage_vma, direct compaction when no order-9 block is free,
        // clear_huge_page); when that fails, the pages fault in 4 KiB at a time (THP_FAULT_FALLBACK).
        Co<> heapFault(Kernel& k, Task& t, Proc& child)
        {
            FnScope fn(t, "handle_mm_fault");
            Sched::burn(t, k.cost.faultEntryNs);
            bool huge = m_p.thp && m_p.heapPages >= pageblock_nr_pages;
            if (huge) {
                Pfn p = co_await alloc_hugepage(k, t);
                if (p != kNoPage) {
                    ++m_thpAlloc;
                    FnScope z(t, "clear_huge_page");
                    for (Pfn q = p; q < p + pageblock_nr_pages; ++q)
                        child.heap.push_back(q);
                    Sched::burn(t, static_cast<double>(pageblock_nr_pages) * k.cost.zeroPageNs * k.memCostJitter);
                    for (std::uint32_t i = pageblock_nr_pages; i < m_p.heapPages; ++i) {
                        Pfn q = co_await alloc_page(k, t);
                        smallFault(k, t, child, q);
                    }
                    co_return;
                }
                ++m_thpFallback;
            }
            for (std::uint32_t i = 0; i < m_p.heapPages; ++i) {
                Pfn p = co_await alloc_page(k, t);
                smallFault(k, t, child, p);
            }
        }

        // do_anonymous_page(): one 4 KiB page `p`, zeroed. The caller allocates it (alloc_page(), a coroutine only on
        // its slow path), so that a 4 KiB fault costs no coroutine frame of its own: a fallback heap is 512 of them.
        void smallFault(Kernel& k, Task& t, Proc& child, Pfn p)
        {
            if (p == kNoPage)
                return; // VM_FAULT_OOM for an OOM victim: it dies at the return to user space
            Sched::burn(t, k.cost.faultEntryNs + k.cost.zeroPageNs * k.memCostJitter + k.cost.pteOpNs);
            child.heap.push_back(p);
        }

        // free() trims the heap (glibc's M_TRIM_THRESHOLD: sbrk back the top), and exit_mmap zaps the rest. The
        // partial unmap of a THP splits it (split_huge_page), so its pages go back one by one, through this CPU's
        // per-cpu list, where the next order-0 allocations (page cache) take them: the 2 MiB block does not form
        // again, and the next child's THP fault needs compaction again.
        Co<> heapFree(Kernel& k, Task& t, Proc& child)
        {
            FnScope fn(t, "zap_pte_range");
            bool split = child.heap.size() >= pageblock_nr_pages
                && child.heap[pageblock_nr_pages - 1] == child.heap[0] + pageblock_nr_pages - 1;
            if (split)
                Sched::burn(
                    t, static_cast<double>(pageblock_nr_pages) * (k.cost.pteOpNs + k.cost.rmapOpNs)); // split_huge_page
            for (Pfn p : child.heap) {
                Sched::burn(t, k.cost.pteOpNs + k.cost.rmapOpNs);
                co_await free_hot_cold_page(k, t, p);
            }
            child.heap.clear();
        }

        Co<> do_exit(Kernel& k, Task& t, Proc& child)
        {
            FnScope fn(t, "do_exit");
            co_await unmapAll(k, t, child); // exit_mmap -> free_pgtables -> unlink_file_vma
            for (Pfn p : child.pgtables)
                co_await free_pages(k, t, p, 0);
            child.pgtables.clear();
            // The Proc is reused by the user's next fork, which takes a new slab only now and then: forget the
            // blocks once they are freed, or the next exit would free them a second time.
            if (child.slab != kNoPage)
                co_await free_pages(k, t, std::exchange(child.slab, kNoPage), child.slabOrder);
            if (child.stack != kNoPage) // free_thread_info (after the last switch)
                co_await free_pages(k, t, std::exchange(child.stack, kNoPage), m_p.stackOrder);
            Sched::burn(t, k.cost.faultEntryNs + 20 * k.cost.lockedRmwNs);
        }

        // A disk test: write io_size to the user's file through the page cache, read it back.
        Co<> diskTest(Kernel& k, Task& t, AddressSpace& file, std::uint64_t& offset)
        {
            std::uint64_t start = offset;
            offset += m_p.ioPages; // the file grows: every write meets new pages, whatever the number of users
            {
                FnScope fn(t, "generic_perform_write");
                // New pages: allocated and added to the page cache (filled as holes, then written over).
                co_await do_page_cache_readahead(k, t, file, start, static_cast<int>(m_p.ioPages), ~0ull);
                Sched::burn(t, static_cast<double>(m_p.ioPages) * k.cost.copyPageNs); // copy_from_user
            }
            for (std::uint64_t i = start; i < start + m_p.ioPages; ++i)
                co_await generic_file_buffered_read(k, t, file, i);
            if (m_p.unlinkFiles)
                co_await truncate_inode_pages(k, t, file, start, start + m_p.ioPages);
        }

        // unlink() of the test's temp file: truncate_inode_pages_range(). Pages someone else holds (reclaim or
        // compaction isolated them, a pagevec or a reader has them, their lock is taken) stay cached; reclaim
        // takes them later.
        Co<> truncate_inode_pages(Kernel& k, Task& t, AddressSpace& m, std::uint64_t start, std::uint64_t end)
        {
            FnScope fn(t, "truncate_inode_pages_range");
            co_await lru_add_drain(k, t);
            std::vector<Pfn> pages;
            co_await spin_lock(k.s, t, k.lruvec.lru_lock);
            for (std::uint64_t i = start; i < end; ++i) {
                Pfn p = m.lookup(i);
                Sched::burn(t, k.cost.pteOpNs);
                if (p == kNoPage || !k.pages.test(p, PG_lru) || k.pages.test(p, PG_locked | PG_isolated)
                    || k.isPinned(p))
                    continue;
                k.del_page_from_lru_list(p); // via __page_cache_release when the last reference goes
                Sched::burn(t, k.cost.listOpNs);
                pages.push_back(p);
            }
            spin_unlock(k.s, t, k.lruvec.lru_lock);
            co_await spin_lock(k.s, t, m.i_pages);
            for (Pfn p : pages) { // __delete_from_page_cache
                std::uint64_t i = k.pages.index(p);
                m.pages[i] = kNoPage;
                if (i < m.readahead.size())
                    m.readahead[i] = 0;
                --m.nrpages;
                Sched::burn(t, k.cost.swapCacheOpNs * 0.5);
            }
            spin_unlock(k.s, t, m.i_pages);
            for (Pfn p : pages) {
                k.pages.setFlags(p, 0);
                k.pages.setOwner(p, 0);
                co_await free_hot_cold_page(k, t, p);
            }
        }

        // One test of the workfile, drawn by its weight.
        Co<> runTest(Kernel& k, Task& t, AddressSpace& file, std::uint64_t& offset)
        {
            const TestDef& d = kWorkfile[static_cast<std::size_t>(pickTest(t.rng))];
            double jitter = 0.5 + t.rng.uniform();
            switch (d.cls) {
            case TestClass::Disk:
                co_await diskTest(k, t, file, offset);
                Sched::burn(t, m_p.diskUs * 1000.0 * d.cpuWeight * jitter, Acct::User);
                break;
            case TestClass::Compute:
                Sched::burn(t, m_p.computeUs * 1000.0 * d.cpuWeight * jitter, Acct::User);
                break;
            case TestClass::Syscall:
                Sched::burn(t, m_p.syscallUs * 1000.0 * d.cpuWeight * jitter, Acct::Sys);
                break;
            }
            co_await k.s.cond_resched(t);
            if (k.fatal_signal_pending(t))
                co_return; // killed during the test: not completed
            ++m_testsAll;
            Time now = k.s.sim().now();
            if (now >= m_p.warmup && now < m_p.end)
                ++m_tests;
        }

        // A re-aim user: forks a child that runs tests_per_child tests (the scenario: the whole workfile, one job) and
        // exits, then forks the next. Every heap_every tests the child's work buffer goes through one malloc /
        // touch / free cycle: the THP fault (and its compaction) and the heap trim that splits it.
        Co<> user(Kernel& k, Task& t, Proc& child, AddressSpace& file)
        {
            std::uint64_t offset = 0;
            while (k.s.sim().now() + t.debt < m_p.end) {
                // A child the OOM killer picks (its allocation found nothing left to reclaim) gets SIGKILL: it
                // stops at its next step, runs no more tests (re-aim counts only the tests a child completes), and
                // exits, which frees its memory; the user forks the next child as usual.
                co_await do_fork(k, t, child);
                if (!k.fatal_signal_pending(t))
                    co_await do_execve(k, t, child);
                for (int i = 0; i < m_p.testsPerChild && !k.fatal_signal_pending(t)
                     && k.s.sim().now() + t.debt < m_p.end;
                     ++i) {
                    bool cycleStart = i % m_p.heapEvery == 0;
                    if (cycleStart)
                        co_await heapFault(k, t, child);
                    if (k.fatal_signal_pending(t))
                        break;
                    co_await runTest(k, t, file, offset);
                    bool cycleEnd = (i + 1) % m_p.heapEvery == 0 || i + 1 == m_p.testsPerChild;
                    if (cycleEnd && !k.fatal_signal_pending(t))
                        co_await heapFree(k, t, child);
                }
                if (!child.heap.empty())
                    co_await heapFree(k, t, child);
                co_await do_exit(k, t, child);
                k.exit_oom_victim(t);
                ++m_forks;
                co_await k.s.cond_resched(t);
            }
            co_await lru_add_drain(k, t);
            co_await drain_local_pages(k, t);
        }

        Params m_p;
        const Simulator* m_sim = nullptr;
        const Sched* m_sched = nullptr;
        std::array<Time, 2> m_idleAt {}; // Sched::idleTotal() at the window's start and end
        std::array<bool, 2> m_idleTaken {};
        std::vector<int> m_cum;
        std::vector<AddressSpace*> m_shared;
        std::vector<std::unique_ptr<Proc>> m_procs;
        std::vector<Task*> m_tasks;
        std::uint64_t m_tests = 0, m_testsAll = 0, m_forks = 0;
        std::uint64_t m_thpAlloc = 0, m_thpFallback = 0;
    };
} // namespace

WorkloadKind aim7FserverKind()
{
    return {
        "aim7-fserver",
        "re-aim-7 workfile.new_fserver: N users run the workfile's tests, each in a forked and exec'd child; disk "
        "tests "
        "fill the page cache; fork's high-order allocations compact (seed 004)",
        {
            { "users", ParamKind::Int, 61, false, "re-aim users (forked children running tests)", 1, 4096 },
            { "runtime_s", ParamKind::Double, 0.2, true, "simulated seconds per point", 0.001, 3600 },
            { "warmup_fraction", ParamKind::Double, 0.25, false, "the first part of the run, not measured", 0, 0.9 },
            { "shared_files", ParamKind::Int, 3, false, "files every process maps (the re-aim binary, ld.so, libc)", 1,
                64 },
            { "shared_file_size", ParamKind::Size, "64MiB", true, "page cache of each shared file", 4096, 1e12 },
            { "mapped_size", ParamKind::Size, "256KiB", false, "length of each VMA of a shared file", 4096, 1e12 },
            { "vmas_per_file", ParamKind::Int, 2, false, "VMAs per shared file per process (text, data)", 1, 8 },
            { "readaround_pages", ParamKind::Int, 16, false, "pages exec's faults read around in a shared file", 0,
                1024 },
            { "io_size", ParamKind::Size, "1MiB", false, "bytes a disk_* test writes and reads back", 4096, 1e9 },
            { "cache_file_size", ParamKind::Size, "1MiB", false,
                "size of the files of the older page cache that fills memory at the start", 4096, 1e12 },
            { "unlink", ParamKind::Bool, false, false, "disk tests unlink their temp file (its page cache is freed)", 0,
                1 },
            { "tests_per_child", ParamKind::Int, 4, false,
                "tests a forked child runs before it exits (the scenario: the workfile's 580)", 1, 100000 },
            { "heap_every", ParamKind::Int, 4, false,
                "tests per work-buffer cycle (malloc, THP fault, heap trim) of a child", 1, 100000 },
            { "contiguous_files", ParamKind::Bool, false, false,
                "the older page cache's files lie in consecutive frames (else in random frames)", 0, 1 },
            { "stack_order", ParamKind::Int, 1, false,
                "order of fork's kernel stack (THREAD_SIZE_ORDER: 1 before 3.15)", 0, 4 },
            { "slab_every", ParamKind::Int, 4, false, "one fork in this many needs a new order-3 slab (0: never)", 0,
                1000 },
            { "free_fraction", ParamKind::Double, 0.02, false,
                "free memory left scattered by reclaim when the run starts", 0, 0.9 },
            { "thp", ParamKind::Bool, true, false,
                "transparent_hugepage=always, defrag (SLE 3.0/3.12): the heap faults in 2 MiB pages", 0, 1 },
            { "heap_size", ParamKind::Size, "2MiB", true,
                "anonymous memory (malloc'ed work buffers) each child touches", 4096, 1e9 },
            { "compute_us", ParamKind::Double, 30.0, false,
                "user CPU time of a compute test (x its weight, x 0.5..1.5)", 0, 1e6 },
            { "syscall_us", ParamKind::Double, 10.0, false, "system CPU time of a syscall test", 0, 1e6 },
            { "disk_us", ParamKind::Double, 10.0, false, "user CPU time of a disk test beyond its page-cache work", 0,
                1e6 },
        },
        [] { return std::unique_ptr<Workload>(new Fserver); },
    };
}

} // namespace mms
