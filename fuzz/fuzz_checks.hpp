#pragma once
// What every fuzz harness asserts of mechint's messages (docs/fuzzing.md): a finding traps, so that
// libFuzzer reports it with the input.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

#define FUZZ_CHECK(condition)             \
  do {                                    \
    if (!(condition)) __builtin_trap();   \
  } while (false)

namespace mechint::fuzz {

/// Only printable ASCII and well-formed UTF-8 of printable characters (no C1 control, no zero-width
/// or bidirectional mark, no line separator: core/format.hpp's printable_utf8_length): one line a
/// terminal shows as it is.
inline bool printable(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      const std::size_t length = mechint::printable_utf8_length(text, i);
      if (length == 0) return false;
      i += length;
      continue;
    }
    if (byte < 0x20 || byte == 0x7f) return false;
    ++i;
  }
  return true;
}

/// The characters quote_for_message counts in `text`: a printable UTF-8 sequence is one, any other
/// byte one.
inline std::size_t characters(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++n) {
    const std::size_t length =
        static_cast<unsigned char>(text[i]) >= 0x80 ? mechint::printable_utf8_length(text, i) : 0;
    i += length > 0 ? length : 1;
  }
  return n;
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

/// A path named `name` in a directory of this process alone (mkdtemp, 0700; removed at exit), for
/// the harnesses whose reader takes a file: a fixed name in /tmp could be a symlink someone planted.
inline std::string private_path(const std::string& name) {
  static const std::string dir = [] {
    std::string templ = (std::filesystem::temp_directory_path() / "mechint-fuzz-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) std::abort();  // the harness's environment, not a finding
    static std::string for_exit;
    for_exit = templ;
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(for_exit, ignored);
    });
    return templ;
  }();
  return dir + "/" + name;
}

/// Writes `bytes` to `path` (the harness's input file), or aborts: not a finding of mechint.
inline void write_file(const std::string& path, std::string_view bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) std::abort();
}

/// Runs `read`: a refusal must be mechint::InvalidInput or mechint::IoError whose message passes
/// `check`; any other exception is a finding (the command line would report it as exit 1).
template <class Read, class Check>
void expect_only_refusals(Read&& read, Check&& check) {
  try {
    read();
  } catch (const mechint::InvalidInput& e) {
    check(e.what());
  } catch (const mechint::IoError& e) {
    check(e.what());
  } catch (...) {
    __builtin_trap();
  }
}

}  // namespace mechint::fuzz
