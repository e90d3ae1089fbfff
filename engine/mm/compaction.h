#pragma once
// mm/compaction.c and mm/migrate.c (3.x): direct compaction for a high-order allocation, and the page migration
// it drives. See compaction.cpp and migrate.cpp for the call chains.
#include "sim/co.h"
#include "mm/page.h"

#include <vector>

namespace mms {

class Mm;
struct Task;
struct Zone;

enum class CompactResult : std::uint8_t { Deferred, Skipped, Continue, Partial, Complete };

// struct compact_control
struct CompactControl {
    Zone* zone = nullptr; // the zone compacted (compact_zone_order's)
    int order = 0;
    Pfn migratePfn = 0; // the migrate scanner, moving up
    Pfn freePfn = 0; // the free scanner, moving down
    std::vector<Pfn> migratepages; // isolated from the LRU, to be moved
    std::vector<Pfn> freepages; // isolated order-0 free pages, the targets
    std::uint64_t nrMigrated = 0, nrFailed = 0;
    bool sync = false; // MIGRATE_SYNC_LIGHT: a contended lock is dropped and re-taken after cond_resched()
    bool contended = false; // async compaction gave up: need_resched() or a contended lock (compact_checklock_irqsave)
    enum class Abort : std::uint8_t { None, Resched, ZoneLock, LruLock } abort = Abort::None; // the first cause
};

// try_to_compact_pages() -> compact_zone_order() -> compact_zone(), MIGRATE_ASYNC (the first attempt of 3.x's
// slow path; THP and kernel stacks alike): each zone of the task's zonelist not deferred, until one has a free block
// of the order above its low watermark.
// `sync`: MIGRATE_SYNC_LIGHT, the second attempt after direct reclaim (3.x before 3.16 also for THP faults).
// `contended` is set when an async compaction gave up at a contended lock or need_resched().
Co<CompactResult> try_to_compact_pages(Mm& k, Task& t, int order, bool sync, bool* contended);
Co<CompactResult> compact_zone(Mm& k, Task& t, CompactControl& cc);
void defer_compaction(Zone& z, int order);
void compaction_defer_reset(Zone& z, int order);

// compaction_alloc()'s refill: the free scanner isolates free pages (split to order 0) from the top of the zone.
Co<> isolate_freepages(Mm& k, Task& t, CompactControl& cc);

// migrate.c: migrate_pages(from, compaction_alloc, MIGRATE_ASYNC, MR_COMPACTION). Pages that fail are put back on
// the LRU, unused targets released. Returns the number that did not migrate.
Co<std::uint64_t> migrate_pages(Mm& k, Task& t, CompactControl& cc);
// putback_lru_page() for an isolated page-cache page.
Co<> putback_lru_page(Mm& k, Task& t, Pfn p);

} // namespace mms
