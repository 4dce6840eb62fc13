#include "app/file_paths.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace fs = std::filesystem;

std::string follow_symlinks(const std::string& path, const std::string& option) {
  fs::path current(path);
  for (int hops = 0; hops < 40; ++hops) {  // 40: the kernel's own limit (MAXSYMLINKS)
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(current, error))) return current.string();
    const fs::path target = fs::read_symlink(current, error);
    if (error) return current.string();
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  throw InvalidInput(option + " " + quote_for_message(path, 200) + ": too many levels of symbolic links");
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  const bool a_exists = ::stat(a.c_str(), &sa) == 0, b_exists = ::stat(b.c_str(), &sb) == 0;
  if (a_exists && b_exists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (a_exists != b_exists) return false;
  std::error_code error_a, error_b;
  const fs::path ca = fs::weakly_canonical(fs::absolute(follow_symlinks(a, "file"), error_a), error_a);
  const fs::path cb = fs::weakly_canonical(fs::absolute(follow_symlinks(b, "file"), error_b), error_b);
  return !error_a && !error_b && ca == cb;
}

void refuse_same_file(const std::string& option_a, const std::string& a, const std::string& option_b,
                      const std::string& b) {
  if (a.empty() || b.empty() || a == "-" || b == "-" || !same_file(a, b)) return;
  throw InvalidInput(option_a + " " + quote_for_message(a, 200) + " and " + option_b + " " + quote_for_message(b, 200) +
                     " name the same file: one would destroy the other");
}

}  // namespace mechint::app
