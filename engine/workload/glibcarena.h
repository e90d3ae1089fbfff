#pragma once
// glibc's per-thread malloc arena (ptmalloc2, malloc/arena.c of 2007) as far as the kernel sees it: a heap is a
// HEAP_MAX_SIZE reservation mapped PROT_NONE whose bottom heap->size bytes are read-write. malloc() carves chunks
// from the top chunk and grows the heap when the top is too small (grow_heap); free() of a chunk of at least
// FASTBIN_CONSOLIDATION_THRESHOLD merges it into the top and calls heap_trim(), which gives the top back to the
// kernel above the pad (shrink_heap). What grow and shrink cost the kernel is the glibc.trim toggle:
//  - mprotect (vanilla glibc): shrink = mmap(PROT_NONE, MAP_FIXED), which zaps the pages, and forgets the
//    read-write size; every regrow is an mprotect(PROT_READ|PROT_WRITE). Both take mmap_sem for write.
//  - madvise (Jakub Jelinek's patch, <20070421071202.GA355@devserv.devel.redhat.com>): shrink =
//    madvise(MADV_FREE), or MADV_DONTNEED where the kernel has no MADV_FREE (madvise.advice); heap->mprotect_size
//    remembers the read-write high-water mark, so regrowing below it is free of system calls.
// Chunks are freed in LIFO order here (a query's memory is released when the query ends), which keeps the model to
// the top chunk, the only part of the heap the kernel ever sees.

#include "kernel/syscalls.h"
#include "workload/workload.h"

#include <vector>

namespace mms {

struct ArenaParams {
    std::uint64_t trimThreshold = 128 * 1024; // M_TRIM_THRESHOLD (DEFAULT_TRIM_THRESHOLD, 128 KiB)
    std::uint64_t topPad = 128 * 1024; // M_TOP_PAD (DEFAULT_TOP_PAD 131072, glibc sysdeps/generic/malloc-machine.h)
    std::uint64_t heapMax = 64ull << 20; // HEAP_MAX_SIZE = 2 * DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
};

class GlibcArena {
public:
    // Reserves the heap in the calling thread's process (mmap) with `initial` bytes read-write (new_heap). `user`:
    // which glibc (glibc.trim) and which madvise advice it uses.
    GlibcArena(Kernel& k, Task& t, const ArenaParams& p, const UserSpace& user, std::uint64_t initial);

    // malloc(bytes): the chunk's first byte (offset into the heap). May call grow_heap().
    Co<std::uint64_t> malloc(Task& t, std::uint64_t bytes);
    // free() of the most recent chunk (LIFO). May call heap_trim().
    Co<> free(Task& t);
    // The user writes [off, off + bytes): pages not mapped fault, mapped ones just get their young and dirty bits;
    // each page is then a memory stream of streamNsPerPage alone (sys::stream) and computeNsPerPage of work in the
    // caches (sys::compute).
    Co<> touch(Task& t, std::uint64_t off, std::uint64_t bytes, double streamNsPerPage, double computeNsPerPage = 0.0);

    std::uint64_t heapSize() const { return m_size; }
    std::uint64_t trims() const { return m_trims; }
    std::uint64_t grows() const { return m_growSyscalls; }

private:
    Co<> grow_heap(Task& t, std::uint64_t diff);
    Co<> heap_trim(Task& t);
    std::uint32_t vpnOf(std::uint64_t off) const { return m_start + static_cast<std::uint32_t>(off / kPageSize); }

    Kernel& m_k;
    ArenaParams m_p;
    UserSpace m_user;
    std::uint32_t m_start = 0; // first vpn of the reservation
    std::uint64_t m_size = 0; // heap->size: the read-write bytes
    std::uint64_t m_mprotectSize = 0; // heap->mprotect_size (patched glibc)
    std::uint64_t m_brk = 0; // end of the chunks in use; the top chunk is [m_brk, m_size)
    std::vector<std::uint64_t> m_chunks; // sizes of the chunks in use, LIFO
    std::uint64_t m_trims = 0;
    std::uint64_t m_growSyscalls = 0;
};

} // namespace mms
