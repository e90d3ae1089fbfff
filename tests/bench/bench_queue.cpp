// bench_queue [--scale F] [--reps N] [--scenario ID]... [--point K] [--max-pushes N]: the event queue's structures
// replayed on the event streams of real runs, as a markdown table.
//
// One run per scenario (its first variant, sweep point K, default the middle one) is recorded with
// Simulator::setTrace: every push's (time, key) and the number of events pending before it, so the pops between two
// pushes are known. Each queue below then replays the same stream of pushes and pops, N times (min / median / max of
// the thread's CPU time), and every queue must pop the events in the same order as the first (the order is the
// simulator's contract: time, then key, then push order). The figure is nanoseconds per event (one push and one
// pop).
//
//  - heap-indirect: the queue before the packed order: a sorted array up to 32 events, past it a 4-ary heap of
//    16-byte (time, key, slot) entries whose sequence numbers are read from the slots on a tie, a one-entry front,
//    a sift-down that compares with branches;
//  - heap-packed: the same shape with (time, key, sequence) as one 128-bit number in a 24-byte entry, the earliest
//    of four children picked with conditional moves, and a pop that moves the hole to a leaf before sifting the last
//    entry up (Floyd's);
//  - radix: the queue the simulator uses (sim/simulator.cpp): the sorted array up to 32 events, past it the radix
//    heap of sim/radixqueue.h;
//  - binary-heap: std::priority_queue over the packed order, for reference.
#include "benchstats.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "sim/radixqueue.h"
#include "sim/simulator.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

using namespace mms;
using Push = Simulator::TracedPush;

namespace {
using bench::Stats;
using bench::stats;
// This thread's CPU time: a replay on a host shared with other work is not charged for the time it waits.
double now()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

constexpr std::size_t kSortedMax = 32;
constexpr std::size_t kSortedMin = 16;
constexpr std::size_t kArity = 4;
constexpr Time kNever = INT64_MAX;

// The sorted array, the front and the heap: what both 4-ary queues share. `Entry` and `before` are the difference.
// pop() returns the popped event's push number (its index in the trace).
class IndirectQueue {
public:
    void push(Time t, std::uint32_t key, std::uint32_t id)
    {
        std::uint32_t slot;
        if (m_free.empty()) {
            slot = static_cast<std::uint32_t>(m_seqOf.size());
            m_seqOf.push_back(0);
            m_idOf.push_back(0);
        } else {
            slot = m_free.back();
            m_free.pop_back();
        }
        m_seqOf[slot] = m_seq++;
        m_idOf[slot] = id;
        Entry e { t, key, slot };
        if (!m_sorted)
            return heapPush(e);
        Entry* q = m_s + m_n + 1;
        while (q[-1].t < t) {
            q[0] = q[-1];
            --q;
        }
        while (q[-1].t == t && q[-1].key <= key) {
            q[0] = q[-1];
            --q;
        }
        *q = e;
        if (++m_n > kSortedMax) {
            m_heap.assign(std::make_reverse_iterator(m_s + m_n + 1), std::make_reverse_iterator(m_s + 1));
            m_n = 0;
            m_sorted = false;
        }
    }
    std::uint32_t pop()
    {
        Entry e = m_sorted ? m_s[m_n--] : heapPop();
        m_free.push_back(e.slot);
        return m_idOf[e.slot];
    }

private:
    struct Entry {
        Time t;
        std::uint32_t key;
        std::uint32_t slot;
    };
    bool before(const Entry& a, const Entry& b) const
    {
        if (a.t != b.t)
            return a.t < b.t;
        if (a.key != b.key)
            return a.key < b.key;
        return m_seqOf[a.slot] < m_seqOf[b.slot];
    }
    void heapPush(Entry e)
    {
        if (m_hasFront) {
            if (before(e, m_front))
                std::swap(e, m_front);
        } else if (before(e, m_heap.front())) {
            m_front = e;
            m_hasFront = true;
            return;
        }
        std::size_t i = m_heap.size();
        m_heap.push_back(e);
        while (i > 0) {
            std::size_t parent = (i - 1) / kArity;
            if (!before(e, m_heap[parent]))
                break;
            m_heap[i] = m_heap[parent];
            i = parent;
        }
        m_heap[i] = e;
    }
    Entry heapPop()
    {
        if (m_hasFront) {
            m_hasFront = false;
            return m_front;
        }
        Entry top = m_heap.front();
        Entry last = m_heap.back();
        m_heap.pop_back();
        std::size_t n = m_heap.size();
        if (n > 0) {
            std::size_t i = 0;
            for (;;) {
                std::size_t first = i * kArity + 1;
                if (first >= n)
                    break;
                std::size_t best = first;
                std::size_t end = first + kArity < n ? first + kArity : n;
                for (std::size_t c = first + 1; c < end; ++c)
                    if (before(m_heap[c], m_heap[best]))
                        best = c;
                if (!before(m_heap[best], last))
                    break;
                m_heap[i] = m_heap[best];
                i = best;
            }
            m_heap[i] = last;
        }
        if (n <= kSortedMin) {
            std::sort(m_heap.begin(), m_heap.end(), [this](const Entry& a, const Entry& b) { return before(b, a); });
            std::copy(m_heap.begin(), m_heap.end(), m_s + 1);
            m_n = m_heap.size();
            m_heap.clear();
            m_sorted = true;
        }
        return top;
    }

    bool m_sorted = true;
    bool m_hasFront = false;
    std::size_t m_n = 0;
    Entry m_s[kSortedMax + 2] = { { kNever, ~0u, 0 } };
    Entry m_front {};
    std::vector<Entry> m_heap;
    std::vector<std::uint64_t> m_seqOf;
    std::vector<std::uint32_t> m_idOf;
    std::vector<std::uint32_t> m_free;
    std::uint64_t m_seq = 0;
};

class PackedQueue {
public:
    void push(Time t, std::uint32_t key, std::uint32_t id)
    {
        std::uint32_t slot;
        if (m_free.empty()) {
            slot = static_cast<std::uint32_t>(m_idOf.size());
            m_idOf.push_back(0);
        } else {
            slot = m_free.back();
            m_free.pop_back();
        }
        m_idOf[slot] = id;
        const std::uint64_t ks = std::uint64_t { key } << 40 | m_seq++;
        Entry e { t, ks, slot };
        if (!m_sorted)
            return heapPush(e);
        Entry* q = m_s + m_n + 1;
        while (q[-1].t < t) {
            q[0] = q[-1];
            --q;
        }
        while (q[-1].t == t && q[-1].ks < ks) {
            q[0] = q[-1];
            --q;
        }
        *q = e;
        if (++m_n > kSortedMax) {
            m_heap.assign(std::make_reverse_iterator(m_s + m_n + 1), std::make_reverse_iterator(m_s + 1));
            m_n = 0;
            m_sorted = false;
        }
    }
    std::uint32_t pop()
    {
        Entry e = m_sorted ? m_s[m_n--] : heapPop();
        m_free.push_back(e.slot);
        return m_idOf[e.slot];
    }

private:
    struct Entry {
        Time t;
        std::uint64_t ks;
        std::uint32_t slot;
        EventOrder order() const { return static_cast<EventOrder>(static_cast<std::uint64_t>(t)) << 64 | ks; }
    };
    static bool before(const Entry& a, const Entry& b) { return a.order() < b.order(); }
    void heapPush(Entry e)
    {
        if (m_hasFront) {
            if (before(e, m_front))
                std::swap(e, m_front);
        } else if (before(e, m_heap.front())) {
            m_front = e;
            m_hasFront = true;
            return;
        }
        std::size_t i = m_heap.size();
        m_heap.push_back(e);
        while (i > 0) {
            std::size_t parent = (i - 1) / kArity;
            if (!before(e, m_heap[parent]))
                break;
            m_heap[i] = m_heap[parent];
            i = parent;
        }
        m_heap[i] = e;
    }
    Entry heapPop()
    {
        if (m_hasFront) {
            m_hasFront = false;
            return m_front;
        }
        Entry top = m_heap.front();
        Entry last = m_heap.back();
        m_heap.pop_back();
        const std::size_t n = m_heap.size();
        if (n > 0) {
            Entry* h = m_heap.data();
            std::size_t i = 0;
            for (;;) {
                const std::size_t first = i * kArity + 1;
                if (first + kArity > n)
                    break;
                const Entry* c = h + first;
                std::size_t b01 = before(c[1], c[0]) ? 1 : 0;
                std::size_t b23 = before(c[3], c[2]) ? 3 : 2;
                std::size_t best = before(c[b23], c[b01]) ? b23 : b01;
                h[i] = c[best];
                i = first + best;
            }
            if (std::size_t first = i * kArity + 1; first < n) {
                std::size_t best = first;
                for (std::size_t c = first + 1; c < n; ++c)
                    if (before(h[c], h[best]))
                        best = c;
                h[i] = h[best];
                i = best;
            }
            while (i > 0) {
                std::size_t parent = (i - 1) / kArity;
                if (!before(last, h[parent]))
                    break;
                h[i] = h[parent];
                i = parent;
            }
            h[i] = last;
        }
        if (n <= kSortedMin) {
            std::sort(m_heap.begin(), m_heap.end(), [](const Entry& a, const Entry& b) { return before(b, a); });
            std::copy(m_heap.begin(), m_heap.end(), m_s + 1);
            m_n = m_heap.size();
            m_heap.clear();
            m_sorted = true;
        }
        return top;
    }

    bool m_sorted = true;
    bool m_hasFront = false;
    std::size_t m_n = 0;
    Entry m_s[kSortedMax + 2] = { { kNever, ~std::uint64_t { 0 }, 0 } };
    Entry m_front {};
    std::vector<Entry> m_heap;
    std::vector<std::uint32_t> m_idOf;
    std::vector<std::uint32_t> m_free;
    std::uint64_t m_seq = 0;
};

class RadixSimQueue {
public:
    void push(Time t, std::uint32_t key, std::uint32_t id)
    {
        std::uint32_t slot;
        if (m_free.empty()) {
            slot = static_cast<std::uint32_t>(m_idOf.size());
            m_idOf.push_back(0);
        } else {
            slot = m_free.back();
            m_free.pop_back();
        }
        m_idOf[slot] = id;
        const std::uint64_t ks = std::uint64_t { key } << 40 | m_seq++;
        QueueEntry e { t, ks, slot };
        if (!m_sorted)
            return m_radix.push(e);
        QueueEntry* q = m_s + m_n + 1;
        while (q[-1].t < t) {
            q[0] = q[-1];
            --q;
        }
        while (q[-1].t == t && q[-1].ks < ks) {
            q[0] = q[-1];
            --q;
        }
        *q = e;
        if (++m_n > kSortedMax) {
            m_radix.reset(m_now);
            for (std::size_t i = m_n; i >= 1; --i)
                m_radix.push(m_s[i]);
            m_n = 0;
            m_sorted = false;
        }
    }
    std::uint32_t pop()
    {
        QueueEntry e;
        if (m_sorted)
            e = m_s[m_n--];
        else {
            e = m_radix.pop();
            if (m_radix.size() <= kSortedMin) {
                m_drained.clear();
                m_radix.drainInto(m_drained);
                std::sort(m_drained.begin(), m_drained.end(),
                    [](const QueueEntry& a, const QueueEntry& b) { return b.order() < a.order(); });
                std::copy(m_drained.begin(), m_drained.end(), m_s + 1);
                m_n = m_drained.size();
                m_sorted = true;
            }
        }
        m_now = e.t;
        m_free.push_back(e.slot);
        return m_idOf[e.slot];
    }

private:
    bool m_sorted = true;
    std::size_t m_n = 0;
    QueueEntry m_s[kSortedMax + 2] = { { kNever, ~std::uint64_t { 0 }, 0 } };
    RadixQueue m_radix;
    std::vector<QueueEntry> m_drained;
    std::vector<std::uint32_t> m_idOf;
    std::vector<std::uint32_t> m_free;
    std::uint64_t m_seq = 0;
    Time m_now = 0;
};

class BinaryHeapQueue {
public:
    void push(Time t, std::uint32_t key, std::uint32_t id)
    {
        m_q.push({ static_cast<EventOrder>(static_cast<std::uint64_t>(t)) << 64 | std::uint64_t { key } << 40 | m_seq++,
            id });
    }
    std::uint32_t pop()
    {
        std::uint32_t id = m_q.top().second;
        m_q.pop();
        return id;
    }

private:
    using Item = std::pair<EventOrder, std::uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> m_q;
    std::uint64_t m_seq = 0;
};

// Replays the trace; returns the order in which the pushes were popped.
template <typename Queue>
std::vector<std::uint32_t> replay(const std::vector<Push>& trace, double& seconds)
{
    std::vector<std::uint32_t> popped;
    popped.reserve(trace.size());
    double t0 = now();
    {
        Queue q;
        std::size_t pending = 0;
        for (std::size_t i = 0; i < trace.size(); ++i) {
            for (; pending > trace[i].pending; --pending)
                popped.push_back(q.pop());
            q.push(trace[i].t, trace[i].key, static_cast<std::uint32_t>(i));
            ++pending;
        }
        for (; pending > 0; --pending)
            popped.push_back(q.pop());
    }
    seconds = now() - t0;
    return popped;
}

} // namespace

int main(int argc, char** argv)
{
    double scale = 0.05;
    int reps = 5;
    long point = -1;
    std::size_t maxPushes = 50'000'000;
    std::vector<std::string> ids;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--scale" && i + 1 < argc)
            scale = std::stod(argv[++i]);
        else if (a == "--reps" && i + 1 < argc)
            reps = std::max(1, std::stoi(argv[++i]));
        else if (a == "--scenario" && i + 1 < argc)
            ids.push_back(argv[++i]);
        else if (a == "--point" && i + 1 < argc)
            point = std::stol(argv[++i]);
        else if (a == "--max-pushes" && i + 1 < argc)
            maxPushes = std::stoull(argv[++i]);
    }
    if (ids.empty())
        for (auto& s : builtinScenarios())
            ids.push_back(s.id);

    std::printf("## Event queues on recorded event streams (scale %g, %d replays: ns of CPU per event, min / median"
                " / max)\n\n",
        scale, reps);
    std::printf("| scenario | point | pushes | max pending | heap-indirect | heap-packed | radix | binary-heap |"
                " same order |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (auto& id : ids) {
        Scenario sc = loadScenario(id);
        std::vector<OJson> points = sc.points();
        std::size_t k = point >= 0 ? std::min<std::size_t>(static_cast<std::size_t>(point), points.size() - 1)
                                   : points.size() / 2;
        RunSpec spec;
        spec.scenario = &sc;
        spec.variant = sc.variantNames().front();
        spec.point = points[k];
        spec.scale = scale;
        spec.seed = runSeed(sc.seed(), spec.variant, spec.point, 0);
        spec.bootSeed = bootSeed(sc.seed(), spec.point, 0);
        std::vector<Push> trace;
        spec.queueTrace = &trace;
        executeRun(spec);
        if (trace.size() > maxPushes)
            trace.resize(maxPushes);
        std::uint32_t maxPending = 0;
        for (const Push& p : trace)
            maxPending = std::max(maxPending, p.pending);

        std::vector<double> a, b, c, d;
        bool same = true;
        for (int r = 0; r < reps; ++r) {
            double s = 0;
            std::vector<std::uint32_t> ref = replay<IndirectQueue>(trace, s);
            a.push_back(s);
            same = same && replay<PackedQueue>(trace, s) == ref;
            b.push_back(s);
            same = same && replay<RadixSimQueue>(trace, s) == ref;
            c.push_back(s);
            same = same && replay<BinaryHeapQueue>(trace, s) == ref;
            d.push_back(s);
        }
        auto per = [&](const std::vector<double>& v) {
            Stats s = stats(v);
            char buf[64];
            double n = static_cast<double>(std::max<std::size_t>(1, trace.size()));
            std::snprintf(buf, sizeof buf, "%.1f / %.1f / %.1f", s.min * 1e9 / n, s.median * 1e9 / n, s.max * 1e9 / n);
            return std::string(buf);
        };
        std::printf("| %s | %s | %zu | %u | %s | %s | %s | %s | %s |\n", id.c_str(), spec.point.dump().c_str(),
            trace.size(), maxPending, per(a).c_str(), per(b).c_str(), per(c).c_str(), per(d).c_str(),
            same ? "yes" : "NO");
        std::fflush(stdout);
        if (!same)
            return 1;
    }
    return 0;
}
