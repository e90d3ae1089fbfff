#include "workload/aim7workfile.h"

namespace mms::aim7 {

std::vector<int> taskCounts(int jobs)
{
    int total = 0;
    for (const TestDef& d : kWorkfile)
        total += d.hits;
    std::vector<int> n;
    for (const TestDef& d : kWorkfile) {
        double load = static_cast<double>(d.hits) / total * jobs;
        int whole = static_cast<int>(load);
        if (load - whole >= 0.5)
            ++whole;
        else if (whole == 0 && load > 0)
            whole = 1;
        n.push_back(whole);
    }
    return n;
}

int pickTest(Rng& rng, std::vector<int>& left)
{
    int kinds = 0;
    for (int n : left)
        kinds += n > 0;
    auto r = static_cast<int>(rng.below(static_cast<std::uint64_t>(kinds)));
    for (std::size_t i = 0; i < left.size(); ++i) {
        if (left[i] > 0 && r-- == 0) {
            --left[i];
            return static_cast<int>(i);
        }
    }
    return 0;
}

} // namespace mms::aim7
