#pragma once
/// \file
/// A double as the CSV outputs write it: 17 significant digits (`%.17g`), so that reading the text
/// back gives the same double. std::to_chars with a precision writes exactly what printf's `%.17g`
/// writes in the C locale (the standard defines it so), without printf's multiple-precision
/// arithmetic: a run that writes a row every step spent most of its time formatting numbers
/// (docs/performance.md, "Writing the rows").

#include <string>

namespace mechint::app {

/// Enough room for any double at 17 digits ("-2.2250738585072014e-308" is 24 characters).
inline constexpr int kExactNumberCapacity = 32;

/// Writes `x` as `%.17g` into `out` (room for kExactNumberCapacity characters, no terminating
/// zero) and returns the number of characters written.
int write_exact_number(double x, char* out);

/// `x` as `%.17g`.
std::string exact_number(double x);

}  // namespace mechint::app
