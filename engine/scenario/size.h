#pragma once
// Sizes in scenario files: "512MiB", "3GiB", "4KiB", "100GB" (powers of 1000) or a plain number of bytes.

#include <cstdint>
#include <optional>
#include <string>

namespace mms {

std::optional<std::uint64_t> parseSize(const std::string& text);
std::string formatSize(std::uint64_t bytes); // the largest binary unit that divides exactly

} // namespace mms
