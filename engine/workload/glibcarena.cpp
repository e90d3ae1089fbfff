#include "workload/glibcarena.h"

#include <algorithm>
#include <string>

namespace mms {

namespace {
    constexpr std::uint64_t FASTBIN_CONSOLIDATION_THRESHOLD = 64 * 1024;
    constexpr std::uint64_t MINSIZE = 32; // smallest chunk on 64-bit
    constexpr std::uint64_t HEAP_MIN_SIZE = 32 * 1024;
    constexpr double kMallocNs = 60.0; // _int_malloc/_int_free bookkeeping, arena mutex uncontended (GUESS)

    std::uint64_t pageAlignUp(std::uint64_t b) { return (b + kPageSize - 1) / kPageSize * kPageSize; }
} // namespace

GlibcArena::GlibcArena(Kernel& k, Task& t, const ArenaParams& p, const UserSpace& user, std::uint64_t initial)
    : m_k(k)
    , m_p(p)
    , m_user(user)
{
    m_start = sys::mmap_noreserve(k, t, p.heapMax / kPageSize);
    if (m_start == sys::MAP_FAILED)
        throw ProgramError("glibc: new_heap: mmap: Cannot allocate memory");
    // new_heap(): size + top_pad, at least HEAP_MIN_SIZE, made read-write by one mprotect at arena creation.
    m_size = pageAlignUp(std::min(p.heapMax, std::max(HEAP_MIN_SIZE, initial + p.topPad)));
    m_mprotectSize = m_size;
}

Co<> GlibcArena::grow_heap(Task& t, std::uint64_t diff)
{
    FnScope fn(t, "grow_heap");
    std::uint64_t newSize = std::min(m_p.heapMax, m_size + pageAlignUp(diff));
    bool patched = m_user.glibcTrim == GlibcTrim::Madvise;
    // Vanilla glibc forgot the read-write size at the last shrink (mprotect_size = size), so it always mprotects;
    // the patched one only above the high-water mark.
    if (newSize > m_mprotectSize) {
        std::uint32_t from = vpnOf(m_mprotectSize);
        co_await sys::mprotect(m_k, t, from, vpnOf(newSize) - from);
        m_mprotectSize = newSize;
        ++m_growSyscalls;
    }
    m_size = newSize;
    if (!patched)
        m_mprotectSize = m_size;
}

Co<> GlibcArena::heap_trim(Task& t)
{
    std::uint64_t top = m_size - m_brk;
    if (top < m_p.trimThreshold || top < MINSIZE + 1 + m_p.topPad)
        co_return;
    // Release whole pages above the pad.
    std::uint64_t extra = (top - MINSIZE - 1 - m_p.topPad) / kPageSize * kPageSize;
    if (extra == 0)
        co_return;
    FnScope fn(t, "shrink_heap");
    std::uint64_t newSize = m_size - extra;
    std::uint32_t from = vpnOf(newSize);
    auto pages = static_cast<std::uint32_t>(extra / kPageSize);
    if (m_user.glibcTrim == GlibcTrim::Mprotect) {
        co_await sys::mmap_prot_none(m_k, t, from, pages);
        m_mprotectSize = newSize;
    } else {
        co_await sys::madvise(m_k, t, from, pages, m_user.advice);
    }
    m_size = newSize;
    ++m_trims;
}

Co<std::uint64_t> GlibcArena::malloc(Task& t, std::uint64_t bytes)
{
    std::uint64_t nb = std::max(MINSIZE, (bytes + 15) / 16 * 16);
    sys::compute(t, kMallocNs);
    // The model keeps every chunk in the one heap; glibc would mmap a chunk its heap cannot hold (sysmalloc), which
    // the workloads here never need at their parameters' defaults. Past it, the program gives up with the reason.
    if (m_brk + nb + MINSIZE > m_p.heapMax)
        throw ProgramError("glibc: malloc(" + std::to_string(bytes) + " bytes) with " + std::to_string(m_brk)
            + " in use does not fit the arena's heap of " + std::to_string(m_p.heapMax)
            + " bytes (HEAP_MAX_SIZE; chunks mmapped on their own are not modelled)");
    if (m_brk + nb + MINSIZE > m_size) // sysmalloc(): the top chunk is too small
        co_await grow_heap(t, m_brk + nb + MINSIZE - m_size);
    std::uint64_t off = m_brk;
    m_brk += nb;
    m_chunks.push_back(nb);
    co_return off;
}

Co<> GlibcArena::free(Task& t)
{
    if (m_chunks.empty())
        co_return;
    std::uint64_t nb = m_chunks.back();
    m_chunks.pop_back();
    m_brk -= nb;
    sys::compute(t, kMallocNs);
    // _int_free(): the chunk merges into the top; a large enough one makes free() try heap_trim().
    if (m_size - m_brk >= FASTBIN_CONSOLIDATION_THRESHOLD)
        co_await heap_trim(t);
}

Co<> GlibcArena::touch(Task& t, std::uint64_t off, std::uint64_t bytes, double streamNsPerPage, double computeNsPerPage)
{
    if (bytes == 0)
        co_return;
    std::uint32_t first = vpnOf(off), last = vpnOf(off + bytes - 1);
    for (std::uint32_t vpn = first; vpn <= last; ++vpn) {
        co_await sys::touch(m_k, t, vpn, sys::Access::Write);
        sys::stream(m_k, t, vpn, streamNsPerPage);
        if (computeNsPerPage > 0)
            sys::compute(t, computeNsPerPage);
    }
}

} // namespace mms
