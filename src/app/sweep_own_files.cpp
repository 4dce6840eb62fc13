#include "app/sweep_own_files.hpp"

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {

std::string sweep_own_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);  // the name itself, not a link's target
  if (!error && fs::exists(status) && !fs::is_regular_file(status)) {
    const char* what = fs::is_symlink(status) ? "a link" : fs::is_directory(status) ? "a directory" : "not a regular file";
    throw IoError(quote_for_message(path.string(), 200) + " is " + what +
                  ", not this sweep's file: not written through; remove it and run again");
  }
  return path.string();
}

}  // namespace mechint::app
