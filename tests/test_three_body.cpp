// Restricted three-body problem (001) on its kernels, as `mechint run three-body` integrates it:
// bounded Jacobi error of the VI over 1e4 time units against the secular growth of RK4 at the same
// step, order 2 of the VI against an rk78 reference, the full and simplified Newton iterations
// reaching the same solution, and the Runge–Kutta methods stopping at a collision.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "kernel/builtin_model_kernels.hpp"  // the three-body kernels, compiled once in the library
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/core/linear_algebra.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/solve/newton_options.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using kernel::KernelVariationalIntegrator;
using kernel::Vector;
using systems::ThreeBody;

// A prograde orbit about the larger primary at r ≈ 0.51 (rotating-frame speed 0.9). Its Jacobi
// constant C ≈ 3.35 exceeds C(L1) ≈ 3.19, so the zero-velocity curve encloses the larger primary
// and the orbit is bounded for all time (Hill's criterion): a fair long-run test.
const VecD<2> kQ0(0.5, 0.0), kV0(0.0, 0.9);

/// The kernels of the runs (the midpoint rule's discrete derivatives supplied by AD).
const kernel::KernelModel& three_body_kernels() {
  static const std::shared_ptr<const kernel::KernelModel> kernels =
      kernel::ModelAdapter<ThreeBody>::kernels_for_runs(ThreeBody{});
  return *kernels;
}

struct JacobiErrorTenths {
  double first = 0.0, last = 0.0;
};

JacobiErrorTenths vi_jacobi_error(double h, double t_end, NewtonVariant variant = NewtonVariant::kFull) {
  const ThreeBody model;
  NewtonOptions options;
  options.variant = variant;
  KernelVariationalIntegrator vi(three_body_kernels(), kernel::Rule::kMidpoint, h, options);
  vi.start_from_velocity(Vector(kQ0), Vector(kV0));
  const double c0 = model.jacobi(kQ0, kV0);
  const long steps = std::lround(t_end / h);
  JacobiErrorTenths e;
  for (long s = 1; s <= steps; ++s) {
    vi.step();
    const double err = std::abs(model.jacobi(vi.q(), vi.velocity()) - c0);
    if (s <= steps / 10) e.first = std::max(e.first, err);
    if (s > steps - steps / 10) e.last = std::max(e.last, err);
  }
  return e;
}

JacobiErrorTenths rk4_jacobi_error(double h, double t_end) {
  const ThreeBody model;
  kernel::KernelRk4 rk(kernel::KernelEulerLagrangeOde(three_body_kernels(), nullptr), h);
  rk.start_from_velocity(Vector(kQ0), Vector(kV0));
  const double c0 = model.jacobi(kQ0, kV0);
  const long segments = std::lround(t_end / h);
  JacobiErrorTenths e;
  long s = 0;
  integrate(rk, OutputSchedule{h, t_end, h}, [&](const kernel::KernelRk4& y) {
    const double err = std::abs(model.jacobi(y.q(), y.velocity()) - c0);
    if (s > 0 && s <= segments / 10) e.first = std::max(e.first, err);
    if (s > segments - segments / 10) e.last = std::max(e.last, err);
    ++s;
  });
  return e;
}

TEST(ThreeBody, StartIsInsideTheHillRegionOfTheLargerPrimary) {
  // The justification of the test orbit, checked: C(start) > C(L1), L1 located by bisection on
  // the x-axis where the effective force vanishes.
  const ThreeBody m;
  auto force = [&](double x) {
    const double d1 = x + m.mu, d2 = x - 1.0 + m.mu;
    return x - (1 - m.mu) * d1 / std::pow(std::abs(d1), 3) - m.mu * d2 / std::pow(std::abs(d2), 3);
  };
  double a = 0.5, b = 1.0 - m.mu - 1e-3;  // force < 0 at a, > 0 near the smaller primary
  ASSERT_LT(force(a), 0.0);
  ASSERT_GT(force(b), 0.0);
  for (int i = 0; i < 100; ++i) (force(0.5 * (a + b)) < 0 ? a : b) = 0.5 * (a + b);
  const double c_l1 = m.jacobi(VecD<2>(a, 0.0), VecD<2>::Zero());
  EXPECT_NEAR(a, 0.8369, 1e-3);  // Earth–Moon L1, textbook value
  EXPECT_GT(m.jacobi(kQ0, kV0), c_l1 + 0.1);
}

TEST(ThreeBody, ViJacobiErrorIsBoundedWhileRk4Grows) {
  const double h = 0.05, t_end = 1e4;
  const JacobiErrorTenths vi = vi_jacobi_error(h, t_end);
  const JacobiErrorTenths rk = rk4_jacobi_error(h, t_end);
  std::cout << "h = " << h << ", 1e4 time units; max |C - C0| first/last tenth: VI " << vi.first << " / "
            << vi.last << ", RK4 " << rk.first << " / " << rk.last << "\n";
  EXPECT_LE(vi.last, 2.0 * vi.first);
  EXPECT_GE(vi.last, 0.5 * vi.first);
  // RK4's energy error is secular: from t ≤ 1000 to t ≥ 9000 it grows several-fold.
  EXPECT_GT(rk.last, 4.0 * rk.first);
}

/// q(t_end) from a tight rk78 integration of the Euler–Lagrange ODE.
VecD<2> reference_position(double t_end) {
  kernel::KernelRk78 rk(kernel::KernelEulerLagrangeOde(three_body_kernels(), nullptr), 1e-3, {1e-14, 1e-14});
  rk.start_from_velocity(Vector(kQ0), Vector(kV0));
  while (rk.time() < t_end) rk.step_toward(t_end);
  return rk.q();
}

TEST(ThreeBody, ViIsSecondOrder) {
  const double t_end = 5.0;
  const VecD<2> ref = reference_position(t_end);
  std::vector<double> hs, errors;
  for (double h : {0.01, 0.005, 0.0025, 0.00125}) {
    KernelVariationalIntegrator vi(three_body_kernels(), kernel::Rule::kMidpoint, h);
    vi.start_from_velocity(Vector(kQ0), Vector(kV0));
    for (long s = 0; s < std::lround(t_end / h); ++s) vi.step();
    hs.push_back(h);
    errors.push_back((VecD<2>(vi.q()) - ref).norm());
  }
  EXPECT_NEAR(convergence_order(hs, errors), 2.0, 0.1);
}

TEST(ThreeBody, FullAndSimplifiedNewtonReachTheSameSolution) {
  // From the same state (q_k, p_k) at every step, full and simplified Newton must stop within the
  // solver tolerance of the same root. The simplified solver keeps its factorization from step to
  // step, so this also exercises a Jacobian held over many steps.
  const double h = 0.01, tol = 1e-12;
  const long steps = 5000;
  NewtonOptions full, simplified;
  full.step_tolerance = simplified.step_tolerance = tol;
  simplified.variant = NewtonVariant::kSimplified;
  KernelVariationalIntegrator a(three_body_kernels(), kernel::Rule::kMidpoint, h, full);
  KernelVariationalIntegrator b(three_body_kernels(), kernel::Rule::kMidpoint, h, simplified);
  KernelVariationalIntegrator c(three_body_kernels(), kernel::Rule::kMidpoint, h, simplified);
  a.start_from_velocity(Vector(kQ0), Vector(kV0));
  c.start_from_velocity(Vector(kQ0), Vector(kV0));
  double worst_step = 0.0, worst_run = 0.0;
  // The integrators' Newton counts, summed over the steps taken (each step's own NewtonStats).
  long iterations_a = 0, jacobians_a = 0, iterations_c = 0, jacobians_c = 0;
  for (long s = 0; s < steps; ++s) {
    b.start_from_momentum(a.q(), a.p(), a.time());
    a.step();
    b.step();
    c.step();
    iterations_a += a.last_newton_stats().iterations, jacobians_a += a.last_newton_stats().jacobian_evaluations;
    iterations_c += c.last_newton_stats().iterations, jacobians_c += c.last_newton_stats().jacobian_evaluations;
    worst_step = std::max(worst_step, (a.q() - b.q()).lpNorm<Eigen::Infinity>());
    worst_run = std::max(worst_run, (a.q() - c.q()).lpNorm<Eigen::Infinity>());
  }
  const double it_full = double(iterations_a) / steps;
  const double it_simpl = double(iterations_c) / steps;
  const double jac_simpl = double(jacobians_c) / steps;
  std::cout << "iterations per step: full " << it_full << " (Jacobians " << double(jacobians_a) / steps
            << "), simplified " << it_simpl << " (Jacobians " << jac_simpl << "); one-step difference "
            << worst_step << ", over 50 time units " << worst_run << "\n";
  // Full Newton stops at round-off (quadratic convergence), simplified Newton within about
  // tol·(1 + |q|) ≤ 2·tol of the root (|q| < 1 here); a factor 2 covers the estimate of θ.
  EXPECT_LT(worst_step, 4.0 * tol);
  // Over the run the per-step differences accumulate (5000 steps) and are carried along by the
  // flow; they stay far below the discretization error of h = 0.01 (~1e-4).
  EXPECT_LT(worst_run, 1e-6);
  // The simplified iteration keeps its Jacobian over many steps.
  EXPECT_LT(jac_simpl, 0.1);
  EXPECT_GE(it_simpl, it_full - 1e-12);
}

TEST(ThreeBody, CollisionIsAClearError) {
  ThreeBody m;
  EXPECT_THROW(m.validate_configuration(VecD<2>(-m.mu, 0.0), 1.0), std::domain_error);
  EXPECT_THROW(m.validate_configuration(VecD<2>(NAN, 0.0), 1.0), std::domain_error);
  EXPECT_NO_THROW(m.validate_configuration(VecD<2>(-m.mu + 0.01, 0.0), 0.0));
  m.collision_radius = 0.0166;  // the Earth's radius in Earth–Moon units
  EXPECT_THROW(m.validate_configuration(VecD<2>(-m.mu + 0.01, 0.0), 0.0), std::domain_error);
  EXPECT_NO_THROW(m.validate_configuration(kQ0, 0.0));
}

TEST(ThreeBody, RungeKuttaStopsAtACollision) {
  // Released at rest (inertially) relative to the larger primary, the body falls straight in; the
  // kernels' right-hand side is not defined inside the collision radius, and the step ending there is
  // refused by the model's own check (KernelModel::check_step: validate_configuration).
  ThreeBody m;
  m.collision_radius = 0.0166;
  const auto kernels = kernel::ModelAdapter<ThreeBody>::kernels(m);
  const kernel::KernelEulerLagrangeOde ode(*kernels, nullptr);
  const Vector q0 = Vector(VecD<2>(0.1, 0.0)), v0 = Vector(VecD<2>(0.0, -0.1 - m.mu));
  const OutputSchedule schedule{1e-3, 1.0, 1e-3};
  kernel::KernelRk4 rk4(ode, 1e-3);
  rk4.start_from_velocity(q0, v0);
  EXPECT_THROW(integrate(rk4, schedule, [](const auto&) {}), std::domain_error);
  kernel::KernelDopri5 dopri5(ode, 1e-3, RungeKuttaTolerances{});
  dopri5.start_from_velocity(q0, v0);
  EXPECT_THROW(integrate(dopri5, schedule, [](const auto&) {}), std::domain_error);
}

}  // namespace
}  // namespace mechint
