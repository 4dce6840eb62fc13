#pragma once
/// \file
/// `mechint reproduce EXPERIMENT [--out DIR]` as a function (DESIGN §4), shared by the command line
/// and the Python module's mechint.reproduce.

#include <ostream>
#include <string>

namespace mechint::app {

/// Runs experiment `name` (or every one, "all", each into its own subdirectory) into `out_dir`,
/// reporting its stages on `log` and, with `progress`, a progress line on a terminal (stderr;
/// app/experiment_progress.hpp). Refuses (InvalidInput) a directory that holds anything but a
/// previous output of the same experiment: old and new files would mix.
void reproduce_experiments(const std::string& name, const std::string& out_dir, std::ostream& log,
                           bool progress = false);

}  // namespace mechint::app
