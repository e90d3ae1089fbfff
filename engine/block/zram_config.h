#pragma once
// What a kernel version's zram does, as the era toggles set it (mm/toggles.h: zram.*): how compression streams are
// shared, the compressor, whether same-filled pages are stored as a flag, and which lock guards zsmalloc's size
// classes. A value type: the toggles hold it, block/zram_drv.h and mm/zsmalloc.h act on it.

#include <cstdint>

namespace mms {

// zram.streams: how swap-outs share compression streams (drivers/block/zram/zcomp.c).
enum class ZcompStreams : std::uint8_t {
    // One stream under a mutex (zcomp_strm_single_find(): mutex_lock(&zs->strm_lock)), the default of 3.15-4.6
    // (max_comp_streams = 1). 3.14's zram, before zcomp, is taken to serialise its one compress buffer the same way
    // (not checked against the 3.14 source).
    Single,
    // max_comp_streams streams (beca3ec71fe5 "zram: add multi stream functionality", 3.15): a writer takes an idle
    // one; with none idle it sleeps in wait_event(zs->strm_wait) until zcomp_strm_multi_release() wakes it.
    Multi,
    // A stream per CPU, taken with preemption off (da9556a2367c "zram: user per-cpu compression streams", 4.7): no
    // writer ever waits for another.
    PerCpu,
};

// zram.comp: the compressor (comp_algorithm). lzo is the default until ce82f19fd580 "zram: default to lzo-rle
// instead of lzo" (5.1: the release of the lzo-rle series, not checked against a tag); lz4 is selectable from
// "zram: add lz4 algorithm backend" (3.15 shortlog; its commit id not verified).
enum class ZcompAlgo : std::uint8_t { Lzo, LzoRle, Lz4 };

// zsmalloc.lock: what guards a size class's zspages. `class`: each size class's spinlock (class->lock), up to 6.1;
// `pool`: one pool->lock for every class, c0547d0b6a4b "zsmalloc: consolidate zs_pool's migrate_lock and
// size_class's locks" (6.2).
enum class ZsLock : std::uint8_t { Class, Pool };

struct ZramConfig {
    ZcompStreams streams = ZcompStreams::Single;
    int maxCompStreams = 1; // max_comp_streams, the streams of ZcompStreams::Multi
    ZcompAlgo comp = ZcompAlgo::Lzo;
    // zram.same_filled: a page of one repeated word is stored as that word and a flag, like a zero page
    // (8e19d540d107 "zram: extend zero pages to same element pages"); before it only all-zero pages are.
    bool sameFilled = false;
    ZsLock zsLock = ZsLock::Class;
};

} // namespace mms
