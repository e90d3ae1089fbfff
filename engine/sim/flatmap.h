#pragma once
// FlatMap<V>: a small open-addressing hash map from 32-bit keys (page frame numbers, ids) to V, for the hot paths
// that used std::unordered_map and paid a heap allocation per insert. Linear probing, backward-shift deletion (no
// tombstones), power-of-two capacity grown at 1/2 load. Key 0xffffffff is reserved (it marks an empty slot).
// Nothing depends on its iteration order: it has none.

#include <cassert>
#include <cstdint>
#include <vector>

namespace mms {

// Run > 1: runs of Run consecutive keys share one home block of Run slots (see slotOf), for maps whose keys
// arrive in runs; 1: every key hashed on its own.
template <typename V, std::uint32_t Run = 1>
class FlatMap {
public:
    static constexpr std::uint32_t kEmpty = 0xffffffffu;

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    bool contains(std::uint32_t key) const { return find(key) != nullptr; }
    std::size_t count(std::uint32_t key) const { return contains(key) ? 1 : 0; }

    V* find(std::uint32_t key)
    {
        if (m_keys.empty())
            return nullptr;
        for (std::size_t i = slotOf(key);; i = (i + 1) & mask()) {
            if (m_keys[i] == key)
                return &m_vals[i];
            if (m_keys[i] == kEmpty)
                return nullptr;
        }
    }
    const V* find(std::uint32_t key) const { return const_cast<FlatMap*>(this)->find(key); }

    // The value for `key`, value-initialised when new (operator[] of the standard maps).
    V& operator[](std::uint32_t key)
    {
        assert(key != kEmpty);
        if ((m_size + 1) * 2 > m_keys.size())
            grow();
        std::size_t i = slotOf(key);
        for (; m_keys[i] != kEmpty; i = (i + 1) & mask())
            if (m_keys[i] == key)
                return m_vals[i];
        m_keys[i] = key;
        m_vals[i] = V {};
        ++m_size;
        return m_vals[i];
    }

    bool erase(std::uint32_t key)
    {
        if (m_keys.empty())
            return false;
        std::size_t i = slotOf(key);
        for (; m_keys[i] != key; i = (i + 1) & mask())
            if (m_keys[i] == kEmpty)
                return false;
        // Backward shift: move later entries of the probe run into the hole when their home allows it.
        for (std::size_t j = (i + 1) & mask();; j = (j + 1) & mask()) {
            if (m_keys[j] == kEmpty)
                break;
            std::size_t home = slotOf(m_keys[j]);
            bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                m_keys[i] = m_keys[j];
                m_vals[i] = m_vals[j];
                i = j;
            }
        }
        m_keys[i] = kEmpty;
        --m_size;
        return true;
    }

    std::size_t memoryBytes() const { return m_keys.capacity() * sizeof(std::uint32_t) + m_vals.capacity() * sizeof(V); }

private:
    std::size_t mask() const { return m_keys.size() - 1; }
    std::size_t slotOf(std::uint32_t key) const
    {
        // Fibonacci hashing: consecutive keys spread over the table. With Run > 1, runs of Run consecutive keys
        // share one home block of Run slots and the blocks are spread instead: the frames a gather pins and
        // release_pages() unpins are mostly consecutive (an address space's pages came from the allocator in
        // order), so a run of them costs the host one cache line, where a key hashed on its own cost a miss each.
        // Scattered keys are better off with Run = 1 (the blocks lengthen the probe runs a little).
        std::uint64_t block = key / Run;
        std::uint64_t home = ((block * 0x9E3779B97F4A7C15ull) >> 32) * Run + key % Run;
        return static_cast<std::size_t>(home) & mask();
    }
    void grow()
    {
        std::vector<std::uint32_t> keys = std::move(m_keys);
        std::vector<V> vals = std::move(m_vals);
        std::size_t cap = keys.empty() ? 64 : keys.size() * 2;
        m_keys.assign(cap, kEmpty);
        m_vals.assign(cap, V {});
        m_size = 0;
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] != kEmpty)
                (*this)[keys[i]] = vals[i];
    }

    std::vector<std::uint32_t> m_keys;
    std::vector<V> m_vals;
    std::size_t m_size = 0;
};

} // namespace mms
