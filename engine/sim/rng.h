#pragma once
// The one random generator of the engine: splitmix64, seeded from (scenario seed, variant, point, repetition,
// stream). The sampling functions are our own so that every standard library gives the same numbers.

#include <cstdint>
#include <string_view>

namespace mms {

class Rng {
public:
    explicit Rng(std::uint64_t seed = 0)
        : m_state(seed)
    {
    }
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform integer in [0, n), n > 0 (multiply-shift; the tiny bias is irrelevant here and host-independent).
    std::uint64_t below(std::uint64_t n)
    {
        __extension__ using U128 = unsigned __int128;
        return static_cast<std::uint64_t>((static_cast<U128>(next()) * n) >> 64);
    }
    // Uniform double in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Multiplicative jitter in [1 - spread, 1 + spread].
    double jitter(double spread) { return 1.0 + spread * (2.0 * uniform() - 1.0); }

    // Mix several values into one seed (for deriving per-run and per-task streams).
    static std::uint64_t mix(std::uint64_t a, std::uint64_t b)
    {
        Rng r(a ^ (b * 0xd1b54a32d192ed03ULL));
        r.next();
        return r.next();
    }
    static std::uint64_t hash(std::string_view s)
    {
        std::uint64_t h = 1469598103934665603ULL; // FNV-1a
        for (char c : s)
            h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        return h;
    }

private:
    std::uint64_t m_state;
};

} // namespace mms
