#pragma once
/// \file
/// The values a sweep file's `[vary]` entries stand for (DESIGN §9): evenly spaced ranges and
/// random samples. Random samples must be the same on every machine and with every C++ library:
/// they are derived from the raw output of std::mt19937_64 (whose sequence the standard fixes) by
/// the formulas here, not by std::uniform_real_distribution or std::normal_distribution (whose
/// algorithms are left to each library). The one dependence left is on the C library's log and cos
/// for normal samples.

#include <cstdint>
#include <vector>

namespace mechint::app {

/// `count` values from `from` to `to` inclusive, evenly spaced: from + (to - from) * i / (count - 1),
/// the last exactly `to`; count 1 gives `from`. count must be >= 1.
std::vector<double> evenly_spaced(double from, double to, long count);

/// `count` samples uniform in [low, high), from a generator seeded by (seed, stream).
std::vector<double> uniform_samples(double low, double high, long count, std::uint64_t seed, std::uint64_t stream);

/// `count` samples normal with mean `mean` and standard deviation `sd` (Box–Muller, the cosine
/// branch: two raw draws per sample), from a generator seeded by (seed, stream).
std::vector<double> normal_samples(double mean, double sd, long count, std::uint64_t seed, std::uint64_t stream);

/// Most dimensions of the Sobol sequence sobol_samples offers.
inline constexpr int kSobolDimensions = 8;

/// The first `count` points of dimension `dimension` (0-based, < kSobolDimensions) of the Sobol
/// sequence (Joe & Kuo direction numbers), starting at the point 0, scaled to [low, high): point i
/// is the XOR of the direction numbers of the set bits of i (Sobol's definition, not the Gray-code
/// order), so the first 2^k points of a dimension are the multiples of 2^-k in some order.
std::vector<double> sobol_samples(double low, double high, long count, int dimension);

}  // namespace mechint::app
