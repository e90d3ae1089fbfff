#pragma once
// IMmapList: a file's VMAs as its i_mmap interval tree holds them, in the order they were linked (the order rmap
// walks visit them). vma_link appends; unlink_file_vma of one (mm, start) finds it through an index instead of a
// scan, and leaves a hole that the next compaction closes (once holes outnumber VMAs), so both are O(1) amortised
// however many processes map the file (thousands in aim7). Walks skip the holes.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <unordered_map>
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
        m_index.emplace(Key { v.mm, v.start }, m_v.size());
        m_v.push_back(v);
        ++m_live;
    }
    // Removes every VMA of `mm` that starts at `start` (one at most, as the kernel's tree holds it).
    void erase(const void* mm, std::uint32_t start)
    {
        auto [from, to] = m_index.equal_range(Key { mm, start });
        if (from == to)
            return;
        for (auto it = from; it != to; ++it) {
            m_v[it->second].mm = nullptr;
            --m_live;
        }
        m_index.erase(from, to);
        if (m_v.size() - m_live > std::max<std::size_t>(m_live, 32))
            compact();
    }

private:
    struct Key {
        const void* mm;
        std::uint32_t start;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const
        {
            return std::hash<const void*> {}(k.mm) ^ (std::size_t { k.start } * 0x9e3779b97f4a7c15ull);
        }
    };
    // Closes the holes, keeping the order, and re-points the index at the moved VMAs.
    void compact()
    {
        std::erase_if(m_v, [](const V& v) { return !v.mm; });
        m_index.clear();
        for (std::size_t i = 0; i < m_v.size(); ++i)
            m_index.emplace(Key { m_v[i].mm, m_v[i].start }, i);
    }

    std::vector<V> m_v; // linked VMAs in link order, and holes
    std::unordered_multimap<Key, std::size_t, KeyHash> m_index; // (mm, start) -> position in m_v
    std::size_t m_live = 0;
};

} // namespace mms
