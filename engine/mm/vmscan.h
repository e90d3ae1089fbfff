#pragma once
// mm/vmscan.c: kswapd and direct reclaim.

#include "sim/co.h"

#include "mm/page.h"

#include <cstdint>
#include <vector>

namespace mms {

class Mm;
struct Lruvec;
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
// zone_reclaimable_pages() of the node: what reclaim could still free there -- its page cache, and its anonymous
// pages while swap has free slots (get_nr_swap_pages() > 0).
std::uint64_t zone_reclaimable_pages(const Mm& k, const PgData& d);
// too_many_isolated() (3.x-4.7, per zone) for a direct reclaimer with GFP_IOFS: more pages isolated from the
// anonymous (file) lists than an eighth of the inactive anonymous (file) list. kswapd is never throttled by it.
bool too_many_isolated(const PgData& d, bool file);
// shrink_page_list() (4.0) on anonymous pages reclaim has isolated (PG_isolated, off the LRU): returns the number
// of pages freed; `list` keeps the pages to put back. A page that lost every reference while isolated
// (Mm::orphan()) is freed here; one someone holds a reference to (pinned) or has locked is kept.
// With `stat`, also what shrink_inactive_list() throttles on (3.11+): the pages found under writeback, and those
// kswapd met again under writeback after marking them for immediate reclaim in a zone flagged ZONE_WRITEBACK.
struct ReclaimStat {
    bool kswapd = false; // the caller is kswapd (current_is_kswapd())
    std::uint64_t nrWriteback = 0;
    std::uint64_t nrImmediate = 0;
};
Co<std::uint64_t> shrink_page_list(Mm& k, Task& t, std::vector<Pfn>& list, ReclaimStat* stat = nullptr);
// move_pages_to_lru() (a222f3415868, 5.1, which made one function of 4.0's putback_inactive_pages() and
// move_active_pages_to_lru(): the same work a page in every era) on pages reclaim isolated from the lruvec whose
// lru_lock the caller holds: per page SetPageLRU and list_add at the head of the list its flags say (the head, its
// old first entry and the page written) and put_page_testzero(). A page that lost every reference while isolated
// (Mm::orphan()) stays in `list`, for the caller to free once the lock is dropped (pages_to_free); the others leave
// it. Returns the number moved.
std::uint64_t move_pages_to_lru(Mm& k, Task& t, std::vector<Pfn>& list);
// The tail of shrink_inactive_list() and shrink_active_list(), anonymous or file: spin_lock_irq(&lruvec->lru_lock),
// move_pages_to_lru(), NR_ISOLATED_ANON/FILE less the `isolated` pages the batch took (those freed in between
// included), spin_unlock_irq(), and free_unref_page_list() of the pages left to free. The lock is taken for an
// empty list too: the counter is updated under it.
Co<> putbackIsolated(Mm& k, Task& t, PgData& d, Lruvec& v, std::vector<Pfn>& list, std::uint64_t isolated, bool file);

} // namespace mms
