#pragma once
/// \file
/// Figures are drawn by Python scripts (matplotlib from Debian's python3-matplotlib) reading the
/// CSV files an experiment wrote. Without python3 or matplotlib the experiment still writes its
/// tables and CSV, and says that the figures were skipped.

#include <filesystem>
#include <ostream>
#include <string>

namespace mechint::app {

/// Runs `python3 <source>/scripts/plots/<script> <dir>` (Debian's /usr/bin/python3 when present). Returns false (after one line on `log`)
/// when the plotting tool is missing or the script fails.
bool draw_figures(const std::string& script, const std::filesystem::path& dir, std::ostream& log);

}  // namespace mechint::app
