#pragma once
/// \file
/// Solves a `NonlinearProgram` with Ipopt (interior point, sparse, MUMPS linear solver; Debian's
/// coinor-libipopt-dev). Compiled once in the library `mechint::optimal` (src/optimal/ipopt_solver.cpp)
/// so that no model type reaches Ipopt and no Ipopt header reaches a model.

#include <Eigen/Core>

#include <functional>
#include <string>

#include "mechint/optimal/nonlinear_program.hpp"

namespace mechint::optimal {

/// Which Hessian of the Lagrangian Ipopt uses.
enum class HessianMode {
  kExact,          ///< the program's exact sparse Hessian (has_exact_hessian() must be true)
  kLimitedMemory,  ///< Ipopt's limited-memory quasi-Newton (L-BFGS) approximation
};

/// Where Ipopt is after one of its iterations (its intermediate callback).
struct IpoptIteration {
  int iteration = 0;
  double objective = 0.0;
  double infeasibility = 0.0;  ///< Ipopt's inf_pr: the (scaled) constraint violation
};

struct IpoptSettings {
  HessianMode hessian = HessianMode::kExact;
  double tolerance = 1e-10;      ///< Ipopt `tol` (scaled NLP error)
  double constraint_tolerance = 1e-9;  ///< Ipopt `constr_viol_tol` (unscaled, absolute)
  int max_iterations = 3000;     ///< Ipopt `max_iter`
  int print_level = 0;           ///< Ipopt `print_level` (0: silent, 5: Ipopt's default log)
  /// Called after every iteration (a progress line, mechint optimize); empty: none. What it throws
  /// is ignored: a display must not stop a solve.
  std::function<void(const IpoptIteration&)> on_iteration;
};

/// What the solver reports.
struct NlpSolution {
  /// Ipopt reached its tolerances (Solve_Succeeded; Solved_To_Acceptable_Level is not counted).
  bool converged = false;
  /// Ipopt's status in words (e.g. "Solve_Succeeded", "Infeasible_Problem_Detected").
  std::string status;
  /// The status says the constraints look locally infeasible (the goal may be unreachable).
  bool infeasible = false;
  int iterations = 0;
  double objective = 0.0;
  /// max |g_i(x)| and the largest bound violation at the returned x (unscaled).
  double constraint_violation = 0.0;
  Eigen::VectorXd x;
  /// Multipliers of the constraints g (Ipopt's sign convention: ∇f + Jᵀλ + bound terms = 0).
  Eigen::VectorXd multipliers;
};

/// Runs Ipopt on `program` from its initial point. Never throws for a failed solve (the status
/// says it); throws std::runtime_error only if Ipopt cannot be set up.
NlpSolution solve_with_ipopt(const NonlinearProgram& program, const IpoptSettings& settings = {});

}  // namespace mechint::optimal
