#pragma once
/// \file
/// `mechint optimize PROBLEM.toml [--out DIR]` (DESIGN §7, docs/optimal-control.md): reads the problem
/// file, finds its system (built-in or model file), solves it (app/optimize_problem.hpp) and writes
/// DIR/trajectory.csv, DIR/controls.csv, DIR/results.json, DIR/trajectory.png and DIR/report.md, all
/// at once: they are written into a temporary directory beside DIR, which replaces DIR only when
/// complete. Without --out, results.json is printed on standard output and nothing is written.

#include <filesystem>
#include <ostream>
#include <string>

#include "app/optimal_control_spec.hpp"

namespace mechint::app {

/// The solved problem of `spec` (its system looked up, its parameters applied).
OptimizeOutcome solve_optimal_control(const OptimalControlSpec& spec);

/// results.json of an outcome (DESIGN §7 keys first).
std::string optimize_results_json(const OptimalControlSpec& spec, const OptimizeOutcome& outcome);

/// Writes trajectory.csv, controls.csv, results.json, trajectory.png (when the plotting tool is
/// there) and report.md into the existing directory `dir`, each file atomically.
void write_optimize_files(const std::filesystem::path& dir, const OptimalControlSpec& spec,
                          const OptimizeOutcome& outcome, std::ostream& log);

/// Solves `spec` and, when `out_dir` is not empty, writes its files there as the command does (into
/// a staging directory that replaces out_dir once complete). Returns the outcome.
OptimizeOutcome optimize_into(const OptimalControlSpec& spec, const std::string& out_dir, std::ostream& log);

/// The whole command; `verbose` shows Ipopt's log on standard output. What it reports goes to `log`;
/// with `progress` (and not `verbose`), Ipopt's iterations are counted on a progress line when stderr
/// is a terminal (app/progress.hpp).
void optimize_command(const std::string& problem_file, const std::string& out_dir, bool verbose, bool progress,
                      std::ostream& log);

}  // namespace mechint::app
