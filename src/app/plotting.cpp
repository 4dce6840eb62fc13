#include "app/plotting.hpp"

#include <cstdlib>

namespace mechint::app {

bool draw_figures(const std::string& script, const std::filesystem::path& dir, std::ostream& log) {
  const std::filesystem::path path = std::filesystem::path(MECHINT_SOURCE_DIR) / "scripts" / "plots" / script;
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
