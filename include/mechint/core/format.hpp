#pragma once
/// \file
/// Number formatting for messages and output files.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

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

/// `text` as it may appear in a one-line message: quoted, every byte outside printable ASCII shown
/// as an escape (\n, \t, \xNN), and cut after `max_length` characters with the full length
/// stated, so that a value from the command line or a file can neither break the line nor flood it.
inline std::string quote_for_message(std::string_view text, std::size_t max_length = 40) {
  std::string out = "'";
  std::size_t shown = 0;
  for (const char c : text) {
    if (shown == max_length) {
      out += "...' (" + std::to_string(text.size()) + " bytes)";
      return out;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte >= 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02x", byte);
      out += escape;
    } else {
      out += c;
    }
    ++shown;
  }
  return out + "'";
}

/// A message as one printable line: control characters and bytes outside ASCII escaped as in
/// quote_for_message, cut after `max_length` characters.
inline std::string printable_line(std::string_view text, std::size_t max_length = 400) {
  std::string quoted = quote_for_message(text, max_length);
  // Drop the quotes quote_for_message puts around the text (and keep its "... (N bytes)" note).
  quoted.erase(0, 1);
  const auto close = quoted.rfind('\'');
  if (close != std::string::npos) quoted.erase(close, 1);
  return quoted;
}

}  // namespace mechint
