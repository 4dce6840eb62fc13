#include "app/sweep_samples.hpp"

#include <array>
#include <cmath>
#include <random>
#include <stdexcept>

namespace mechint::app {
namespace {

/// A generator for one random `[vary]` entry: the sweep's seed and the entry's stream number
/// through std::seed_seq, whose mixing the standard specifies exactly.
std::mt19937_64 generator(std::uint64_t seed, std::uint64_t stream) {
  std::seed_seq sequence{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                         static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)};
  return std::mt19937_64(sequence);
}

/// A double in [0, 1) from the top 53 bits of a raw draw: exact, no rounding by the library.
double unit_interval(std::uint64_t raw) { return static_cast<double>(raw >> 11) * 0x1.0p-53; }

/// Bits of precision of the Sobol points: 2^32 points per dimension at most.
constexpr int kSobolBits = 32;

/// Direction numbers of the first dimensions (S. Joe and F. Y. Kuo, "Constructing Sobol sequences
/// with better two-dimensional projections", SIAM J. Sci. Comput. 30 (2008) 2635-2654; their file
/// new-joe-kuo-6.21201): the degree s of the primitive polynomial, its coefficients a (the middle
/// bits), and the initial odd numbers m_1..m_s. Dimension 1 is the van der Corput sequence.
struct SobolDimension {
  int s;
  unsigned a;
  std::array<unsigned, 5> m;
};
constexpr std::array<SobolDimension, kSobolDimensions - 1> kJoeKuo = {{
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
}};

/// v_k * 2^32 for k = 1..32 of one dimension (Bratley & Fox's recurrence).
std::array<std::uint32_t, kSobolBits> direction_numbers(int dimension) {
  std::array<std::uint32_t, kSobolBits> v{};
  if (dimension == 0) {
    for (int k = 0; k < kSobolBits; ++k) v[k] = std::uint32_t{1} << (kSobolBits - 1 - k);
    return v;
  }
  const SobolDimension& d = kJoeKuo.at(static_cast<std::size_t>(dimension - 1));
  for (int k = 0; k < d.s; ++k) v[k] = d.m[k] << (kSobolBits - 1 - k);
  for (int k = d.s; k < kSobolBits; ++k) {
    v[k] = v[k - d.s] ^ (v[k - d.s] >> d.s);
    for (int j = 1; j < d.s; ++j)
      if ((d.a >> (d.s - 1 - j)) & 1u) v[k] ^= v[k - j];
  }
  return v;
}

}  // namespace

std::vector<double> evenly_spaced(double from, double to, long count) {
  if (count < 1) throw std::invalid_argument("evenly_spaced: count must be positive");
  std::vector<double> values(static_cast<std::size_t>(count));
  for (long i = 0; i < count; ++i)
    values[i] = count == 1 ? from : from + (to - from) * static_cast<double>(i) / static_cast<double>(count - 1);
  if (count > 1) values.back() = to;
  return values;
}

std::vector<double> uniform_samples(double low, double high, long count, std::uint64_t seed, std::uint64_t stream) {
  auto g = generator(seed, stream);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (auto& x : values) x = low + (high - low) * unit_interval(g());
  return values;
}

std::vector<double> normal_samples(double mean, double sd, long count, std::uint64_t seed, std::uint64_t stream) {
  auto g = generator(seed, stream);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (auto& x : values) {
    const double u1 = 1.0 - unit_interval(g());  // (0, 1]: log(u1) is finite
    const double u2 = unit_interval(g());
    x = mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  return values;
}

std::vector<double> sobol_samples(double low, double high, long count, int dimension) {
  if (dimension < 0 || dimension >= kSobolDimensions)
    throw std::invalid_argument("sobol_samples: dimension out of range");
  if (count > (1L << kSobolBits)) throw std::invalid_argument("sobol_samples: more than 2^32 points");
  const auto v = direction_numbers(dimension);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (long i = 0; i < count; ++i) {
    std::uint32_t x = 0;
    for (int k = 0; k < kSobolBits; ++k)
      if ((static_cast<std::uint64_t>(i) >> k) & 1u) x ^= v[k];
    values[i] = low + (high - low) * (static_cast<double>(x) * 0x1.0p-32);
  }
  return values;
}

}  // namespace mechint::app
