#pragma once
/// \file
/// An optimal control problem as read from its file (DESIGN §7, docs/optimal-control.md), by names,
/// before a system gives the names a meaning; and what solving it produced, by names again. The typed
/// step between the two is app/optimize_problem.hpp.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mechint/optimal/ipopt_solver.hpp"
#include "model_file/diagnostics.hpp"

namespace mechint::app {

/// A number of the problem file and where it was written.
struct LocatedValue {
  double value = 0.0;
  model_file::SourcePosition where;
};

/// Bounds of one coordinate or control.
struct LocatedBounds {
  double lower = 0.0;
  double upper = 0.0;
  model_file::SourcePosition where;
};

struct OptimalControlSpec {
  std::string file;  ///< the problem file, for messages
  /// `model`: a built-in system's name or a model file's path (relative to the problem file, resolved).
  std::string model;
  model_file::SourcePosition model_where;
  /// `[parameters]`: the system's parameters by name, as `--set` would give them.
  std::map<std::string, std::string> parameters;
  std::map<std::string, model_file::SourcePosition> parameter_where;
  double horizon = 0.0;
  int steps = 0;
  /// `[start]` and `[goal]`: coordinates by name, velocities as NAME_dot. A name left out of [start]
  /// is 0; a name left out of [goal] is free.
  std::map<std::string, LocatedValue> start, goal;
  /// `[bounds]`: coordinates and controls by name.
  std::map<std::string, LocatedBounds> bounds;
  /// `[cost] effort`: w in J = Σ h·w·|u_k|².
  double effort = 1.0;
  /// `method`: the discrete Lagrangian (vi-midpoint, vi-trapezoid, or a Galerkin rule: vi-gauss4/6/8,
  /// vi-lobatto4/6).
  std::string method = "vi-midpoint";
  model_file::SourcePosition method_where;
  /// `[solver]`: hessian = "exact" | "limited-memory", initial_guess = "interpolation" | "simulation",
  /// tolerance, max_iterations.
  optimal::HessianMode hessian = optimal::HessianMode::kExact;
  bool simulation_guess = false;
  double tolerance = 1e-10;
  int max_iterations = 3000;
  /// The largest miss allowed between the optimized motion and the forward VI re-run under its
  /// controls, relative to the size of the motion, max(1, max_k |q_k|) (see OptimizeOutcome).
  double resimulation_tolerance = 1e-4;
  int print_level = 0;  ///< Ipopt's log (mechint optimize --verbose: 5)
  /// After each of Ipopt's iterations: mechint optimize's progress line; empty: nothing.
  std::function<void(const optimal::IpoptIteration&)> on_iteration;

  /// Throws InvalidInput `FILE:LINE:COLUMN: what`.
  [[noreturn]] void fail(model_file::SourcePosition where, const std::string& what) const {
    model_file::fail_at(file, where, what);
  }
};

/// A solved problem, by names: what `mechint optimize` writes.
class Drawing;

struct OptimizeOutcome {
  std::string method;
  double h = 0.0;
  int steps = 0;
  optimal::NlpSolution solution;  ///< status, iterations, cost, constraint violation (x is dropped)
  /// Largest |q_k − q̃_k| over the nodes, q̃ the forced VI (same discrete Lagrangian) re-run from the
  /// start under the optimal controls: how well the controls alone reproduce the optimal motion.
  double resimulation_error = 0.0;
  double cpu_s = 0.0;  ///< wall time of the solve (Ipopt and the derivatives it asked for)
  std::vector<std::string> coordinates, controls;
  std::vector<double> t;                  ///< t_k = k h, k = 0 … N
  std::vector<std::vector<double>> q;     ///< q_k per node
  std::vector<std::vector<double>> u;     ///< u_k per step (N of them)
  std::vector<double> energy;             ///< E(q_k, p_k) per node
  /// The system's drawing with the problem's values, for the page of the motion (none: the system
  /// has no drawing, as a model file without [draw]).
  std::shared_ptr<const Drawing> drawing;
};

}  // namespace mechint::app
