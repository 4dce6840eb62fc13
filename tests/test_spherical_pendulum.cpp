// Spherical pendulum on the kernel engine: exact discrete J_z, the constrained (Cartesian +
// multiplier) and generalized (spherical-angle chart) formulations giving the same motion
// (000 Theorem 4.3.1), constraint satisfaction, and order of convergence against a fine-step run.
// Both formulations run on the built-ins' AD kernels compiled once in the library (the Cartesian
// model's, and the chart model's whose rules are the restricted discrete Lagrangians).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/analysis/error_measures.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;
using systems::SphericalAnglesChart;
using systems::SphericalPendulum;
using SphericalPendulumInAngles = ChartModel<SphericalPendulum, SphericalAnglesChart>;

const SphericalPendulum kModel{1.3, 0.8, 9.81};
const double kTheta0 = 1.1, kThetaDot0 = 0.4, kPhiDot0 = 2.5;

const KernelModel& cartesian_kernels() {
  static const std::shared_ptr<const KernelModel> k = kernel::ModelAdapter<SphericalPendulum>::kernels_for_runs(kModel);
  return *k;
}

const KernelModel& angle_kernels() {
  static const std::shared_ptr<const KernelModel> k = kernel::ModelAdapter<SphericalPendulumInAngles>::kernels_for_runs(
      SphericalPendulumInAngles(kModel, SphericalAnglesChart{kModel.length}));
  return *k;
}

/// The chart's wrap of φ after each step, as a problem in the chart runs it (app/builtin_kernels.hpp):
/// the motion is unchanged, the discrete J_z keeps its digits.
void wrap_angles(KernelVariationalIntegrator& integ) {
  integ.set_periodic_wrap([chart = SphericalAnglesChart{kModel.length}](Vector& previous, Vector& current) {
    VecD<2> a = previous, b = current;
    chart.wrap_periodic(a, b);
    previous = a, current = b;
  });
}

Vector angles_start() { return VecD<2>(kTheta0, 0.3); }
Vector angle_rates_start() { return VecD<2>(kThetaDot0, kPhiDot0); }

Vector cartesian_start(Vector& v0) {
  const SphericalAnglesChart chart{kModel.length};
  const VecD<2> a(kTheta0, 0.3), ad(kThetaDot0, kPhiDot0);
  v0 = chart.embed_velocity<double>(a, ad);
  return chart.embed<double>(a);
}

void expect_exact_jz(Rule rule, const char* name, int steps) {
  KernelVariationalIntegrator integ(cartesian_kernels(), rule, 0.02);
  Vector v0;
  const Vector x0 = cartesian_start(v0);
  integ.start_from_velocity(x0, v0);
  const double jz0 = integ.momentum(0);
  EXPECT_NEAR(jz0, kModel.mass * (x0[0] * v0[1] - x0[1] * v0[0]), 1e-13);
  double worst_j = 0, worst_g = 0;
  for (int k = 0; k < steps; ++k) {
    integ.step();
    worst_j = std::max(worst_j, std::abs(integ.momentum(0) - jz0) / std::abs(jz0));
    worst_g = std::max(worst_g, std::abs(integ.constraint_residual()[0]));
  }
  EXPECT_LE(worst_j, 1e-12) << name;
  EXPECT_LE(worst_g, 1e-12) << name;
}

TEST(SphericalPendulum, DiscreteJzIsExactOver1e5Steps) {
  expect_exact_jz(Rule::kMidpoint, "midpoint", 100000);
  expect_exact_jz(Rule::kTrapezoid, "trapezoid", 100000);
}

TEST(SphericalPendulum, ChartJzIsExactOver1e5Steps) {
  KernelVariationalIntegrator integ(angle_kernels(), Rule::kMidpoint, 0.02);
  wrap_angles(integ);
  integ.start_from_velocity(angles_start(), angle_rates_start());
  const double jz0 = integ.momentum(0);
  double worst = 0;
  for (int k = 0; k < 100000; ++k) {
    integ.step();
    worst = std::max(worst, std::abs(integ.momentum(0) - jz0) / std::abs(jz0));
  }
  // In angles the momentum p_φ is formed from differences ψ(θ_{k+1}) − ψ(θ_k) of trigonometric
  // values divided by h, so each step adds a round-off of a few ulp·|x|/(h·|v|) ≈ 5e-15 relative,
  // which random-walks to ~2e-12 over 1e5 steps (the Cartesian formulation stays below 1e-12).
  // There is no drift: the bound is the round-off floor, a thousand times below the truncation
  // error of J_z of any non-variational method at this step.
  EXPECT_LE(worst, 1e-11);
}

// Theorem 4.3.1: ψ(θ_k) = q_k for the same start.
void expect_formulations_agree(Rule rule, const char* name) {
  const double h = 0.01;
  const SphericalAnglesChart chart{kModel.length};
  KernelVariationalIntegrator cart(cartesian_kernels(), rule, h);
  KernelVariationalIntegrator angles(angle_kernels(), rule, h);
  wrap_angles(angles);
  Vector v0;
  const Vector x0 = cartesian_start(v0);
  cart.start_from_velocity(x0, v0);
  angles.start_from_velocity(angles_start(), angle_rates_start());

  double worst = 0, worst_energy = 0;
  for (int k = 0; k < 1000; ++k) {
    cart.step();
    angles.step();
    worst = std::max(worst, (chart.embed<double>(VecD<2>(angles.q())) - cart.q()).lpNorm<Eigen::Infinity>());
    worst_energy = std::max(worst_energy, std::abs(cart.energy() - angles.energy()));
  }
  EXPECT_LE(worst, 1e-9) << name;
  // Energies come from two different Legendre transforms (tangent projection in R³ against the
  // chart's own): they agree to the size of the discrete momentum difference.
  EXPECT_LE(worst_energy, 1e-9) << name;
  // Discrete momenta agree after pulling back: p^c = Dψ(θ)^T p.
  const auto j = chart_jacobian(chart, VecD<2>(angles.q()));
  EXPECT_LE((j.transpose() * cart.p() - angles.p()).lpNorm<Eigen::Infinity>(), 1e-9) << name;
}

TEST(SphericalPendulum, ConstrainedAndChartFormulationsAgree) {
  expect_formulations_agree(Rule::kMidpoint, "midpoint");
  expect_formulations_agree(Rule::kTrapezoid, "trapezoid");
  expect_formulations_agree(Rule::kFirstOrder, "first order");
}

TEST(SphericalPendulum, ChartTangentMapMatchesAutomaticDerivative) {
  const SphericalAnglesChart chart{0.8};
  const VecD<2> a(0.7, -1.2), ad(0.3, 1.9);
  EXPECT_LE((chart.embed_velocity<double>(a, ad) - chart_jacobian(chart, a) * ad).norm(), 1e-15);
  EXPECT_LE((chart.coordinates_of(chart.embed<double>(a)) - a).norm(), 1e-14);
}

TEST(SphericalPendulum, ConstrainedMidpointIsSecondOrder) {
  const double t_end = 2.0;
  Vector v0;
  const Vector x0 = cartesian_start(v0);
  auto final_position = [&](int steps) {
    KernelVariationalIntegrator integ(cartesian_kernels(), Rule::kMidpoint, t_end / steps);
    integ.start_from_velocity(x0, v0);
    for (int k = 0; k < steps; ++k) integ.step();
    return Vector(integ.q());
  };
  const Vector reference = final_position(20000);
  std::vector<double> hs, errs;
  for (int steps : {100, 200, 400, 800}) {
    hs.push_back(t_end / steps);
    errs.push_back((final_position(steps) - reference).norm());
  }
  EXPECT_NEAR(convergence_order(hs, errs), 2.0, 0.1);
}

TEST(SphericalPendulum, StartOffTheManifoldIsRejected) {
  KernelVariationalIntegrator integ(cartesian_kernels(), Rule::kMidpoint, 0.01);
  Vector v0;
  Vector x0 = cartesian_start(v0);
  EXPECT_THROW(integ.start_from_velocity(1.001 * x0, v0), InvalidStart);
  EXPECT_THROW(integ.start_from_velocity(x0, v0 + 0.01 * x0), InvalidStart);
  // Within tolerance is accepted.
  x0 *= 1.0 + 1e-11;
  EXPECT_NO_THROW(integ.start_from_velocity(x0, v0));
}

}  // namespace
}  // namespace mechint
