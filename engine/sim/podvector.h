#pragma once
// PodVector<T>: a growable array of a trivially copyable T in memory from malloc, for the large arrays a run grows as
// it goes (a file's page-cache index) or sizes at boot and may never touch (the swap map). Host memory only: what a
// run computes never depends on it.
//
// - resize() grows by realloc. glibc serves a large block with mmap and grows it with mremap, which moves the host's
//   page mappings instead of copying bytes: growing never holds the old and the new array at once, and the capacity
//   beyond size() is never written, so never resident.
// - assignZeroed(n) takes n zero elements from calloc, which does not clear a fresh mmap'd block (the host kernel
//   hands out zero pages): the parts of the array a run never writes are never backed by host memory.

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>

namespace mms {

template <typename T>
class PodVector {
    static_assert(std::is_trivially_copyable_v<T>, "PodVector moves its elements with realloc");

public:
    PodVector() = default;
    PodVector(const PodVector&) = delete;
    PodVector& operator=(const PodVector&) = delete;
    ~PodVector() { std::free(m_p); }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T* data() { return m_p; }
    const T* data() const { return m_p; }
    T* begin() { return m_p; }
    T* end() { return m_p + m_size; }
    const T* begin() const { return m_p; }
    const T* end() const { return m_p + m_size; }
    T& operator[](std::size_t i) { return m_p[i]; }
    const T& operator[](std::size_t i) const { return m_p[i]; }

    // Grows to `n` elements, the new ones `fill` (never shrinks); the capacity at least doubles.
    void resize(std::size_t n, const T& fill)
    {
        if (n <= m_size)
            return;
        if (n > m_capacity) {
            std::size_t cap = n > 2 * m_capacity ? n : 2 * m_capacity;
            void* p = std::realloc(m_p, cap * sizeof(T));
            if (!p)
                throw std::bad_alloc();
            m_p = static_cast<T*>(p);
            m_capacity = cap;
        }
        for (std::size_t i = m_size; i < n; ++i)
            m_p[i] = fill;
        m_size = n;
    }

    // `n` elements whose bytes are all zero, replacing any held.
    void assignZeroed(std::size_t n)
    {
        std::free(m_p);
        m_p = nullptr;
        m_size = m_capacity = 0;
        if (n == 0)
            return;
        void* p = std::calloc(n, sizeof(T));
        if (!p)
            throw std::bad_alloc();
        m_p = static_cast<T*>(p);
        m_size = m_capacity = n;
    }

private:
    T* m_p = nullptr;
    std::size_t m_size = 0;
    std::size_t m_capacity = 0;
};

} // namespace mms
