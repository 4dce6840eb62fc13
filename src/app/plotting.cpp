#include "app/plotting.hpp"

#include "app/installation.hpp"

#include <cstdlib>
#include <system_error>

namespace mechint::app {

std::filesystem::path plots_dir() {
  if (const char* env = std::getenv("MECHINT_PLOTS_DIR"); env != nullptr && *env != '\0')
    return std::filesystem::path(env);
  const std::filesystem::path prefix = installation_prefix();
  if (prefix.empty()) return {};
  return prefix / "share" / "mechint" / "plots";
}

bool draw_figures(const std::string& script, const std::filesystem::path& dir, std::ostream& log) {
  const std::filesystem::path path = plots_dir() / script;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    log << "  figures skipped: plot script " << path.string()
        << " not found (set MECHINT_PLOTS_DIR to the directory of the plot scripts)\n";
    return false;
  }
  // Debian's interpreter carries python3-matplotlib; a python3 earlier on PATH may not.
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (std::system((python + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) != 0) {
    log << "  figures skipped: python3 with matplotlib is not available (tables and CSV written)\n";
    return false;
  }
  const std::string command = python + " '" + path.string() + "' '" + dir.string() + "'";
  if (std::system(command.c_str()) != 0) {
    log << "  figures failed: " << command << "\n";
    return false;
  }
  return true;
}

}  // namespace mechint::app
