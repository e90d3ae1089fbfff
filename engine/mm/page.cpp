#include "mm/page.h"

#include <stdexcept>

namespace mms {

const char* pageStateName(PageState s)
{
    switch (s) {
    case PageState::Free: return "free";
    case PageState::AnonActive: return "anon active";
    case PageState::AnonInactive: return "anon inactive";
    case PageState::FileActive: return "file active";
    case PageState::FileInactive: return "file inactive";
    case PageState::Lazyfree: return "lazyfree";
    case PageState::SwapCache: return "swap cache";
    case PageState::UnderIo: return "under I/O";
    case PageState::Isolated: return "isolated";
    case PageState::Pagevec: return "in pagevec";
    case PageState::Unevictable: return "unevictable";
    case PageState::Kernel: return "unlisted";
    case PageState::Count: break;
    }
    return "?";
}

const char* lruListName(LruList l)
{
    switch (l) {
    case LRU_INACTIVE_ANON: return "inactive_anon";
    case LRU_ACTIVE_ANON: return "active_anon";
    case LRU_INACTIVE_FILE: return "inactive_file";
    case LRU_ACTIVE_FILE: return "active_file";
    case LRU_UNEVICTABLE: return "unevictable";
    case NR_LRU_LISTS: break;
    }
    return "?";
}

std::string pageFlagNames(std::uint16_t flags)
{
    static const char* const names[16] = { "PG_lru", "PG_active", "PG_referenced", "PG_swapbacked", "PG_swapcache", "PG_dirty",
        "PG_locked", "PG_mlocked", "PG_lazyfree", "PG_writeback", "PG_unevictable", "PG_isolated", "PG_buddy", "PG_pagevec",
        "PG_anon", "PG_reclaim" };
    std::string out;
    for (unsigned bit = 0; bit < 16; ++bit)
        if (flags & (1u << bit)) {
            if (!out.empty())
                out += '|';
            out += names[bit];
        }
    return out.empty() ? std::string("none") : out;
}

const char* pageListName(std::uint16_t flags)
{
    if (flags & PG_buddy)
        return "buddy";
    if (flags & PG_isolated)
        return "isolated";
    if (flags & PG_pagevec)
        return "pagevec";
    if (!(flags & PG_lru))
        return "none";
    if (flags & PG_unevictable)
        return lruListName(LRU_UNEVICTABLE);
    bool active = flags & PG_active;
    if (flags & PG_swapbacked)
        return lruListName(active ? LRU_ACTIVE_ANON : LRU_INACTIVE_ANON);
    return lruListName(active ? LRU_ACTIVE_FILE : LRU_INACTIVE_FILE);
}

void PageArray::resize(std::uint32_t nrPages)
{
    if (static_cast<std::uint64_t>(nrPages) + kListHeads >= kLinkNone)
        throw std::length_error("more page frames than the 28-bit page links (and PTEs) can address");
    m_nr = nrPages;
    std::size_t n = nrPages;
    m_flags.assign(n, 0);
    m_owner.assign(n, 0);
    m_index.assign(n, 0);
    m_content.assign((n + 3) / 4, 0); // PageContent::Zero
    m_private = {};
    m_mapcountHigh = {};
    m_link.assign(n + kListHeads, kNextBits | kPrevBits); // unlinked, mapcount 0
    for (std::uint32_t i = 0; i < kListHeads; ++i)
        listInit(i);
}

PageState PageArray::state(Pfn p) const
{
    std::uint16_t f = m_flags[p];
    if (f & PG_buddy)
        return PageState::Free;
    if (f & (PG_writeback | PG_locked))
        return PageState::UnderIo;
    if (f & PG_isolated)
        return PageState::Isolated;
    if (f & PG_pagevec)
        return PageState::Pagevec;
    if (f & PG_unevictable)
        return PageState::Unevictable;
    if (f & PG_lazyfree)
        return PageState::Lazyfree;
    if ((f & PG_swapcache) && mapcount(p) == 0)
        return PageState::SwapCache;
    if (f & PG_lru) {
        bool anon = f & PG_swapbacked;
        bool active = f & PG_active;
        if (anon)
            return active ? PageState::AnonActive : PageState::AnonInactive;
        return active ? PageState::FileActive : PageState::FileInactive;
    }
    return PageState::Kernel;
}

void PageArray::listInit(std::uint32_t listId)
{
    Pfn h = listHead(listId);
    setNext(h, h);
    setPrev(h, h);
}

} // namespace mms
