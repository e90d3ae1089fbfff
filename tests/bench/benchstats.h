#pragma once
// What the benchmarks print of repeated measurements: the fastest, the median and the slowest.

#include <algorithm>
#include <vector>

namespace mms::bench {

struct Stats {
    double min, median, max;
};

inline Stats stats(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return { v.front(), v[v.size() / 2], v.back() };
}

} // namespace mms::bench
