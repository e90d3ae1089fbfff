#pragma once
// ReusedAllocator<T>: the allocator of the large arrays a run sizes once at boot and writes whole (struct page's
// arrays; the swap map, mostly untouched, is a PodVector instead). A block of kMinBytes or more that a run frees
// stays with its host thread, and the next run on that thread whose array needs exactly as many bytes (a run of the
// same machine) takes it back: its vector then writes its initial values into memory that is already resident, where
// fresh memory would first be zeroed page by page by the host kernel (and faulted in), only to be written again. A
// run of another shape finds no block that fits: every cached block is then freed before the new one is allocated,
// so the cache never adds to the peak (it holds at most what one run freed, and gives it back before the next shape
// is allocated). The runner's workers free what is left when their pool is done.
//
// Host memory only: what a run computes never depends on where its arrays lie or what they held.

#include <cstddef>
#include <new>
#include <vector>

namespace mms {

class ReusedBlocks {
public:
    static constexpr std::size_t kMinBytes = std::size_t { 1 } << 20;

    static void* take(std::size_t bytes)
    {
        if (bytes < kMinBytes)
            return ::operator new(bytes);
        std::vector<Block>& cache = blocks().v;
        std::size_t best = 0;
        while (best < cache.size() && cache[best].bytes != bytes)
            ++best;
        if (best == cache.size()) { // a run of another shape: what is cached will not be asked for
            release();
            return ::operator new(bytes);
        }
        void* p = cache[best].p;
        cache.erase(cache.begin() + static_cast<std::ptrdiff_t>(best));
        return p;
    }
    // `bytes`: what take() was asked for, and so the block's size.
    static void give(void* p, std::size_t bytes) noexcept
    {
        if (bytes < kMinBytes) {
            ::operator delete(p);
            return;
        }
        try {
            blocks().v.push_back(Block { p, bytes });
        } catch (...) {
            ::operator delete(p);
        }
    }
    // Frees every cached block of this thread.
    static void release() noexcept
    {
        for (const Block& b : blocks().v)
            ::operator delete(b.p);
        blocks().v.clear();
    }

private:
    struct Block {
        void* p;
        std::size_t bytes;
    };
    struct Cache {
        std::vector<Block> v;
        ~Cache()
        {
            for (const Block& b : v)
                ::operator delete(b.p);
        }
    };
    static Cache& blocks()
    {
        thread_local Cache c;
        return c;
    }
};

template <typename T>
struct ReusedAllocator {
    using value_type = T;
    ReusedAllocator() = default;
    template <typename U>
    ReusedAllocator(const ReusedAllocator<U>&) noexcept
    {
    }
    T* allocate(std::size_t n) { return static_cast<T*>(ReusedBlocks::take(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { ReusedBlocks::give(p, n * sizeof(T)); }
    template <typename U>
    bool operator==(const ReusedAllocator<U>&) const noexcept
    {
        return true;
    }
};

// A vector whose storage, if large, is reused by the next run on the same host thread.
template <typename T>
using ReusedVector = std::vector<T, ReusedAllocator<T>>;

} // namespace mms
