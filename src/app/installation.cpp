#include "app/installation.hpp"

#include <mutex>
#include <system_error>

namespace mechint::app {
namespace {

std::mutex& prefix_mutex() {
  static std::mutex m;
  return m;
}

std::filesystem::path& prefix_override() {
  static std::filesystem::path p;
  return p;
}

}  // namespace

std::filesystem::path installation_prefix() {
  {
    const std::lock_guard lock(prefix_mutex());
    if (!prefix_override().empty()) return prefix_override();
  }
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return exe.parent_path().parent_path();
}

void set_installation_prefix(const std::filesystem::path& prefix) {
  const std::lock_guard lock(prefix_mutex());
  prefix_override() = prefix;
}

}  // namespace mechint::app
