#include "app/installation.hpp"

#include <dlfcn.h>

#include <mutex>
#include <system_error>
#include <vector>

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
  // mechint's code in the shared library libmechint (a program of its own linking mechint::mechint):
  // the prefix is where that library lies, <prefix>/<libdir>/libmechint.so.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&installation_prefix), &info) != 0 && info.dli_fname != nullptr) {
    const std::filesystem::path object = std::filesystem::weakly_canonical(info.dli_fname);
    const std::filesystem::path library_dir = std::filesystem::path(kLibraryDir).parent_path();  // <libdir>
    std::vector<std::filesystem::path> parts(library_dir.begin(), library_dir.end());
    std::filesystem::path prefix = object.parent_path();
    bool matches = object.filename().string().starts_with("libmechint.so");
    for (auto part = parts.rbegin(); matches && part != parts.rend(); ++part) {
      matches = prefix.filename() == *part;
      prefix = prefix.parent_path();
    }
    if (matches) return prefix;
  }
  // Linked into an executable (the command line, <prefix>/bin/mechint, and the tests' programs).
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
