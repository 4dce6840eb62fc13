// The DAE baseline (SUNDIALS IDA on the GGL formulation) on the constrained spherical pendulum, on
// the kernel engine (kernel::KernelDaeStepper on the built-in's kernels, as `--method dae` runs it):
// a consistent start, agreement with an independent reference (rk78 at tight tolerance on the
// unconstrained equations in spherical angles, a Lagrangian written here), the multiplier against its
// closed form, both constraint levels kept, error falling with the tolerance, and agreement with the
// kernel midpoint VI at small h. The GGL residual at the start is checked on the fixed-size
// ConstrainedDae, the one place it is public.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "kernel/builtin_model_kernels.hpp"  // the built-ins' kernels, linked to
#include "kernel/kernel_dae.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.txx"  // the kernels of the reference's own model (AnglesPendulum)
#include "mechint/integrate/constrained_dae.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::KernelDaeStepper;
using kernel::KernelModel;
using systems::SphericalAnglesChart;
using systems::SphericalPendulum;

const SphericalPendulum kModel{1.3, 0.9, 9.81};
const SphericalAnglesChart kChart{0.9};
// Start: θ = 1.1 from the downward vertical, φ = 0.2, θ̇ = 0.4, φ̇ = 2.1.
const VecD<2> kAngles0(1.1, 0.2), kAngleRates0(0.4, 2.1);

VecD<3> start_position() { return kChart.embed<double>(kAngles0); }
VecD<3> start_velocity() { return kChart.embed_velocity<double>(kAngles0, kAngleRates0); }

/// The pendulum's kernels as a run of the built-in uses them.
const KernelModel& pendulum_kernels() {
  static const std::shared_ptr<const KernelModel> k = kernel::ModelAdapter<SphericalPendulum>::kernels_for_runs(kModel);
  return *k;
}

/// The same pendulum in the angles (θ, φ): L = ½ m l² (θ̇² + sin²θ φ̇²) + m g l cos θ — an
/// unconstrained model for the Runge–Kutta reference, written independently of the system's.
struct AnglesPendulum {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  double m, l, g;
  template <class T>
  T lagrangian(const Vec<T, 2>& a, const Vec<T, 2>& ad) const {
    using std::cos;
    using std::sin;
    const T s = sin(a[0]);
    return 0.5 * m * l * l * (ad[0] * ad[0] + s * s * ad[1] * ad[1]) + m * g * l * cos(a[0]);
  }
};

/// Position at t from rk78 at rtol = atol = 1e-13 on the angle equations.
VecD<3> reference_position(double t) {
  static const std::shared_ptr<const KernelModel> angles =
      kernel::ModelAdapter<AnglesPendulum>::kernels(AnglesPendulum{kModel.mass, kModel.length, kModel.gravity});
  kernel::KernelRk78 rk(kernel::KernelEulerLagrangeOde(*angles, nullptr), 1e-3, RungeKuttaTolerances{1e-13, 1e-13});
  rk.start_from_velocity(kAngles0, kAngleRates0);
  while (rk.time() < t) rk.step_toward(t);
  return kChart.embed<double>(VecD<2>(rk.q()));
}

double dae_error(double t, KernelDaeStepper::Tolerances tol) {
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, tol);
  ida.start_from_velocity(start_position(), start_velocity());
  ida.step_toward(t);
  return (ida.q() - reference_position(t)).norm();
}

TEST(Dae, ConsistentStartSatisfiesTheAccelerationConstraint) {
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, {1e-10, 1e-12});
  ida.start_from_velocity(start_position(), start_velocity());
  const VecD<3> q = ida.q(), v = ida.velocity();
  EXPECT_EQ(q, start_position());
  EXPECT_EQ(v, start_velocity());
  // The residual's constraint rows: g(q) and G v = 2 q·v.
  EXPECT_LT(std::abs(ida.constraint_residual()[0]), 1e-12);
  EXPECT_LT(std::abs(2.0 * q.dot(v)), 1e-12);
  // The stepper keeps ẏ inside; its start's multiplier gives it by the Euler–Lagrange row,
  // m q̈ + m g e_z = 2 λ q. Then q·q̈ + |q̇|² = 0 (second derivative of |q|² − l²).
  const VecD<3> qddot = 2.0 * ida.lambda()[0] * q / kModel.mass - VecD<3>(0.0, 0.0, kModel.gravity);
  EXPECT_NEAR(q.dot(qddot) + v.squaredNorm(), 0.0, 1e-12);

  // The whole GGL residual F(y, ẏ) at the consistent start: y and ẏ are public only on the
  // fixed-size ConstrainedDae (integrate/constrained_dae.hpp), whose index-1 system the kernel
  // stepper's start solves on the kernels.
  const ConstrainedDae<SphericalPendulum> dae(kModel);
  ConstrainedDae<SphericalPendulum>::State y, yp, f;
  dae.consistent_start(start_position(), start_velocity(), y, yp);
  dae.residual(y.data(), yp.data(), f.data());
  EXPECT_LT(f.lpNorm<Eigen::Infinity>(), 1e-12);
  // q·q̈ + |q̇|² = 0 (second derivative of |q|² − l²).
  EXPECT_NEAR(start_position().dot(yp.segment<3>(3)) + start_velocity().squaredNorm(), 0.0, 1e-12);
  // The two starts' multipliers are the same solve's.
  EXPECT_NEAR(ida.lambda()[0], ConstrainedDae<SphericalPendulum>::multiplier(y)[0], 1e-12 * std::abs(y[6]));
}

TEST(Dae, AgreesWithAnIndependentReferenceAndKeepsBothConstraints) {
  const double t_end = 5.0;
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, {1e-10, 1e-12});
  ida.start_from_velocity(start_position(), start_velocity());
  const double l2 = kModel.length * kModel.length;
  double max_g = 0.0, max_gv = 0.0, max_lambda_error = 0.0;
  for (int s = 1; s <= 100; ++s) {
    ida.step_toward(s * t_end / 100);
    const VecD<3> q = ida.q(), v = ida.velocity();
    max_g = std::max(max_g, std::abs(q.squaredNorm() - l2));
    max_gv = std::max(max_gv, std::abs(2.0 * q.dot(v)));
    // Closed form of the multiplier: m q̈ + m g e_z = 2 λ q and q·q̈ = −|q̇|² give
    // λ = m (g z − |q̇|²) / (2 l²).
    const double lambda = kModel.mass * (kModel.gravity * q[2] - v.squaredNorm()) / (2.0 * l2);
    max_lambda_error = std::max(max_lambda_error, std::abs(ida.lambda()[0] - lambda) / std::abs(lambda));
  }
  EXPECT_LT((ida.q() - reference_position(t_end)).norm(), 1e-6);
  EXPECT_LT(max_g, 1e-9);
  EXPECT_LT(max_gv, 1e-8);
  EXPECT_LT(max_lambda_error, 1e-5);
}

TEST(Dae, ErrorFallsWithTheTolerance) {
  const double t = 5.0;
  const double loose = dae_error(t, {1e-6, 1e-8}), tight = dae_error(t, {1e-9, 1e-11});
  EXPECT_GT(loose, 0.0);
  // A thousandfold tighter tolerance: the error falls by more than 50 (BDF error is roughly
  // proportional to the tolerance; a factor 20 of slack).
  EXPECT_LT(tight, loose / 50.0);
  EXPECT_LT(loose, 1e-2);
}

TEST(Dae, AgreesWithTheMidpointVariationalIntegratorAtSmallStep) {
  // The midpoint VI is second order: at h = 1e-3 it sits within O(h²) of the DAE solution, and
  // halving h brings it about four times closer.
  const double t = 2.0;
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, {1e-11, 1e-13});
  ida.start_from_velocity(start_position(), start_velocity());
  ida.step_toward(t);
  std::vector<double> gaps;
  for (double h : {2e-3, 1e-3}) {
    kernel::KernelVariationalIntegrator vi(pendulum_kernels(), kernel::Rule::kMidpoint, h);
    vi.start_from_velocity(start_position(), start_velocity());
    while (vi.time() < t - 0.5 * h) vi.step();
    gaps.push_back((vi.q() - ida.q()).norm());
  }
  EXPECT_LT(gaps[1], 1e-4);
  EXPECT_NEAR(gaps[0] / gaps[1], 4.0, 0.6);
}

}  // namespace
}  // namespace mechint
