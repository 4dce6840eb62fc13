// Impacts of the point mass L = ½q̇² − q on the floor φ = q (004 §III-C, D): the next state after a
// bounce against 004's closed forms (eq. 27 for CTEC, the §III-C formula for DTEC), MHC equal to
// CTEC for this system, several bounces within one step against the exact bouncing motion, and
// bad or harmless set-ups (start below the floor, unreachable wall) giving an error or no impact.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "mechint/integrate/impact_driver.hpp"
#include "mechint/integrate/stormer_verlet.hpp"
#include "mechint/integrate/trapezoid_flow.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/point_mass_wall.hpp"

namespace mechint {
namespace {

using systems::PointMassWall;

struct Bounce {
  double q1, p1, alpha;
};

/// Time s to the floor from (q, p) under the exact flow q(s) = q + s p − s²/2 (which both
/// integrators reproduce for a linear potential): s = p + √(p² + 2q), written without cancellation.
double time_to_floor(double q, double p) {
  const double r = std::sqrt(p * p + 2.0 * q);
  return p < 0.0 ? 2.0 * q / (r - p) : p + r;
}

/// 004 eq. 27: q_{j+1} = (1−α)h √(2H(q_i, p⁻)) − (1−α)²h²/2; p_{j+1} = √(2H) − (1−α)h.
Bounce ctec_closed_form(double q, double p, double h) {
  const double s = time_to_floor(q, p), tau = h - s;
  const double speed = std::abs(p - s);  // √(2H(0, p⁻))
  return {tau * speed - 0.5 * tau * tau, speed - tau, s / h};
}

/// 004 §III-C: q_{j+1} = (1−α)²h² (−½ + √(¼ − 2D3Ld(q_j, 0, αh)/((1−α)²h²))), with
/// −D3Ld(q_j, 0, αh) = ½ v² + (q_j + 0)/2, v = −q_j/(αh) (trapezoid rule, 004 §III-C);
/// p_{j+1} = D2Ld(0, q_{j+1}, τ) = q_{j+1}/τ − τ/2.
Bounce dtec_closed_form(double q, double p, double h) {
  const double s = time_to_floor(q, p), tau = h - s;
  const double v = -q / s;
  const double minus_d3 = 0.5 * v * v + 0.5 * q;
  const double q1 = tau * tau * (-0.5 + std::sqrt(0.25 + 2.0 * minus_d3 / (tau * tau)));
  return {q1, q1 / tau - 0.5 * tau, s / h};
}

struct AfterOneStep {
  VecD<1> q, p;
  std::vector<ImpactRecord<1>> impacts;
};

template <class Flow>
AfterOneStep one_step(ImpactLaw law, double q, double p, double h) {
  ImpactOptions o;
  o.law = law;
  ImpactDriver<Flow> d(PointMassWall{}, h, o);
  d.start(VecD<1>(q), VecD<1>(p));
  d.step();
  return {d.q(), d.p(), d.impacts()};
}

class PointMassBounce : public ::testing::TestWithParam<std::tuple<double, double, double>> {};

template <class Flow>
void check_bounce(double q, double p, double h) {
  const Bounce c = ctec_closed_form(q, p, h), dt = dtec_closed_form(q, p, h);
  ASSERT_GT(c.q1, 0.0);  // one bounce in the step
  for (ImpactLaw law : {ImpactLaw::kCtec, ImpactLaw::kMhc}) {
    const auto d = one_step<Flow>(law, q, p, h);
    ASSERT_EQ(d.impacts.size(), 1u);
    EXPECT_NEAR(d.impacts[0].alpha, c.alpha, 1e-12);
    EXPECT_NEAR(d.q[0], c.q1, 1e-12) << impact_law_name(law);
    EXPECT_NEAR(d.p[0], c.p1, 1e-12) << impact_law_name(law);
    EXPECT_NEAR(d.impacts[0].energy_after, d.impacts[0].energy_before, 1e-13);
  }
  const auto d = one_step<Flow>(ImpactLaw::kDtec, q, p, h);
  ASSERT_EQ(d.impacts.size(), 1u);
  EXPECT_NEAR(d.q[0], dt.q1, 1e-12);
  EXPECT_NEAR(d.p[0], dt.p1, 1e-12);
  EXPECT_GT(std::abs(dt.q1 - c.q1), 1e-8);  // the two laws really differ here
}

TEST_P(PointMassBounce, TrapezoidViMatchesTheClosedForms) {
  const auto [q, p, h] = GetParam();
  check_bounce<TrapezoidFlow<PointMassWall>>(q, p, h);
}

TEST_P(PointMassBounce, StormerVerletMatchesTheClosedForms) {
  const auto [q, p, h] = GetParam();
  check_bounce<StormerVerletFlow<PointMassWall>>(q, p, h);
}

INSTANTIATE_TEST_SUITE_P(Starts, PointMassBounce,
                         ::testing::Values(std::tuple{0.01, -0.5, 0.1}, std::tuple{0.02, 0.1, 0.5},
                                           std::tuple{0.5, -1.0, 0.5}, std::tuple{1e-4, -2.0, 0.01}));

TEST(PointMassBounce, CtecResolvesSeveralBouncesWithinOneStepExactly) {
  // q0 = 1e-3 at rest, h = 1: eleven bounces inside the first step. With a linear potential the flow
  // is exact and CTEC's reset is the exact one, so the state at t = h is the exact bouncing motion.
  const double q0 = 1e-3, h = 1.0;
  const auto d = one_step<TrapezoidFlow<PointMassWall>>(ImpactLaw::kCtec, q0, 0.0, h);
  const double u = std::sqrt(2.0 * q0), first = u, period = 2.0 * u;
  const double since = std::fmod(h - first, period);
  EXPECT_EQ(static_cast<long>(d.impacts.size()), 1 + static_cast<long>((h - first) / period));
  EXPECT_NEAR(d.q[0], u * since - 0.5 * since * since, 1e-12);
  EXPECT_NEAR(d.p[0], u - since, 1e-12);
  for (std::size_t i = 0; i < d.impacts.size(); ++i)
    EXPECT_NEAR(d.impacts[i].time, first + static_cast<double>(i) * period, 1e-12);
}

TEST(PointMassBounce, DtecNeverBouncesTwiceInOneStep) {
  // 004 §III-C: DTEC cannot give q_{j+1} < 0, so the same set-up yields one impact and q > 0.
  const auto d = one_step<TrapezoidFlow<PointMassWall>>(ImpactLaw::kDtec, 1e-3, 0.0, 1.0);
  EXPECT_EQ(d.impacts.size(), 1u);
  EXPECT_GT(d.q[0], 0.0);
  EXPECT_NEAR(d.q[0], dtec_closed_form(1e-3, 0.0, 1.0).q1, 1e-12);
}

TEST(PointMassBounce, LongRunsStayFiniteAndCtecKeepsTheEnergy) {
  for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) {
    ImpactOptions o;
    o.law = law;
    ImpactDriver<StormerVerletFlow<PointMassWall>> d(PointMassWall{}, 0.037, o);
    d.start(VecD<1>(1.0), VecD<1>(0.3));
    const double e0 = d.energy();
    for (int k = 0; k < 3000; ++k) {
      d.step();
      ASSERT_TRUE(d.q().allFinite() && d.p().allFinite());
      ASSERT_GE(d.q()[0], 0.0);
    }
    if (law == ImpactLaw::kDtec) continue;
    EXPECT_NEAR(d.energy(), e0, 1e-11) << impact_law_name(law);
    // Exact bouncing: first fall p/1 + √(p² + 2q), then one bounce every 2√(2H).
    const double t_end = 3000 * 0.037, first = time_to_floor(1.0, 0.3), period = 2.0 * std::sqrt(2.0 * e0);
    EXPECT_EQ(static_cast<long>(d.impacts().size()), 1 + static_cast<long>((t_end - first) / period));
  }
}

TEST(BadStarts, StartBehindTheWallIsRejected) {
  ImpactDriver<TrapezoidFlow<PointMassWall>> d(PointMassWall{}, 0.1);
  EXPECT_THROW(d.start(VecD<1>(-0.1), VecD<1>(0.0)), InvalidStart);
  EXPECT_THROW(d.start(VecD<1>(std::nan("")), VecD<1>(0.0)), InvalidStart);
  ImpactDriver<StormerVerletFlow<systems::DoublePendulum>> dp(systems::DoublePendulum{}, 0.01);
  EXPECT_THROW(dp.start(VecD<2>(-1.0, 0.0), VecD<2>(0.0, 0.0)), InvalidStart);  // x2 = −1.68 < −0.25
}

TEST(BadStarts, UnreachableWallGivesNoImpactAndTheSmoothTrajectory) {
  systems::DoublePendulum model;
  model.wall_offset = 3.0;  // |x2| ≤ L1 + L2 = 2
  ImpactOptions o;
  o.law = ImpactLaw::kMhc;
  ImpactDriver<TrapezoidFlow<systems::DoublePendulum>> d(model, 0.058, o);
  TrapezoidFlow<systems::DoublePendulum> smooth(model);
  VecD<2> q(0.5647, 1.1106), p(3.7270, 0.2415), q1, p1;
  d.start(q, p);
  for (int k = 0; k < 300; ++k) {
    d.step();
    ASSERT_TRUE(smooth.step(q, p, 0.058, q1, p1).converged);
    q = q1, p = p1;
  }
  EXPECT_TRUE(d.impacts().empty());
  EXPECT_TRUE(d.q().allFinite() && d.p().allFinite());
  EXPECT_EQ((d.q() - q).norm(), 0.0);
  EXPECT_EQ((d.p() - p).norm(), 0.0);
}

}  // namespace
}  // namespace mechint
