#pragma once
/// \file
/// Discrete mechanics and optimal control (DMOC, DESIGN §7; docs/optimal-control.md) on a kernel
/// model (Junge, Marsden & Ober-Blöbaum 2005, cited by 004 §I and §V): an optimal control problem of
/// a forced mechanical system transcribed into a sparse nonlinear program whose equality constraints
/// are the forced discrete Euler–Lagrange equations of a variational integrator, compiled once for
/// every model — built-in, model file or hand-derived — that supplies the kernels optimal control
/// asks for (model_kernels.h: `lagrangian_third`, and `forces_second` of a forced model).
///
/// Unknowns x = (q_0 … q_N, v_N, u_0 … u_{N−1}[, interior points]): the configurations at t_k = k h
/// (h = T/N), the velocity at the end, the control held over each step. With
/// A_k = D1 Ld(q_k, q_{k+1}) + f⁻_k and B_k = D2 Ld(q_k, q_{k+1}) + f⁺_k the constraints are (forced
/// discrete Legendre transforms at the ends)
///
///     c_0 = p(q_start, v_start) + A_0 = 0                    start: p_0 = −D1 Ld − f⁻_0
///     c_k = B_{k−1} + A_k = 0,   k = 1 … N−1                 forced DEL equations
///     c_N = B_{N−1} − ∂L/∂q̇(q_N, v_N) = 0                    end: p_N = D2 Ld + f⁺_{N−1}
///
/// with p(q, v) = ∂L/∂q̇. q_0 is fixed to q_start by its bounds; a goal on q(T) or q̇(T) fixes the
/// component of q_N or v_N (a component left out is free). The cost is J = Σ_k h·w·|u_k|² (effort w).
/// Since Σλ·c splits into one term per step, λ_k·A_k + λ_{k+1}·B_k, the Hessian of the Lagrangian is a
/// chain of overlapping blocks and the Jacobian is block-banded: the program gives the solver exactly
/// these nonzeros.
///
/// Every derivative is exact and composed from the model's kernels at the rule's quadrature points.
/// On step k the motion is the polynomial q(t_k + τh) = Σ_c ℓ_c(τ) Q_c through the step's control
/// points y = (Q_c) = (q_k, q_{k+1}, interior points) — the straight line for the rules of second
/// order, degree s for a Galerkin rule (DmocRule) — and with z_j = (q(τ_j), q̇(τ_j)) = P_j y
///
///     Ld(y) = h Σ_j w_j L(z_j),   virtual work of the forces  h Σ_j w_j f(z_j, u_k, t_k + τ_j h)·δq(τ_j)
///
/// (midpoint: one point τ = ½; trapezoid: the two ends, w = ½; first order: the end point; Gauss or
/// Lobatto: the tableau's s points, Marsden & West 2001 §2.6.6). The step's residual R(y) = ∇_y Ld +
/// (the forces' weights ℓ_c(τ_j) w_j h f(z_j)) has one block per control point: the first is A_k
/// (−p_k, summed into node k's equation), the second B_k (p_{k+1}, into node k+1's), the others are
/// the interior equations R = 0 (Ld stationary in the interior points). With P_j linear:
///   ∇_y Ld = h Σ w_j P_jᵀ ∇L(z_j),   ∇²_y Ld = h Σ w_j P_jᵀ ∇²L(z_j) P_j,
///   ∇²_y (∇_y Ld · w) = h Σ w_j P_jᵀ [∇²_z (∇L(z)·P_j w)]_{z_j} P_j   (L's third derivatives along P_j w),
/// and the forces' terms likewise through (P_j, I) on (y, u). The step's blocks are then scattered
/// into the program's sparse Jacobian and Hessian (optimal/dmoc_layout.hpp).

#include <string>
#include <vector>

#include "kernel/discrete_rules.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "kernel/kernel_model.hpp"
#include "mechint/optimal/dmoc_layout.hpp"
#include "mechint/optimal/nonlinear_program.hpp"

namespace mechint::kernel {

/// The discrete Lagrangian of a transcription: its quadrature points on a step and the polynomial's
/// control points (see the file comment).
struct DmocRule {
  struct Point {
    double weight = 0.0;  ///< w_j
    double time = 0.0;    ///< τ_j ∈ [0, 1]
    /// ℓ_c(τ_j) and ℓ'_c(τ_j) (d/dτ) of each control point c, in the order q_k, q_{k+1}, interior.
    std::vector<double> value, slope;
  };
  std::vector<double> interior_times;  ///< the interior control points' τ (none for second order)
  std::vector<Point> points;
  int num_points() const { return 2 + static_cast<int>(interior_times.size()); }
};

/// The rules of second order: the straight line through q_k and q_{k+1}.
DmocRule dmoc_rule(Rule rule);
/// A Galerkin rule (galerkin_tableau.hpp): the polynomial of degree s through q_k, q_{k+1} and s − 1
/// equidistant interior points, the tableau's quadrature (b, c). The same discrete Lagrangian as
/// KernelGalerkinIntegrator's (whose unknowns are the stage velocities instead: the extremum over
/// the same polynomials), so a program's controls replayed by that integrator give its motion.
DmocRule dmoc_rule(const GalerkinTableau& tableau);

class KernelDmocTranscription final : public optimal::NonlinearProgram {
 public:
  /// Throws std::invalid_argument for a problem that cannot be transcribed (sizes not the model's,
  /// N < 1, T ≤ 0, empty bounds, a start or goal outside them; the message names what is wrong) and
  /// for a model that is not one optimal control applies to (no controls, holonomic constraints,
  /// the kernels of optimal control not supplied).
  KernelDmocTranscription(const KernelModel& model, DmocRule rule, optimal::DmocProblem problem);
  KernelDmocTranscription(const KernelModel& model, Rule rule, optimal::DmocProblem problem)
      : KernelDmocTranscription(model, dmoc_rule(rule), std::move(problem)) {}

  const optimal::DmocProblem& problem() const { return problem_; }
  double step() const { return h_; }
  int steps() const { return problem_.steps; }

  // Variable layout (optimal/dmoc_layout.hpp): q_0 … q_N, v_N, u_0 … u_{N−1}, then each step's
  // interior control points.
  int q_index(int k) const { return layout_.q_index(k); }
  int v_end_index() const { return layout_.v_end_index(); }
  int u_index(int k) const { return layout_.u_index(k); }

  /// Packs a trajectory (N+1 configurations, N controls, the end velocity) as the solver's start; the
  /// interior points on the straight line between the nodes.
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
  /// The storage of one step's evaluation, sized once: an evaluation of the program allocates nothing
  /// per step. The program is evaluated by one solver at a time (Ipopt calls it from one thread).
  /// Y = (2 + interior) n: the step's control points; K = Y + m: the step's unknowns s = (y, u_k).
  struct Workspace {
    Workspace(int n, int m, int interior);
    Vector y, u, q, v, f, mu, weighted, zero, gradient, ld_gradient, w, direction, dq, dv;
    LagrangianValues l;
    RowMatrix f_q, f_v, f_u, third, forces;
    Eigen::MatrixXd hessian, product, ld_hessian, force_z, force_y, to_point, product_k;
    Vector r;       ///< the step's residual (Y): A_k, B_k, the interior equations
    RowMatrix dr;   ///< its derivatives in s (Y x K)
    RowMatrix hk;   ///< the step's Hessian (K x K)
  };
  /// The control points of step k and u_k of x into the workspace.
  void load_step(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const;
  /// q_N, v_N of x into the workspace's q, v.
  void load_end(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// A step's residual into the workspace's r; with `jacobians`, its derivatives in s into dr.
  void step_residuals(const Eigen::Ref<const Eigen::VectorXd>& x, int k, bool jacobians) const;
  /// ∇²_s (w·R_k) (K x K) into the workspace's hk, w the multipliers of the step's rows (workspace's w).
  void step_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const;
  /// The point z_j = (q, v) of the step's control points y, and the map P_j (2n x Y) from y to it.
  void point_of(const DmocRule::Point& p, const Vector& y, Vector& q, Vector& v) const;
  Eigen::MatrixXd point_map(const DmocRule::Point& p) const;
  [[noreturn]] void outside_domain(int node) const;

  const KernelModel* model_;
  DmocRule rule_;
  optimal::DmocProblem problem_;
  optimal::DmocLayout layout_;
  int n_, m_, Y_, K_;
  double h_;
  std::vector<Eigen::MatrixXd> maps_;  ///< P_j of each point
  Vector p_start_;
  Eigen::VectorXd guess_;
  mutable Workspace ws_;
};

}  // namespace mechint::kernel
