#include "app/exact_number.hpp"

#include <charconv>

namespace mechint::app {

int write_exact_number(double x, char* out) {
  // Never fails: 32 characters hold every double at 17 significant digits.
  const std::to_chars_result r = std::to_chars(out, out + kExactNumberCapacity, x, std::chars_format::general, 17);
  return static_cast<int>(r.ptr - out);
}

std::string exact_number(double x) {
  char buffer[kExactNumberCapacity];
  return std::string(buffer, static_cast<std::size_t>(write_exact_number(x, buffer)));
}

}  // namespace mechint::app
