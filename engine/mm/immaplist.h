#pragma once
// IMmapList: a file's VMAs as its i_mmap interval tree holds them, in the order they were linked (the order rmap
// walks visit them). vma_link appends; unlink_file_vma of one (mm, start) finds it through a hash index instead of a
// scan, and leaves a hole that the next compaction closes (once holes outnumber VMAs), so both are O(1) amortised
// however many processes map the file (thousands in aim7). Walks skip the holes.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace mms {

template <typename V> // FileVma (mm/filemap.h): mm, start, pages, pgoff; a hole has no mm
class IMmapList {
public:
    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = V;
        using difference_type = std::ptrdiff_t;
        using pointer = const V*;
        using reference = const V&;
        const_iterator() = default;
        const_iterator(const V* p, const V* end)
            : m_p(p)
            , m_end(end)
        {
            skip();
        }
        const V& operator*() const { return *m_p; }
        const V* operator->() const { return m_p; }
        const_iterator& operator++()
        {
            ++m_p;
            skip();
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator old = *this;
            ++*this;
            return old;
        }
        bool operator==(const const_iterator& o) const { return m_p == o.m_p; }

    private:
        void skip()
        {
            while (m_p != m_end && !m_p->mm)
                ++m_p;
        }
        const V* m_p = nullptr;
        const V* m_end = nullptr;
    };

    std::size_t size() const { return m_live; }
    bool empty() const { return m_live == 0; }
    const_iterator begin() const { return { m_v.data(), m_v.data() + m_v.size() }; }
    const_iterator end() const { return { m_v.data() + m_v.size(), m_v.data() + m_v.size() }; }

    void push_back(const V& v)
    {
        assert(v.mm);
        m_v.push_back(v);
        ++m_live;
        if (m_live * 2 > m_table.size())
            rehash(std::max<std::size_t>(16, m_table.size() * 2));
        else
            index(m_v.size() - 1);
    }
    // Removes every VMA of `mm` that starts at `start` (one at most, as the kernel's tree holds it).
    void erase(const void* mm, std::uint32_t start)
    {
        if (m_dupes) { // some (mm, start) was linked twice: every match goes, found by a walk
            for (V& v : m_v)
                if (v.mm && v.mm == mm && v.start == start) {
                    v.mm = nullptr;
                    --m_live;
                }
            rehash(m_table.size());
        } else {
            if (m_table.empty())
                return;
            std::size_t i = homeOf(mm, start);
            for (;; i = (i + 1) & mask()) {
                if (m_table[i] == 0)
                    return;
                const V& v = m_v[m_table[i] - 1];
                if (v.mm == mm && v.start == start)
                    break;
            }
            m_v[m_table[i] - 1].mm = nullptr;
            --m_live;
            unindex(i);
        }
        if (m_v.size() - m_live > std::max<std::size_t>(m_live, 32)) {
            std::erase_if(m_v, [](const V& v) { return !v.mm; });
            rehash(m_table.size());
        }
    }

private:
    // An open-addressing index from (mm, start) to the position in m_v (plus one; 0 is an empty slot): linear
    // probing, backward-shift deletion, at most half full.
    std::size_t mask() const { return m_table.size() - 1; }
    std::size_t homeOf(const void* mm, std::uint32_t start) const
    {
        const auto p = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(mm));
        std::uint64_t h = (p ^ (std::uint64_t { start } << 40)) * 0x9e3779b97f4a7c15ull;
        return static_cast<std::size_t>(h >> 32) & mask();
    }
    void index(std::size_t pos)
    {
        const V& v = m_v[pos];
        std::size_t i = homeOf(v.mm, v.start);
        for (; m_table[i] != 0; i = (i + 1) & mask()) {
            const V& o = m_v[m_table[i] - 1];
            if (o.mm == v.mm && o.start == v.start)
                m_dupes = true;
        }
        m_table[i] = static_cast<std::uint32_t>(pos + 1);
    }
    void unindex(std::size_t i)
    {
        for (std::size_t j = (i + 1) & mask(); m_table[j] != 0; j = (j + 1) & mask()) {
            const V& v = m_v[m_table[j] - 1];
            std::size_t home = homeOf(v.mm, v.start);
            bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                m_table[i] = m_table[j];
                i = j;
            }
        }
        m_table[i] = 0;
    }
    void rehash(std::size_t slots)
    {
        m_table.assign(slots, 0);
        m_dupes = false;
        for (std::size_t p = 0; p < m_v.size(); ++p)
            if (m_v[p].mm)
                index(p);
    }

    std::vector<V> m_v; // linked VMAs in link order, and holes
    std::vector<std::uint32_t> m_table;
    bool m_dupes = false; // an (mm, start) is linked more than once
    std::size_t m_live = 0;
};

} // namespace mms
