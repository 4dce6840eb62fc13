#pragma once
/// \file
/// A sparse nonlinear program, as a solver sees it:
///
///     minimize f(x)  over x ∈ ℝⁿ   subject to   g(x) = 0 (m equations),   x_lower ≤ x ≤ x_upper,
///
/// with exact first derivatives (∇f, the sparse Jacobian of g) and, where the program can, the exact
/// sparse Hessian of the Lagrangian σ∇²f + Σ λ_i ∇²g_i (lower triangle). This is the one seam between
/// the transcription of an optimal control problem (src/kernel/kernel_dmoc.hpp, compiled once for every
/// model) and the solver (optimal/ipopt_solver.hpp, compiled once): the solver never sees a model
/// type, and the transcription never sees Ipopt.
///
/// Sparsity patterns are given once, as (row, column) pairs in a fixed order; values are then written
/// in that same order. A bound of ±infinity means "none"; equal bounds fix a variable.

#include <Eigen/Core>

#include <limits>
#include <vector>

namespace mechint::optimal {

/// One nonzero of a sparse matrix: its row and column (0-based).
struct SparseEntry {
  int row;
  int col;
};

/// The interface of a nonlinear program with equality constraints and bounds.
class NonlinearProgram {
 public:
  virtual ~NonlinearProgram() = default;

  virtual int num_variables() const = 0;
  virtual int num_constraints() const = 0;

  /// Bounds of the variables (±infinity: none). Equal bounds fix the variable.
  virtual void variable_bounds(Eigen::Ref<Eigen::VectorXd> lower, Eigen::Ref<Eigen::VectorXd> upper) const = 0;
  /// The starting point of the solver.
  virtual void initial_point(Eigen::Ref<Eigen::VectorXd> x) const = 0;

  /// f(x).
  virtual double objective(const Eigen::Ref<const Eigen::VectorXd>& x) const = 0;
  /// ∇f(x).
  virtual void objective_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                                  Eigen::Ref<Eigen::VectorXd> gradient) const = 0;
  /// g(x), the equality constraints (all of them = 0 at a solution).
  virtual void constraints(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) const = 0;

  /// The nonzeros of ∂g/∂x, in the order `constraint_jacobian` writes them.
  virtual const std::vector<SparseEntry>& jacobian_structure() const = 0;
  /// The values of ∂g/∂x at x, one per entry of `jacobian_structure()`.
  virtual void constraint_jacobian(const Eigen::Ref<const Eigen::VectorXd>& x,
                                   Eigen::Ref<Eigen::VectorXd> values) const = 0;

  /// Whether `hessian_structure` and `lagrangian_hessian` are implemented.
  virtual bool has_exact_hessian() const { return false; }
  /// The nonzeros of the lower triangle (row ≥ col) of the Hessian of the Lagrangian.
  virtual const std::vector<SparseEntry>& hessian_structure() const {
    static const std::vector<SparseEntry> none;
    return none;
  }
  /// σ∇²f(x) + Σ_i λ_i ∇²g_i(x), one value per entry of `hessian_structure()`.
  virtual void lagrangian_hessian(const Eigen::Ref<const Eigen::VectorXd>& /*x*/, double /*objective_factor*/,
                                  const Eigen::Ref<const Eigen::VectorXd>& /*multipliers*/,
                                  Eigen::Ref<Eigen::VectorXd> /*values*/) const {}
};

/// "No bound".
inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

}  // namespace mechint::optimal
