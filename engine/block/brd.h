#pragma once
// drivers/block/brd.c: a RAM disk (/dev/ram). brd_make_request() copies each page of a bio to or from the disk's own
// page (copy_to_brd / copy_from_brd) in the submitter's context and ends the bio before it returns: no queue, no
// interrupt, no device latency. What it costs is the bio's setup and the copies, which stream 4 KiB in and 4 KiB out
// on the memory of the disk's pages (hw/membw.h: the core's and the node's bandwidth, shared with everything else
// that streams). The disk's own pages (brd_insert_page, GFP_NOIO | __GFP_HIGHMEM) are not among the frames the
// model allocates: the ramdisk is memory set aside beside the page cache.

#include "sched/sched.h"

#include <cstdint>

namespace mms {

// One bio of `pages` pages to or from a ramdisk whose pages lie on `node`: the submission (CostModel::bioSubmitNs)
// and the copies (CostModel::copyPageNs each: a cold 4 KiB copy, 8 KiB of traffic, timed on the bandwidth model).
inline void brd_make_request(Sched& s, Task& t, int node, std::uint64_t pages)
{
    const CostModel& c = s.cost();
    Sched::burn(t, c.bioSubmitNs);
    s.burnTransfer(t, node, static_cast<double>(pages) * c.copyPageNs * c.memCoreGBps);
}

} // namespace mms
