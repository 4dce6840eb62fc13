#pragma once
/// \file
/// Figures are drawn by Python scripts (matplotlib from Debian's python3-matplotlib) reading the
/// CSV files an experiment wrote. Without python3 or matplotlib the experiment still writes its
/// tables and CSV, and says that the figures were skipped.
///
/// The scripts are found relative to the executable, not to the source tree: in
/// `<dir of mechint>/../share/mechint/plots`, which is `<prefix>/share/mechint/plots` once installed
/// and a link to `scripts/plots` in the build tree (the command is built as `<build>/bin/mechint`).
/// The environment variable `MECHINT_PLOTS_DIR`, when set and not empty, names another directory.

#include <filesystem>
#include <ostream>
#include <string>

namespace mechint::app {

/// The directory of the plot scripts: `$MECHINT_PLOTS_DIR` when set and not empty, else
/// `<installation_prefix()>/share/mechint/plots` (app/installation.hpp; empty when it is not known).
std::filesystem::path plots_dir();

/// Runs `python3 -I <plots_dir()>/<script> <dir>` (Debian's /usr/bin/python3 when present) from an
/// argument vector, without a shell (app/child_process.hpp). Returns
/// false (after one line on `log`) when the script or the plotting tool is missing or the script fails.
bool draw_figures(const std::string& script, const std::filesystem::path& dir, std::ostream& log);

}  // namespace mechint::app
