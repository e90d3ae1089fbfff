#pragma once
// mm/vmscan.c: kswapd and direct reclaim.

#include "sim/co.h"

#include "mm/page.h"

#include <cstdint>
#include <vector>

namespace mms {

class Mm;
struct PgData;
struct Task;

// kswapd<nid>: balances its node until the zone is above the high watermark, then sleeps until woken.
Co<> kswapd_main(Mm& k, PgData& d, Task& t);
// Direct reclaim for an allocation of the task's CPU's node: every node of its zonelist, local first.
Co<std::uint64_t> try_to_free_pages(Mm& k, Task& t);
// One round of reclaim on the node: page cache first, then anonymous pages.
Co<std::uint64_t> shrink_zone(Mm& k, Task& t, PgData& d, bool kswapd);
// The node's page-cache pages on its LRU lists (every memcg's lruvec).
std::uint64_t nrFileLru(const PgData& d);
// too_many_isolated() (3.x-4.7, per zone) for a direct reclaimer with GFP_IOFS: more pages isolated from the
// anonymous (file) lists than an eighth of the inactive anonymous (file) list. kswapd is never throttled by it.
bool too_many_isolated(const PgData& d, bool file);
// shrink_page_list() (4.0) on anonymous pages reclaim has isolated (PG_isolated, off the LRU): returns the number
// of pages freed; `list` keeps the pages to put back. A page that lost every reference while isolated
// (Mm::orphan()) is freed here; one someone holds a reference to (pinned) or has locked is kept.
Co<std::uint64_t> shrink_page_list(Mm& k, Task& t, std::vector<Pfn>& list);
// putback_inactive_pages() / move_active_pages_to_lru(): under lru_lock, per page SetPageLRU and list_add at the
// head of its list (the head, its old first entry and the page written), and put_page_testzero(): an orphan is
// freed instead. The `isolated` pages the batch took leave NR_ISOLATED_ANON here, those freed in between included.
Co<> putback_lru_pages(Mm& k, Task& t, PgData& d, std::vector<Pfn>& list, std::uint64_t isolated);

} // namespace mms
