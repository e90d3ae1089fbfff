#pragma once
// drivers/block/zram/zcomp.c: the compression streams zram writes through, and what the compressor does with a
// page: the size it leaves and the CPU it takes. Costs are cycles of a published measurement at its CPU's clock,
// run at the preset's clock (CostModel::clockGHz); every figure and its source is in docs/presets.md, "zram".
//
// Streams (ZcompStreams): `single` is one stream under a mutex, held from before the zero check to after the copy
// into zsmalloc, so every swap-out of the device queues on it (waiters spin on the running owner, then sleep);
// `multi` is max_comp_streams streams, a writer finding none idle sleeps until one is released; `percpu` gives
// each CPU its own and nobody waits. Reads never take a stream before 4.7 (zcomp_decompress() needs no work
// memory) and take their own CPU's after, so decompression never waits.

#include "block/zram_config.h"
#include "hw/costmodel.h"
#include "sched/sched.h"
#include "sim/fifo.h"
#include "sim/pagecontent.h"
#include "sync/lockstat.h"
#include "sync/mutex.h"
#include "sync/spinlock.h"

#include <cstdint>
#include <string>

namespace mms {

// The bytes zcomp_compress() leaves for a page of content `c` (never called for a zero page, nor for a same-filled
// one where those are stored as a flag). Above max_zpage_size zram stores the page as it is (PAGE_SIZE).
std::uint32_t compressedSize(ZcompAlgo a, PageContent c);
// CPU time of zcomp_compress() / zcomp_decompress() of one page on this machine, ns; memory traffic beyond the
// compressor's own (a page read or written at the core's stream rate) is in compressBytes() and decompressBytes().
double compressNs(const CostModel& c, ZcompAlgo a, PageContent content);
double decompressNs(const CostModel& c, ZcompAlgo a, PageContent content);
double compressBytes(PageContent content);
double decompressBytes(PageContent content);
// The same-filled check before compressing (zram's page_zero_filled() / page_same_filled(), zswap's
// zswap_is_page_same_filled()), charged to t: words are read until one differs from the first, so a page that
// qualifies (`same`) is read whole, from memory (reclaim takes the page touched longest ago), and any other stops at
// its first line or so. Returns `same`.
bool sameFilledScan(Sched& s, Task& t, bool same);

// A device's compression streams (struct zcomp).
class Zcomp {
public:
    Zcomp(Sched& s, const ZramConfig& cfg, const std::string& device);

    // zcomp_strm_find() (3.15-4.6) / zcomp_stream_get() (4.7+): waits for a stream as the mode says.
    Co<> zcomp_stream_get(Task& t);
    // zcomp_strm_release() / zcomp_stream_put().
    void zcomp_stream_put(Task& t);

    // The stream lock for lockstat: the single stream's mutex or the multi-stream idle list's spinlock; nullptr for
    // per-CPU streams, which have none.
    const LockStat* lockStat() const;

private:
    Sched& m_s;
    ZcompStreams m_mode;
    Mutex m_single; // zcomp_strm_single.strm_lock
    SpinLock m_multiLock; // zcomp_strm_multi.strm_lock, guarding the idle list
    int m_idle = 0; // zcomp_strm_multi's idle streams (all are allocated at once here)
    Fifo<std::pair<Task*, std::uint32_t>> m_strmWait; // zcomp_strm_multi.strm_wait
};

} // namespace mms
