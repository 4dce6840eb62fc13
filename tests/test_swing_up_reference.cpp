// Tests of the minimum-effort pendulum swing-up reference (swing_up_reference.hpp), an indirect
// method on Pontryagin's conditions, against facts that do not come from it: the closed-form
// minimum-energy cost of the linearized (harmonic, and damped) oscillator via the controllability
// Gramian; constancy of the Hamiltonian of an autonomous problem; the end conditions reached by an
// independent forward simulation; reproducibility under other segment counts and tolerances and
// from other guesses; and a direct check that feasible perturbations of the control only raise ∫u².
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numbers>
#include <sstream>
#include <vector>

#include <Eigen/Dense>
#include <boost/numeric/odeint.hpp>

#include "swing_up_reference.hpp"

namespace mechint::testing {
namespace {

constexpr double kPi = std::numbers::pi;

std::vector<double> grid(double T, int n) {
  std::vector<double> t;
  for (int i = 0; i <= n; ++i) t.push_back(T * i / n);
  return t;
}

/// The swing-up of the brief: m = l = 1, g = 9.81, c = 0, T = 3, hanging at rest → upright at rest.
const SwingUpSolution& swing_up() {
  static const SwingUpSolution sol = solve_swing_up(PendulumSwingUp{});
  return sol;
}

// ---- linear regime: minimum-energy control of ẋ = A x + B u via the controllability Gramian ------

/// Linearization about θ = 0: ẋ = A x + B u, A = [[0, 1], [−w², −b]], B = [0, 1/I]ᵀ, with the
/// transition matrix Φ(t) = e^{A t} in closed form (underdamped, b < 2 w).
struct LinearOscillator {
  double w2, b, inertia;
  Eigen::Matrix2d phi(double t) const {
    const double beta = 0.5 * b, wd = std::sqrt(w2 - beta * beta), e = std::exp(-beta * t);
    const double c = std::cos(wd * t), s = std::sin(wd * t);
    Eigen::Matrix2d m;
    m << c + beta / wd * s, s / wd, -w2 / wd * s, c - beta / wd * s;
    return e * m;
  }
  Eigen::Vector2d B() const { return {0.0, 1.0 / inertia}; }
  /// W(T) = ∫₀ᵀ Φ(τ) B Bᵀ Φ(τ)ᵀ dτ by composite 5-point Gauss–Legendre (exact to rounding here).
  Eigen::Matrix2d gramian(double T) const {
    const double x[5] = {0.0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640, 0.9061798459386640};
    const double wq[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891,
                          0.2369268850561891};
    const int panels = 200;
    Eigen::Matrix2d W = Eigen::Matrix2d::Zero();
    for (int p = 0; p < panels; ++p) {
      const double a = T * p / panels, h = T / panels;
      for (int q = 0; q < 5; ++q) {
        const Eigen::Vector2d v = phi(a + 0.5 * h * (x[q] + 1.0)) * B();
        W += 0.5 * h * wq[q] * v * v.transpose();
      }
    }
    return W;
  }
};

TEST(SwingUpReference, SmallSwingMatchesClosedFormGramianCost) {
  PendulumSwingUp p;  // m = l = 1, g = 9.81, c = 0, T = 3
  p.thetaT = 0.01;
  const SwingUpSolution sol = solve_swing_up(p);
  ASSERT_TRUE(sol.converged);
  EXPECT_LE(sol.boundary_residual, 1e-10);

  // c = 0: W(T) = (1/I²) [[(T/2 − sin 2wT/(4w))/w², sin² wT/(2w²)], [sin² wT/(2w²), T/2 + sin 2wT/(4w)]].
  const double T = p.horizon, w = std::sqrt(p.gravity / p.length), I = p.mass * p.length * p.length;
  Eigen::Matrix2d W;
  W << (T / 2 - std::sin(2 * w * T) / (4 * w)) / (w * w), std::pow(std::sin(w * T), 2) / (2 * w * w),
      std::pow(std::sin(w * T), 2) / (2 * w * w), T / 2 + std::sin(2 * w * T) / (4 * w);
  W /= I * I;
  const LinearOscillator lin{w * w, 0.0, I};
  EXPECT_LT((lin.gramian(T) - W).norm(), 1e-12 * W.norm());  // the closed form against the quadrature

  const Eigen::Vector2d d(p.thetaT, p.omegaT);  // x_T − Φ(T) x0 with x0 = 0
  const Eigen::Vector2d nu = W.ldlt().solve(d);
  const double cost = d.dot(nu);
  // Nonlinearity: sin θ − θ ~ θ³/6, a relative effect O(θ²) ~ 1e-5 here.
  EXPECT_NEAR(sol.cost / cost, 1.0, 1e-4) << "reference " << sol.cost << ", linear " << cost;
  // The optimal control u(t) = Bᵀ Φ(T − t)ᵀ W⁻¹ d, pointwise.
  const std::vector<double> t = grid(T, 60);
  const std::vector<double> u = sol.controls(t);
  double peak = 0.0, err = 0.0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double ul = (lin.phi(T - t[i]) * lin.B()).dot(nu);
    peak = std::max(peak, std::abs(ul));
    err = std::max(err, std::abs(u[i] - ul));
  }
  EXPECT_LT(err, 1e-4 * peak);
}

TEST(SwingUpReference, SmallDampedSwingFromMotionMatchesGramianCost) {
  // Damping, a non-unit inertia and non-zero boundary velocities exercise every term of the costate
  // equations; the Gramian comes from the closed-form damped transition matrix by quadrature.
  PendulumSwingUp p;
  p.mass = 0.7;
  p.length = 1.3;
  p.damping = 0.4;
  p.theta0 = 0.004;
  p.omega0 = -0.01;
  p.thetaT = -0.006;
  p.omegaT = 0.012;
  p.horizon = 2.2;
  const SwingUpSolution sol = solve_swing_up(p);
  ASSERT_TRUE(sol.converged);
  EXPECT_LE(sol.boundary_residual, 1e-10);
  const double I = p.mass * p.length * p.length;
  const LinearOscillator lin{p.gravity / p.length, p.damping / I, I};
  const Eigen::Matrix2d W = lin.gramian(p.horizon);
  const Eigen::Vector2d d = Eigen::Vector2d(p.thetaT, p.omegaT) - lin.phi(p.horizon) * Eigen::Vector2d(p.theta0, p.omega0);
  const double cost = d.dot(W.ldlt().solve(d));
  EXPECT_NEAR(sol.cost / cost, 1.0, 1e-4) << "reference " << sol.cost << ", linear " << cost;
  // Autonomous (damping included): H is constant.
  for (const auto& z : sol.states(grid(p.horizon, 40)))
    EXPECT_NEAR(sol.hamiltonian(z), sol.hamiltonian0, 1e-12 * std::max(1.0, std::abs(sol.hamiltonian0)));
}

// ---- the swing-up ------------------------------------------------------------------------------

TEST(SwingUpReference, SwingUpSatisfiesPontryaginConditions) {
  const SwingUpSolution& sol = swing_up();
  ASSERT_TRUE(sol.converged);
  EXPECT_LE(sol.boundary_residual, 1e-10);
  EXPECT_TRUE(sol.jacobi_condition);  // no conjugate point: a strict local minimum
  ASSERT_FALSE(sol.extremal_costs.empty());
  EXPECT_EQ(sol.cost, sol.extremal_costs.front());  // the cheapest extremal the multistart found

  std::ostringstream cost;
  cost << std::setprecision(14) << sol.cost;
  std::cout << "swing-up (m = l = 1, g = 9.81, c = 0, T = 3, hanging at rest -> upright at rest): J = "
            << cost.str() << ", lambda(0) = (" << std::setprecision(12) << sol.lambda1_0 << ", " << sol.lambda2_0
            << "), Newton iterations " << sol.newton_iterations << " (all starts " << sol.total_newton_iterations
            << "), extremals found:";
  for (double c : sol.extremal_costs) std::cout << ' ' << std::setprecision(8) << c;
  std::cout << '\n';
  ::testing::Test::RecordProperty("swing_up_cost", cost.str());

  // The Hamiltonian of the autonomous problem is constant along the extremal.
  const std::vector<double> t = grid(3.0, 300);
  const std::vector<SwingUpState> z = sol.states(t);
  double drift = 0.0;
  for (const auto& s : z) drift = std::max(drift, std::abs(sol.hamiltonian(s) - sol.hamiltonian0));
  EXPECT_LT(drift, 1e-8);
  // At rest at both ends (sin θ = 0 there) H = −u², so |u(0)| = |u(T)| = √(−H).
  EXPECT_NEAR(std::abs(sol.control(0.0)), std::sqrt(-sol.hamiltonian0), 1e-10);
  EXPECT_NEAR(std::abs(sol.control(3.0)), std::sqrt(-sol.hamiltonian0), 1e-9);

  // End conditions, from the nodes and from one integration of [0, T] from λ(0).
  const SwingUpState end = sol.state(3.0);
  EXPECT_NEAR(end[0], kPi, 1e-10);
  EXPECT_NEAR(end[1], 0.0, 1e-10);
  EXPECT_LT(sol.single_shooting_residual, 1e-8);
  EXPECT_EQ(z.front()[0], 0.0);
  EXPECT_EQ(z.front()[1], 0.0);
}

TEST(SwingUpReference, CostIsReproducedWithOtherSegmentsAndTolerances) {
  SwingUpOptions other;
  other.segments = 5;
  other.abs_tol = other.rel_tol = 1e-12;
  const SwingUpSolution a = solve_swing_up(PendulumSwingUp{}, other);
  const SwingUpSolution& b = swing_up();
  ASSERT_TRUE(a.converged);
  EXPECT_NEAR(a.cost / b.cost, 1.0, 1e-9) << std::setprecision(16) << a.cost << " vs " << b.cost;
  EXPECT_NEAR(a.lambda1_0, b.lambda1_0, 1e-8);
  EXPECT_NEAR(a.lambda2_0, b.lambda2_0, 1e-8);
  // The trajectories agree pointwise (their nodes are at different times).
  const std::vector<double> t = grid(3.0, 37);
  const std::vector<double> ua = a.controls(t), ub = b.controls(t);
  for (std::size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(ua[i], ub[i], 1e-8) << "t = " << t[i];
}

TEST(SwingUpReference, PerturbedGuessesConvergeToTheSameExtremal) {
  const SwingUpSolution& ref = swing_up();
  // A rough control guess on a coarse grid: scaled by 1.2, plus a wave, no state guess (the node
  // states come from simulating it).
  const std::vector<double> t = grid(3.0, 30);
  std::vector<double> u = ref.controls(t);
  for (std::size_t i = 0; i < t.size(); ++i) u[i] = 1.2 * u[i] + 0.8 * std::sin(2.0 * t[i]) + 0.3;
  const SwingUpSolution a = solve_swing_up(PendulumSwingUp{}, t, u);
  ASSERT_TRUE(a.converged);
  EXPECT_NEAR(a.cost / ref.cost, 1.0, 1e-10);
  EXPECT_NEAR(a.lambda1_0, ref.lambda1_0, 1e-7);
  EXPECT_NEAR(a.lambda2_0, ref.lambda2_0, 1e-7);

  // A DMOC-like guess: θ and u on a grid of 20 intervals, with errors of a coarse discretization.
  const std::vector<double> tc = grid(3.0, 20);
  const std::vector<SwingUpState> z = ref.states(tc);
  std::vector<double> uc(tc.size()), thc(tc.size());
  for (std::size_t i = 0; i < tc.size(); ++i) {
    thc[i] = z[i][0] + 0.1 * std::sin(kPi * tc[i] / 3.0);
    uc[i] = -z[i][3] / 2.0 * 0.9;
  }
  SwingUpOptions coarse;
  coarse.segments = 6;
  const SwingUpSolution b = solve_swing_up(PendulumSwingUp{}, tc, uc, thc, coarse);
  ASSERT_TRUE(b.converged);
  EXPECT_NEAR(b.cost / ref.cost, 1.0, 1e-10);
  EXPECT_NEAR(b.lambda1_0, ref.lambda1_0, 1e-7);
}

TEST(SwingUpReference, FeasiblePerturbationsOfTheControlRaiseTheCost) {
  // Independent of the costate equations: drive the pendulum by u*(t) + ε v(t) + c1 w1(t) + c2 w2(t),
  // with (c1, c2) solved so that it still ends upright at rest, and integrate ∫u² directly. At a
  // minimum the cost rises for both signs of ε and its odd part (the first variation) vanishes.
  const SwingUpSolution& ref = swing_up();
  const double T = 3.0, I = ref.inertia(), a = 9.81;
  namespace odeint = boost::numeric::odeint;
  using State = std::array<double, 7>;  // θ*, ω*, λ1, λ2 (the extremal, for u*), θ, ω, J
  auto run = [&](auto v, double eps, double c1, double c2) {
    auto rhs = [&](const State& y, State& dy, double t) {
      const double us = -y[3] / (2.0 * I);
      dy[0] = y[1];
      dy[1] = -a * std::sin(y[0]) + us / I;
      dy[2] = a * y[3] * std::cos(y[0]);
      dy[3] = -y[2];
      const double u = us + eps * v(t) + c1 * std::sin(kPi * t / T) + c2 * std::sin(2.0 * kPi * t / T);
      dy[4] = y[5];
      dy[5] = -a * std::sin(y[4]) + u / I;
      dy[6] = u * u;
    };
    State y{0.0, 0.0, ref.lambda1_0, ref.lambda2_0, 0.0, 0.0, 0.0};
    odeint::integrate_adaptive(swing_up_detail::make_rkf78<State>(1e-12, 1e-12), rhs, y, 0.0, T, 1e-3);
    return y;
  };
  auto feasible_cost = [&](auto v, double eps) {
    double c1 = 0.0, c2 = 0.0;
    for (int it = 0; it < 20; ++it) {
      const State y = run(v, eps, c1, c2);
      const Eigen::Vector2d r(y[4] - kPi, y[5]);
      if (r.cwiseAbs().maxCoeff() < 1e-10) return y[6];
      const double h = 1e-6;
      const State y1 = run(v, eps, c1 + h, c2), y2 = run(v, eps, c1, c2 + h);
      Eigen::Matrix2d J;
      J << (y1[4] - y[4]) / h, (y2[4] - y[4]) / h, (y1[5] - y[5]) / h, (y2[5] - y[5]) / h;
      const Eigen::Vector2d dc = J.partialPivLu().solve(-r);
      c1 += dc[0];
      c2 += dc[1];
    }
    ADD_FAILURE() << "could not restore the end conditions";
    return 0.0;
  };
  const double j0 = feasible_cost([](double) { return 0.0; }, 0.0);
  EXPECT_NEAR(j0 / ref.cost, 1.0, 1e-9);  // u* itself is feasible, with the reference's cost
  // J(ε) − J* = g ε + ½ h ε² + k ε³ + …: the even part grows like ε² (h > 0), the odd part like ε³
  // when the first variation g is zero. g from Richardson on the odd parts at ε and 2ε.
  const double eps = 0.02;
  auto check = [&](auto v, const char* name) {
    double even[2], odd[2];
    for (int i = 0; i < 2; ++i) {
      const double e = (i + 1) * eps, jp = feasible_cost(v, e), jm = feasible_cost(v, -e);
      EXPECT_GT(jp, j0) << name;
      EXPECT_GT(jm, j0) << name;
      even[i] = 0.5 * (jp + jm) - j0;
      odd[i] = 0.5 * (jp - jm);
    }
    const double g = (8.0 * odd[0] - odd[1]) / (6.0 * eps), h = 2.0 * even[0] / (eps * eps);
    EXPECT_NEAR(even[1] / even[0], 4.0, 0.2) << name;
    EXPECT_GT(h, 1.0) << name;
    // A generic direction has a first variation ∫ 2 u* v dt of order ‖u*‖ ~ 5 here.
    EXPECT_LT(std::abs(g), 1e-2) << name << ": first variation " << g << ", second " << h;
  };
  check([&](double t) { return std::sin(3.0 * kPi * t / T); }, "sin 3πt/T");
  check([&](double t) { return std::cos(kPi * t / T); }, "cos πt/T");
  check([&](double t) { return t / T * std::cos(5.0 * kPi * t / T); }, "t cos 5πt/T");
}

TEST(SwingUpReference, JacobiDeterminantMatchesFiniteDifferencesAndItsSmallTimeLimit) {
  // det ∂(θ, ω)(t)/∂(λ1, λ2)(0) from the variational equations against (i) its limit t⁴/(48 I⁴) as
  // t → 0 and (ii) central differences of an integration of the state–costate ODE, written out
  // again here, over [0, T] from perturbed λ(0).
  const SwingUpSolution& ref = swing_up();
  const double T = 3.0, a = 9.81;  // I = 1
  const std::vector<double> det = ref.conjugate_determinants({0.02, 0.05, T});
  EXPECT_NEAR(det[0] / (std::pow(0.02, 4) / 48.0), 1.0, 1e-2);
  EXPECT_NEAR(det[1] / (std::pow(0.05, 4) / 48.0), 1.0, 5e-2);
  namespace odeint = boost::numeric::odeint;
  using State = std::array<double, 4>;
  auto end = [&](double l1, double l2) {
    auto rhs = [&](const State& y, State& dy, double) {
      dy[0] = y[1];
      dy[1] = -a * std::sin(y[0]) - y[3] / 2.0;
      dy[2] = a * y[3] * std::cos(y[0]);
      dy[3] = -y[2];
    };
    State y{0.0, 0.0, l1, l2};
    odeint::integrate_adaptive(swing_up_detail::make_rkf78<State>(1e-13, 1e-13), rhs, y, 0.0, T, 1e-3);
    return Eigen::Vector2d(y[0], y[1]);
  };
  const double h = 1e-5;
  Eigen::Matrix2d D;
  D.col(0) = (end(ref.lambda1_0 + h, ref.lambda2_0) - end(ref.lambda1_0 - h, ref.lambda2_0)) / (2 * h);
  D.col(1) = (end(ref.lambda1_0, ref.lambda2_0 + h) - end(ref.lambda1_0, ref.lambda2_0 - h)) / (2 * h);
  EXPECT_NEAR(det[2] / D.determinant(), 1.0, 1e-5) << det[2] << " vs " << D.determinant();
  // The end of that integration is the swing-up's end: single shooting from λ(0) alone works here.
  const Eigen::Vector2d e = end(ref.lambda1_0, ref.lambda2_0);
  EXPECT_NEAR(e[0], kPi, 1e-8);
  EXPECT_NEAR(e[1], 0.0, 1e-8);
}

TEST(SwingUpReference, ReportsTheShapeOfTheOptimalSwing) {
  // Facts the DMOC tests rely on: the optimal swing first goes backwards (θ < 0) once, then up to π
  // without passing it; the peak torque is below 6 N·m.
  const SwingUpSolution& sol = swing_up();
  const std::vector<double> t = grid(3.0, 3000);
  const std::vector<SwingUpState> z = sol.states(t);
  double theta_min = 0.0, theta_max = 0.0, peak = 0.0;
  int reversals = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    theta_min = std::min(theta_min, z[i][0]);
    theta_max = std::max(theta_max, z[i][0]);
    peak = std::max(peak, std::abs(z[i][3]) / 2.0);
    if (i > 1 && i + 1 < z.size() && (z[i][1] > 0.0) != (z[i - 1][1] > 0.0)) ++reversals;
  }
  std::cout << std::setprecision(6) << "swing-up: min theta " << theta_min << ", max theta " << theta_max
            << ", peak |u| " << peak << ", velocity reversals in (0, T) " << reversals << '\n';
  EXPECT_NEAR(theta_min, -0.9865, 1e-3);
  EXPECT_LE(theta_max, kPi + 1e-10);
  EXPECT_EQ(reversals, 1);
  EXPECT_NEAR(peak, 5.8053, 1e-3);
}

}  // namespace
}  // namespace mechint::testing
