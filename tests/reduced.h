#pragma once
// Reduced cases for sanitized builds. Under ASan+UBSan the engine runs 3 to 7 times slower (tst_mmapread 5.7 s ->
// 42 s, tst_swapfree 7.5 s -> 22 s on 2 cores), so the suites whose cases take minutes there (tst_madvfree,
// tst_lruadd, tst_cli) run those cases at a smaller scale: the same code paths and the same assertions over fewer
// pages, which is what a sanitizer needs (every path taken, not every page). Where an assertion only holds at the
// full scale, the case says so and checks its reduced form. The choice is made at compile time, so the `asan`,
// `tsan`, `asan-engine` and `tsan-engine` builds all get it; MMSCOPE_TEST_REDUCED=1 selects the reduced cases in any
// build (to see that they pass without paying for a sanitizer) and =0 the full ones in a sanitized build.

#include <cstdlib>

namespace mms::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) // GCC
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) // clang
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

inline bool reduced()
{
    if (const char* e = std::getenv("MMSCOPE_TEST_REDUCED"); e && *e)
        return e[0] == '1';
    return kSanitized;
}

// `full` in a plain build, `small` in a reduced one.
inline double scaleFor(double full, double small) { return reduced() ? small : full; }

} // namespace mms::test
