// adapt=sundman (kernel/sundman_transformation.hpp, kernel/sundman_integrator.hpp). What is
// asserted, each against something independent:
//   - the transformed Lagrangian's gradient and Hessian against central differences of its value
//     and gradient (Kepler; the restricted three-body problem, whose L has a gyroscopic term);
//   - the order of the underlying method, measured on the closure of an eccentric Kepler orbit after
//     one period (the exact solution is periodic) and of the Arenstorf orbit of the restricted
//     three-body problem after its period (known to 30 digits);
//   - the energy bounded without secular drift over many orbits at e = 0.99, the angular momentum
//     conserved to round-off (s(q) = r^α is invariant under rotations);
//   - the rows at the requested times: t exactly, the state on Kepler's exact solution to the
//     method's accuracy, and (land=aside) a trajectory that the rows do not change at all;
//   - fewer steps than the fixed-step method for the same final error (steps, not time: counts are
//     independent of the machine);
//   - holonomic constraints (Lobatto IIIA–IIIB) under the transformation, against a fine fixed-step
//     run of the same model;
//   - refusals: no time scale, forces, a time scale that turns non-positive during the run;
//   - a step of the trajectory allocates nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "counting_allocator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_legendre.hpp"
#include "kernel/model_adapter.txx"
#include "kernel/sundman_integrator.hpp"
#include "kernel/sundman_transformation.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::KernelSundmanIntegrator;
using kernel::Vector;
using systems::Kepler;
using systems::ThreeBody;

std::shared_ptr<const KernelModel> kepler_model(double power = 1.5) {
  return kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0, power});
}

/// Start at pericentre of a = 1, eccentricity e (period 2π).
void kepler_start(double e, Vector& q0, Vector& v0) {
  VecD<2> q, v;
  Kepler::pericentre_start(1.0, 1.0, e, q, v);
  q0 = q, v0 = v;
}

// ---- the transformed Lagrangian --------------------------------------------------------------------

void expect_derivatives_match(const std::shared_ptr<const KernelModel>& base, const Vector& q0, const Vector& v0) {
  kernel::SundmanTransformation transformation(base);
  transformation.set_energy_level(kernel_energy(*base, q0, v0) + 0.3);  // off the motion's level too
  const KernelModel& m = transformation.model();
  const int n = m.dim();
  Vector q = q0, w = v0 * 0.7;
  kernel::LagrangianValues l(n);
  ASSERT_TRUE(m.lagrangian(q, w, l, true));
  const double eps = 1e-6;
  for (int i = 0; i < n; ++i) {
    for (int part = 0; part < 2; ++part) {
      Vector& x = part == 0 ? q : w;
      const double saved = x[i];
      kernel::LagrangianValues plus(n), minus(n);
      x[i] = saved + eps;
      ASSERT_TRUE(m.lagrangian(q, w, plus, true));
      x[i] = saved - eps;
      ASSERT_TRUE(m.lagrangian(q, w, minus, true));
      x[i] = saved;
      const double slope = (plus.value - minus.value) / (2 * eps);
      EXPECT_NEAR(part == 0 ? l.q[i] : l.v[i], slope, 1e-7 * (1 + std::abs(slope))) << "gradient " << part << i;
      for (int j = 0; j < n; ++j) {
        // Column i of the Hessian blocks from the difference of the gradients in x_i.
        const double dq = (plus.q[j] - minus.q[j]) / (2 * eps), dv = (plus.v[j] - minus.v[j]) / (2 * eps);
        const double want_q = part == 0 ? l.qq(j, i) : l.qv(j, i);  // ∂L̃_q_j/∂q_i, ∂L̃_q_j/∂w_i
        const double want_v = part == 0 ? l.qv(i, j) : l.vv(j, i);  // ∂L̃_w_j/∂q_i, ∂L̃_w_j/∂w_i
        EXPECT_NEAR(want_q, dq, 1e-6 * (1 + std::abs(dq))) << "part " << part << " i " << i << " j " << j;
        EXPECT_NEAR(want_v, dv, 1e-6 * (1 + std::abs(dv))) << "part " << part << " i " << i << " j " << j;
      }
    }
  }
}

TEST(SundmanTransformation, DerivativesMatchDifferencesOfTheValue) {
  expect_derivatives_match(kepler_model(1.5), Eigen::Vector2d(0.3, -0.8), Eigen::Vector2d(0.4, 1.1));
  expect_derivatives_match(kepler_model(1.0), Eigen::Vector2d(-1.3, 0.2), Eigen::Vector2d(0.1, -0.6));
  expect_derivatives_match(kernel::ModelAdapter<ThreeBody>::kernels(ThreeBody{}), Eigen::Vector2d(0.7, 0.3),
                           Eigen::Vector2d(-0.2, 0.5));
}

TEST(SundmanTransformation, RefusesModelsWithoutTimeScaleOrWithForces) {
  const auto pendulum = kernel::ModelAdapter<systems::DampedPendulum>::kernels(systems::DampedPendulum{});
  EXPECT_THROW(kernel::SundmanTransformation{pendulum}, InvalidInput);
}

// ---- orbits ---------------------------------------------------------------------------------------

/// The distance from the start after advancing to physical time T.
template <class Setup>
double closure_error(const std::shared_ptr<const KernelModel>& model, const Vector& q0, const Vector& v0,
                     kernel::GalerkinTableau tableau, double h, double period, Setup&& setup, long* steps = nullptr) {
  KernelSundmanIntegrator s(model, std::move(tableau), h);
  setup(s);
  s.start_from_velocity(q0, v0);
  advance_to(s, period);
  EXPECT_EQ(s.time(), period);
  if (steps) *steps = s.step_index();
  return std::hypot((s.q() - q0).norm(), (s.velocity() - v0).norm());
}

double observed_order(double coarse, double fine, double ratio) { return std::log(coarse / fine) / std::log(ratio); }

TEST(Sundman, KeplerOrbitClosesAtTheOrderOfTheMethod) {
  Vector q0, v0;
  kepler_start(0.9, q0, v0);
  const auto model = kepler_model();
  const double period = 2 * std::numbers::pi;
  const auto none = [](KernelSundmanIntegrator&) {};
  struct Row {
    kernel::GalerkinTableau tableau;
    double h;
    int order;
  };
  for (const Row& row : {Row{kernel::gauss_tableau(1), 0.02, 2}, Row{kernel::gauss_tableau(2), 0.1, 4},
                         Row{kernel::lobatto_tableau(3), 0.1, 4}, Row{kernel::gauss_tableau(3), 0.2, 6}}) {
    const double e1 = closure_error(model, q0, v0, row.tableau, row.h, period, none);
    const double e2 = closure_error(model, q0, v0, row.tableau, row.h / 2, period, none);
    const double e3 = closure_error(model, q0, v0, row.tableau, row.h / 4, period, none);
    SCOPED_TRACE("order " + std::to_string(row.order));
    EXPECT_NEAR(observed_order(e2, e3, 2), row.order, 0.35) << e1 << " " << e2 << " " << e3;
    EXPECT_LT(e3, e2);
  }
}

/// Arenstorf's periodic orbit of the restricted three-body problem (Hairer, Nørsett & Wanner I,
/// II.0): μ = 0.012277471, start (0.994, 0) with velocity (0, −2.00158510637908252240537862224), period
/// 17.0652165601579625588917206249. It passes the Moon closely: fixed steps need thousands.
TEST(Sundman, ArenstorfOrbitClosesAtTheOrderOfTheMethod) {
  const auto model = kernel::ModelAdapter<ThreeBody>::kernels(ThreeBody{0.012277471, 1e-6, 1.5});
  const Vector q0 = Eigen::Vector2d(0.994, 0.0), v0 = Eigen::Vector2d(0.0, -2.00158510637908252240537862224);
  const double period = 17.0652165601579625588917206249;
  const auto none = [](KernelSundmanIntegrator&) {};
  const double e1 = closure_error(model, q0, v0, kernel::gauss_tableau(2), 0.02, period, none);
  const double e2 = closure_error(model, q0, v0, kernel::gauss_tableau(2), 0.01, period, none);
  const double e3 = closure_error(model, q0, v0, kernel::gauss_tableau(2), 0.005, period, none);
  EXPECT_NEAR(observed_order(e2, e3, 2), 4.0, 0.35) << e1 << " " << e2 << " " << e3;
  EXPECT_LT(e3, 1e-4);
}

/// The energy over 400 orbits of e = 0.99 at every step of the trajectory: its largest error over
/// the last 20 orbits about that over the first 20 (no secular drift; H − E0 = K/s is largest at
/// pericentre, which every window passes), and the angular momentum conserved to round-off.
TEST(Sundman, EnergyBoundedAndMomentumExactOnAVeryEccentricOrbit) {
  Vector q0, v0;
  kepler_start(0.99, q0, v0);
  const auto model = kepler_model();
  KernelSundmanIntegrator s(model, kernel::gauss_tableau(2), 0.1);
  s.start_from_velocity(q0, v0);
  const double e0 = s.energy(), j0 = s.momentum(0);
  const double period = 2 * std::numbers::pi;
  const int orbits = 400;
  double early = 0.0, late = 0.0, momentum = 0.0;
  while (s.time() < orbits * period) {
    s.step_toward(1e300);  // the trajectory's own steps, no rows
    const double error = std::abs(s.energy() - e0);
    if (s.time() < 20 * period) early = std::max(early, error);
    if (s.time() > (orbits - 20) * period) late = std::max(late, error);
    momentum = std::max(momentum, std::abs(s.momentum(0) - j0));
  }
  EXPECT_GT(early, 0.0);
  EXPECT_LT(late, 1.5 * early) << "early " << early << " late " << late;
  EXPECT_LT(early, 1e-3);
  EXPECT_LT(momentum, 1e-12);
}

/// Rows at the output times: t exactly, the state that of Kepler's exact solution to the method's
/// accuracy, and the trajectory itself (land=aside) the same to the last bit whatever rows are asked.
TEST(Sundman, RowsAtTheRequestedTimesLeaveTheTrajectoryUnchanged) {
  Vector q0, v0;
  kepler_start(0.9, q0, v0);
  const auto model = kepler_model();
  const double h = 0.05;
  KernelSundmanIntegrator with_rows(model, kernel::gauss_tableau(2), h), without(model, kernel::gauss_tableau(2), h);
  with_rows.start_from_velocity(q0, v0);
  without.start_from_velocity(q0, v0);
  double worst = 0.0;
  for (int k = 1; k <= 100; ++k) {
    const double t = 0.1 * k;
    advance_to(with_rows, t);
    ASSERT_EQ(with_rows.time(), t);
    worst = std::max(worst, (with_rows.q() - Vector(Kepler::exact_position(1.0, 1.0, 0.9, t))).norm());
  }
  EXPECT_LT(worst, 1e-5);
  while (without.step_index() < with_rows.trajectory().step_index()) without.step_toward(1e9);
  EXPECT_EQ(without.trajectory().q(), with_rows.trajectory().q());
  EXPECT_EQ(without.trajectory().p(), with_rows.trajectory().p());
}

/// land=inline: the trajectory passes through every row; its energy stays bounded too.
TEST(Sundman, InlineLandingPassesThroughTheRows) {
  Vector q0, v0;
  kepler_start(0.9, q0, v0);
  KernelSundmanIntegrator s(kepler_model(), kernel::gauss_tableau(2), 0.05, {}, {}, {},
                            KernelSundmanIntegrator::Landing::kInline);
  s.start_from_velocity(q0, v0);
  const double e0 = s.energy();
  double worst = 0.0;
  for (int k = 1; k <= 200; ++k) {
    advance_to(s, 0.25 * k);
    ASSERT_EQ(s.time(), 0.25 * k);
    ASSERT_EQ(s.trajectory().time(), 0.25 * k);
    worst = std::max(worst, std::abs(s.energy() - e0));
  }
  EXPECT_LT(worst, 1e-4);
}

/// The point of the transformation: on e = 0.99, the fixed-step rule needs many times more steps
/// than the transformed one for the same closure error after one period.
TEST(Sundman, FewerStepsThanFixedStepsForTheSameError) {
  Vector q0, v0;
  kepler_start(0.99, q0, v0);
  const auto model = kepler_model();
  const double period = 2 * std::numbers::pi;
  long sundman_steps = 0;
  const double sundman_error = closure_error(model, q0, v0, kernel::gauss_tableau(2), 0.05, period,
                                             [](KernelSundmanIntegrator&) {}, &sundman_steps);
  ASSERT_LT(sundman_error, 1e-3);
  // The fixed step that reaches the same error, by halving.
  long fixed_steps = 0;
  for (long steps = 1000; steps <= 1'024'000; steps *= 2) {
    kernel::KernelGalerkinIntegrator fixed(*model, kernel::gauss_tableau(2), period / steps);
    fixed.start_from_velocity(q0, v0);
    double error = std::numeric_limits<double>::infinity();
    try {
      for (long k = 0; k < steps; ++k) fixed.step();
      error = std::hypot((fixed.q() - q0).norm(), (fixed.velocity() - v0).norm());
    } catch (const Error&) {  // a pericentre passage the step does not resolve
    }
    if (error <= sundman_error) {
      fixed_steps = steps;
      break;
    }
  }
  ASSERT_GT(fixed_steps, 0);
  EXPECT_GE(fixed_steps, 10 * sundman_steps) << "fixed " << fixed_steps << " sundman " << sundman_steps;
}

// ---- holonomic constraints ------------------------------------------------------------------------

/// A pendulum in Cartesian coordinates, x² + y² = 1, with a time scale that varies along it.
struct CartesianPendulum {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 1;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) - 9.81 * q[1];
  }
  template <class T>
  Vec<T, 1> constraints(const Vec<T, 2>& q) const {
    return Vec<T, 1>(q[0] * q[0] + q[1] * q[1] - 1.0);
  }
  template <class T>
  T time_scale(const Vec<T, 2>& q) const {
    return 1.0 + 0.5 * q[1];
  }
};

TEST(Sundman, HolonomicConstraintsOnLobattoAgreeWithFixedSteps) {
  const auto model = kernel::ModelAdapter<CartesianPendulum>::kernels(CartesianPendulum{});
  const Vector q0 = Eigen::Vector2d(std::sin(2.5), -std::cos(2.5)), v0 = Eigen::Vector2d::Zero();
  const double t_end = 3.0;
  kernel::KernelGalerkinIntegrator fine(*model, kernel::lobatto_tableau(4), t_end / 3000);
  fine.start_from_velocity(q0, v0);
  for (int k = 0; k < 3000; ++k) fine.step();
  std::vector<double> lambda_errors;
  for (double h : {0.02, 0.01}) {
    KernelSundmanIntegrator s(model, kernel::lobatto_tableau(3), h);
    s.start_from_velocity(q0, v0);
    const double e0 = s.energy();
    double energy = 0.0, residual = 0.0;
    for (int k = 1; k <= 30; ++k) {
      advance_to(s, 0.1 * k);
      energy = std::max(energy, std::abs(s.energy() - e0));
      residual = std::max(residual, s.constraint_residual().cwiseAbs().maxCoeff());
    }
    EXPECT_LT((s.q() - fine.q()).norm(), 1e-5);
    EXPECT_LT(energy, 1e-5);
    EXPECT_LT(residual, 1e-12);
    // The multiplier in physical time, λ̃/s, against the fixed-step run's.
    lambda_errors.push_back(std::abs(s.lambda()[0] - fine.lambda()[0]) / std::abs(fine.lambda()[0]));
  }
  EXPECT_LT(lambda_errors[1], 1e-3);
  EXPECT_GT(std::log2(lambda_errors[0] / lambda_errors[1]), 1.7) << lambda_errors[0] << " " << lambda_errors[1];
}

/// A time scale that a step takes to zero or below stops the run with the step and time named (the
/// exact motion only approaches s = 0: here a step far too large for the fall).
struct FallingToTheGround {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    return 0.5 * v[0] * v[0] - 9.81 * q[0];
  }
  template <class T>
  T time_scale(const Vec<T, 1>& q) const {
    return q[0];  // the height: zero at the ground
  }
};

TEST(Sundman, ATimeScaleThatTurnsNonPositiveStopsTheRun) {
  const auto model = kernel::ModelAdapter<FallingToTheGround>::kernels(FallingToTheGround{});
  KernelSundmanIntegrator s(model, kernel::gauss_tableau(1), 0.05);
  s.start_from_velocity(Vector::Constant(1, 1.0), Vector::Constant(1, -100.0));
  try {
    advance_to(s, 10.0);
    FAIL() << "no error; t = " << s.time() << ", q = " << s.q()[0];
  } catch (const NumericalFailure& e) {
    EXPECT_NE(std::string(e.what()).find("time scale"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("step 1 "), std::string::npos) << e.what();
  }
  KernelSundmanIntegrator below(model, kernel::gauss_tableau(1), 0.05);
  EXPECT_THROW(below.start_from_velocity(Vector::Constant(1, -1.0), Vector::Constant(1, 0.0)), InvalidStart);
}

TEST(Sundman, AStepAllocatesNothing) {
  Vector q0, v0;
  kepler_start(0.9, q0, v0);
  for (const auto& tableau : {kernel::gauss_tableau(1), kernel::gauss_tableau(2), kernel::lobatto_tableau(3)}) {
    KernelSundmanIntegrator s(kepler_model(), tableau, 0.05);
    s.start_from_velocity(q0, v0);
    s.step_toward(1e300);
    const long before = g_allocations.load();
    for (int i = 0; i < 50; ++i) s.step_toward(1e300);  // the trajectory's own steps
    EXPECT_EQ(g_allocations.load(), before);
  }
}

}  // namespace
}  // namespace mechint
