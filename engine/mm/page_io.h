#pragma once
// mm/page_io.c for a synchronous swap device (zram, pmem: bdev_write_page()/bdev_read_page() call the driver's
// rw_page in the task, 3.16+): swap-outs and swap-ins that complete before they return, as system time of the
// reclaimer or of the faulting task, with no request, no queue and no I/O wait. Devices with a request queue go
// through the block layer instead (vmscan.cpp's submit_writes(), memory.cpp's swapin_readahead()).

#include "mm/page.h"
#include "mm/swapinfo.h"
#include "sim/co.h"

#include <cstdint>

namespace mms {

class Mm;
struct Task;

// The device has an rw_page (zram, pmem): its swap I/O completes in the task.
inline bool swap_synchronous(const SwapInfo& si) { return si.dev->spec().synchronous(); }

// swap_writepage() -> __swap_writepage() of page `p` (locked, in the swap cache, unmapped) to its slot on a
// synchronous device. True: written, the page is clean and not under writeback, and shrink_page_list() goes on to
// free it at once ("A synchronous write - probably a ramdisk"). False: the driver failed (zram: zs_malloc() found no
// memory); the bio the kernel falls back to fails the same way and end_swap_bio_write() leaves the page dirty
// (SetPageError, set_page_dirty, ClearPageReclaim), in the swap cache, for a later try.
Co<bool> swap_writepage(Mm& k, Task& t, Pfn p);
// swap_readpage() of page `p` (locked, in the swap cache, just allocated) from a synchronous device: the data is
// in the page and the page unlocked (page_endio) when it returns.
Co<> swap_readpage(Mm& k, Task& t, Pfn p);
// set_page_writeback() (`set`) or end_page_writeback() of swap-cache page `p` in the task where the swap cache keeps
// writeback tags (swap.writeback_tags, before 4.9; the caller tests it, so that later kernels enter no coroutine):
// its radix-tree tags under the swap cache's tree_lock (mm/writeback.h). A queued device's completion ends the
// writeback in its interrupt, which Mm::endIo() charges with the tags' cost.
Co<> swap_writeback_tags(Mm& k, Task& t, Pfn p, bool set);
// What swap_entry_free() tells the layers below of a slot no longer in use, called under the lock that guards the
// slot (si->lock in 4.0): frontswap_invalidate_page() (zswap drops its copy), then the device's
// swap_slot_free_notify (zram frees the slot's object). Nothing for a queued device without zswap.
Co<> swap_slot_free_notify(Mm& k, Task& t, SwapInfo& si, std::uint32_t off);

} // namespace mms
