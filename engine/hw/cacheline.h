#pragma once
// Cache-line ownership: which CPU wrote each tracked line last (the line's Modified owner under MESI, one writer at a
// time). Writing a line another CPU owns moves it here first; what that trip costs is the machine's
// (Sched::lineTransferNs: same or other socket), charged by the code that writes.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mms {

class CacheLines {
public:
    // Tracks `n` lines, none owned yet; a set with no lines tracks nothing (a bare kernel's tests).
    void track(std::size_t n) { m_owner.assign(n, -1); }
    bool tracking() const { return !m_owner.empty(); }
    // The owner of `line` (-1: no CPU wrote it yet); writable, so that a write can move it in one look-up.
    std::int16_t& owner(std::size_t line) { return m_owner[line]; }
    // Every owner by line, for loops that skip the lines a CPU already owns with a compare.
    const std::int16_t* owners() const { return m_owner.data(); }

private:
    std::vector<std::int16_t> m_owner;
};

} // namespace mms
