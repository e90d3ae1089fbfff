#pragma once
// A page-table entry in 32 bits:
//   none:       0
//   present:    bit 31 | dirty bit 29 | young bit 28 | pfn (28 bits: 1 TiB of RAM)
//   swap entry: bit 30 | type (5 bits, 29..25) | offset (25 bits: 128 GiB per device)
//   migration:  bits 31+30 | pfn (28 bits)

#include "hw/machine.h"
#include "mm/page.h"

#include <cstdint>

namespace mms {

using Pte = std::uint32_t;

namespace pte {
    constexpr Pte kPresent = 1u << 31;
    constexpr Pte kSwap = 1u << 30;
    constexpr Pte kDirty = 1u << 29;
    constexpr Pte kYoung = 1u << 28;
    constexpr Pte kPfnMask = (1u << 28) - 1;
    constexpr Pte kOffsetMask = (1u << 25) - 1;
    // Every frame of the largest machine and every slot of the largest swap device (hw/machine.h) is encodable.
    static_assert(kPfnMask + 1ULL >= kMaxMemoryPages, "a pfn must reach the last frame of the largest machine");
    static_assert(kOffsetMask >= kMaxSwapDevicePages, "an offset must reach the last slot of the largest swap device");

    constexpr bool none(Pte p) { return p == 0; }
    constexpr bool present(Pte p) { return (p & (kPresent | kSwap)) == kPresent; }
    constexpr bool isSwap(Pte p) { return (p & (kPresent | kSwap)) == kSwap; }
    constexpr bool isMigration(Pte p) { return (p & (kPresent | kSwap)) == (kPresent | kSwap); }
    constexpr bool dirty(Pte p) { return present(p) && (p & kDirty); }
    constexpr bool young(Pte p) { return present(p) && (p & kYoung); }
    constexpr Pfn pfn(Pte p) { return p & kPfnMask; }
    constexpr Pte mkPresent(Pfn pfn, bool dirty, bool young)
    {
        return kPresent | (dirty ? kDirty : 0) | (young ? kYoung : 0) | (pfn & kPfnMask);
    }
    constexpr Pte mkMigration(Pfn pfn) { return kPresent | kSwap | (pfn & kPfnMask); }

    // swp_entry_t: type (device) and offset packed as in the PTE, without the tag bit.
    constexpr std::uint32_t swpEntry(unsigned type, std::uint32_t offset) { return (type << 25) | (offset & kOffsetMask); }
    constexpr unsigned swpType(std::uint32_t e) { return (e >> 25) & 31u; }
    constexpr std::uint32_t swpOffset(std::uint32_t e) { return e & kOffsetMask; }
    constexpr Pte mkSwap(std::uint32_t entry) { return kSwap | entry; }
    constexpr std::uint32_t toSwpEntry(Pte p) { return p & ~(kSwap | kPresent); }
} // namespace pte

} // namespace mms
