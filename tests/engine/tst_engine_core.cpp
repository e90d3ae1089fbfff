// The engine's core data structures against simple references: the event queue's order and its inline fast path,
// FlatMap against std::map, and the packed struct page (links, mapcount, page_private). Plus the determinism the
// optimisations must keep: the same run at any runner thread count gives the same results.
#include "mm/immaplist.h"
#include "mm/page.h"
#include "mm/pinset.h"
#include "run/runner.h"
#include "sim/co.h"
#include "sim/flatmap.h"
#include "sim/reuse.h"
#include "sim/rng.h"
#include "sim/simulator.h"

#include <QtTest>

#include <map>
#include <tuple>
#include <vector>

using namespace mms;

namespace {
struct Log {
    std::vector<std::tuple<Time, std::uint32_t, int>> order;
};

// A coroutine that waits `steps` times for random delays with ResumeAt (which takes the inline path whenever its
// resumption is the next event) and logs every wake-up.
Co<> walker(Simulator& sim, Log& log, int id, std::uint32_t key, Rng rng, int steps)
{
    for (int i = 0; i < steps; ++i) {
        Time at = sim.now() + static_cast<Time>(1 + rng.next() % 4) * 1000; // 1..4 ns: ties on purpose
        co_await ResumeAt { sim, at, key };
        log.order.emplace_back(sim.now(), key, id);
    }
}
} // namespace

class TestEngineCore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void queueOrderIsTimeKeySeq()
    {
        Simulator sim;
        std::vector<std::tuple<Time, std::uint32_t, int>> got;
        struct Ctx {
            std::vector<std::tuple<Time, std::uint32_t, int>>* got;
            Simulator* sim;
        } ctx { &got, &sim };
        Rng rng(7);
        std::vector<std::tuple<Time, std::uint32_t, int>> want;
        for (int i = 0; i < 2000; ++i) {
            Time t = static_cast<Time>(rng.next() % 50);
            auto key = static_cast<std::uint32_t>(rng.next() % 4);
            want.emplace_back(t, key, i);
            sim.callAt(
                t, key,
                [](void* c, std::uint64_t arg) {
                    auto* x = static_cast<Ctx*>(c);
                    x->got->emplace_back(x->sim->now(), 0, static_cast<int>(arg));
                },
                &ctx, static_cast<std::uint64_t>(i));
        }
        QVERIFY(sim.run());
        std::stable_sort(want.begin(), want.end(), [](auto& a, auto& b) {
            return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
        });
        QCOMPARE(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(std::get<0>(got[i]), std::get<0>(want[i]));
            QCOMPARE(std::get<2>(got[i]), std::get<2>(want[i]));
        }
        QCOMPARE(sim.eventsProcessed(), std::uint64_t { 2000 });
    }

    // An observer's events (a recorder's sampling ticks) run in order, after the other events of their instant, but
    // do not keep the simulation going: it ends at its last other event, whose time the clock keeps, and they are
    // not counted as events.
    void observerEventsDoNotExtendTheRun()
    {
        Simulator sim;
        struct Ctx {
            Simulator* sim;
            std::vector<std::pair<Time, int>> seen;
        } ctx { &sim, {} };
        auto note = [](void* c, std::uint64_t arg) {
            auto* x = static_cast<Ctx*>(c);
            x->seen.emplace_back(x->sim->now(), static_cast<int>(arg));
        };
        // A tick every 10 ns, each scheduling the next, as the recorder does.
        auto tick = [](void* c, std::uint64_t arg) {
            auto* x = static_cast<Ctx*>(c);
            x->seen.emplace_back(x->sim->now(), -static_cast<int>(arg));
            x->sim->observeAt(
                x->sim->now() + 10'000,
                +[](void* c2, std::uint64_t a2) {
                    auto* y = static_cast<Ctx*>(c2);
                    y->seen.emplace_back(y->sim->now(), -static_cast<int>(a2));
                },
                c, arg + 1);
        };
        sim.observeAt(0, tick, &ctx, 1);
        sim.observeAt(20'000, tick, &ctx, 10);
        sim.callAt(20'000, 5, note, &ctx, 1);
        sim.callAt(25'000, 0, note, &ctx, 2);
        QVERIFY(sim.run());
        // The tick at 0 and the one it scheduled at 10 ns; the event at 20 ns before the tick at 20 ns; the event
        // at 25 ns. The tick scheduled for 30 ns never runs: nothing but observers was left.
        const std::vector<std::pair<Time, int>> want { { 0, -1 }, { 10'000, -2 }, { 20'000, 1 }, { 20'000, -10 },
            { 25'000, 2 } };
        QCOMPARE(ctx.seen, want);
        QCOMPARE(sim.now(), Time(25'000));
        QCOMPARE(sim.eventsProcessed(), std::uint64_t { 2 });
        QVERIFY(sim.empty());
        // Only observers from the start: nothing runs, the clock stays at 0.
        Simulator idle;
        idle.observeAt(5'000, note, &ctx, 3);
        QVERIFY(idle.run());
        QCOMPARE(idle.now(), Time(0));
        QVERIFY(idle.empty());
    }

    // Handlers push further events while the queue grows past 32 pending entries (sorted array -> heap) and
    // drains below 16 (heap -> sorted array), again and again: every event still leaves in (time, key, push order)
    // and none is lost. Pushes are strictly in the future, so that order must be non-decreasing.
    void queueOrderHoldsAcrossSortedAndHeapForms()
    {
        struct Ctx {
            Simulator sim;
            Rng rng { 11 };
            int pushed = 0;
            int budget = 20000;
            bool grow = true;
            std::vector<std::tuple<Time, std::uint32_t, int>> got;
            void add(Time t, std::uint32_t key)
            {
                int id = pushed++;
                sim.callAt(
                    t, key, &Ctx::fire, this, (static_cast<std::uint64_t>(key) << 32) | static_cast<std::uint32_t>(id));
            }
            static void fire(void* c, std::uint64_t arg)
            {
                auto* x = static_cast<Ctx*>(c);
                x->got.emplace_back(
                    x->sim.now(), static_cast<std::uint32_t>(arg >> 32), static_cast<int>(arg & 0xffffffffu));
                // Grow to over 100 pending events (the sorted array turns into the heap past 32), then drain to
                // under 8 (the heap turns back below 16), and again, until the budget is spent.
                if (x->grow && x->sim.pending() > 100)
                    x->grow = false;
                else if (!x->grow && x->sim.pending() < 8)
                    x->grow = true;
                int children = x->grow ? 1 + static_cast<int>(x->rng.next() % 3) : (x->rng.next() % 4 == 0 ? 1 : 0);
                for (int i = 0; i < children && x->budget > 0; ++i, --x->budget)
                    x->add(x->sim.now() + 1 + static_cast<Time>(x->rng.next() % 40),
                        static_cast<std::uint32_t>(x->rng.next() % 48));
            }
        } ctx;
        for (std::uint32_t k = 0; k < 8; ++k)
            ctx.add(static_cast<Time>(k % 3), k);
        QVERIFY(ctx.sim.run());
        QCOMPARE(static_cast<int>(ctx.got.size()), ctx.pushed);
        QVERIFY(ctx.pushed > 10000);
        for (std::size_t i = 1; i < ctx.got.size(); ++i)
            QVERIFY2(ctx.got[i - 1] < ctx.got[i], "events left out of (time, key, push order)");
    }

    // The sequence numbers that order simultaneous events of one key are renumbered when their bits run out
    // (2^40 pushes in a run; here every 300 pushes): the pop order is the same as without renumbering, in the sorted
    // array and in the heap. The trace records every push with the number of events pending before it.
    void queueOrderSurvivesRenumbering()
    {
        auto run = [](std::uint64_t limit, std::vector<Simulator::TracedPush>* trace) {
            struct Ctx {
                Simulator sim;
                Rng rng { 5 };
                int pushed = 0;
                int budget = 20000;
                std::vector<std::pair<Time, int>> got;
                void add(Time t, std::uint32_t key) { sim.callAt(t, key, &Ctx::fire, this, static_cast<std::uint64_t>(pushed++)); }
                static void fire(void* c, std::uint64_t arg)
                {
                    auto* x = static_cast<Ctx*>(c);
                    x->got.emplace_back(x->sim.now(), static_cast<int>(arg));
                    // Few distinct times and keys: many ties that only the push order breaks. 0..120 pending.
                    int children = x->sim.pending() > 120 ? 0 : 1 + static_cast<int>(x->rng.next() % 2);
                    for (int i = 0; i < children && x->budget > 0; ++i, --x->budget)
                        x->add(x->sim.now() + static_cast<Time>(x->rng.next() % 3), static_cast<std::uint32_t>(x->rng.next() % 2));
                }
            } ctx;
            ctx.sim.setSequenceLimit(limit);
            ctx.sim.setTrace(trace);
            for (std::uint32_t k = 0; k < 4; ++k)
                ctx.add(0, k % 2);
            ctx.sim.run();
            return std::make_pair(ctx.got, ctx.pushed);
        };
        std::vector<Simulator::TracedPush> trace;
        auto [plain, pushed] = run(~std::uint64_t { 0 }, nullptr);
        auto [renumbered, pushed2] = run(300, &trace);
        QVERIFY(pushed > 10000);
        QCOMPARE(pushed2, pushed);
        QCOMPARE(static_cast<int>(plain.size()), pushed);
        QVERIFY(plain == renumbered);
        QCOMPARE(trace.size(), static_cast<std::size_t>(pushed));
        QCOMPARE(trace.front().pending, 0u);
        QCOMPARE(trace[1].pending, 1u);
        // A key past the queue's bits is refused, not truncated into another key's place.
        Simulator sim;
        QVERIFY_THROWS_EXCEPTION(std::length_error, sim.callAt(0, Simulator::kKeyLimit, [](void*, std::uint64_t) { }, nullptr, 0));
    }

    void inlinePathKeepsOrderAndCount()
    {
        // Several coroutines on different keys, with ties in time: every wake-up, its time and order, and the
        // event count must be those of the plain push/pop round trip (the inline path switched off).
        auto walk = [](bool inlineOn, std::uint64_t& events) {
            Simulator sim;
            sim.setInline(inlineOn);
            Log log;
            std::vector<Co<>> bodies;
            for (int i = 0; i < 5; ++i)
                bodies.push_back(walker(sim, log, i, static_cast<std::uint32_t>(i), Rng(100 + static_cast<std::uint64_t>(i)), 300));
            std::vector<std::coroutine_handle<>> handles;
            for (std::size_t i = 0; i < bodies.size(); ++i) {
                handles.push_back(bodies[i].release());
                sim.resumeAt(0, static_cast<std::uint32_t>(i), handles.back());
            }
            sim.run();
            for (auto h : handles)
                h.destroy();
            events = sim.eventsProcessed();
            return log.order;
        };
        std::uint64_t evOn = 0, evOff = 0;
        auto on = walk(true, evOn);
        auto off = walk(false, evOff);
        QCOMPARE(on.size(), std::size_t { 5 * 300 });
        QVERIFY(on == off);
        QCOMPARE(evOn, evOff);
        QCOMPARE(evOn, std::uint64_t { 5 + 5 * 300 });
    }

    // The i_mmap list against a vector with erase_if: the same VMAs in the same order after any mix of links and
    // unlinks (its holes and compactions never show), and the same count.
    void immapListMatchesAVector()
    {
        struct V {
            const int* mm = nullptr;
            std::uint32_t start = 0;
            std::uint32_t pages = 0;
        };
        static const int mms[8] = {};
        IMmapList<V> list;
        std::vector<V> ref;
        Rng rng(9);
        for (int i = 0; i < 20000; ++i) {
            const int* mm = &mms[rng.next() % 8];
            auto start = static_cast<std::uint32_t>(rng.next() % 64);
            if (rng.next() % 5 < 3) {
                V v { mm, start, static_cast<std::uint32_t>(i) };
                list.push_back(v);
                ref.push_back(v);
            } else {
                list.erase(mm, start);
                std::erase_if(ref, [&](const V& v) { return v.mm == mm && v.start == start; });
            }
            if (i % 97 == 0 || i == 19999) {
                QCOMPARE(list.size(), ref.size());
                std::size_t n = 0;
                for (const V& v : list) {
                    QVERIFY(n < ref.size() && v.mm == ref[n].mm && v.start == ref[n].start && v.pages == ref[n].pages);
                    ++n;
                }
                QCOMPARE(n, ref.size());
            }
        }
    }

    // A large array freed by one run is what the next run of the same shape gets back (same thread); a request of
    // another size frees what was cached.
    void reusedBlocksComeBackForTheSameShape()
    {
        ReusedBlocks::release();
        const void* first = nullptr;
        {
            ReusedVector<std::uint64_t> a(1u << 18, 7); // 2 MiB
            first = a.data();
        }
        {
            ReusedVector<std::uint64_t> b(1u << 18, 9);
            QCOMPARE(static_cast<const void*>(b.data()), first);
            QCOMPARE(b[12345], std::uint64_t { 9 });
        }
        {
            ReusedVector<std::uint64_t> c((1u << 18) + 1, 3); // another shape: the cached block is freed
            QCOMPARE(c.back(), std::uint64_t { 3 });
        }
        {
            ReusedVector<std::uint8_t> small(100, 1); // below the threshold: plain allocation
            QCOMPARE(small[99], std::uint8_t { 1 });
        }
        ReusedBlocks::release();
    }

    void flatMapMatchesStdMap()
    {
        FlatMap<int> m;
        std::map<std::uint32_t, int> ref;
        Rng rng(3);
        for (int i = 0; i < 200000; ++i) {
            auto key = static_cast<std::uint32_t>(rng.next() % 5000);
            switch (rng.next() % 3) {
            case 0:
                ++m[key];
                ++ref[key];
                break;
            case 1:
                QCOMPARE(m.erase(key), ref.erase(key) == 1);
                break;
            default: {
                const int* v = m.find(key);
                auto it = ref.find(key);
                QCOMPARE(v != nullptr, it != ref.end());
                if (v)
                    QCOMPARE(*v, it->second);
            }
            }
            QCOMPARE(m.size(), ref.size());
        }
    }

    void pinSetCountsLikeAMap()
    {
        // Mm::pinned: a count per frame (get_page), kept as bits in 64-frame blocks plus a map of second and
        // later pins. Runs of consecutive frames (a gather) and repeated pins of one frame, against a map of counts.
        PinSet pins;
        std::map<std::uint32_t, int> ref;
        Rng rng(7);
        for (int i = 0; i < 200000; ++i) {
            auto p = static_cast<std::uint32_t>(rng.next() % 3000);
            switch (rng.next() % 4) {
            case 0:
                for (std::uint32_t q = p; q < p + 40; ++q) { // a gather's run
                    pins.pin(q);
                    ++ref[q];
                }
                break;
            case 1:
                pins.pin(p);
                ++ref[p];
                break;
            default: // an unpin, also of a frame with no pin (left alone)
                pins.unpin(p);
                if (auto it = ref.find(p); it != ref.end() && --it->second == 0)
                    ref.erase(it);
            }
            QCOMPARE(pins.contains(p), ref.count(p) == 1);
        }
        for (std::uint32_t p = 0; p < 3100; ++p) {
            QCOMPARE(pins.contains(p), ref.count(p) == 1);
            for (int n = ref.count(p) ? ref[p] : 0; n > 0; --n) {
                QVERIFY(pins.contains(p));
                pins.unpin(p);
            }
            QVERIFY(!pins.contains(p));
        }
    }

    void packedPageFields()
    {
        PageArray pages(1u << 16);
        // 16 bytes per frame and two bits of content, plus the list heads' links spread over the frames
        QVERIFY(static_cast<double>(pages.memoryBytes()) / pages.size() <= 16.25 + 8.0 * PageArray::kListHeads / pages.size());
        Pfn head = pages.listHead(2);
        for (Pfn p = 0; p < 10; ++p) {
            pages.setMapcount(p, static_cast<std::uint8_t>(200 + p));
            pages.listAddTail(head, p);
            pages.setPriv(p, p * 7);
        }
        pages.listDel(4);
        std::vector<Pfn> seen;
        for (Pfn p = pages.first(head); p != kNoPage && p != head; p = pages.next(p))
            seen.push_back(p);
        QCOMPARE(seen, (std::vector<Pfn> { 0, 1, 2, 3, 5, 6, 7, 8, 9 }));
        QCOMPARE(pages.last(head), Pfn { 9 });
        QCOMPARE(pages.next(4), kNoPage);
        for (Pfn p = 0; p < 10; ++p) {
            QCOMPARE(pages.mapcount(p), static_cast<std::uint8_t>(200 + p)); // untouched by the list operations
            QCOMPARE(pages.priv(p), p * 7);
        }
        pages.setPriv(3, 0);
        QCOMPARE(pages.priv(3), 0u);
        QVERIFY(pages.listEmpty(pages.listHead(5)));
    }

    void sameResultsAtAnyThreadCount()
    {
        Scenario sc = loadScenario("madv-free-swapin");
        RunnerOptions o;
        o.scale = 0.01;
        o.threads = 1;
        ResultSet one = runScenario(sc, o);
        o.threads = 2;
        ResultSet two = runScenario(sc, o);
        QCOMPARE(one.results.size(), two.results.size());
        for (std::size_t i = 0; i < one.results.size(); ++i) {
            QCOMPARE(one.results[i].events, two.results[i].events);
            QVERIFY(one.results[i].metrics == two.results[i].metrics);
        }
    }
};

QTEST_GUILESS_MAIN(TestEngineCore)
#include "tst_engine_core.moc"
