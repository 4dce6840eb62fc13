// The values of a sweep file's [vary] (app/sweep_samples.hpp): ranges end exactly at their ends,
// random samples have the moments of their distribution (deterministic: fixed seeds, so the
// tolerances are not a matter of chance), and the Sobol points have the properties that define
// them — each dimension's first 2^k points are the multiples of 2^-k, dimensions 1 and 2 form a
// (0, m, 2)-net — and dimension 2 the known first points 0, 1/2, 3/4, 1/4, 5/8, ...
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "app/sweep_file.hpp"
#include "app/sweep_samples.hpp"
#include "mechint/core/errors.hpp"

namespace mechint::app {
namespace {

TEST(SweepSamples, RangesAreEvenlySpacedAndEndExactly) {
  const auto x = evenly_spaced(-0.4, 0.4, 7);
  ASSERT_EQ(x.size(), 7u);
  EXPECT_EQ(x.front(), -0.4);
  EXPECT_EQ(x.back(), 0.4);
  for (std::size_t i = 1; i < x.size(); ++i) EXPECT_NEAR(x[i] - x[i - 1], 0.8 / 6, 1e-15);
  EXPECT_EQ(evenly_spaced(3.0, 5.0, 1), std::vector<double>{3.0});
}

TEST(SweepSamples, UniformAndNormalHaveTheirMoments) {
  const long n = 200000;
  const auto u = uniform_samples(2.0, 5.0, n, 42, 0);
  double mean = 0.0, var = 0.0;
  for (const double x : u) {
    EXPECT_TRUE(x >= 2.0 && x < 5.0);
    mean += x / n;
  }
  for (const double x : u) var += (x - mean) * (x - mean) / (n - 1);
  EXPECT_NEAR(mean, 3.5, 5 * std::sqrt(0.75 / n));
  EXPECT_NEAR(var, 0.75, 0.01);

  const auto g = normal_samples(1.0, 2.0, n, 42, 1);
  mean = var = 0.0;
  double within_one_sd = 0.0;
  for (const double x : g) mean += x / n;
  for (const double x : g) {
    var += (x - mean) * (x - mean) / (n - 1);
    within_one_sd += std::abs(x - 1.0) < 2.0 ? 1.0 / n : 0.0;
  }
  EXPECT_NEAR(mean, 1.0, 5 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(var, 4.0, 0.06);
  EXPECT_NEAR(within_one_sd, 0.6827, 0.005);
}

TEST(SweepSamples, SeedsAndStreamsGiveTheSameOrOtherSequences) {
  EXPECT_EQ(uniform_samples(0, 1, 5, 1, 0), uniform_samples(0, 1, 5, 1, 0));
  EXPECT_NE(uniform_samples(0, 1, 5, 1, 0), uniform_samples(0, 1, 5, 2, 0));
  EXPECT_NE(uniform_samples(0, 1, 5, 1, 0), uniform_samples(0, 1, 5, 1, 1));
}

TEST(SweepSamples, SobolPointsAreNets) {
  const int k = 10;
  const long n = 1L << k;
  for (int d = 0; d < kSobolDimensions; ++d) {
    const auto x = sobol_samples(0.0, 1.0, n, d);
    std::set<long> cells;
    for (const double v : x) {
      const double scaled = v * n;
      EXPECT_EQ(scaled, std::floor(scaled)) << "dimension " << d;
      cells.insert(static_cast<long>(scaled));
    }
    EXPECT_EQ(cells.size(), static_cast<std::size_t>(n)) << "dimension " << d;
  }
  // Dimensions 1 and 2: every elementary box of area 2^-k holds exactly one of the first 2^k points.
  const auto a = sobol_samples(0.0, 1.0, n, 0), b = sobol_samples(0.0, 1.0, n, 1);
  for (int j = 0; j <= k; ++j) {
    std::set<std::pair<long, long>> boxes;
    for (long i = 0; i < n; ++i)
      boxes.insert({static_cast<long>(a[i] * (1L << j)), static_cast<long>(b[i] * (1L << (k - j)))});
    EXPECT_EQ(boxes.size(), static_cast<std::size_t>(n)) << "boxes 2^-" << j << " x 2^-" << (k - j);
  }
  const std::vector<double> known = {0, 0.5, 0.75, 0.25, 0.625, 0.125, 0.375, 0.875};
  EXPECT_EQ(sobol_samples(0.0, 1.0, 8, 1), known);
  EXPECT_EQ(sobol_samples(-1.0, 1.0, 2, 0), (std::vector<double>{-1.0, 0.0}));
}

TEST(SweepFile, GridOrderHasTheLastNameFastest) {
  const SweepSpec spec = parse_sweep_text(
      "system = \"kepler\"\n[vary]\nvy = [1, 2]\nx = { from = 0.0, to = 1.0, count = 3 }\n", "grid.toml");
  ASSERT_EQ(spec.members, 6u);
  ASSERT_EQ(spec.vary.size(), 2u);
  EXPECT_EQ(spec.vary[0].name, "vy");  // the file's order, not the alphabet's
  EXPECT_EQ(spec.value_indices(0), (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(spec.value_indices(1), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(spec.value_indices(3), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(spec.vary[1].texts, (std::vector<std::string>{"0", "0.5", "1"}));
}

// [vary]'s values are counted before they are generated: a name within the member limit whose
// count takes [vary] past kMaxSweepValues in all is refused at that count, with its line and
// column, before any of its values exist (the test would otherwise allocate gigabytes).
TEST(SweepFile, VaryHoldsAtMostTheValueLimitInAll) {
  const auto text = [](std::size_t count) {
    return "system = \"kepler\"\n[vary]\nx = [1, 2]\n"
           "vy = { from = 0.0, to = 1.0, count = " + std::to_string(count) + " }\n";
  };
  ASSERT_LE(kMaxSweepValues - 1, kMaxSweepMembers);  // the count alone is allowed
  try {
    parse_sweep_text(text(kMaxSweepValues - 1), "many.toml");
    FAIL() << "accepted " << kMaxSweepValues + 1 << " values";
  } catch (const InvalidInput& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("many.toml:4:", 0), 0u) << message;
    EXPECT_NE(message.find("more than " + std::to_string(kMaxSweepValues) + " values in all"), std::string::npos)
        << message;
  }
  EXPECT_EQ(parse_sweep_text(text(3), "many.toml").members, 6u);
}

}  // namespace
}  // namespace mechint::app
