// Kepler problem: order of convergence against the closed-form orbit, exact discrete angular
// momentum, bounded energy error, position/momentum forms, AD against finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mechint/mechint.hpp"
#include "mechint/systems/kepler.hpp"

namespace mechint {
namespace {

using systems::Kepler;
constexpr double kMu = 1.0, kA = 1.0, kE = 0.5;
const double kPeriod = 2.0 * M_PI;

template <class Rule>
double max_position_error(int steps_per_period, int periods) {
  VariationalIntegrator integ(DiscreteSystem<Kepler, Rule>(Kepler{kMu}), kPeriod / steps_per_period);
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, kA, kE, q0, v0);
  integ.start_from_velocity(q0, v0);
  double worst = 0.0;
  for (int k = 0; k < steps_per_period * periods; ++k) {
    integ.step();
    worst = std::max(worst, (integ.q() - Kepler::exact_position(kMu, kA, kE, integ.time())).norm());
  }
  return worst;
}

template <class Rule>
double observed_order(std::vector<int> steps_per_period) {
  std::vector<double> hs, errors;
  for (int s : steps_per_period) {
    hs.push_back(kPeriod / s);
    errors.push_back(max_position_error<Rule>(s, 10));
  }
  return convergence_order(hs, errors);
}

TEST(Kepler, MidpointIsSecondOrder) {
  EXPECT_NEAR(observed_order<MidpointRule>({400, 800, 1600, 3200}), 2.0, 0.1);
}

TEST(Kepler, TrapezoidIsSecondOrder) {
  EXPECT_NEAR(observed_order<TrapezoidRule>({400, 800, 1600, 3200}), 2.0, 0.1);
}

TEST(Kepler, FirstOrderRuleIsFirstOrder) {
  EXPECT_NEAR(observed_order<FirstOrderRule>({4000, 8000, 16000, 32000}), 1.0, 0.1);
}

TEST(Kepler, ClosedFormOrbitIsPeriodic) {
  // The oracle itself: back at pericentre after one period, and on the ellipse at all times.
  EXPECT_NEAR((Kepler::exact_position(kMu, kA, kE, kPeriod) - VecD<2>(0.5, 0.0)).norm(), 0.0, 1e-12);
  const VecD<2> x = Kepler::exact_position(kMu, kA, kE, 1.234);
  const double r = x.norm(), focus_distance = (x - VecD<2>(-2 * kA * kE, 0)).norm();
  EXPECT_NEAR(r + focus_distance, 2 * kA, 1e-12);
}

template <class Rule>
void expect_exact_angular_momentum(int steps) {
  VariationalIntegrator integ(DiscreteSystem<Kepler, Rule>(Kepler{kMu}), kPeriod / 50);
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, kA, kE, q0, v0);
  integ.start_from_velocity(q0, v0);
  const double j0 = integ.momentum(0);
  EXPECT_NEAR(j0, q0[0] * v0[1] - q0[1] * v0[0], 1e-15);
  double worst = 0.0;
  for (int k = 0; k < steps; ++k) {
    integ.step();
    worst = std::max(worst, std::abs(integ.momentum(0) - j0) / std::abs(j0));
  }
  EXPECT_LE(worst, 1e-12) << Rule::kName;
}

TEST(Kepler, DiscreteAngularMomentumIsExactOver1e5Steps) {
  expect_exact_angular_momentum<MidpointRule>(100000);
  expect_exact_angular_momentum<TrapezoidRule>(100000);
  expect_exact_angular_momentum<FirstOrderRule>(100000);
}

TEST(Kepler, EnergyErrorDoesNotDriftOver1e6Steps) {
  const int steps = 1000000;
  VariationalIntegrator integ(DiscreteSystem<Kepler, MidpointRule>(Kepler{kMu}), kPeriod / 100);
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, kA, kE, q0, v0);
  integ.start_from_velocity(q0, v0);
  const double e0 = energy(integ.model(), q0, v0);
  EXPECT_NEAR(e0, -kMu / (2 * kA), 1e-14);
  double first = 0.0, last = 0.0;
  for (int k = 1; k <= steps; ++k) {
    integ.step();
    const double err = std::abs(integ.energy() - e0);
    if (k <= steps / 10) first = std::max(first, err);
    if (k > steps - steps / 10) last = std::max(last, err);
  }
  RecordProperty("first_tenth", std::to_string(first));
  RecordProperty("last_tenth", std::to_string(last));
  EXPECT_GT(first, 0.0);
  EXPECT_LE(std::abs(last - first), 0.1 * first) << "first " << first << " last " << last;
}

TEST(Kepler, PositionAndMomentumFormsGiveTheSameTrajectory) {
  using S = DiscreteSystem<Kepler, MidpointRule>;
  VariationalIntegrator mom(S(Kepler{kMu}), kPeriod / 60, {}, DelForm::kMomentum);
  VariationalIntegrator pos(S(Kepler{kMu}), kPeriod / 60, {}, DelForm::kPosition);
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, kA, kE, q0, v0);
  mom.start_from_velocity(q0, v0);
  mom.step();
  // The position form starts from the two points the momentum form produced.
  pos.start_from_two_points(q0, mom.q(), mom.time());
  double worst = 0.0;
  for (int k = 0; k < 6000; ++k) {
    mom.step();
    pos.step();
    worst = std::max(worst, (mom.q() - pos.q()).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LE(worst, 1e-12);
  EXPECT_LE((mom.p() - pos.p()).lpNorm<Eigen::Infinity>(), 1e-12);
}

TEST(Kepler, AutomaticJacobianMatchesCentralDifferences) {
  using S = DiscreteSystem<Kepler, MidpointRule>;
  const S sys(Kepler{kMu});
  const double h = 0.05;
  const VecD<2> q0(0.7, -0.3), q1(0.69, -0.25);
  VecD<2> d1;
  Mat<2, 2> d12;
  discrete_lagrangian_d1_d12(sys, q0, q1, h, d1, d12);
  const double eps = 1e-6;
  for (int j = 0; j < 2; ++j) {
    VecD<2> qp = q1, qm = q1;
    qp[j] += eps;
    qm[j] -= eps;
    const VecD<2> fd = (discrete_lagrangian_d1(sys, q0, qp, h) - discrete_lagrangian_d1(sys, q0, qm, h)) / (2 * eps);
    EXPECT_LE((fd - d12.col(j)).norm(), 1e-7 * d12.col(j).norm());
  }
  // D1 Ld itself against differences of Ld.
  for (int i = 0; i < 2; ++i) {
    VecD<2> qp = q0, qm = q0;
    qp[i] += eps;
    qm[i] -= eps;
    const double fd = (sys.discrete_lagrangian<double>(qp, q1, h) - sys.discrete_lagrangian<double>(qm, q1, h)) / (2 * eps);
    EXPECT_NEAR(fd, d1[i], 1e-7 * std::abs(d1[i]));
  }
}

}  // namespace
}  // namespace mechint
