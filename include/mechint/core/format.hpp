#pragma once
/// \file
/// Number formatting for messages and output files.

#include <cstdio>
#include <string>

namespace mechint {

/// Shortest form that round-trips a double (`%.17g`), or fewer digits when asked.
inline std::string format_number(double x, int significant_digits = 6) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant_digits, x);
  return buffer;
}

}  // namespace mechint
