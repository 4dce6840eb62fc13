#pragma once
/// \file
/// Reading an optimal control problem file (DESIGN §7, docs/optimal-control.md): TOML through
/// toml++, every problem reported as one line `FILE:LINE:COLUMN: what is wrong` (InvalidInput, exit 2).
/// Names of coordinates and controls are checked later, against the system (app/optimize_problem.hpp).

#include <string>
#include <string_view>

#include "app/optimal_control_spec.hpp"

namespace mechint::app {

/// Parses the text of a problem file; `file` names it in messages and resolves a relative model path.
OptimalControlSpec parse_optimal_control_text(std::string_view text, const std::string& file);

/// Reads and parses the problem file at `path`.
OptimalControlSpec read_optimal_control_file(const std::string& path);

}  // namespace mechint::app
