#pragma once
// PinSet: the extra page references (get_page) held by faults in progress and mmu_gathers, by frame number.
//
// Host-side representation only; what it answers (is this page pinned, how many pins) is a per-page count, as
// before. A gather pins up to 10,000 mostly consecutive frames and release_pages() drops them in the same order,
// so the common case is "one pin on a frame whose neighbours are pinned too". The pins are kept as one bit per
// frame in 64-frame blocks of a hash map (a gather's run of frames is a few blocks, one probe per pin, no
// backward-shift deletion per unpin: a block leaves the map when its last bit clears), and only the rare second
// and later pin of one frame (a fault's get_page on a page a gather also holds) in a map of counts.

#include "sim/flatmap.h"

#include <cstdint>

namespace mms {

class PinSet {
public:
    void pin(std::uint32_t p)
    {
        std::uint64_t& w = m_blocks[p / 64];
        std::uint64_t bit = std::uint64_t { 1 } << (p % 64);
        if (w & bit) [[unlikely]]
            ++m_extra[p];
        else
            w |= bit;
    }
    // Drops one pin; a frame with none is left alone (as the count map did).
    void unpin(std::uint32_t p)
    {
        if (!m_extra.empty()) [[unlikely]] {
            if (int* n = m_extra.find(p)) {
                if (--*n == 0)
                    m_extra.erase(p);
                return;
            }
        }
        std::uint64_t* w = m_blocks.find(p / 64);
        if (!w)
            return;
        *w &= ~(std::uint64_t { 1 } << (p % 64));
        if (*w == 0)
            m_blocks.erase(p / 64);
    }
    bool contains(std::uint32_t p) const
    {
        const std::uint64_t* w = m_blocks.find(p / 64);
        return w && (*w >> (p % 64) & 1);
    }

private:
    FlatMap<std::uint64_t> m_blocks; // frame / 64 -> one bit per frame with at least one pin
    FlatMap<int> m_extra; // frame -> pins beyond the first
};

} // namespace mms
