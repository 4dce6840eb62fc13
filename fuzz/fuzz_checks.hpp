#pragma once
// What every fuzz harness asserts of mechint's messages (docs/fuzzing.md): a finding traps, so that
// libFuzzer reports it with the input.
#include <cstddef>
#include <string>
#include <string_view>

#define FUZZ_CHECK(condition)             \
  do {                                    \
    if (!(condition)) __builtin_trap();   \
  } while (false)

namespace mechint::fuzz {

/// Only printable ASCII: one line a terminal shows as it is.
inline bool printable(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) return false;
  }
  return true;
}

/// One printable line `LABEL:LINE:COLUMN: what`, of bounded length (the readers of TOML files).
inline void check_located_message(std::string_view message, std::string_view label) {
  FUZZ_CHECK(printable(message));
  FUZZ_CHECK(message.size() <= 2 * 1000 + label.size() + 64);
  FUZZ_CHECK(message.starts_with(std::string(label) + ":"));
  std::size_t i = label.size() + 1;
  for (int field = 0; field < 2; ++field) {
    const std::size_t digits = i;
    while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
    FUZZ_CHECK(i > digits && i < message.size() && message[i] == ':');
    ++i;
  }
  FUZZ_CHECK(message.substr(i).starts_with(" ") && message.size() > i + 1);
}

}  // namespace mechint::fuzz
