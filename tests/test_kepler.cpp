// Kepler problem on the kernel engine (the AD kernels of systems::Kepler, compiled once in its
// system's source, under the variational integrator the command line runs): order of convergence
// against the closed-form orbit, exact discrete angular momentum, bounded energy error,
// position/momentum forms, the rule's AD derivatives against finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_legendre.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/systems/kepler.hpp"

namespace mechint {
namespace {

using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;
using systems::Kepler;
constexpr double kMu = 1.0, kA = 1.0, kE = 0.5;
const double kPeriod = 2.0 * M_PI;

/// The kernels `mechint run kepler` integrates on.
const kernel::KernelModel& kepler() {
  static const auto kernels = kernel::ModelAdapter<Kepler>::kernels_for_runs(Kepler{kMu});
  return *kernels;
}

const char* name_of(Rule rule) {
  switch (rule) {
    case Rule::kMidpoint: return "midpoint";
    case Rule::kTrapezoid: return "trapezoid";
    case Rule::kFirstOrder: return "first-order";
  }
  return "?";
}

struct Start {
  Vector q0, v0;
};
Start pericentre() {
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, kA, kE, q0, v0);
  return {q0, v0};
}

double max_position_error(Rule rule, int steps_per_period, int periods) {
  KernelVariationalIntegrator integ(kepler(), rule, kPeriod / steps_per_period);
  const Start start = pericentre();
  integ.start_from_velocity(start.q0, start.v0);
  double worst = 0.0;
  for (int k = 0; k < steps_per_period * periods; ++k) {
    integ.step();
    worst = std::max(worst, (integ.q() - Kepler::exact_position(kMu, kA, kE, integ.time())).norm());
  }
  return worst;
}

double observed_order(Rule rule, std::vector<int> steps_per_period) {
  std::vector<double> hs, errors;
  for (int s : steps_per_period) {
    hs.push_back(kPeriod / s);
    errors.push_back(max_position_error(rule, s, 10));
  }
  return convergence_order(hs, errors);
}

TEST(Kepler, MidpointIsSecondOrder) {
  EXPECT_NEAR(observed_order(Rule::kMidpoint, {400, 800, 1600, 3200}), 2.0, 0.1);
}

TEST(Kepler, TrapezoidIsSecondOrder) {
  EXPECT_NEAR(observed_order(Rule::kTrapezoid, {400, 800, 1600, 3200}), 2.0, 0.1);
}

TEST(Kepler, FirstOrderRuleIsFirstOrder) {
  EXPECT_NEAR(observed_order(Rule::kFirstOrder, {4000, 8000, 16000, 32000}), 1.0, 0.1);
}

TEST(Kepler, ClosedFormOrbitIsPeriodic) {
  // The oracle itself: back at pericentre after one period, and on the ellipse at all times.
  EXPECT_NEAR((Kepler::exact_position(kMu, kA, kE, kPeriod) - VecD<2>(0.5, 0.0)).norm(), 0.0, 1e-12);
  const VecD<2> x = Kepler::exact_position(kMu, kA, kE, 1.234);
  const double r = x.norm(), focus_distance = (x - VecD<2>(-2 * kA * kE, 0)).norm();
  EXPECT_NEAR(r + focus_distance, 2 * kA, 1e-12);
}

void expect_exact_angular_momentum(Rule rule, int steps) {
  KernelVariationalIntegrator integ(kepler(), rule, kPeriod / 50);
  const Start start = pericentre();
  const Vector &q0 = start.q0, &v0 = start.v0;
  integ.start_from_velocity(q0, v0);
  const double j0 = integ.momentum(0);
  EXPECT_NEAR(j0, q0[0] * v0[1] - q0[1] * v0[0], 1e-15);
  double worst = 0.0;
  for (int k = 0; k < steps; ++k) {
    integ.step();
    worst = std::max(worst, std::abs(integ.momentum(0) - j0) / std::abs(j0));
  }
  EXPECT_LE(worst, 1e-12) << name_of(rule);
}

TEST(Kepler, DiscreteAngularMomentumIsExactOver1e5Steps) {
  expect_exact_angular_momentum(Rule::kMidpoint, 100000);
  expect_exact_angular_momentum(Rule::kTrapezoid, 100000);
  expect_exact_angular_momentum(Rule::kFirstOrder, 100000);
}

TEST(Kepler, EnergyErrorDoesNotDriftOver1e6Steps) {
  const int steps = 1000000;
  KernelVariationalIntegrator integ(kepler(), Rule::kMidpoint, kPeriod / 100);
  const Start start = pericentre();
  integ.start_from_velocity(start.q0, start.v0);
  const double e0 = kernel::kernel_energy(integ.model(), start.q0, start.v0);
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
  KernelVariationalIntegrator mom(kepler(), Rule::kMidpoint, kPeriod / 60, {}, DelForm::kMomentum);
  KernelVariationalIntegrator pos(kepler(), Rule::kMidpoint, kPeriod / 60, {}, DelForm::kPosition);
  const Start start = pericentre();
  mom.start_from_velocity(start.q0, start.v0);
  mom.step();
  // The position form starts from the two points the momentum form produced.
  pos.start_from_two_points(start.q0, mom.q(), mom.time());
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
  // The midpoint rule's D1 Ld and D12 Ld as the kernel integrator's Newton takes them (supplied by
  // the model's AD kernels), against central differences of D1 Ld and of Ld = h L((q0+q1)/2, (q1−q0)/h)
  // (000 eq. 4.1) evaluated from the Lagrangian kernel's value.
  kernel::DiscreteRule rule(kepler(), Rule::kMidpoint);
  const double h = 0.05;
  const Vector q0 = VecD<2>(0.7, -0.3), q1 = VecD<2>(0.69, -0.25);
  Vector d1(2);
  kernel::RowMatrix d12(2, 2);
  ASSERT_TRUE(rule.d1(q0, q1, h, d1, &d12));
  const auto d1_at = [&](const Vector& a, const Vector& b) {
    Vector d(2);
    EXPECT_TRUE(rule.d1(a, b, h, d, nullptr));
    return d;
  };
  const auto ld = [&](const Vector& a, const Vector& b) {
    kernel::LagrangianValues l(2);
    EXPECT_TRUE(kepler().lagrangian(0.5 * (a + b), (b - a) / h, l, /*with_value=*/true));
    return h * l.value;
  };
  const double eps = 1e-6;
  for (int j = 0; j < 2; ++j) {
    Vector qp = q1, qm = q1;
    qp[j] += eps;
    qm[j] -= eps;
    const Vector fd = (d1_at(q0, qp) - d1_at(q0, qm)) / (2 * eps);
    EXPECT_LE((fd - d12.col(j)).norm(), 1e-7 * d12.col(j).norm());
  }
  // D1 Ld itself against differences of Ld.
  for (int i = 0; i < 2; ++i) {
    Vector qp = q0, qm = q0;
    qp[i] += eps;
    qm[i] -= eps;
    const double fd = (ld(qp, q1) - ld(qm, q1)) / (2 * eps);
    EXPECT_NEAR(fd, d1[i], 1e-7 * std::abs(d1[i]));
  }
}

}  // namespace
}  // namespace mechint
