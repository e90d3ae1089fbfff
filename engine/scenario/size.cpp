#include "scenario/size.h"

#include <cctype>
#include <cmath>

namespace mms {

std::optional<std::uint64_t> parseSize(const std::string& text)
{
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
    std::size_t numStart = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
        ++i;
    if (i == numStart)
        return std::nullopt;
    double value = 0;
    try {
        value = std::stod(text.substr(numStart, i - numStart));
    } catch (...) {
        return std::nullopt;
    }
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
    std::string unit = text.substr(i);
    struct U {
        const char* name;
        double mult;
    };
    static const U units[] = { { "", 1 }, { "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
        { "TiB", 1099511627776.0 }, { "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "T", 1099511627776.0 },
        { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 } };
    for (const U& u : units) {
        if (unit == u.name) {
            double bytes = value * u.mult;
            if (!std::isfinite(bytes) || bytes < 0 || bytes > 1.8e19)
                return std::nullopt;
            return static_cast<std::uint64_t>(std::llround(bytes));
        }
    }
    return std::nullopt;
}

std::string formatSize(std::uint64_t bytes)
{
    static const char* names[] = { "TiB", "GiB", "MiB", "KiB" };
    static const std::uint64_t mults[] = { 1ULL << 40, 1ULL << 30, 1ULL << 20, 1ULL << 10 };
    for (int i = 0; i < 4; ++i)
        if (bytes >= mults[i] && bytes % mults[i] == 0)
            return std::to_string(bytes / mults[i]) + names[i];
    return std::to_string(bytes);
}

} // namespace mms
