#pragma once
// What the boot line and /sys/module/zswap/parameters set (mm/toggles.h: zswap.*): whether zswap stands in front of
// every swap device, how large its pool may grow and which compressor it uses. A value type: the toggles hold it,
// mm/zswap.h acts on it.

#include "block/zram_config.h"

namespace mms {

struct ZswapConfig {
    // zswap.enabled: off unless the boot line sets zswap.enabled=1, in every release that has zswap (2b2811178e85
    // "zswap: add to mm/", 3.11).
    bool enabled = false;
    // zswap.max_pool_percent: the pool may hold at most this share of RAM (20, mm/zswap.c).
    int maxPoolPercent = 20;
    // zswap.compressor: a crypto API compressor, "lzo" by default (the same algorithms as zram's, block/zcomp.h).
    ZcompAlgo compressor = ZcompAlgo::Lzo;
    // zswap.same_filled: a page of one repeated word is kept as that word in its entry, with no zbud object and no
    // compression ("mm: zswap: add same-filled pages support", 4.14; same_filled_pages_enabled, on by default).
    bool sameFilled = false;
};

} // namespace mms
