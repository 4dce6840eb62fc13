// Spherical pendulum: exact discrete J_z, the constrained (Cartesian + multiplier) and generalized
// (spherical-angle chart) formulations giving the same motion (000 Theorem 4.3.1), constraint
// satisfaction, and order of convergence against a fine-step run.
#include <gtest/gtest.h>

#include <cmath>

#include "mechint/mechint.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using systems::SphericalAnglesChart;
using systems::SphericalPendulum;

const SphericalPendulum kModel{1.3, 0.8, 9.81};
const double kTheta0 = 1.1, kThetaDot0 = 0.4, kPhiDot0 = 2.5;

VecD<3> cartesian_start(VecD<3>& v0) {
  const SphericalAnglesChart chart{kModel.length};
  const VecD<2> a(kTheta0, 0.3), ad(kThetaDot0, kPhiDot0);
  v0 = chart.embed_velocity<double>(a, ad);
  return chart.embed<double>(a);
}

template <class Rule>
void expect_exact_jz(int steps) {
  VariationalIntegrator integ(DiscreteSystem<SphericalPendulum, Rule>(kModel), 0.02);
  VecD<3> v0;
  const VecD<3> x0 = cartesian_start(v0);
  integ.start_from_velocity(x0, v0);
  const double jz0 = integ.momentum(0);
  EXPECT_NEAR(jz0, kModel.mass * (x0[0] * v0[1] - x0[1] * v0[0]), 1e-13);
  double worst_j = 0, worst_g = 0;
  for (int k = 0; k < steps; ++k) {
    integ.step();
    worst_j = std::max(worst_j, std::abs(integ.momentum(0) - jz0) / std::abs(jz0));
    worst_g = std::max(worst_g, std::abs(integ.constraint_residual()[0]));
  }
  EXPECT_LE(worst_j, 1e-12) << Rule::kName;
  EXPECT_LE(worst_g, 1e-12) << Rule::kName;
}

TEST(SphericalPendulum, DiscreteJzIsExactOver1e5Steps) {
  expect_exact_jz<MidpointRule>(100000);
  expect_exact_jz<TrapezoidRule>(100000);
}

TEST(SphericalPendulum, ChartJzIsExactOver1e5Steps) {
  using S = ChartedDiscreteSystem<SphericalPendulum, SphericalAnglesChart, MidpointRule>;
  VariationalIntegrator integ(S(kModel, SphericalAnglesChart{kModel.length}), 0.02);
  integ.start_from_velocity(VecD<2>(kTheta0, 0.3), VecD<2>(kThetaDot0, kPhiDot0));
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
template <class Rule>
void expect_formulations_agree() {
  const double h = 0.01;
  const SphericalAnglesChart chart{kModel.length};
  VariationalIntegrator cart(DiscreteSystem<SphericalPendulum, Rule>(kModel), h);
  VariationalIntegrator angles(ChartedDiscreteSystem<SphericalPendulum, SphericalAnglesChart, Rule>(kModel, chart), h);
  VecD<3> v0;
  const VecD<3> x0 = cartesian_start(v0);
  cart.start_from_velocity(x0, v0);
  angles.start_from_velocity(VecD<2>(kTheta0, 0.3), VecD<2>(kThetaDot0, kPhiDot0));
  
  double worst = 0, worst_energy = 0;
  for (int k = 0; k < 1000; ++k) {
    cart.step();
    angles.step();
    worst = std::max(worst, (chart.embed<double>(angles.q()) - cart.q()).template lpNorm<Eigen::Infinity>());
    worst_energy = std::max(worst_energy, std::abs(cart.energy() - angles.energy()));
  }
  EXPECT_LE(worst, 1e-9) << Rule::kName;
  // Energies come from two different Legendre transforms (tangent projection in R³ against the
  // chart's own): they agree to the size of the discrete momentum difference.
  EXPECT_LE(worst_energy, 1e-9) << Rule::kName;
  // Discrete momenta agree after pulling back: p^c = Dψ(θ)^T p.
  const auto j = chart_jacobian(chart, angles.q());
  EXPECT_LE((j.transpose() * cart.p() - angles.p()).template lpNorm<Eigen::Infinity>(), 1e-9);
}

TEST(SphericalPendulum, ConstrainedAndChartFormulationsAgree) {
  expect_formulations_agree<MidpointRule>();
  expect_formulations_agree<TrapezoidRule>();
  expect_formulations_agree<FirstOrderRule>();
}

TEST(SphericalPendulum, ChartTangentMapMatchesAutomaticDerivative) {
  const SphericalAnglesChart chart{0.8};
  const VecD<2> a(0.7, -1.2), ad(0.3, 1.9);
  EXPECT_LE((chart.embed_velocity<double>(a, ad) - chart_jacobian(chart, a) * ad).norm(), 1e-15);
  EXPECT_LE((chart.coordinates_of(chart.embed<double>(a)) - a).norm(), 1e-14);
}

TEST(SphericalPendulum, ConstrainedMidpointIsSecondOrder) {
  const double t_end = 2.0;
  VecD<3> v0;
  const VecD<3> x0 = cartesian_start(v0);
  auto final_position = [&](int steps) {
    VariationalIntegrator integ(DiscreteSystem<SphericalPendulum, MidpointRule>(kModel), t_end / steps);
    integ.start_from_velocity(x0, v0);
    for (int k = 0; k < steps; ++k) integ.step();
    return VecD<3>(integ.q());
  };
  const VecD<3> reference = final_position(20000);
  std::vector<double> hs, errs;
  for (int steps : {100, 200, 400, 800}) {
    hs.push_back(t_end / steps);
    errs.push_back((final_position(steps) - reference).norm());
  }
  EXPECT_NEAR(convergence_order(hs, errs), 2.0, 0.1);
}

TEST(SphericalPendulum, StartOffTheManifoldIsRejected) {
  VariationalIntegrator integ(DiscreteSystem<SphericalPendulum, MidpointRule>(kModel), 0.01);
  VecD<3> v0;
  VecD<3> x0 = cartesian_start(v0);
  EXPECT_THROW(integ.start_from_velocity(1.001 * x0, v0), InvalidStart);
  EXPECT_THROW(integ.start_from_velocity(x0, v0 + 0.01 * x0), InvalidStart);
  // Within tolerance is accepted.
  x0 *= 1.0 + 1e-11;
  EXPECT_NO_THROW(integ.start_from_velocity(x0, v0));
}

}  // namespace
}  // namespace mechint
