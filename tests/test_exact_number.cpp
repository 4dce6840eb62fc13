// The CSV outputs' numbers (app/exact_number.hpp): std::to_chars at 17 digits against printf's
// "%.17g", the text the outputs always wrote, on doubles of every kind; and the text reads back as
// the same double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "app/exact_number.hpp"

namespace mechint::app {
namespace {

std::string printf_text(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

TEST(ExactNumber, WritesWhatPrintfWritesForSpecialValues) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.0,
                                      0.1,
                                      0.05,
                                      1e16,
                                      1e17,
                                      123456789012345678.0,
                                      1e-5,
                                      1e-4,
                                      9.9999999999999995e-5,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::lowest(),
                                      std::numeric_limits<double>::min(),
                                      -std::numeric_limits<double>::min(),
                                      std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::epsilon(),
                                      inf,
                                      -inf,
                                      std::numeric_limits<double>::quiet_NaN(),
                                      -std::numeric_limits<double>::quiet_NaN()};
  for (double x : values) EXPECT_EQ(exact_number(x), printf_text(x)) << "bits of " << printf_text(x);
}

TEST(ExactNumber, WritesWhatPrintfWritesForRandomBitPatternsAndReadsBack) {
  // Every exponent and mantissa: doubles from random bit patterns, and numbers of the size a run
  // writes (uniform in [-10, 10], integers, short decimals).
  std::mt19937_64 bits(20261128);
  std::uniform_real_distribution<double> state(-10.0, 10.0);
  std::uniform_int_distribution<int> integer(-100000, 100000);
  int compared = 0;
  for (int i = 0; i < 200000; ++i) {
    double x;
    const std::uint64_t pattern = bits();
    std::memcpy(&x, &pattern, sizeof x);
    for (double y : {x, state(bits), static_cast<double>(integer(bits)), integer(bits) / 1000.0}) {
      const std::string text = exact_number(y);
      ASSERT_EQ(text, printf_text(y));
      if (std::isfinite(y)) {
        const double back = std::strtod(text.c_str(), nullptr);
        ASSERT_EQ(std::memcmp(&back, &y, sizeof y), 0) << text;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 800000);
}

TEST(ExactNumber, WritesIntoTheStatedCapacity) {
  // The longest forms: a negative number with a three-digit negative exponent.
  char buffer[kExactNumberCapacity];
  const double longest = -2.2250738585072014e-308;
  const int written = write_exact_number(longest, buffer);
  EXPECT_EQ(std::string(buffer, written), printf_text(longest));
  EXPECT_LE(written, kExactNumberCapacity);
  EXPECT_EQ(written, 24);
}

}  // namespace
}  // namespace mechint::app
