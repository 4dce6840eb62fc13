#pragma once
/// \file
/// Discrete mechanics and optimal control (DMOC; Junge, Marsden & Ober-Blöbaum 2005, cited by 004 §I
/// and §V; DESIGN §7; docs/optimal-control.md): an optimal control problem of a forced mechanical
/// system transcribed into a sparse nonlinear program whose equality constraints are the forced
/// discrete Euler–Lagrange equations of a variational integrator.
///
/// Unknowns x = (q_0 … q_N, v_N, u_0 … u_{N−1}): the configurations at t_k = k h (h = T/N), the
/// velocity at the end, the control held over each step. With the discrete forces f^±_k =
/// f^±(q_k, q_{k+1}, u_k, t_k) of the discrete Lagrangian (discrete/discrete_forces.hpp),
///
///     A_k = D1 Ld(q_k, q_{k+1}) + f⁻_k,     B_k = D2 Ld(q_k, q_{k+1}) + f⁺_k,
///
/// the constraints are (forced discrete Legendre transforms at the ends, JMO 2005 eqs. for the
/// boundary conditions):
///
///     c_0 = p(q_start, v_start) + A_0 = 0                    start: p_0 = −D1 Ld − f⁻_0
///     c_k = B_{k−1} + A_k = 0,   k = 1 … N−1                 forced DEL equations
///     c_N = B_{N−1} − ∂L/∂q̇(q_N, v_N) = 0                    end: p_N = D2 Ld + f⁺_{N−1}
///
/// with p(q, v) = ∂L/∂q̇. q_0 is fixed to q_start by its bounds; a goal on q(T) or q̇(T) fixes the
/// component of q_N or v_N (a component left out is free). The cost is J = Σ_k h·w·|u_k|² (effort w).
///
/// Derivatives are exact: the Jacobian from the Hessian of Ld (jet of jets) and the Jacobian of the
/// forces (jets); the Hessian of the Lagrangian from Ld's third derivatives along the multipliers
/// (`directional_hessian`) and the forces' Hessian. Since Σλ·c splits into one term per step,
/// λ_k·A_k + λ_{k+1}·B_k, the Hessian is a chain of overlapping (2n+m)² blocks and the Jacobian is
/// block-banded: the program gives the solver exactly these nonzeros.

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/discrete_forces.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/model/legendre.hpp"
#include "mechint/optimal/block_derivatives.hpp"
#include "mechint/optimal/dmoc_layout.hpp"
#include "mechint/optimal/nonlinear_program.hpp"

namespace mechint::optimal {

/// How the solver's starting point is made.
enum class InitialGuess {
  kInterpolation,  ///< q_k linear from the start to the goal (free goal components: the start), u = 0
  kGiven,          ///< the trajectory given to `DmocTranscription::set_initial_guess`
};

/// An optimal control problem of a system with n coordinates and m controls (DESIGN §7).
template <int n, int m>
struct OptimalControlProblem {
  double horizon = 1.0;  ///< T
  int steps = 100;       ///< N, so h = T/N
  VecD<n> q_start = VecD<n>::Zero();
  VecD<n> v_start = VecD<n>::Zero();
  /// Goal at t = T: the components whose `*_given` flag is set are imposed, the others free.
  VecD<n> q_goal = VecD<n>::Zero();
  VecD<n> v_goal = VecD<n>::Zero();
  Eigen::Matrix<bool, n, 1> q_goal_given = Eigen::Matrix<bool, n, 1>::Constant(false);
  Eigen::Matrix<bool, n, 1> v_goal_given = Eigen::Matrix<bool, n, 1>::Constant(false);
  /// Bounds on every q_k and on every u_k (±infinity: none).
  VecD<n> q_lower = VecD<n>::Constant(-kUnbounded);
  VecD<n> q_upper = VecD<n>::Constant(kUnbounded);
  VecD<m> u_lower = VecD<m>::Constant(-kUnbounded);
  VecD<m> u_upper = VecD<m>::Constant(kUnbounded);
  double effort = 1.0;  ///< w in J = Σ h·w·|u_k|²
  InitialGuess initial_guess = InitialGuess::kInterpolation;

  double step() const { return horizon / steps; }
};

/// The same problem over runtime sizes (optimal/dmoc_layout.hpp): what both transcriptions read.
template <int n, int m>
DmocProblem runtime_problem(const OptimalControlProblem<n, m>& p) {
  DmocProblem d(n, m);
  d.horizon = p.horizon;
  d.steps = p.steps;
  d.q_start = p.q_start, d.v_start = p.v_start, d.q_goal = p.q_goal, d.v_goal = p.v_goal;
  for (int i = 0; i < n; ++i) {
    d.q_goal_given[static_cast<std::size_t>(i)] = p.q_goal_given[i];
    d.v_goal_given[static_cast<std::size_t>(i)] = p.v_goal_given[i];
  }
  d.q_lower = p.q_lower, d.q_upper = p.q_upper, d.u_lower = p.u_lower, d.u_upper = p.u_upper;
  d.effort = p.effort;
  return d;
}

/// The DMOC program of a forced discrete system `S` (a `DiscreteSystem<Model, Rule>` of a model with
/// forces and at least one control, without holonomic constraints).
template <ForcedDiscreteSystem S>
class DmocTranscription final : public NonlinearProgram {
 public:
  static constexpr int n = S::kDim;
  static constexpr int m = S::kNumControls;
  static constexpr int K = 2 * n + m;  ///< unknowns of one step: q_k, q_{k+1}, u_k
  static_assert(m > 0, "DMOC needs a model with control inputs");
  static_assert(S::kNumConstraints == 0, "DMOC of models with holonomic constraints is not implemented");
  using Problem = OptimalControlProblem<n, m>;

  /// Throws std::invalid_argument for a problem that cannot be transcribed (N < 1, T ≤ 0, empty
  /// bounds, a start or goal outside the bounds); the message names what is wrong.
  DmocTranscription(S system, Problem problem)
      : system_(std::move(system)), problem_(std::move(problem)), data_(runtime_problem<n, m>(problem_)), layout_(data_, n, m) {
    h_ = problem_.step();
    p_start_ = lagrangian_dv(system_.continuous_model(), problem_.q_start, problem_.v_start);
    guess_ = layout_.interpolation_guess(data_);
  }

  const S& system() const { return system_; }
  const Problem& problem() const { return problem_; }
  double step() const { return h_; }
  int steps() const { return problem_.steps; }

  // Variable layout (optimal/dmoc_layout.hpp).
  int q_index(int k) const { return layout_.q_index(k); }
  int v_end_index() const { return layout_.v_end_index(); }
  int u_index(int k) const { return layout_.u_index(k); }

  VecD<n> q_at(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const { return x.template segment<n>(q_index(k)); }
  VecD<m> u_at(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const { return x.template segment<m>(u_index(k)); }
  VecD<n> v_end(const Eigen::Ref<const Eigen::VectorXd>& x) const { return x.template segment<n>(v_end_index()); }

  /// Packs a trajectory (N+1 configurations, N controls, the end velocity) as the solver's start.
  void set_initial_guess(const std::vector<VecD<n>>& q, const std::vector<VecD<m>>& u, const VecD<n>& v_end) {
    if (static_cast<int>(q.size()) != problem_.steps + 1 || static_cast<int>(u.size()) != problem_.steps)
      throw std::invalid_argument("initial guess: expected N+1 configurations and N controls");
    for (int k = 0; k <= problem_.steps; ++k) guess_.template segment<n>(q_index(k)) = q[k];
    for (int k = 0; k < problem_.steps; ++k) guess_.template segment<m>(u_index(k)) = u[k];
    guess_.template segment<n>(v_end_index()) = v_end;
  }

  // --- NonlinearProgram ---------------------------------------------------------------------------

  int num_variables() const override { return layout_.num_variables(); }
  int num_constraints() const override { return layout_.num_constraints(); }

  void variable_bounds(Eigen::Ref<Eigen::VectorXd> lower, Eigen::Ref<Eigen::VectorXd> upper) const override {
    layout_.variable_bounds(data_, lower, upper);
  }

  void initial_point(Eigen::Ref<Eigen::VectorXd> x) const override { x = guess_; }

  double objective(const Eigen::Ref<const Eigen::VectorXd>& x) const override {
    double j = 0.0;
    for (int k = 0; k < problem_.steps; ++k) j += u_at(x, k).squaredNorm();
    return h_ * problem_.effort * j;
  }

  void objective_gradient(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) const override {
    g.setZero();
    for (int k = 0; k < problem_.steps; ++k)
      g.template segment<m>(u_index(k)) = (2.0 * h_ * problem_.effort) * u_at(x, k);
  }

  void constraints(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> c) const override {
    const int N = problem_.steps;
    c.template segment<n>(0) = p_start_;
    for (int k = 1; k <= N; ++k) c.template segment<n>(k * n).setZero();
    for (int k = 0; k < N; ++k) {
      VecD<n> a, b;
      step_residuals(x, k, a, b);
      c.template segment<n>(k * n) += a;
      c.template segment<n>((k + 1) * n) += b;
    }
    c.template segment<n>(N * n) -= lagrangian_dv(system_.continuous_model(), q_at(x, N), v_end(x));
  }

  const std::vector<SparseEntry>& jacobian_structure() const override { return layout_.jacobian_structure(); }

  void constraint_jacobian(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> values) const override {
    values.setZero();
    const int N = problem_.steps;
    for (int k = 0; k < N; ++k) {
      Mat<n, K> da, db;
      step_jacobians(x, k, da, db);
      layout_.add_step_jacobian(k, da, db, values);
    }
    // c_N's last term: −∂L/∂q̇(q_N, v_N), differentiated in (q_N, v_N).
    const ScalarDerivatives<2 * n> l = end_lagrangian_derivatives(x);
    const int* end_slots = layout_.end_jacobian_slots();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < 2 * n; ++j) values[end_slots[i * 2 * n + j]] -= l.hessian(n + i, j);
  }

  bool has_exact_hessian() const override { return true; }
  const std::vector<SparseEntry>& hessian_structure() const override { return layout_.hessian_structure(); }

  void lagrangian_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, double sigma,
                          const Eigen::Ref<const Eigen::VectorXd>& lambda,
                          Eigen::Ref<Eigen::VectorXd> values) const override {
    values.setZero();
    const int N = problem_.steps;
    for (int k = 0; k < N; ++k) {
      const Mat<K, K> hk = step_hessian(x, k, lambda.template segment<n>(k * n),
                                        lambda.template segment<n>((k + 1) * n), sigma);
      layout_.add_step_hessian(k, hk, values);
    }
    // −λ_N·∂L/∂q̇(q_N, v_N): minus the Hessian of L's derivative along (0, λ_N).
    VecD<2 * n> z, w = VecD<2 * n>::Zero();
    z << q_at(x, N), v_end(x);
    w.template tail<n>() = lambda.template segment<n>(N * n);
    const Mat<2 * n, 2 * n> he = directional_hessian<2 * n>(end_lagrangian_function(), z, w);
    layout_.subtract_end_hessian(he, values);
  }

  // --- Reading a solution -------------------------------------------------------------------------

  /// The discrete momentum p_k at each node: p_0 = −D1 Ld(q_0, q_1) − f⁻_0, p_k likewise for k < N,
  /// p_N = D2 Ld(q_{N−1}, q_N) + f⁺_{N−1} (forced discrete Legendre transforms).
  std::vector<VecD<n>> momenta(const Eigen::Ref<const Eigen::VectorXd>& x) const {
    const int N = problem_.steps;
    std::vector<VecD<n>> p(N + 1);
    for (int k = 0; k < N; ++k) {
      VecD<n> a, b;
      step_residuals(x, k, a, b);
      p[k] = -a;
      if (k + 1 == N) p[N] = b;
    }
    return p;
  }

  /// The energy E(q_k, p_k) at each node (model/legendre.hpp).
  std::vector<double> energies(const Eigen::Ref<const Eigen::VectorXd>& x) const {
    const std::vector<VecD<n>> p = momenta(x);
    std::vector<double> e(p.size());
    for (std::size_t k = 0; k < p.size(); ++k)
      e[k] = energy_from_momentum(system_.continuous_model(), q_at(x, static_cast<int>(k)), p[k]);
    return e;
  }

 private:
  using StepVector = VecD<K>;

  StepVector step_vector(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const {
    StepVector s;
    s << q_at(x, k), q_at(x, k + 1), u_at(x, k);
    return s;
  }

  /// f⁻_k, f⁺_k on any scalar, from the step's unknowns s = (q_k, q_{k+1}, u_k).
  template <class T>
  void forces_of(const Vec<T, K>& s, int k, Vec<T, n>& f_minus, Vec<T, n>& f_plus) const {
    const Vec<T, n> q0 = s.template head<n>(), q1 = s.template segment<n>(n);
    const Vec<T, m> u = s.template tail<m>();
    system_.template discrete_forces<T>(q0, q1, u, k * h_, h_, f_minus, f_plus);
  }

  auto discrete_lagrangian_function() const {
    return [this](const auto& y) {
      using T = typename std::decay_t<decltype(y)>::Scalar;
      const Vec<T, n> q0 = y.template head<n>(), q1 = y.template tail<n>();
      return system_.template discrete_lagrangian<T>(q0, q1, h_);
    };
  }

  auto end_lagrangian_function() const {
    return [this](const auto& z) {
      using T = typename std::decay_t<decltype(z)>::Scalar;
      const Vec<T, n> q = z.template head<n>(), v = z.template tail<n>();
      return system_.continuous_model().template lagrangian<T>(q, v);
    };
  }

  ScalarDerivatives<2 * n> end_lagrangian_derivatives(const Eigen::Ref<const Eigen::VectorXd>& x) const {
    VecD<2 * n> z;
    z << q_at(x, problem_.steps), v_end(x);
    return value_gradient_hessian<2 * n>(end_lagrangian_function(), z);
  }

  /// A_k and B_k at doubles (the discrete Lagrangian's gradient by one jet pass).
  void step_residuals(const Eigen::Ref<const Eigen::VectorXd>& x, int k, VecD<n>& a, VecD<n>& b) const {
    VecD<2 * n> y;
    y << q_at(x, k), q_at(x, k + 1);
    const Vec<Jet<2 * n>, 2 * n> yj = seed_gradient<2 * n>(y);
    const Jet<2 * n> ld = discrete_lagrangian_function()(yj);
    VecD<n> f_minus, f_plus;
    forces_of<double>(step_vector(x, k), k, f_minus, f_plus);
    a = ld.v.template head<n>() + f_minus;
    b = ld.v.template tail<n>() + f_plus;
  }

  /// ∂A_k/∂s and ∂B_k/∂s, s = (q_k, q_{k+1}, u_k).
  void step_jacobians(const Eigen::Ref<const Eigen::VectorXd>& x, int k, Mat<n, K>& da, Mat<n, K>& db) const {
    VecD<2 * n> y;
    y << q_at(x, k), q_at(x, k + 1);
    const ScalarDerivatives<2 * n> ld = value_gradient_hessian<2 * n>(discrete_lagrangian_function(), y);
    Vec<Jet<K>, n> f_minus, f_plus;
    forces_of<Jet<K>>(seed_gradient<K>(step_vector(x, k)), k, f_minus, f_plus);
    for (int i = 0; i < n; ++i) {
      da.row(i) = f_minus[i].v.transpose();
      db.row(i) = f_plus[i].v.transpose();
      da.row(i).template head<2 * n>() += ld.hessian.row(i);
      db.row(i).template head<2 * n>() += ld.hessian.row(n + i);
    }
  }

  /// ∇²_s (λ_a·A_k + λ_b·B_k + σ·h·w·|u_k|²).
  Mat<K, K> step_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, int k, const VecD<n>& lambda_a,
                         const VecD<n>& lambda_b, double sigma) const {
    VecD<2 * n> y, w;
    y << q_at(x, k), q_at(x, k + 1);
    w << lambda_a, lambda_b;
    Mat<K, K> hk = Mat<K, K>::Zero();
    hk.template topLeftCorner<2 * n, 2 * n>() = directional_hessian<2 * n>(discrete_lagrangian_function(), y, w);
    const auto weighted_forces = [&](const auto& s) {
      using T = typename std::decay_t<decltype(s)>::Scalar;
      Vec<T, n> f_minus, f_plus;
      forces_of<T>(s, k, f_minus, f_plus);
      T sum = T();
      for (int i = 0; i < n; ++i) sum += lambda_a[i] * f_minus[i] + lambda_b[i] * f_plus[i];
      return sum;
    };
    hk += value_gradient_hessian<K>(weighted_forces, step_vector(x, k)).hessian;
    for (int i = 0; i < m; ++i) hk(2 * n + i, 2 * n + i) += 2.0 * sigma * h_ * problem_.effort;
    return hk;
  }

  S system_;
  Problem problem_;
  DmocProblem data_;
  DmocLayout layout_;
  double h_ = 0.0;
  VecD<n> p_start_;
  Eigen::VectorXd guess_;
};

}  // namespace mechint::optimal
