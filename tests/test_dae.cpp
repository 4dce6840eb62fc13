// The DAE baseline (SUNDIALS IDA on the GGL formulation) on the constrained spherical pendulum:
// agreement with an independent reference (rk78 at tight tolerance on the unconstrained equations
// in spherical angles), the multiplier against its closed form, both constraint levels kept,
// error falling with the tolerance, and agreement with the midpoint VI at small h.
#include <gtest/gtest.h>

#include <cmath>

#include "mechint/integrate/ida_dae.hpp"
#include "mechint/integrate/odeint_baselines.hpp"
#include "mechint/integrate/variational_integrator.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using systems::SphericalAnglesChart;
using systems::SphericalPendulum;

const SphericalPendulum kModel{1.3, 0.9, 9.81};
const SphericalAnglesChart kChart{0.9};
// Start: θ = 1.1 from the downward vertical, φ = 0.2, θ̇ = 0.4, φ̇ = 2.1.
const VecD<2> kAngles0(1.1, 0.2), kAngleRates0(0.4, 2.1);

VecD<3> start_position() { return kChart.embed<double>(kAngles0); }
VecD<3> start_velocity() { return kChart.embed_velocity<double>(kAngles0, kAngleRates0); }

/// The same pendulum in the angles (θ, φ): L = ½ m l² (θ̇² + sin²θ φ̇²) + m g l cos θ — an
/// unconstrained model for the Runge–Kutta reference.
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
  EulerLagrangeOde ode{AnglesPendulum{kModel.mass, kModel.length, kModel.gravity}};
  auto x = decltype(ode)::pack(kAngles0, kAngleRates0);
  integrate_runge_kutta(ode, RungeKuttaMethod::kRk78, x, 0.0, 1e-3, t, 1, {1e-13, 1e-13}, [](const auto&, double) {});
  return kChart.embed<double>(decltype(ode)::position(x));
}

using Ida = IdaIntegrator<ConstrainedDae<SphericalPendulum>>;

double dae_error(double t, DaeTolerances tol) {
  Ida ida(ConstrainedDae<SphericalPendulum>(kModel), start_position(), start_velocity(), 0.0, 1e-3, tol);
  ida.advance_to(t);
  return (ida.q() - reference_position(t)).norm();
}

TEST(Dae, ConsistentStartSatisfiesTheAccelerationConstraint) {
  const ConstrainedDae<SphericalPendulum> dae(kModel);
  ConstrainedDae<SphericalPendulum>::State y, yp, f;
  dae.consistent_start(start_position(), start_velocity(), y, yp);
  dae.residual(y.data(), yp.data(), f.data());
  EXPECT_LT(f.lpNorm<Eigen::Infinity>(), 1e-12);
  // q·q̈ + |q̇|² = 0 (second derivative of |q|² − l²).
  EXPECT_NEAR(start_position().dot(yp.segment<3>(3)) + start_velocity().squaredNorm(), 0.0, 1e-12);
}

TEST(Dae, AgreesWithAnIndependentReferenceAndKeepsBothConstraints) {
  const double t_end = 5.0;
  Ida ida(ConstrainedDae<SphericalPendulum>(kModel), start_position(), start_velocity(), 0.0, 1e-3, {1e-10, 1e-12});
  const double l2 = kModel.length * kModel.length;
  double max_g = 0.0, max_gv = 0.0, max_lambda_error = 0.0;
  for (int s = 1; s <= 100; ++s) {
    ida.advance_to(s * t_end / 100);
    const VecD<3> q = ida.q(), v = ida.v();
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
  Ida ida(ConstrainedDae<SphericalPendulum>(kModel), start_position(), start_velocity(), 0.0, 1e-3, {1e-11, 1e-13});
  ida.advance_to(t);
  std::vector<double> gaps;
  for (double h : {2e-3, 1e-3}) {
    using S = DiscreteSystem<SphericalPendulum, MidpointRule>;
    VariationalIntegrator<S> vi(S(kModel), h);
    vi.start_from_velocity(start_position(), start_velocity());
    while (vi.time() < t - 0.5 * h) vi.step();
    gaps.push_back((vi.q() - ida.q()).norm());
  }
  EXPECT_LT(gaps[1], 1e-4);
  EXPECT_NEAR(gaps[0] / gaps[1], 4.0, 0.6);
}

}  // namespace
}  // namespace mechint
