// The rotating-frame transform is exact: a relative equilibrium of the double spherical pendulum,
// solved here from the steady-rotation conditions, integrated for 30 s by the energy-momentum
// integrator, stays at a fixed point in the frame rotating at its own rate up to the integrator's
// error, which falls as h² (003 §2: a relative equilibrium is a fixed point in its frame). The
// integrator runs on the model's kernels, as `mechint run double-spherical-pendulum` runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/analysis/error_measures.hpp"
#include "mechint/analysis/rotating_frame.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"

namespace mechint {
namespace {

using systems::DoubleSphericalPendulum;

/// Both masses in the xz plane at link angles a, b from the downward vertical, rotating about z at
/// ω: tensions along the links supply the centripetal forces, so
///   tan b = ω² x2 / g,   tan a = ω² (m1 x1 + m2 x2) / ((m1 + m2) g).
struct SteadyRotation {
  double a, b;
};

SteadyRotation solve_steady_rotation(const DoubleSphericalPendulum& m, double omega) {
  auto residual = [&](double a, double b) {
    const double x1 = m.l1 * std::sin(a), x2 = x1 + m.l2 * std::sin(b);
    const double w2 = omega * omega;
    return Eigen::Vector2d(std::tan(a) - w2 * (m.m1 * x1 + m.m2 * x2) / ((m.m1 + m.m2) * m.gravity),
                           std::tan(b) - w2 * x2 / m.gravity);
  };
  Eigen::Vector2d x(0.8, 1.0);
  for (int it = 0; it < 50; ++it) {
    const Eigen::Vector2d f = residual(x[0], x[1]);
    if (f.norm() < 1e-15) break;
    Eigen::Matrix2d j;
    const double d = 1e-7;
    j.col(0) = (residual(x[0] + d, x[1]) - residual(x[0] - d, x[1])) / (2 * d);
    j.col(1) = (residual(x[0], x[1] + d) - residual(x[0], x[1] - d)) / (2 * d);
    x -= j.partialPivLu().solve(f);
  }
  EXPECT_LT(residual(x[0], x[1]).norm(), 1e-13);
  return {x[0], x[1]};
}

TEST(RelativeEquilibrium, TheThesisDataBalanceNearGravity9p6) {
  // 003 §4.1: x1 = 3.0788, x2 = 5.5418, ẏ1 = 4.8593, ẏ2 = 8.7468 (ω = ẏ/x for both masses).
  const DoubleSphericalPendulum m;
  const double x1 = 3.0788, x2 = 5.5418, omega = 4.8593 / x1;
  EXPECT_NEAR(8.7468 / x2, omega, 1e-4);
  const double sin_b = (x2 - x1) / m.l2, tan_b = sin_b / std::sqrt(1 - sin_b * sin_b);
  const double g_outer = omega * omega * x2 / tan_b;
  const double sin_a = x1 / m.l1, tan_a = sin_a / std::sqrt(1 - sin_a * sin_a);
  const double g_inner = omega * omega * (m.m1 * x1 + m.m2 * x2) / ((m.m1 + m.m2) * tan_a);
  RecordProperty("g_outer", std::to_string(g_outer));
  RecordProperty("g_inner", std::to_string(g_inner));
  EXPECT_NEAR(g_outer, 9.6, 0.1);
  EXPECT_NEAR(g_inner, 9.6, 0.1);
}

TEST(RelativeEquilibrium, FixedPointInItsFrameUpToSecondOrderError) {
  const DoubleSphericalPendulum m;
  const double omega = 4.8593 / 3.0788;  // the thesis's rate; the angles are solved at g = 9.81
  const SteadyRotation s = solve_steady_rotation(m, omega);
  VecD<6> q0, v0;
  const double x1 = m.l1 * std::sin(s.a), x2 = x1 + m.l2 * std::sin(s.b);
  q0 << x1, 0.0, -m.l1 * std::cos(s.a), x2, 0.0, -m.l1 * std::cos(s.a) - m.l2 * std::cos(s.b);
  v0 << 0.0, omega * x1, 0.0, 0.0, omega * x2, 0.0;
  const std::shared_ptr<const kernel::KernelModel> kernels =
      kernel::ModelAdapter<DoubleSphericalPendulum>::kernels_for_runs(m);
  std::vector<double> hs, deviations;
  for (double h : {0.02, 0.01, 0.005}) {
    kernel::KernelEnergyMomentumIntegrator em(*kernels, h);
    em.start_from_velocity(q0, v0);
    double dev = 0.0;
    const long steps = std::lround(30.0 / h);
    for (long i = 0; i < steps; ++i) {
      em.step();
      const double t = em.time();
      const Eigen::Vector3d a = analysis::rotate_about_z(em.q().head<3>(), -omega * t);
      const Eigen::Vector3d b = analysis::rotate_about_z(em.q().tail<3>(), -omega * t);
      dev = std::max({dev, (a - q0.head<3>()).norm(), (b - q0.tail<3>()).norm()});
    }
    hs.push_back(h);
    deviations.push_back(dev);
    RecordProperty("deviation_h" + std::to_string(h), std::to_string(dev));
  }
  EXPECT_LT(deviations.back(), 1e-2);
  EXPECT_NEAR(convergence_order(hs, deviations), 2.0, 0.2);
}

}  // namespace
}  // namespace mechint
