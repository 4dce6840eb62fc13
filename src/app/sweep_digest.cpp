#include "app/sweep_digest.hpp"

#include <cstdint>
#include <cstdio>

namespace mechint::app {

std::string sweep_digest(std::string_view material) {
  // FNV-1a 64 with two offset bases (and the second pass's bytes offset): 128 bits.
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

bool is_sweep_digest(std::string_view text) {
  if (text.size() != 32) return false;
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace mechint::app
