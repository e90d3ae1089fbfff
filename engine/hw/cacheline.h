#pragma once
// Cache-line ownership and residency: which CPU wrote each tracked line last (the line's Modified owner under MESI,
// one writer at a time), and when, on the clock of that CPU's last-level cache. Writing a line another CPU owns
// moves it here first (Sched::lineTransferNs: within a cache, a socket, or between sockets); a line that has left
// every cache since, pushed out by the bytes streamed through its cache after it, comes from memory
// (Sched::lineMissNs). The code that writes charges what the trip costs.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mms {

class CacheLines {
public:
    // A last-level cache's clock: the bytes streamed through it since boot, in units of an eighth of its size. A
    // line whose stamp is kEvictedAfter units behind its cache's clock has been pushed out (a cache keeps the most
    // recently used lines, and every streamed byte passes through it). 16 bits wrap after 8192 cache sizes: a line
    // older than that reads as recent again once in 8192 (a 0.01 % error, for two bytes a line instead of four).
    using Stamp = std::uint16_t;
    static constexpr int kUnitsPerCache = 8;
    static constexpr Stamp kEvictedAfter = kUnitsPerCache;
    struct Line {
        std::int16_t owner = -1; // -1: no CPU wrote it since boot (in memory only)
        Stamp stamp = 0; // the owner's cache clock at its last write
    };

    // Tracks `n` lines, none owned yet; a set with no lines tracks nothing (a bare kernel's tests).
    void track(std::size_t n) { m_lines.assign(n, Line {}); }
    bool tracking() const { return !m_lines.empty(); }
    // The line's owner and stamp; writable, so that a write can move it in one look-up.
    Line& line(std::size_t i) { return m_lines[i]; }
    static bool evicted(Stamp clock, Stamp stamp) { return static_cast<Stamp>(clock - stamp) >= kEvictedAfter; }

private:
    std::vector<Line> m_lines;
};

} // namespace mms
