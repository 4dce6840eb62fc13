#include "app/sweep_digest.hpp"

#include "model_file/content_digest.hpp"

namespace mechint::app {

std::string sweep_digest(std::string_view material) { return model_file::content_digest(material); }

bool is_sweep_digest(std::string_view text) {
  if (text.size() != 32) return false;
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace mechint::app
