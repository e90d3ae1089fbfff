#pragma once
// mm/page-writeback.c: what __test_set_page_writeback() and test_clear_page_writeback() do under a mapping's
// tree_lock (i_pages from 4.17) where the mapping keeps the radix tree's writeback tags: the page's flag and the
// tags, each a locked bit operation or a step of the tree walk. A file's pages always do (fs/fs-writeback.cpp); the
// swap cache's did until 371a096edf43 (4.9, swap.writeback_tags).

#include "hw/costmodel.h"

namespace mms {

// TestSetPageWriteback, radix_tree_tag_set(WRITEBACK), and the DIRTY and TOWRITE tags cleared.
inline double setWritebackTagsNs(const CostModel& c) { return 3 * c.lockedRmwNs + 2 * c.pteOpNs; }
// TestClearPageWriteback and radix_tree_tag_clear(WRITEBACK).
inline double endWritebackTagsNs(const CostModel& c) { return 2 * c.lockedRmwNs + c.pteOpNs; }

} // namespace mms
