#pragma once
/// \file
/// Number formatting for messages and output files.

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mechint {

/// Shortest form that round-trips a double (`%.17g`), or fewer digits when asked.
inline std::string format_number(double x, int significant_digits = 6) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant_digits, x);
  return buffer;
}

/// Shortest decimal text that reads back as exactly `x`.
inline std::string format_exact(double x) {
  char buffer[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  return buffer;
}

}  // namespace mechint
