#pragma once
// What a page's bytes are, as far as a compressor cares: the class of data a program's stores left in it. The
// kernel never reads it but where the kernel reads the bytes themselves (zram's zero and same-filled checks and its
// compressor, block/zcomp.h); a workload states what it writes (sys::fill), a store it does not describe leaves
// program data. Two bits a page frame (mm/page.h).

#include <cstdint>

namespace mms {

enum class PageContent : std::uint8_t {
    Zero = 0, // every byte 0: a page faulted in and not written since (clear_user_highpage), memset(0)
    Same, // one byte value repeated, memset(buf, c, n) with c != 0
    Data, // program data: compresses like the Silesia corpus (~2:1)
    Random, // incompressible (encrypted or already compressed data)
};

inline const char* pageContentName(PageContent c)
{
    switch (c) {
    case PageContent::Zero: return "zero";
    case PageContent::Same: return "same";
    case PageContent::Data: return "data";
    case PageContent::Random: return "random";
    }
    return "?";
}

} // namespace mms
