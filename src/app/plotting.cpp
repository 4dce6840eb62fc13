#include "app/plotting.hpp"

#include "app/child_process.hpp"
#include "app/installation.hpp"
#include "mechint/core/format.hpp"

#include <cstdlib>
#include <string>
#include <system_error>

namespace mechint::app {
namespace {

/// Runs the plot script given as its first argument, with every figure written as mechint writes
/// its own files (app/file_writer.hpp, WritePath::kOwned): through a temporary beside the target,
/// renamed when whole; a name that exists as anything but a regular file (a link, a FIFO planted in
/// a results directory) is refused, not followed, blocked on or replaced. One place for every
/// script's `savefig`, instead of one in each.
constexpr const char* kFigureWriter = R"(import os, runpy, stat, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.figure
_savefig = matplotlib.figure.Figure.savefig
def _whole(self, fname, *args, **kwargs):
    if not isinstance(fname, (str, os.PathLike)):
        return _savefig(self, fname, *args, **kwargs)
    target = os.fspath(fname)
    try:
        if not stat.S_ISREG(os.lstat(target).st_mode):
            raise OSError(f"{target} exists and is not a regular file, which mechint did not write: not replaced")
    except FileNotFoundError:
        pass
    directory, name = os.path.split(target)
    temporary = os.path.join(directory, "." + name + "." + str(os.getpid()) + ".partial")
    kwargs.setdefault("format", os.path.splitext(name)[1][1:] or None)
    try:
        _savefig(self, temporary, *args, **kwargs)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
matplotlib.figure.Figure.savefig = _whole
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
)";

}  // namespace

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
  const ChildResult drawn =
      run_program({python, "-I", "-c", kFigureWriter, path.string(), dir.string()}, ChildOutput::inherit());
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
