#pragma once
/// \file
/// A hex digest of bytes: 128 bits from two FNV-1a passes with different offset bases. It tells one
/// content from another against accidents (a model cache's keys, what a sweep leaves in its
/// directory); it is not a signature against a forger.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace mechint::model_file {

/// 32 lowercase hexadecimal digits.
inline std::string content_digest(std::string_view material) {
  std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  for (const char ch : material) {
    const auto c = static_cast<unsigned char>(ch);
    a = (a ^ c) * 0x100000001b3ULL;
    b = (b ^ (c + 0x9eU)) * 0x100000001b3ULL;
  }
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return text;
}

}  // namespace mechint::model_file
