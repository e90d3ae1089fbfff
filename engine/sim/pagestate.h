#pragma once
// What the page map shows of a page frame, one byte per page: the state the kernel's PageArray::state() derives
// from the page's flags and list (mm/page.h) and the recorder stores as it is. A value type of its own, so that the
// kernel and the readers of a recording (run/recording.h, the desktop app) share one definition and the readers
// need no kernel header.

#include <cstdint>

namespace mms {

enum class PageState : std::uint8_t {
    Free = 0,
    AnonActive,
    AnonInactive,
    FileActive,
    FileInactive,
    Lazyfree,
    SwapCache,
    UnderIo,
    Isolated,
    Pagevec,
    Unevictable,
    Kernel, // allocated, on no list (e.g. just faulted in, or a kernel page)
    Count
};

} // namespace mms
