// The state a machine reaches by running a while, built at set-up without simulated time: kswapd up, memory full of
// page cache, the free pages reclaim left scattered over it.
#include "mm/filemap.h"
#include "mm/mm.h"
#include "sim/rng.h"

#include <algorithm>
#include <stdexcept>

namespace mms {

namespace {
    // Page `p` becomes page `index` of `m`, on the inactive file LRU.
    void add_to_page_cache_setup(Mm& k, AddressSpace& m, Pfn p, std::uint64_t index)
    {
        if (m.pages.size() <= index)
            m.pages.resize(index + 1, kNoPage);
        m.pages[index] = p;
        k.mappingPageAdded(m);
        k.pages.setFlags(p, 0);
        k.pages.setOwner(p, static_cast<std::uint16_t>(m.id + 1));
        k.pages.setIndex(p, static_cast<std::uint32_t>(index));
        k.add_page_to_lru_list(p, Mm::page_lru(k.pages.flags(p)));
    }

    // std::sort of distinct frame numbers below `nr`, in O(nr): mark each, read the marks back in order. A full-size
    // machine has millions of frames, and the sort was a quarter of a full-scale run's host time.
    void sortFrames(std::vector<Pfn>& frames, std::uint32_t nr)
    {
        std::vector<bool> present(nr);
        for (Pfn p : frames)
            present[p] = true;
        std::size_t i = 0;
        for (Pfn p = 0; p < nr; ++p)
            if (present[p])
                frames[i++] = p;
    }
} // namespace

void fill_page_cache(Mm& k, const std::vector<AddressSpace*>& files, std::uint64_t oldFilePages,
    double freeFraction, bool contiguous, std::uint64_t seed)
{
    k.startKswapd(); // up already when the run booted the kernel
    Rng rng(Rng::mix(seed, 0x5eedu));
    // Every free page, in the order alloc_page_setup() would hand them out one at a time (rmqueueBulk's contract),
    // without splitting a block again for each page.
    std::vector<Pfn> all(k.nrFreePages());
    std::size_t got = 0;
    for (auto& d : k.nodes)
        got += d->zone.rmqueueBulk(k.pages, all.size() - got, all.data() + got);
    all.resize(got);
    // The files' pages at random places (they were read in over the machine's life).
    for (AddressSpace* m : files)
        for (std::uint64_t i = 0; i < m->sizePages && !all.empty(); ++i) {
            std::size_t j = rng.below(all.size());
            Pfn p = all[j];
            all[j] = all.back();
            all.pop_back();
            add_to_page_cache_setup(k, *m, p, i);
        }
    // contiguous: an older file's pages sit together in frame order (a file written in one go takes its pages from
    // the per-cpu list and the buddy blocks behind it in order), with the pages reclaim freed since scattered between
    // them. Compaction's migrate scanner, whose position all direct compactors of the zone share
    // (compact_cached_migrate_pfn), then hands consecutive 32-page clusters of one file to concurrent compactors,
    // which meet on that file's i_mmap lock. Otherwise frames in a random order: neighbouring frames mostly belong to
    // different files.
    if (contiguous)
        sortFrames(all, k.pages.size());
    else
        for (std::size_t i = all.size(); i > 1; --i)
            std::swap(all[i - 1], all[rng.below(i)]);
    AddressSpace* old = nullptr;
    std::uint64_t index = 0;
    for (Pfn p : all) {
        if (rng.uniform() < freeFraction) {
            k.page_zone(p).freeOnePage(k.pages, p, 0);
            continue;
        }
        if (!old || index == oldFilePages) {
            if (k.mappings.size() >= 0xffff) // struct page's owner is 16 bits here (page.h): a file's id must fit
                throw std::length_error("more than 65535 files of page cache");
            old = &new_address_space(k, oldFilePages);
            index = 0;
        }
        add_to_page_cache_setup(k, *old, p, index++);
    }
}

} // namespace mms
