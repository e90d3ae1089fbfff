// Seed 003's test: vm-scalability case-swap-w-rand, i.e. `usemem -n N --random (MemAvailable + SwapTotal) * 3/4 / N`:
// N processes each write their share of memory in random order, pushing most of it out to swap, then exit. The
// figure of interest is usemem's timing_free, "usecs to free memory": here the duration of each process's
// exit_mmap(), averaged over the processes, and the average duration of one swapcache_free_entries() call.
//
// The fill is prefaulted: setup() builds the state the fill leaves behind without simulating its hours of swap-out
// (at full size, 16 x 6 GiB through reclaim would cost far more host time than the free phase being measured).
// Pages are touched in each process's random order, the processes interleaved; once RAM is full, the page touched
// longest ago is swapped out by the CPU of its process, taking a slot from that CPU's swap slots cache (refilled
// 64 at a time from the devices in turn), exactly as get_swap_page() would hand them out. What exit then frees -
// the order of swap entries along each address space and so how often consecutive entries change device - comes
// from that mechanism, not from a constant.
#include "mm/kernel.h"
#include "workload/usemem.h"

#include <algorithm>
#include <numeric>

namespace mms {

namespace {
    class Usemem final : public Workload {
    public:
        void setup(WorkloadContext& ctx) override
        {
            Kernel& k = ctx.k;
            int n = ctx.params.at("processes").get<int>();
            double ratio = ctx.params.at("ratio").get<double>();
            std::uint64_t swapTotal = 0;
            for (auto& si : k.swap)
                swapTotal += si->nrSlots() - 1;
            std::uint64_t memAvailable = k.zone.nrFree();
            auto perProcess = static_cast<std::uint32_t>(static_cast<double>(memAvailable + swapTotal) * ratio / n);
            // Resident limit: reclaim keeps the free pages above the high watermark (plus the per-cpu lists' slack).
            std::uint64_t budget = std::max<std::uint64_t>(1, memAvailable - std::min(memAvailable, k.zone.watermarkHigh + static_cast<std::uint64_t>(PCP_HIGH)));

            std::vector<MmStruct*> mms;
            std::vector<int> cpus;
            std::vector<std::vector<std::uint32_t>> order(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i) {
                MmStruct& mm = k.mm_alloc();
                std::uint32_t start = k.do_mmap(mm, perProcess);
                int cpu = i * ctx.k.s.cpuCount() / n; // the scheduler spreads the processes over the sockets
                Task& t = ctx.k.s.spawn("usemem-" + std::to_string(i), cpu, false, &mm, Rng::mix(ctx.seed, static_cast<std::uint64_t>(i)));
                auto& o = order[static_cast<std::size_t>(i)];
                o.resize(perProcess);
                std::iota(o.begin(), o.end(), start);
                shuffle(o, t.rng);
                mms.push_back(&mm);
                cpus.push_back(t.cpu);
                m_tasks.push_back(&t);
            }
            prefault(k, mms, cpus, order, budget, Rng(Rng::mix(ctx.seed, 0x05e3e3)));
            for (const MmStruct* mm : mms)
                m_mappedAtExit += mm->rss + mm->swapents;
            m_freeTime.assign(static_cast<std::size_t>(n), 0);
            for (int i = 0; i < n; ++i)
                ctx.k.s.start(*m_tasks[static_cast<std::size_t>(i)], exitProcess(k, *m_tasks[static_cast<std::size_t>(i)], m_freeTime[static_cast<std::size_t>(i)]));
        }

        void finish(WorkloadContext& ctx, Metrics& out) override
        {
            Time sum = 0, worst = 0;
            for (Time f : m_freeTime) {
                sum += f;
                worst = std::max(worst, f);
            }
            Time end = 0;
            for (Task* t : m_tasks)
                end = std::max(end, t->finished);
            out["free_time_s"] = toSec(sum) / static_cast<double>(std::max<std::size_t>(1, m_freeTime.size()));
            out["free_time_max_s"] = toSec(worst);
            out["elapsed_s"] = toSec(end);
            auto calls = ctx.k.vm.get(Vm::SwapFreeEntriesCalls);
            out["free_entries_calls"] = static_cast<double>(calls);
            out["free_entries_call_us"] = calls ? toUs(ctx.k.swapFreeEntriesTime) / static_cast<double>(calls) : 0.0;
            auto slots = ctx.k.vm.get(Vm::SwapFreeEntriesSlots);
            out["free_entry_us"] = slots ? toUs(ctx.k.swapFreeEntriesTime) / static_cast<double>(slots) : 0.0;
            out["swapouts"] = static_cast<double>(ctx.k.vm.get(Vm::PswpOut));
            Time sys = 0;
            for (Task* t : m_tasks)
                sys += t->sysTime;
            out["sys_s"] = toSec(sys);
        }

    private:
        static Co<> exitProcess(Kernel& k, Task& t, Time& freeTime)
        {
            co_await k.s.flush(t);
            Time start = k.s.sim().now();
            co_await exit_mmap(k, t, *t.mm); // do_exit() -> mmput() -> exit_mmap()
            co_await k.s.flush(t);
            freeTime = k.s.sim().now() - start;
        }

        // Fisher-Yates with the task's own stream. The draws do not depend on the array, so they are made a
        // batch ahead and the random elements prefetched (host-side only: the same draws, swaps and order; at
        // full size each process's order is 6 MiB and every swap a cache miss).
        static void shuffle(std::vector<std::uint32_t>& o, Rng& rng)
        {
            constexpr std::size_t kAhead = 16;
            std::size_t r[kAhead];
            for (auto j = static_cast<std::uint32_t>(o.size()); j > 1;) {
                std::size_t n = std::min<std::size_t>(kAhead, j - 1);
                for (std::size_t m = 0; m < n; ++m) {
                    r[m] = static_cast<std::size_t>(rng.below(j - m));
                    __builtin_prefetch(o.data() + r[m], 1);
                }
                for (std::size_t m = 0; m < n; ++m, --j)
                    std::swap(o[j - 1], o[r[m]]);
            }
        }

        // The state after the fill: see the file comment.
        //
        // Host-side shortcuts (the state built is the same): a touch does not write its PTE, since every touched
        // page's PTE is rewritten later anyway, by its eviction (the swap entry) or by the pass that gives the
        // resident pages their frames. When the fill completes every page has been touched, so a PTE still none
        // after it is a resident page.
        static void prefault(Kernel& k, const std::vector<MmStruct*>& mms, const std::vector<int>& cpus,
            const std::vector<std::vector<std::uint32_t>>& order, std::uint64_t budget, Rng rng)
        {
            std::vector<std::uint64_t> ring(static_cast<std::size_t>(budget) + 1); // resident pages, oldest first
            std::size_t head = 0, tail = 0, resident = 0;
            auto next = [n = ring.size()](std::size_t r) { return r + 1 < n ? r + 1 : 0; }; // no division per step
            // Host-side only: the PTEs are evicted in random order, each a host cache miss; start loading the ones
            // a few steps ahead (a ring slot not filled yet holds 0, a valid process and page). The prefetch is
            // written out where it is used: GCC 12 at -O2 deleted the call of a lambda holding only the prefetch
            // (its mod-ref analysis finds no side effect), so the prefetch never ran.
            constexpr std::size_t kPrefetchAhead = 32;
            // Direct reclaim: the CPU that needs a page swaps out the oldest one, whoever owns it, taking the slot
            // from its own slots cache.
            auto evictOldest = [&](int reclaimCpu) {
                std::uint32_t entry = swap_slots_alloc_prefault(k, reclaimCpu);
                if (entry == kNoSwapEntry)
                    return false;
                std::uint64_t v = ring[head];
                head = next(head);
                std::size_t ahead = head + kPrefetchAhead;
                std::uint64_t w = ring[ahead < ring.size() ? ahead : ahead % ring.size()];
                __builtin_prefetch(mms[w >> 32]->pte.data() + static_cast<std::uint32_t>(w), 1);
                --resident;
                std::size_t i = v >> 32;
                auto vpn = static_cast<std::uint32_t>(v);
                MmStruct& mm = *mms[i];
                ++k.swap[pte::swpType(entry)]->slot[pte::swpOffset(entry)].swapMap;
                mm.pte[vpn] = pte::mkSwap(entry);
                --mm.rss;
                ++mm.swapents;
                k.vm.inc(Vm::PswpOut);
                return true;
            };
            // The processes run side by side at slightly different speeds: each next touch is by a random one of
            // those still filling (a strict round-robin would lock the slot-cache refills into a fixed device
            // pattern per CPU that no real run has).
            std::vector<std::size_t> active(order.size()), done(order.size(), 0);
            std::iota(active.begin(), active.end(), std::size_t { 0 });
            while (!active.empty()) {
                std::size_t a = static_cast<std::size_t>(rng.below(active.size()));
                std::size_t i = active[a];
                if (resident >= budget && !evictOldest(cpus[i])) {
                    // Swap is full: the rest stays untouched, and the pages still resident keep the PTE their
                    // touch made, with no frame behind it.
                    for (std::size_t r = head; r != tail; r = next(r))
                        mms[ring[r] >> 32]->pte[static_cast<std::uint32_t>(ring[r])] = pte::mkPresent(0, true, true);
                    return;
                }
                std::uint32_t vpn = order[i][done[i]];
                if (++done[i] == order[i].size()) {
                    active[a] = active.back();
                    active.pop_back();
                }
                ++mms[i]->rss; // the PTE is written later (see above)
                k.vm.inc(Vm::PgFault);
                k.vm.inc(Vm::PgAlloc);
                ring[tail] = (static_cast<std::uint64_t>(i) << 32) | vpn;
                tail = next(tail);
                ++resident;
            }
            // The pages still resident get their frames now, in address order: which frame holds which page
            // changes no simulated cost, and the host walks memory in order at exit. They sit on the LRU (written
            // once: inactive anon after aging).
            for (MmStruct* mm : mms)
                for (std::uint32_t vpn = mm->vmas[0].start; vpn < mm->vmas[0].start + mm->vmas[0].pages; ++vpn) {
                    if (!pte::none(mm->pte[vpn]))
                        continue; // swapped out
                    Pfn p = alloc_page_setup(k);
                    k.pages.setFlags(p, PG_anon | PG_swapbacked);
                    k.pages.setOwner(p, static_cast<std::uint16_t>(mm->id + 1));
                    k.pages.setIndex(p, vpn);
                    k.pages.setMapcount(p, 1);
                    mm->pte[vpn] = pte::mkPresent(p, true, true);
                    k.add_page_to_lru_list(p, LRU_INACTIVE_ANON);
                }
        }

    public:
        // exit_mmap() zaps every present PTE (rss) and swap entry (swapents): the share zapped so far.
        double progress() const override
        {
            if (m_mappedAtExit == 0)
                return -1.0;
            std::uint64_t left = 0;
            for (const Task* t : m_tasks)
                left += t->mm->rss + t->mm->swapents;
            return 1.0 - static_cast<double>(left) / static_cast<double>(m_mappedAtExit);
        }

    private:
        std::vector<Task*> m_tasks;
        std::vector<Time> m_freeTime;
        std::uint64_t m_mappedAtExit = 0;
    };
} // namespace

WorkloadKind usememKind()
{
    return WorkloadKind {
        "usemem",
        "vm-scalability case-swap-w-rand: N processes fill (MemAvailable + SwapTotal) x ratio at random, then exit (seed 003)",
        {
            { "processes", ParamKind::Int, 16, false, "number of usemem processes (-n)", 1, 4096 },
            { "ratio", ParamKind::Double, 0.75, false, "fraction of MemAvailable + SwapTotal filled", 0.01, 0.95 },
        },
        [] { return std::unique_ptr<Workload>(new Usemem); },
    };
}

} // namespace mms
