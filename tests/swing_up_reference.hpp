#pragma once
/// \file
/// Independent high-accuracy reference for the minimum-effort pendulum swing-up, for the tests of the
/// DMOC optimizer: an *indirect* method (Pontryagin's minimum principle, solved by multiple shooting
/// and Newton) integrated by Boost.Odeint's Runge–Kutta–Fehlberg 7(8) at tolerances ~1e-12.
///
/// Why it is independent: nothing here uses mechint's integrators, discrete Lagrangians, Newton or
/// DMOC code — only the standard library, Eigen (dense LU of the shooting Jacobian) and Boost.Odeint.
/// DMOC discretizes the Lagrange–d'Alembert principle and optimizes a direct transcription; this file
/// solves the necessary conditions of the continuous problem. The two meet only in the limit h → 0.
///
/// Model (conventions of include/mechint/systems/damped_pendulum.hpp): θ from the downward vertical
/// (θ = 0 hanging, θ = π upright), one control u, a torque at the pivot,
///
///     m l² θ̈ = −m g l sin θ − c θ̇ + u.
///
/// With I = m l², a = g/l, b = c/I and the state x = (θ, ω):  θ̇ = ω,  ω̇ = −a sin θ − b ω + u/I.
///
/// Problem: minimize J = ∫₀ᵀ u(t)² dt subject to x(0) = (θ0, ω0), x(T) = (θT, ωT).
///
/// Pontryagin (normal case, costates λ = (λ1, λ2)):
///
///     H(x, λ, u) = u² + λ1 ω + λ2 (−a sin θ − b ω + u/I)
///     ∂H/∂u = 0  ⇒  u* = −λ2 / (2 I)              (H_uu = 2 > 0: Legendre–Clebsch holds)
///     λ̇1 = −∂H/∂θ = a λ2 cos θ
///     λ̇2 = −∂H/∂ω = −λ1 + b λ2
///
/// The problem is autonomous, so H(x, λ, u*) = −u*² + λ1 ω + λ2 (−a sin θ − b ω) is constant along an
/// extremal (with or without damping). Inverting the two relations above, a control history u(t)
/// gives the costates λ2 = −2 I u and λ1 = 2 I (u̇ − b u); that is how an initial guess u on a grid
/// (e.g. DMOC's controls) is turned into shooting unknowns.
///
/// Two-point boundary-value problem, multiple shooting: nodes t_k = k T / N (k = 0..N). Unknowns:
/// λ(0) and the full z_k = (θ, ω, λ1, λ2)(t_k) for k = 1..N−1, 4N − 2 in all. Residuals: continuity
/// φ_{t_{k−1}→t_k}(z_{k−1}) − z_k (k = 1..N−1) and (θ, ω)(T) − x_T, 4N − 2 in all. The Jacobian comes
/// from the variational equations (the 4×4 state-transition matrix integrated with each segment). A
/// damped Newton iteration (backtracking on ‖F‖₂) drives max |F| below `SwingUpOptions::tolerance`.
///
/// The swing-up has several extremals (for T = 3 s from hanging to upright: one back-swing then up,
/// J ≈ 36.640; a direct forward swing, J ≈ 66.8428 (a local minimum) next to a saddle at 66.8432;
/// swings that pass over the top, J ≈ 206, 361, 501, …), and the branch
/// continued from the linear regime in θT folds (for T = 3 near θT ≈ 0.96 π) before reaching π. So the
/// default solve (no guess supplied) is a small multistart and returns the cheapest extremal found:
///  * continuation from the unforced motion: with λ ≡ 0 (u ≡ 0) the extremal from x0 ends at
///    x_free = φ_T(x0), so the problem with target x_free is solved exactly; the target
///    x_T(s) = (1 − s) x_free + s x_T is then moved towards s = 1 in adaptive steps with a secant
///    predictor (for the hanging start x_free = 0: continuation in θT from 0, the linear regime);
///  * Newton from 13 path guesses θ(t) = Hermite cubic between the boundary states + B b_k(t/T),
///    bumps b_1 = sin² πs, b_2 = sin² πs cos πs, b_3 = sin² πs cos 2πs, B ∈ {±1, ±2} rad, with u
///    from inverse dynamics u = I θ̈ + m g l sin θ + c θ̇.
/// This is evidence, not proof, of global optimality: `SwingUpSolution::extremal_costs` lists the
/// distinct extremals found and `jacobi_condition` whether the one returned has no conjugate point
/// in (0, T] (with H_uu > 0, a strict local minimum).
///
/// From a guess (u, optionally θ, on a grid): the nodes are built from it, then damped Newton; when
/// that fails, a Newton homotopy F(X) = (1 − s) F(X₀) from the guess X₀. No multistart, so the
/// result is the extremal the guess leads to.
///
/// Quadrature: J is integrated as a fifth state J̇ = u², under the same error control.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <Eigen/Dense>
#include <boost/numeric/odeint.hpp>

namespace mechint::testing {

/// The boundary-value problem: model parameters, boundary states and horizon T.
struct PendulumSwingUp {
  double mass = 1, length = 1, gravity = 9.81, damping = 0;
  double theta0 = 0, omega0 = 0, thetaT = std::numbers::pi, omegaT = 0, horizon = 3;
};

/// Numerical settings of the reference. The defaults converge the swing-up to max |F| ~ 1e-12.
struct SwingUpOptions {
  int segments = 8;              ///< N, multiple-shooting segments of equal length (N = 1: single shooting)
  double abs_tol = 1e-13;        ///< Odeint absolute tolerance (final solve and all evaluations)
  double rel_tol = 1e-13;        ///< Odeint relative tolerance
  double tolerance = 1e-10;      ///< Newton stops when max |F| ≤ tolerance (F in rad, rad/s, costate units)
  int max_newton_iterations = 40;
  double continuation_tolerance = 1e-7;  ///< Newton tolerance at intermediate continuation steps
  double continuation_abs_tol = 1e-10;   ///< looser Odeint tolerances at intermediate steps (speed)
  double continuation_rel_tol = 1e-10;
  bool multistart = true;  ///< default solve: also try the 13 path guesses (else continuation only)
  int jacobi_samples = 200;  ///< times in (0, T] at which the Jacobi determinant is checked
};

/// z = (θ, ω, λ1, λ2) at one time.
using SwingUpState = std::array<double, 4>;

/// Result of `solve_swing_up`. The trajectory is kept as the converged multiple-shooting nodes;
/// `state`, `control`, `states`… re-integrate from the last node at or before t (never across the
/// whole horizon from λ(0), which would amplify the node errors by the instability of the upright).
struct SwingUpSolution {
  bool converged = false;
  double cost = 0;               ///< ∫₀ᵀ u² dt, a quadrature state of the RKF78 integration (~1e-12 relative)
  double boundary_residual = 0;  ///< max |F| of the final shooting: continuity jumps and end-condition error
  double single_shooting_residual = 0;  ///< max |(θ, ω)(T) − x_T| integrating [0, T] in one go from λ(0)
  double lambda1_0 = 0, lambda2_0 = 0;  ///< costates at t = 0
  double hamiltonian0 = 0;       ///< H at t = 0 (constant along the extremal)
  int newton_iterations = 0;     ///< Newton iterations of the start returned, all its continuation steps included
  int final_newton_iterations = 0;  ///< Newton iterations of the last solve (at the true target)
  int continuation_steps = 0;    ///< accepted steps of the continuation or Newton homotopy that led here (else 0)
  int total_newton_iterations = 0;  ///< over every start of the multistart (= newton_iterations otherwise)
  bool jacobi_condition = false; ///< det ∂(θ,ω)(t)/∂λ(0) > 0 on jacobi_samples times in (0, T]: no conjugate point
  std::vector<double> extremal_costs;  ///< distinct converged extremals' costs, ascending (default solve)

  PendulumSwingUp problem;
  SwingUpOptions options;
  std::vector<double> node_times;          ///< t_0 = 0 < … < t_N = T
  std::vector<SwingUpState> node_states;   ///< z(t_k), k = 0..N (the last is the end of segment N)

  double inertia() const { return problem.mass * problem.length * problem.length; }

  /// z(t) = (θ, ω, λ1, λ2) for t ∈ [0, T] (clamped), re-integrated from the node at or before t.
  SwingUpState state(double t) const;
  /// The optimal control u*(t) = −λ2(t) / (2 m l²).
  double control(double t) const { return -state(t)[3] / (2.0 * inertia()); }
  /// z at each of `times` (any order; one sweep per segment when sorted).
  std::vector<SwingUpState> states(const std::vector<double>& times) const;
  /// u* at each of `times`.
  std::vector<double> controls(const std::vector<double>& times) const;
  /// H(z) with u = u*(z): −u² + λ1 ω + λ2 (−(g/l) sin θ − c ω/(m l²)).
  double hamiltonian(const SwingUpState& z) const;
  /// det ∂(θ, ω)(t) / ∂(λ1, λ2)(0) at each of `times` (sorted, in (0, T]), from the variational
  /// equations chained through the nodes. Jacobi's condition (no conjugate point in (0, T]) holds
  /// when it never vanishes (it behaves like t⁴/(48 I⁴) as t → 0⁺, so it stays positive).
  std::vector<double> conjugate_determinants(const std::vector<double>& times) const;
};

// ------------------------------------------------------------------------------------------------
namespace swing_up_detail {

namespace odeint = boost::numeric::odeint;

/// Augmented state: z (4), J (1) and, when kWithStm, the 4×4 state-transition matrix, row-major (16).
template <bool kWithStm>
using Augmented = std::array<double, kWithStm ? 21 : 5>;

struct Coefficients {
  double inertia, a, b;
  explicit Coefficients(const PendulumSwingUp& p)
      : inertia(p.mass * p.length * p.length), a(p.gravity / p.length), b(p.damping / inertia) {}
};

/// The state–costate ODE (and its variational equations).
template <bool kWithStm>
struct Extremal {
  Coefficients k;
  void operator()(const Augmented<kWithStm>& y, Augmented<kWithStm>& dy, double /*t*/) const {
    const double th = y[0], om = y[1], l1 = y[2], l2 = y[3];
    const double s = std::sin(th), c = std::cos(th);
    const double u = -l2 / (2.0 * k.inertia);
    dy[0] = om;
    dy[1] = -k.a * s - k.b * om + u / k.inertia;
    dy[2] = k.a * l2 * c;
    dy[3] = -l1 + k.b * l2;
    dy[4] = u * u;
    if constexpr (kWithStm) {
      // A = ∂f/∂z; d/dt Φ = A Φ, Φ row-major at y[5 + 4 i + j].
      const double A[4][4] = {{0.0, 1.0, 0.0, 0.0},
                              {-k.a * c, -k.b, 0.0, -1.0 / (2.0 * k.inertia * k.inertia)},
                              {-k.a * l2 * s, 0.0, 0.0, k.a * c},
                              {0.0, 0.0, -1.0, k.b}};
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          double acc = 0.0;
          for (int m = 0; m < 4; ++m) acc += A[i][m] * y[5 + 4 * m + j];
          dy[5 + 4 * i + j] = acc;
        }
    }
  }
};

// Odeint's steppers copy their (still unset) scratch arrays when the controller is built; GCC
// reports that copy as (possibly) uninitialized although every entry is written before it is read
// (as in include/mechint/integrate/odeint_baselines.hpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
/// Controlled Runge–Kutta–Fehlberg 7(8) on a std::array state.
template <class State>
auto make_rkf78(double abs_tol, double rel_tol) {
  return odeint::make_controlled(abs_tol, rel_tol, odeint::runge_kutta_fehlberg78<State>());
}
/// Controlled Dormand–Prince 5(4) on a std::array state.
template <class State>
auto make_dopri5(double abs_tol, double rel_tol) {
  return odeint::make_controlled(abs_tol, rel_tol, odeint::runge_kutta_dopri5<State>());
}
#pragma GCC diagnostic pop

/// Thrown by the step observer when an iterate makes the ODE blow up (a wild Newton trial).
struct Diverged {};

/// Integrate y from t0 to t1 (t1 ≥ t0) with controlled RKF78. Returns false on blow-up.
template <bool kWithStm>
bool integrate(const Coefficients& k, Augmented<kWithStm>& y, double t0, double t1, double abs_tol,
               double rel_tol) {
  if (!(t1 > t0)) return true;
  auto stepper = make_rkf78<Augmented<kWithStm>>(abs_tol, rel_tol);
  long steps = 0;
  auto watch = [&steps](const Augmented<kWithStm>& x, double) {
    if (++steps > 200000) throw Diverged{};
    for (int i = 0; i < 5; ++i)
      if (!std::isfinite(x[i]) || std::abs(x[i]) > 1e8) throw Diverged{};
  };
  try {
    odeint::integrate_adaptive(stepper, Extremal<kWithStm>{k}, y, t0, t1, std::min(1e-2, t1 - t0), watch);
  } catch (const Diverged&) {
    return false;
  } catch (const std::exception&) {  // odeint: no step size found
    return false;
  }
  for (double v : y)
    if (!std::isfinite(v)) return false;
  return true;
}

inline std::vector<double> uniform_nodes(double T, int n) {
  std::vector<double> t(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) t[static_cast<std::size_t>(i)] = T * i / n;
  t.back() = T;
  return t;
}

/// The multiple-shooting system for one target (θT, ωT).
struct Shooting {
  PendulumSwingUp problem;
  Coefficients k;
  std::vector<double> nodes;
  double abs_tol, rel_tol;
  Eigen::VectorXd offset;  ///< subtracted from F when non-empty (Newton homotopy F(X) − (1 − s) F(X₀))

  Shooting(const PendulumSwingUp& p, int n, double atol, double rtol)
      : problem(p), k(p), nodes(uniform_nodes(p.horizon, n)), abs_tol(atol), rel_tol(rtol) {}

  int segments() const { return static_cast<int>(nodes.size()) - 1; }
  int size() const { return 4 * segments() - 2; }

  SwingUpState node(const Eigen::VectorXd& X, int i) const {
    if (i == 0) return {problem.theta0, problem.omega0, X[0], X[1]};
    const int o = 2 + 4 * (i - 1);
    return {X[o], X[o + 1], X[o + 2], X[o + 3]};
  }

  /// F(X) and, when J is non-null, ∂F/∂X; `cost` gets Σ ∫u², `end` the end of the last segment.
  /// Returns false when an integration blew up.
  bool evaluate(const Eigen::VectorXd& X, Eigen::VectorXd& F, Eigen::MatrixXd* J, double* cost = nullptr,
                SwingUpState* end = nullptr) const {
    const int n = segments(), dim = size();
    F.resize(dim);
    if (J) J->setZero(dim, dim);
    double total = 0.0;
    for (int s = 0; s < n; ++s) {
      const SwingUpState z = node(X, s);
      Augmented<true> y{};
      for (int i = 0; i < 4; ++i) y[static_cast<std::size_t>(i)] = z[static_cast<std::size_t>(i)];
      for (int i = 0; i < 4; ++i) y[static_cast<std::size_t>(5 + 5 * i)] = 1.0;
      if (J) {
        if (!integrate<true>(k, y, nodes[static_cast<std::size_t>(s)], nodes[static_cast<std::size_t>(s) + 1],
                             abs_tol, rel_tol))
          return false;
      } else {
        Augmented<false> w{z[0], z[1], z[2], z[3], 0.0};
        if (!integrate<false>(k, w, nodes[static_cast<std::size_t>(s)], nodes[static_cast<std::size_t>(s) + 1],
                              abs_tol, rel_tol))
          return false;
        for (int i = 0; i < 5; ++i) y[static_cast<std::size_t>(i)] = w[static_cast<std::size_t>(i)];
      }
      total += y[4];
      auto stm = [&y](int i, int j) { return y[static_cast<std::size_t>(5 + 4 * i + j)]; };
      // Columns of the unknowns this segment starts from: λ(0) (cols 0–1, z columns 2–3) or z_s.
      const int col = s == 0 ? 0 : 2 + 4 * (s - 1);
      const int first_z = s == 0 ? 2 : 0;
      if (s < n - 1) {
        const int row = 4 * s;
        const SwingUpState next = node(X, s + 1);
        for (int i = 0; i < 4; ++i) F[row + i] = y[static_cast<std::size_t>(i)] - next[static_cast<std::size_t>(i)];
        if (J) {
          for (int i = 0; i < 4; ++i) {
            for (int j = first_z; j < 4; ++j) (*J)(row + i, col + j - first_z) = stm(i, j);
            (*J)(row + i, 2 + 4 * s + i) = -1.0;
          }
        }
      } else {
        const int row = 4 * (n - 1);
        F[row] = y[0] - problem.thetaT;
        F[row + 1] = y[1] - problem.omegaT;
        if (J)
          for (int i = 0; i < 2; ++i)
            for (int j = first_z; j < 4; ++j) (*J)(row + i, col + j - first_z) = stm(i, j);
        if (end) *end = {y[0], y[1], y[2], y[3]};
      }
    }
    if (offset.size() == dim) F -= offset;
    if (cost) *cost = total;
    return true;
  }

  /// Damped Newton from X. Returns true when max |F| ≤ tol; `iterations` counts Jacobian solves.
  /// With `polish`, one more full step after convergence is kept if it lowers ‖F‖ (rounding floor).
  bool newton(Eigen::VectorXd& X, double tol, int max_iter, int& iterations, bool polish = false) const {
    iterations = 0;
    Eigen::VectorXd F, Ft;
    Eigen::MatrixXd J;
    if (!evaluate(X, F, &J)) return false;
    for (;;) {
      if (F.cwiseAbs().maxCoeff() <= tol) {
        if (polish) {
          const Eigen::VectorXd Xt = X + J.fullPivLu().solve(-F);
          ++iterations;
          if (Xt.allFinite() && evaluate(Xt, Ft, nullptr) && Ft.norm() < F.norm()) X = Xt;
        }
        return true;
      }
      if (iterations >= max_iter) return false;
      ++iterations;
      const Eigen::VectorXd dX = J.fullPivLu().solve(-F);
      if (!dX.allFinite()) return false;
      const double f0 = F.norm();
      double alpha = 1.0;
      for (;;) {
        const Eigen::VectorXd Xt = X + alpha * dX;
        Eigen::MatrixXd Jt;
        if (evaluate(Xt, Ft, &Jt) && Ft.norm() < (1.0 - 1e-4 * alpha) * f0) {
          X = Xt;
          F = Ft;
          J = std::move(Jt);
          break;
        }
        alpha *= 0.5;
        if (alpha < 1.0 / 4096.0) {
          // Rounding floor: the step no longer decreases ‖F‖ but F is already tiny.
          return F.cwiseAbs().maxCoeff() <= 10.0 * tol;
        }
      }
    }
  }
};

/// Linear interpolation of (t, v) at t (clamped to the ends).
inline double interpolate(const std::vector<double>& t, const std::vector<double>& v, double x) {
  if (x <= t.front()) return v.front();
  if (x >= t.back()) return v.back();
  const auto it = std::upper_bound(t.begin(), t.end(), x);
  const std::size_t i = static_cast<std::size_t>(it - t.begin()) - 1;
  const double w = (x - t[i]) / (t[i + 1] - t[i]);
  return (1.0 - w) * v[i] + w * v[i + 1];
}

/// Derivative of the grid data at the grid points: centered differences (one-sided at the ends).
inline std::vector<double> differentiate(const std::vector<double>& t, const std::vector<double>& v) {
  const std::size_t n = t.size();
  std::vector<double> d(n, 0.0);
  if (n < 2) return d;
  d[0] = (v[1] - v[0]) / (t[1] - t[0]);
  d[n - 1] = (v[n - 1] - v[n - 2]) / (t[n - 1] - t[n - 2]);
  for (std::size_t i = 1; i + 1 < n; ++i) d[i] = (v[i + 1] - v[i - 1]) / (t[i + 1] - t[i - 1]);
  return d;
}

/// Fill in the solution's fields from converged unknowns X of `shoot` (at the options' tolerances).
inline SwingUpSolution finish(const Shooting& shoot, const Eigen::VectorXd& X, const SwingUpOptions& opt,
                              bool converged) {
  SwingUpSolution sol;
  sol.problem = shoot.problem;
  sol.options = opt;
  sol.node_times = shoot.nodes;
  Eigen::VectorXd F;
  Eigen::MatrixXd J;
  double cost = 0.0;
  SwingUpState end{};
  const bool ok = shoot.evaluate(X, F, &J, &cost, &end);
  sol.converged = converged && ok;
  sol.boundary_residual = ok ? F.cwiseAbs().maxCoeff() : std::numeric_limits<double>::infinity();
  sol.cost = cost;
  sol.lambda1_0 = X[0];
  sol.lambda2_0 = X[1];
  for (int i = 0; i < shoot.segments(); ++i) sol.node_states.push_back(shoot.node(X, i));
  sol.node_states.push_back(end);
  sol.hamiltonian0 = sol.hamiltonian(sol.node_states.front());
  Augmented<false> w{shoot.problem.theta0, shoot.problem.omega0, X[0], X[1], 0.0};
  sol.single_shooting_residual =
      integrate<false>(shoot.k, w, 0.0, shoot.problem.horizon, opt.abs_tol, opt.rel_tol)
          ? std::max(std::abs(w[0] - shoot.problem.thetaT), std::abs(w[1] - shoot.problem.omegaT))
          : std::numeric_limits<double>::infinity();
  if (ok && opt.jacobi_samples > 0) {
    std::vector<double> times;
    for (int i = 1; i <= opt.jacobi_samples; ++i) times.push_back(shoot.problem.horizon * i / opt.jacobi_samples);
    const std::vector<double> det = sol.conjugate_determinants(times);
    sol.jacobi_condition = std::all_of(det.begin(), det.end(), [](double d) { return d > 0.0; });
  }
  return sol;
}

}  // namespace swing_up_detail

// ---- SwingUpSolution ---------------------------------------------------------------------------

inline double SwingUpSolution::hamiltonian(const SwingUpState& z) const {
  const swing_up_detail::Coefficients k(problem);
  const double u = -z[3] / (2.0 * k.inertia);
  return -u * u + z[2] * z[1] + z[3] * (-k.a * std::sin(z[0]) - k.b * z[1]);
}

inline std::vector<SwingUpState> SwingUpSolution::states(const std::vector<double>& times) const {
  using namespace swing_up_detail;
  const Coefficients k(problem);
  std::vector<SwingUpState> out(times.size());
  // Sweep: continue from the previous sample when it lies in the same segment and not after t.
  int seg = -1;
  double t_cur = 0.0;
  Augmented<false> y{};
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double t = std::clamp(times[i], 0.0, problem.horizon);
    const int n = static_cast<int>(node_times.size()) - 1;
    int s = static_cast<int>(std::upper_bound(node_times.begin(), node_times.end(), t) - node_times.begin()) - 1;
    s = std::clamp(s, 0, n - 1);
    if (s != seg || t < t_cur) {
      seg = s;
      t_cur = node_times[static_cast<std::size_t>(s)];
      const SwingUpState& z = node_states[static_cast<std::size_t>(s)];
      y = {z[0], z[1], z[2], z[3], 0.0};
    }
    if (!integrate<false>(k, y, t_cur, t, options.abs_tol, options.rel_tol))
      throw std::runtime_error("swing_up_reference: integration failed");
    t_cur = t;
    out[i] = {y[0], y[1], y[2], y[3]};
  }
  return out;
}

inline SwingUpState SwingUpSolution::state(double t) const { return states({t}).front(); }

inline std::vector<double> SwingUpSolution::controls(const std::vector<double>& times) const {
  const auto z = states(times);
  std::vector<double> u(z.size());
  for (std::size_t i = 0; i < z.size(); ++i) u[i] = -z[i][3] / (2.0 * inertia());
  return u;
}

inline std::vector<double> SwingUpSolution::conjugate_determinants(const std::vector<double>& times) const {
  using namespace swing_up_detail;
  const Coefficients k(problem);
  std::vector<double> out;
  out.reserve(times.size());
  Eigen::Matrix4d chained = Eigen::Matrix4d::Identity();  // Φ(t_s, 0)
  int seg = 0;
  for (double t : times) {
    t = std::clamp(t, 0.0, problem.horizon);
    const int n = static_cast<int>(node_times.size()) - 1;
    while (seg < n - 1 && t > node_times[static_cast<std::size_t>(seg) + 1]) {
      // Advance the chained matrix over the whole segment seg.
      const SwingUpState& z = node_states[static_cast<std::size_t>(seg)];
      Augmented<true> y{};
      for (int i = 0; i < 4; ++i) y[static_cast<std::size_t>(i)] = z[static_cast<std::size_t>(i)];
      for (int i = 0; i < 4; ++i) y[static_cast<std::size_t>(5 + 5 * i)] = 1.0;
      integrate<true>(k, y, node_times[static_cast<std::size_t>(seg)], node_times[static_cast<std::size_t>(seg) + 1],
                      options.abs_tol, options.rel_tol);
      const Eigen::Map<const Eigen::Matrix<double, 4, 4, Eigen::RowMajor>> phi(y.data() + 5);
      chained = (phi * chained).eval();
      ++seg;
    }
    const SwingUpState& z = node_states[static_cast<std::size_t>(seg)];
    Augmented<true> y{};
    for (int i = 0; i < 4; ++i) y[static_cast<std::size_t>(i)] = z[static_cast<std::size_t>(i)];
    for (int i = 0; i < 4; ++i) y[static_cast<std::size_t>(5 + 5 * i)] = 1.0;
    integrate<true>(k, y, node_times[static_cast<std::size_t>(seg)], t, options.abs_tol, options.rel_tol);
    const Eigen::Map<const Eigen::Matrix<double, 4, 4, Eigen::RowMajor>> phi(y.data() + 5);
    const Eigen::Matrix4d total = phi * chained;
    out.push_back(total.block<2, 2>(0, 2).determinant());
  }
  return out;
}

// ---- solvers -----------------------------------------------------------------------------------

namespace swing_up_detail {

/// Multiple-shooting unknowns from a guess: node costates from u (λ2 = −2 I u, λ1 = 2 I (u̇ − b u)),
/// node states from θ (ω by finite differences) or, when theta is empty, by simulating with u.
inline Eigen::VectorXd unknowns_from_guess(const PendulumSwingUp& problem, int n, const std::vector<double>& t_guess,
                                           const std::vector<double>& u_guess, const std::vector<double>& theta_guess) {
  if (t_guess.size() < 2 || u_guess.size() != t_guess.size() ||
      (!theta_guess.empty() && theta_guess.size() != t_guess.size()))
    throw std::invalid_argument("solve_swing_up: t_guess and u_guess (and theta_guess) must match, size >= 2");
  const Coefficients k(problem);
  const std::vector<double> nodes = uniform_nodes(problem.horizon, n);
  const std::vector<double> du = differentiate(t_guess, u_guess);
  std::vector<double> theta(nodes.size()), omega(nodes.size());
  if (!theta_guess.empty()) {
    const std::vector<double> dtheta = differentiate(t_guess, theta_guess);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      theta[i] = interpolate(t_guess, theta_guess, nodes[i]);
      omega[i] = interpolate(t_guess, dtheta, nodes[i]);
    }
  } else {
    // Simulate with the guessed u forwards from x0 and backwards from x_T (in τ = T − t), and blend
    // the two linearly in t: each is trusted near its own end (the upright is unstable both ways).
    using Plant = std::array<double, 2>;
    const double T = problem.horizon;
    auto forward = [&](const Plant& x, Plant& dx, double t) {
      dx[0] = x[1];
      dx[1] = -k.a * std::sin(x[0]) - k.b * x[1] + interpolate(t_guess, u_guess, t) / k.inertia;
    };
    auto backward = [&](const Plant& x, Plant& dx, double tau) {
      dx[0] = -x[1];
      dx[1] = -(-k.a * std::sin(x[0]) - k.b * x[1] + interpolate(t_guess, u_guess, T - tau) / k.inertia);
    };
    const std::size_t m = nodes.size();
    std::vector<Plant> fwd(m), bwd(m);
    Plant x{problem.theta0, problem.omega0};
    fwd[0] = x;
    for (std::size_t i = 1; i < m; ++i) {
      boost::numeric::odeint::integrate_adaptive(make_dopri5<Plant>(1e-10, 1e-10), forward, x, nodes[i - 1],
                                                 nodes[i], 1e-3);
      fwd[i] = x;
    }
    x = {problem.thetaT, problem.omegaT};
    bwd[m - 1] = x;
    for (std::size_t i = m - 1; i-- > 0;) {
      boost::numeric::odeint::integrate_adaptive(make_dopri5<Plant>(1e-10, 1e-10), backward, x, T - nodes[i + 1],
                                                 T - nodes[i], 1e-3);
      bwd[i] = x;
    }
    for (std::size_t i = 0; i < m; ++i) {
      const double w = nodes[i] / T;
      theta[i] = (1.0 - w) * fwd[i][0] + w * bwd[i][0];
      omega[i] = (1.0 - w) * fwd[i][1] + w * bwd[i][1];
    }
  }
  Eigen::VectorXd X(4 * n - 2);
  auto costates = [&](double t, double& l1, double& l2) {
    const double u = interpolate(t_guess, u_guess, t), ud = interpolate(t_guess, du, t);
    l2 = -2.0 * k.inertia * u;
    l1 = 2.0 * k.inertia * (ud - k.b * u);
  };
  costates(0.0, X[0], X[1]);
  for (int s = 1; s < n; ++s) {
    const int o = 2 + 4 * (s - 1);
    X[o] = theta[static_cast<std::size_t>(s)];
    X[o + 1] = omega[static_cast<std::size_t>(s)];
    costates(nodes[static_cast<std::size_t>(s)], X[o + 2], X[o + 3]);
  }
  return X;
}

/// Follow the solutions of make(s) (a Shooting) from the solution X at s = 0 to s = 1, in adaptive
/// steps with a secant predictor. Returns true when it reached s = 1 at the continuation tolerance.
template <class MakeShooting>
bool follow(const MakeShooting& make, const SwingUpOptions& options, Eigen::VectorXd& X, int& iterations,
            int& steps) {
  iterations = steps = 0;
  double s = 0.0, s_prev = 0.0, ds = 0.2;
  Eigen::VectorXd X_prev = X;
  bool have_prev = false;
  while (s < 1.0) {
    const double s_new = std::min(1.0, s + ds);
    Eigen::VectorXd guess = X;
    if (have_prev) guess += (s_new - s) / (s - s_prev) * (X - X_prev);
    int it = 0;
    const bool ok = make(s_new).newton(guess, options.continuation_tolerance, 10, it);
    iterations += it;
    if (ok) {
      X_prev = X;
      s_prev = s;
      X = guess;
      s = s_new;
      have_prev = true;
      ++steps;
      ds = std::min(2.0 * ds, 0.5);
    } else {
      ds *= 0.5;
      if (ds < 1e-3) return false;  // a fold of the path (or a hard step): give up
    }
  }
  return true;
}

/// Continuation from the unforced motion to the target (see the file comment). Returns true when it
/// reached s = 1 at the continuation tolerance; X then holds the unknowns.
inline bool continuation(const PendulumSwingUp& problem, const SwingUpOptions& options, Eigen::VectorXd& X,
                         int& iterations, int& steps) {
  const int n = std::max(1, options.segments);
  const Coefficients k(problem);
  const std::vector<double> nodes = uniform_nodes(problem.horizon, n);
  X = Eigen::VectorXd::Zero(4 * n - 2);
  Augmented<false> y{problem.theta0, problem.omega0, 0.0, 0.0, 0.0};
  for (int s = 1; s <= n; ++s) {
    if (!integrate<false>(k, y, nodes[static_cast<std::size_t>(s) - 1], nodes[static_cast<std::size_t>(s)],
                          options.continuation_abs_tol, options.continuation_rel_tol))
      return false;
    if (s < n) {
      X[2 + 4 * (s - 1)] = y[0];
      X[2 + 4 * (s - 1) + 1] = y[1];
    }
  }
  const double theta_free = y[0], omega_free = y[1];
  auto make = [&](double s) {
    PendulumSwingUp p = problem;
    p.thetaT = (1.0 - s) * theta_free + s * problem.thetaT;
    p.omegaT = (1.0 - s) * omega_free + s * problem.omegaT;
    return Shooting(p, n, options.continuation_abs_tol, options.continuation_rel_tol);
  };
  return follow(make, options, X, iterations, steps);
}

/// Newton homotopy from an arbitrary X₀: the solutions of F(X) = (1 − s) F(X₀), s from 0 (X₀ itself)
/// to 1, stay in the neighbourhood of the guess where plain damped Newton may stall.
inline bool newton_homotopy(const PendulumSwingUp& problem, const SwingUpOptions& options, Eigen::VectorXd& X,
                            int& iterations, int& steps) {
  const int n = std::max(1, options.segments);
  const Shooting base(problem, n, options.continuation_abs_tol, options.continuation_rel_tol);
  Eigen::VectorXd r0;
  iterations = steps = 0;
  if (!base.evaluate(X, r0, nullptr)) return false;
  auto make = [&](double s) {
    Shooting shoot = base;
    shoot.offset = (1.0 - s) * r0;
    return shoot;
  };
  return follow(make, options, X, iterations, steps);
}

/// A smooth path guess: Hermite cubic between the boundary states plus B·bump_k, on `points` times,
/// with u from inverse dynamics.
inline void path_guess(const PendulumSwingUp& p, int bump, double amplitude, int points, std::vector<double>& t,
                       std::vector<double>& u, std::vector<double>& theta) {
  const double T = p.horizon, pi = std::numbers::pi;
  auto path = [&](double tt) {
    const double s = tt / T, s2 = s * s, s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    const double sn = std::sin(pi * s);
    const double b = bump == 1 ? sn * sn : bump == 2 ? sn * sn * std::cos(pi * s) : sn * sn * std::cos(2 * pi * s);
    return h00 * p.theta0 + h10 * T * p.omega0 + h01 * p.thetaT + h11 * T * p.omegaT + amplitude * b;
  };
  const Coefficients k(p);
  const double h = 1e-4 * T;
  t.resize(static_cast<std::size_t>(points));
  u.resize(t.size());
  theta.resize(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    t[i] = T * static_cast<double>(i) / static_cast<double>(points - 1);
    const double th = path(t[i]), thp = path(t[i] + h), thm = path(t[i] - h);
    const double om = (thp - thm) / (2 * h), acc = (thp - 2 * th + thm) / (h * h);
    theta[i] = th;
    u[i] = k.inertia * (acc + k.a * std::sin(th) + k.b * om);
  }
}

}  // namespace swing_up_detail

/// Solve from the default guess: the multistart of the file comment (continuation from the
/// unforced motion, and Newton from 13 path guesses unless options.multistart is false), each
/// converged start polished at `options`' tolerances; returns the cheapest converged extremal.
/// `newton_iterations` counts the iterations of the start that won (continuation: every step),
/// `total_newton_iterations` those of all starts.
inline SwingUpSolution solve_swing_up(const PendulumSwingUp& problem, const SwingUpOptions& options = {}) {
  using namespace swing_up_detail;
  const int n = std::max(1, options.segments);
  const Shooting loose(problem, n, options.continuation_abs_tol, options.continuation_rel_tol);
  const Shooting tight(problem, n, options.abs_tol, options.rel_tol);

  SwingUpSolution best;
  std::vector<double> costs;
  int total = 0;
  auto consider = [&](Eigen::VectorXd X, int iterations, int steps) {
    int it = 0;
    const bool ok = tight.newton(X, options.tolerance, options.max_newton_iterations, it, true);
    iterations += it;
    total += it;
    if (!ok) return;
    SwingUpSolution sol = finish(tight, X, options, true);
    if (!sol.converged) return;
    sol.newton_iterations = iterations;
    sol.final_newton_iterations = it;
    sol.continuation_steps = steps;
    const bool seen = std::any_of(costs.begin(), costs.end(), [&](double c) {
      return std::abs(c - sol.cost) <= 1e-8 * std::max(1.0, std::abs(c));
    });
    if (!seen) costs.push_back(sol.cost);
    if (!best.converged || sol.cost < best.cost) best = std::move(sol);
  };

  Eigen::VectorXd X;
  int iterations = 0, steps = 0;
  const bool continued = continuation(problem, options, X, iterations, steps);
  total += iterations;
  if (continued) consider(X, iterations, steps);

  if (options.multistart || !continued) {
    std::vector<double> t, u, theta;
    for (int bump = 1; bump <= 3; ++bump)
      for (double amplitude : {0.0, -2.0, -1.0, 1.0, 2.0}) {
        if (amplitude == 0.0 && bump > 1) continue;
        path_guess(problem, bump, amplitude, 301, t, u, theta);
        X = unknowns_from_guess(problem, n, t, u, theta);
        int it = 0;
        const bool ok = loose.newton(X, options.continuation_tolerance, 25, it);
        total += it;
        if (ok) consider(X, it, 0);
      }
  }
  std::sort(costs.begin(), costs.end());
  for (double& c : costs)  // the returned solution's own value, not an equal one found by another start
    if (best.converged && std::abs(c - best.cost) <= 1e-8 * std::max(1.0, std::abs(c))) c = best.cost;
  best.extremal_costs = costs;
  best.total_newton_iterations = total;
  if (!best.converged) {  // nothing converged: report the failure with the continuation's last state
    best.problem = problem;
    best.options = options;
  }
  return best;
}

/// Solve from a guess: a control history u_guess at times t_guess (sorted, ≥ 2 points; values are
/// clamped at the ends, linear in between), and optionally θ on the same grid (`theta_guess`, empty
/// to leave out) — e.g. DMOC's q_k and u_k. Node costates: λ2 = −2 I u, λ1 = 2 I (u̇ − b u), u̇ by
/// finite differences. Node states: from θ_guess (ω by finite differences) when given, else from
/// integrating the dynamics with the guessed u forwards from x0 and backwards from x_T, blended
/// linearly in t. Then damped Newton; if it fails, the Newton homotopy F(X) = (1 − s) F(X₀) from
/// the guess X₀. No multistart: the result is the extremal the guess leads to, which need not be the
/// global minimum (compare `cost` with the default solve's).
inline SwingUpSolution solve_swing_up(const PendulumSwingUp& problem, const std::vector<double>& t_guess,
                                      const std::vector<double>& u_guess, const std::vector<double>& theta_guess,
                                      const SwingUpOptions& options = {}) {
  using namespace swing_up_detail;
  const int n = std::max(1, options.segments);
  Eigen::VectorXd X = unknowns_from_guess(problem, n, t_guess, u_guess, theta_guess);
  const Shooting shoot(problem, n, options.abs_tol, options.rel_tol);
  const Eigen::VectorXd X0 = X;
  int it = 0, total = 0, steps = 0;
  bool ok = shoot.newton(X, options.tolerance, options.max_newton_iterations, it, true);
  total = it;
  if (!ok) {  // the failed plain Newton's iterations count in the total too
    X = X0;
    int homotopy = 0;
    ok = newton_homotopy(problem, options, X, homotopy, steps);
    total += homotopy;
    it = 0;
    ok = ok && shoot.newton(X, options.tolerance, options.max_newton_iterations, it, true);
    total += it;
  }
  SwingUpSolution sol = finish(shoot, X, options, ok);
  sol.newton_iterations = sol.total_newton_iterations = total;
  sol.final_newton_iterations = it;
  sol.continuation_steps = steps;
  if (sol.converged) sol.extremal_costs = {sol.cost};
  return sol;
}

/// Solve from a control guess only (node states by simulation, see the overload above).
inline SwingUpSolution solve_swing_up(const PendulumSwingUp& problem, const std::vector<double>& t_guess,
                                      const std::vector<double>& u_guess, const SwingUpOptions& options = {}) {
  return solve_swing_up(problem, t_guess, u_guess, {}, options);
}

}  // namespace mechint::testing
