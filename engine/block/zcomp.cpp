#include "block/zcomp.h"

#include "hw/pfn.h"

namespace mms {

namespace {
    // Published single-thread figures on the Silesia corpus, lz4's README (r101 table): Core i5-3340M at 2.7 GHz,
    // "LZ4 (r101) 2.084 422 MB/s 1820 MB/s" and "LZO 2.06 2.106 414 MB/s 600 MB/s" (ratio, compress, decompress).
    // A 4 KiB page at those rates, as cycles of that CPU.
    constexpr double kRefGHz = 2.7;
    constexpr double kPage = static_cast<double>(kPageSize);
    double cyclesAt(double mbPerS) { return kPage / (mbPerS * 1e6) * kRefGHz * 1e9; }
    struct Algo {
        double ratio;
        double compressMBps;
        double decompressMBps;
    };
    Algo algo(ZcompAlgo a)
    {
        switch (a) {
        case ZcompAlgo::Lz4: return { 2.084, 422, 1820 };
        case ZcompAlgo::Lzo:
        // lzo-rle (lib/lzo, 5.1) differs from lzo only in how it codes runs of zero bytes (5ee4014af99f "lib/lzo:
        // implement run-length encoding": "with few zeros present, it makes no difference"), which zram never
        // compresses (a zero page is caught first) and the modelled program data (Silesia) does not hold apart:
        // lzo's figures. The series' "1.1 - 4.8x (data-dependent)" is given per zero-run density only in a graph.
        case ZcompAlgo::LzoRle: return { 2.106, 414, 600 };
        }
        return { 2.106, 414, 600 };
    }

    // A page of one repeated byte: the compressor finds one match of distance 1 and extends it over the page. lz4
    // 1.9.4's command line, measured here: 4096 bytes of 0xaa give a 41-byte frame, 19 of them the frame's header,
    // block size, end mark and checksum: a 22-byte block. lzo1x codes the same run as a literal, one match and
    // its length in 255-byte steps (~16 bytes) and a 3-byte end marker (GUESS ~24 bytes from the format,
    // Documentation/lzo.txt). Both land in zsmalloc's smallest class (32 bytes).
    std::uint32_t sameFilledSize(ZcompAlgo a) { return a == ZcompAlgo::Lz4 ? 22 : 24; }
    // Extending that match 8 bytes a compare over 4 KiB is ~512 iterations: GUESS 2000 cycles (lzo1x_1 and lz4
    // with efficient unaligned access on x86-64). Decompressing it copies an overlapping match: lz4 replicates the
    // 1-byte pattern 8 bytes at a time (GUESS 1000 cycles), lzo1x_decompress_safe copies an offset-1 match a byte
    // at a time (GUESS 4096 cycles, one a cycle).
    constexpr double kSameCompressCycles = 2000;
    double sameDecompressCycles(ZcompAlgo a) { return a == ZcompAlgo::Lz4 ? 1000 : 4096; }
} // namespace

std::uint32_t compressedSize(ZcompAlgo a, PageContent c)
{
    switch (c) {
    case PageContent::Zero:
    case PageContent::Same: return sameFilledSize(a);
    case PageContent::Data: return static_cast<std::uint32_t>(kPage / algo(a).ratio + 0.5);
    case PageContent::Random: return static_cast<std::uint32_t>(kPageSize); // larger than max_zpage_size: stored raw
    }
    return static_cast<std::uint32_t>(kPageSize);
}

double compressNs(const CostModel& c, ZcompAlgo a, PageContent content)
{
    // Incompressible data: the compressors skip ahead faster through data without matches, so Silesia's rate is an
    // upper bound (GUESS: the same cycles).
    const double cycles = content == PageContent::Data || content == PageContent::Random ? cyclesAt(algo(a).compressMBps)
                                                                                          : kSameCompressCycles;
    return cycles / c.clockGHz;
}

double decompressNs(const CostModel& c, ZcompAlgo a, PageContent content)
{
    if (content == PageContent::Random)
        return 0; // stored raw: copy_page (decompressBytes)
    const double cycles = content == PageContent::Data ? cyclesAt(algo(a).decompressMBps) : sameDecompressCycles(a);
    return cycles / c.clockGHz;
}

// The Silesia rates include the reads and writes of the data; the GUESS cycles of a same-filled page do not: it
// is read (compress) or written (decompress) at the core's stream rate on top. A raw page is copied by zram, not
// decompressed (zram_bvec_read).
double compressBytes(PageContent content) { return content == PageContent::Same || content == PageContent::Zero ? kPage : 0; }
double decompressBytes(PageContent content)
{
    return content == PageContent::Data || content == PageContent::Random ? 0 : kPage;
}

bool sameFilledScan(Sched& s, Task& t, bool same)
{
    if (same)
        s.burnLocalTransfer(t, kPage);
    else
        Sched::burn(t, s.cost().memLatencyNs + s.cost().pteOpNs);
    return same;
}

Zcomp::Zcomp(Sched& s, const ZramConfig& cfg, const std::string& device)
    : m_s(s)
    , m_mode(cfg.streams)
    , m_single(device + " zcomp_strm_single.strm_lock")
    , m_multiLock(device + " zcomp_strm_multi.strm_lock")
    , m_idle(cfg.maxCompStreams)
{
}

Co<> Zcomp::zcomp_stream_get(Task& t)
{
    switch (m_mode) {
    case ZcompStreams::Single:
        co_await mutex_lock(m_s, t, m_single); // zcomp_strm_single_find()
        co_return;
    case ZcompStreams::PerCpu:
        co_return; // get_cpu_ptr(): preemption off, this CPU's stream
    case ZcompStreams::Multi:
        break;
    }
    // zcomp_strm_multi_find(): an idle stream under strm_lock, else wait_event(zs->strm_wait, !list_empty(idle)).
    for (;;) {
        co_await spin_lock(m_s, t, m_multiLock);
        if (m_idle > 0) {
            --m_idle;
            spin_unlock(m_s, t, m_multiLock);
            co_return;
        }
        spin_unlock(m_s, t, m_multiLock);
        co_await m_s.flush(t);
        m_strmWait.emplace_back(&t, t.sleepGen + 1);
        const Time since = m_s.sim().now();
        const int cpu = t.cpu;
        co_await m_s.sleep(t);
        m_s.traceSleep(cpu, since, SpanKind::LockSleep, "zcomp_strm_multi_find");
    }
}

void Zcomp::zcomp_stream_put(Task& t)
{
    switch (m_mode) {
    case ZcompStreams::Single:
        mutex_unlock(m_s, t, m_single);
        return;
    case ZcompStreams::PerCpu:
        return; // put_cpu_ptr()
    case ZcompStreams::Multi:
        break;
    }
    // zcomp_strm_multi_release(): back on the idle list under strm_lock, then wake_up(&zs->strm_wait) (one waiter
    // is enough: the others find the list empty again). The lock is taken with the caller's time; nobody holds it
    // long, so the release is charged as an uncontended round trip.
    Sched::burn(t, 2 * m_s.cost().lockedRmwNs);
    ++m_idle;
    while (!m_strmWait.empty()) {
        auto [w, gen] = m_strmWait.front();
        m_strmWait.pop_front();
        if (w->sleepGen == gen) {
            Sched::burn(t, m_s.wakeupNs());
            m_s.wake(*w);
            break;
        }
    }
}

const LockStat* Zcomp::lockStat() const
{
    switch (m_mode) {
    case ZcompStreams::Single: return &m_single.stat();
    case ZcompStreams::Multi: return &m_multiLock.stat();
    case ZcompStreams::PerCpu: break;
    }
    return nullptr;
}

} // namespace mms
