#pragma once
/// \file
/// Number formatting for messages and output files.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

/// The length of the well-formed UTF-8 sequence of a printable character starting at `text[i]`
/// (2 to 4 bytes), or 0: an ASCII byte, a malformed or overlong sequence, a surrogate, or a character
/// that could disturb a terminal line (C1 controls, zero-width and bidirectional formatting marks,
/// line and paragraph separators, the byte-order mark).
inline std::size_t printable_utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  char32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, code = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, code = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  const bool unprintable = code < 0xa0 || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff ||
                           (code >= 0x200b && code <= 0x200f) || (code >= 0x2028 && code <= 0x202e) ||
                           (code >= 0x2060 && code <= 0x206f) || code == 0xfeff || (code >= 0xfff9 && code <= 0xfffb);
  return overlong || unprintable ? 0 : length;
}

/// `text` as it may appear in a one-line message: quoted, every byte outside printable ASCII shown
/// as an escape (\n, \t, \xNN) but for well-formed printable UTF-8 characters (q̇, é), which are
/// kept, and cut after `max_length` characters with the full length stated, so that a value from
/// the command line or a file can neither break the line, nor reorder or hide its text, nor flood it.
inline std::string quote_for_message(std::string_view text, std::size_t max_length = 40) {
  std::string out = "'";
  std::size_t shown = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (shown == max_length) {
      out += "...' (" + std::to_string(text.size()) + " bytes)";
      return out;
    }
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (const std::size_t length = byte >= 0x80 ? printable_utf8_length(text, i) : 0; length > 0) {
      out.append(text.substr(i, length));
      i += length;
      ++shown;
      continue;
    }
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
    ++i;
    ++shown;
  }
  return out + "'";
}

/// A message as one printable line: control characters and bytes outside printable ASCII and
/// UTF-8 escaped as in quote_for_message, cut after `max_length` characters.
inline std::string printable_line(std::string_view text, std::size_t max_length = 400) {
  std::string quoted = quote_for_message(text, max_length);
  // Drop the quotes quote_for_message puts around the text (and keep its "... (N bytes)" note).
  quoted.erase(0, 1);
  const auto close = quoted.rfind('\'');
  if (close != std::string::npos) quoted.erase(close, 1);
  return quoted;
}

/// Names joined by ", " for a message ("a, b, c"); empty for none.
inline std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace mechint
