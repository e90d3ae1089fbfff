#pragma once
// mm/readahead.c (5.6): the readahead window of the buffered read and the read fault. A sequential reader keeps one
// window ahead: page_cache_sync_readahead() on a miss, page_cache_async_readahead() when it reaches the page marked
// PG_readahead.

#include "mm/filemap.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct Task;

// __do_page_cache_readahead() of up to `nr` pages from `index`: allocate, add_to_page_cache_lru, read (zero-fill a
// hole), unlock; the page at `mark` gets PG_readahead. page_cache_sync_readahead() runs it on a miss (marking the
// next page), page_cache_async_readahead() when a reader hits a marked page (the next window, marked at its start),
// so a sequential reader keeps one window ahead and a second reader of the file finds the pages there.
// The allocations are __GFP_NORETRY: short of memory the window ends early; false then.
Co<bool> do_page_cache_readahead(Mm& k, Task& t, AddressSpace& m, std::uint64_t index, int nr, std::uint64_t mark);
// page_cache_async_readahead(): ClearPageReadahead on the page at `index` and read the window after the cached run
// that it starts.
Co<> page_cache_async_readahead(Mm& k, Task& t, AddressSpace& m, std::uint64_t index);

} // namespace mms
