#pragma once
// struct page, struct-of-arrays: every simulated page frame is 16 bytes: flags (2), owner (2), index (4), and one
// 64-bit word with both LRU links (28 bits each, like the PTE's pfn: 1 TiB of RAM) and the low byte of the mapcount;
// plus two bits of what the page holds (sim/pagecontent.h), four frames a byte.
// page_private (the swap entry of a swap-cache page) and a mapcount of 255 or more (a shared library's text page
// that hundreds of processes map) live in side tables, so they cost memory only for the pages that have one. Page frame numbers (Pfn) index these arrays; the last few indices beyond the real frames are the
// list heads of the LRU lists (intrusive, like struct list_head).

#include "hw/pfn.h"
#include "sim/flatmap.h"
#include "sim/pagecontent.h"
#include "sim/pagestate.h"
#include "sim/reuse.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace mms {

// Page flags, named after include/linux/page-flags.h. PG_pagevec (the page sits in a per-CPU pagevec) and PG_buddy
// (free) are bookkeeping the kernel expresses otherwise; PG_lazyfree follows the 2007 patch's bit (in 4.5+ it is
// "anon and clean"), kept here so the page map can show lazily freed pages in every era.
enum PageFlag : std::uint16_t {
    PG_lru = 1u << 0,
    PG_active = 1u << 1,
    PG_referenced = 1u << 2,
    PG_swapbacked = 1u << 3,
    PG_swapcache = 1u << 4,
    PG_dirty = 1u << 5,
    PG_locked = 1u << 6,
    PG_mlocked = 1u << 7,
    PG_lazyfree = 1u << 8,
    PG_writeback = 1u << 9,
    PG_unevictable = 1u << 10,
    PG_isolated = 1u << 11,
    PG_buddy = 1u << 12,
    PG_pagevec = 1u << 13,
    PG_anon = 1u << 14,
    PG_reclaim = 1u << 15,
};

// PageState (sim/pagestate.h): what the page map shows, one byte per page.
const char* pageStateName(PageState s);

enum LruList : std::uint8_t {
    LRU_INACTIVE_ANON = 0,
    LRU_ACTIVE_ANON,
    LRU_INACTIVE_FILE,
    LRU_ACTIVE_FILE,
    LRU_UNEVICTABLE,
    NR_LRU_LISTS
};
const char* lruListName(LruList l);
// "PG_lru|PG_active|PG_swapbacked" for a flags word ("none" for 0).
std::string pageFlagNames(std::uint16_t flags);
// The list a page with these flags sits on: an LRU list's name, "buddy", "pagevec", "isolated" or "none".
const char* pageListName(std::uint16_t flags);

class PageArray {
public:
    explicit PageArray(std::uint32_t nrPages = 0) { resize(nrPages); }
    void resize(std::uint32_t nrPages);
    std::uint32_t size() const { return m_nr; }

    std::uint16_t flags(Pfn p) const { return m_flags[p]; }
    bool test(Pfn p, std::uint16_t f) const { return (m_flags[p] & f) != 0; }
    void set(Pfn p, std::uint16_t f) { m_flags[p] = static_cast<std::uint16_t>(m_flags[p] | f); }
    void clear(Pfn p, std::uint16_t f) { m_flags[p] = static_cast<std::uint16_t>(m_flags[p] & ~f); }
    void setFlags(Pfn p, std::uint16_t f) { m_flags[p] = f; }

    // Owner: the mm (anon) or address space (file) id + 1; 0 = none.
    std::uint16_t owner(Pfn p) const { return m_owner[p]; }
    void setOwner(Pfn p, std::uint16_t o) { m_owner[p] = o; }
    // Index: the virtual page number in the owner mm (anon) or the page offset in the file.
    std::uint32_t index(Pfn p) const { return m_index[p]; }
    void setIndex(Pfn p, std::uint32_t i) { m_index[p] = i; }
    // page_private: the swap entry of a swap-cache page (0: none).
    std::uint32_t priv(Pfn p) const
    {
        const std::uint32_t* v = m_private.find(p);
        return v ? *v : 0;
    }
    void setPriv(Pfn p, std::uint32_t v)
    {
        if (v)
            m_private[p] = v;
        else
            m_private.erase(p);
    }
    // _mapcount + 1: the PTEs that map the page. Up to 254 in the link word; from 255 on the word holds 255 and the
    // count is in m_mapcountHigh.
    std::uint32_t mapcount(Pfn p) const
    {
        auto low = static_cast<std::uint32_t>(m_link[p] >> kMapcountShift);
        if (low < kByte)
            return low;
        return *m_mapcountHigh.find(p);
    }
    void setMapcount(Pfn p, std::uint32_t c)
    {
        if (c >= kByte)
            m_mapcountHigh[p] = c;
        else if (mapcount(p) >= kByte)
            m_mapcountHigh.erase(p);
        std::uint64_t low = c < kByte ? c : kByte;
        m_link[p] = (m_link[p] & ~(kByte << kMapcountShift)) | (low << kMapcountShift);
    }

    // The class of the page's bytes (not struct page: the data itself, which only zram's compressor reads).
    PageContent content(Pfn p) const
    {
        return static_cast<PageContent>((m_content[p >> 2] >> ((p & 3u) * 2)) & 3u);
    }
    void setContent(Pfn p, PageContent c)
    {
        const unsigned shift = (p & 3u) * 2;
        std::uint8_t& b = m_content[p >> 2];
        b = static_cast<std::uint8_t>((b & ~(3u << shift)) | (static_cast<unsigned>(c) << shift));
    }

    PageState state(Pfn p) const;
    // Host memory held by the arrays and the page_private table, in bytes.
    std::size_t memoryBytes() const
    {
        return m_flags.capacity() * sizeof(std::uint16_t) + m_owner.capacity() * sizeof(std::uint16_t)
            + m_index.capacity() * sizeof(std::uint32_t) + m_link.capacity() * sizeof(std::uint64_t) + m_content.capacity()
            + m_private.memoryBytes()
            + m_mapcountHigh.memoryBytes();
    }

    // Intrusive doubly-linked lists. A list is identified by its head index (>= size()).
    Pfn listHead(std::uint32_t listId) const { return m_nr + listId; }
    void listInit(std::uint32_t listId);
    // The list operations are inline and work on the raw 28-bit links (unpack() and pack() are inverses there, so
    // the words come out as setNext()/setPrev() one field at a time would leave them): they run several times per
    // page on the allocator's and the LRU's hot paths.
    void listAdd(Pfn head, Pfn p) // at the head (list_add)
    {
        std::uint64_t n = m_link[head] & kNextBits;
        m_link[p] = (m_link[p] & kMapcountBits) | n | (rawLink(head) << kPrevShift);
        m_link[n] = (m_link[n] & ~kPrevBits) | (rawLink(p) << kPrevShift);
        m_link[head] = (m_link[head] & ~kNextBits) | rawLink(p);
    }
    void listAddTail(Pfn head, Pfn p)
    {
        std::uint64_t l = (m_link[head] & kPrevBits) >> kPrevShift;
        m_link[p] = (m_link[p] & kMapcountBits) | rawLink(head) | (l << kPrevShift);
        m_link[l] = (m_link[l] & ~kNextBits) | rawLink(p);
        m_link[head] = (m_link[head] & ~kPrevBits) | (rawLink(p) << kPrevShift);
    }
    void listDel(Pfn p)
    {
        std::uint64_t w = m_link[p];
        std::uint64_t n = w & kNextBits;
        std::uint64_t l = (w & kPrevBits) >> kPrevShift;
        m_link[l] = (m_link[l] & ~kNextBits) | n;
        m_link[n] = (m_link[n] & ~kPrevBits) | (l << kPrevShift);
        m_link[p] = m_link[p] | kNextBits | kPrevBits; // both links kLinkNone
    }
    // The links list_del() leaves on a page (both kNoPage), for a page known to be on no list any more.
    void listUnlinked(Pfn p) { m_link[p] |= kNextBits | kPrevBits; }
    Pfn first(Pfn head) const { return next(head) == head ? kNoPage : next(head); }
    Pfn last(Pfn head) const { return prev(head) == head ? kNoPage : prev(head); }
    Pfn next(Pfn p) const { return unpack(static_cast<std::uint32_t>(m_link[p]) & kLinkMask); }
    Pfn prev(Pfn p) const { return unpack(static_cast<std::uint32_t>(m_link[p] >> kPrevShift) & kLinkMask); }
    bool listEmpty(Pfn head) const { return next(head) == head; }

    // List heads: NR_LRU_LISTS lists for each of up to 256 lruvecs (every node's, mm/mmzone.h kMaxLruvecs), then
    // each zone's free_area[order] lists, MAX_ORDER per node for up to kMaxNodes nodes (a free page is on no LRU, so
    // the buddy allocator links its free blocks through the same words, as the kernel reuses page->lru).
    static constexpr std::uint32_t kMaxNodes = 64; // MAX_NUMNODES here: machine.sockets is at most 64
    static constexpr std::uint32_t kLruListHeads = 5 * 256;
    static constexpr std::uint32_t kFreeAreaHeads = 11 * kMaxNodes; // MAX_ORDER per node
    static constexpr std::uint32_t kListHeads = kLruListHeads + kFreeAreaHeads;

private:
    std::uint32_t m_nr = 0;
    ReusedVector<std::uint16_t> m_flags;
    ReusedVector<std::uint16_t> m_owner;
    ReusedVector<std::uint32_t> m_index;
    // m_link[p]: next in bits 0..27, prev in bits 28..55, mapcount (up to 255) in bits 56..63. kLinkNone stands for kNoPage.
    static constexpr std::uint32_t kLinkMask = (1u << 28) - 1;
    static constexpr std::uint32_t kLinkNone = kLinkMask;
    static constexpr unsigned kPrevShift = 28;
    static constexpr unsigned kMapcountShift = 56;
    static constexpr std::uint64_t kByte = 0xff;
    static constexpr std::uint64_t kNextBits = kLinkMask;
    static constexpr std::uint64_t kPrevBits = static_cast<std::uint64_t>(kLinkMask) << kPrevShift;
    static constexpr std::uint64_t kMapcountBits = kByte << kMapcountShift;
    // pack() of a page or list head that is linked: never kNoPage.
    static std::uint64_t rawLink(Pfn p)
    {
        assert(p < kLinkNone && "page frame number beyond the 28-bit links");
        return p;
    }
    static Pfn unpack(std::uint32_t v) { return v == kLinkNone ? kNoPage : v; }
    static std::uint64_t pack(Pfn p)
    {
        assert((p == kNoPage || p < kLinkNone) && "page frame number beyond the 28-bit links");
        return p == kNoPage ? kLinkNone : p;
    }
    void setNext(Pfn p, Pfn n) { m_link[p] = (m_link[p] & ~kNextBits) | pack(n); }
    void setPrev(Pfn p, Pfn v) { m_link[p] = (m_link[p] & ~kPrevBits) | (pack(v) << kPrevShift); }

    ReusedVector<std::uint64_t> m_link;
    ReusedVector<std::uint8_t> m_content; // PageContent, 2 bits a frame
    FlatMap<std::uint32_t> m_private;
    FlatMap<std::uint32_t> m_mapcountHigh; // the mapcounts of 255 and more
};

} // namespace mms
