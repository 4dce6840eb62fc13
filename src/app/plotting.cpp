#include "app/plotting.hpp"

#include "app/child_process.hpp"
#include "app/installation.hpp"
#include "mechint/core/format.hpp"

#include <cstdlib>
#include <string>
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
  // Debian's interpreter carries python3-matplotlib; a python3 earlier on PATH may not. Started
  // with an argument vector (no shell sees the directory name) and isolated (-I: no PYTHON*
  // variables, no user site-packages, no script directory on sys.path).
  const std::string python = find_program("/usr/bin/python3").empty() ? "python3" : "/usr/bin/python3";
  if (!run_program({python, "-I", "-c", "import matplotlib"}, ChildOutput::discard()).succeeded()) {
    log << "  figures skipped: python3 with matplotlib is not available (tables and CSV written)\n";
    return false;
  }
  const ChildResult drawn = run_program({python, "-I", path.string(), dir.string()}, ChildOutput::inherit());
  if (!drawn.succeeded()) {
    log << "  figures failed: " << quote_for_message(path.filename().string(), 200) << " for "
        << quote_for_message(dir.string(), 200) << " ("
        << (drawn.signal ? "killed by signal " + std::to_string(drawn.signal)
                         : "exit status " + std::to_string(drawn.exit_status))
        << ")\n";
    return false;
  }
  return true;
}

}  // namespace mechint::app
