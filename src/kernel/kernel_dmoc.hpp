#pragma once
/// \file
/// Discrete mechanics and optimal control (DMOC, DESIGN §7; docs/optimal-control.md) on a kernel
/// model: the same nonlinear program as the fixed-size transcription (include/mechint/optimal/dmoc.hpp,
/// whose comment states its unknowns, constraints and cost), over runtime sizes, compiled once for
/// every model — built-in, model file or hand-derived — that supplies the kernels optimal control
/// asks for (model_kernels.h: `lagrangian_third`, and `forces_second` of a forced model).
///
/// Every derivative is exact and composed from the model's kernels at the rule's quadrature points.
/// A rule (kernel/discrete_rules.hpp) is a set of points z_j = (a_j q0 + b_j q1, (q1 − q0)/h) at
/// times t0 + τ_j h, with
///
///     Ld(q0, q1) = h Σ_j w_j L(z_j),   f⁻ = h Σ_j α_j f(z_j, u, t_j),   f⁺ = h Σ_j β_j f(z_j, u, t_j)
///
/// (midpoint: one point, a = b = w = τ = α = β = ½; trapezoid: the two ends, w = ½, f⁻ from the first
/// and f⁺ from the second with weight ½; first order: the end point, f⁺ alone). With P_j the linear
/// map y = (q0, q1) ↦ z_j:
///   ∇_y Ld = h Σ w_j P_jᵀ ∇L(z_j),   ∇²_y Ld = h Σ w_j P_jᵀ ∇²L(z_j) P_j,
///   ∇²_y (∇_y Ld · w) = h Σ w_j P_jᵀ [∇²_z (∇L(z)·P_j w)]_{z_j} P_j   (L's third derivatives along P_j w),
/// and the forces' terms likewise through (P_j, I) on (y, u). The step's blocks are then scattered
/// into the program's sparse Jacobian and Hessian exactly as the fixed-size transcription does.

#include <string>
#include <vector>

#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_model.hpp"
#include "mechint/optimal/dmoc_layout.hpp"
#include "mechint/optimal/nonlinear_program.hpp"

namespace mechint::kernel {

class KernelDmocTranscription final : public optimal::NonlinearProgram {
 public:
  /// Throws std::invalid_argument for a problem that cannot be transcribed (sizes not the model's,
  /// N < 1, T ≤ 0, empty bounds, a start or goal outside them; the message names what is wrong) and
  /// for a model that is not one optimal control applies to (no controls, holonomic constraints,
  /// the kernels of optimal control not supplied).
  KernelDmocTranscription(const KernelModel& model, Rule rule, optimal::DmocProblem problem);

  const optimal::DmocProblem& problem() const { return problem_; }
  double step() const { return h_; }
  int steps() const { return problem_.steps; }

  // Variable layout (optimal/dmoc_layout.hpp): q_0 … q_N, v_N, u_0 … u_{N−1}.
  int q_index(int k) const { return layout_.q_index(k); }
  int v_end_index() const { return layout_.v_end_index(); }
  int u_index(int k) const { return layout_.u_index(k); }

  /// Packs a trajectory (N+1 configurations, N controls, the end velocity) as the solver's start.
  void set_initial_guess(const std::vector<Vector>& q, const std::vector<Vector>& u, const Vector& v_end);

  int num_variables() const override { return layout_.num_variables(); }
  int num_constraints() const override { return layout_.num_constraints(); }
  void variable_bounds(Eigen::Ref<Eigen::VectorXd> lower, Eigen::Ref<Eigen::VectorXd> upper) const override {
    layout_.variable_bounds(problem_, lower, upper);
  }
  void initial_point(Eigen::Ref<Eigen::VectorXd> x) const override { x = guess_; }
  double objective(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  void objective_gradient(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) const override;
  /// Throws NumericalFailure where the model is not defined at a node (Ipopt then stops with an
  /// evaluation error, as it does for a non-finite value).
  void constraints(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> c) const override;
  const std::vector<optimal::SparseEntry>& jacobian_structure() const override { return layout_.jacobian_structure(); }
  void constraint_jacobian(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> values) const override;
  bool has_exact_hessian() const override { return true; }
  const std::vector<optimal::SparseEntry>& hessian_structure() const override { return layout_.hessian_structure(); }
  void lagrangian_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, double sigma, const Eigen::Ref<const Eigen::VectorXd>& lambda,
                          Eigen::Ref<Eigen::VectorXd> values) const override;

  /// The discrete momentum p_k at each node: p_k = −D1 Ld(q_k, q_{k+1}) − f⁻_k for k < N, p_N =
  /// D2 Ld(q_{N−1}, q_N) + f⁺_{N−1} (forced discrete Legendre transforms).
  std::vector<Vector> momenta(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// The energy E(q_k, p_k) at each node (the velocity of p_k by the inverse Legendre transform).
  std::vector<double> energies(const Eigen::Ref<const Eigen::VectorXd>& x) const;

 private:
  /// One quadrature point of the rule (see the file comment).
  struct Point {
    double a, b, weight, tau, alpha, beta;
  };
  /// The storage of one step's evaluation, sized once: an evaluation of the program allocates nothing
  /// per step. The program is evaluated by one solver at a time (Ipopt calls it from one thread).
  struct Workspace {
    Workspace(int n, int m);
    Vector q0, q1, u, q, v, f, lambda_a, lambda_b, mu, zero, gradient, ld_gradient, w, direction, dq, dv;
    LagrangianValues l;
    RowMatrix f_q, f_v, f_u, third, forces;
    Eigen::MatrixXd hessian, product, ld_hessian, force_z, force_y, to_point, product_k;
    RowMatrix da, db, hk;  ///< the step's results: ∂A/∂s, ∂B/∂s (n x K), the step's Hessian (K x K)
    Vector a, b;           ///< the step's results: A_k, B_k
  };
  /// q_k, q_{k+1}, u_k of x into the workspace.
  void load_step(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const;
  /// q_N, v_N of x into the workspace's q, v.
  void load_end(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// A step's residuals A_k, B_k into the workspace's a, b; with `jacobians`, their derivatives (n x K
  /// each) in s = (q_k, q_{k+1}, u_k) into da, db.
  void step_residuals(const Eigen::Ref<const Eigen::VectorXd>& x, int k, bool jacobians) const;
  /// ∇²_s (λ_a·A_k + λ_b·B_k) (K x K) into the workspace's hk.
  void step_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, int k, const Eigen::Ref<const Eigen::VectorXd>& lambda_a,
                    const Eigen::Ref<const Eigen::VectorXd>& lambda_b) const;
  /// The point z_j of the step from q0 to q1, and the map P_j (2n x 2n) from (q0, q1) to it.
  void point_of(const Point& p, const Vector& q0, const Vector& q1, Vector& q, Vector& v) const;
  Eigen::MatrixXd point_map(const Point& p) const;
  [[noreturn]] void outside_domain(int node) const;

  const KernelModel* model_;
  Rule rule_;
  optimal::DmocProblem problem_;
  optimal::DmocLayout layout_;
  int n_, m_, K_;
  double h_;
  std::vector<Point> points_;
  std::vector<Eigen::MatrixXd> maps_;  ///< P_j of each point
  Vector p_start_;
  Eigen::VectorXd guess_;
  mutable Workspace ws_;
};

}  // namespace mechint::kernel
