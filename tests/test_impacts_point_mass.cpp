// Impacts of the point mass L = ½q̇² − q on the floor φ = q (004 §III-C, D), on the kernel engine's
// impact driver (kernel/kernel_impact_driver.hpp, both flows) with the built-ins' kernels compiled
// once in the library: the next state after a bounce against 004's closed forms (eq. 27 for CTEC,
// the §III-C formula for DTEC), MHC equal to CTEC for this system, several bounces within one step
// against the exact bouncing motion, and bad or harmless set-ups (start below the floor, unreachable
// wall) giving an error or no impact; DTEC's one impact in a step over which the exact motion bounces
// twice.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>

#include "kernel/kernel_flows.hpp"
#include "kernel/kernel_impact_driver.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/core/errors.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/point_mass_wall.hpp"

namespace {
/// The impact flow a method's name chooses (as the registry's rows do, src/methods/impact_flows.cpp).
[[maybe_unused]] mechint::kernel::Flow flow_of(std::string_view method) {
  return method == "stormer-verlet" ? mechint::kernel::Flow::kStormerVerlet : mechint::kernel::Flow::kTrapezoid;
}
}  // namespace


namespace mechint {
namespace {

using kernel::KernelImpactDriver;
using kernel::KernelImpactRecord;
using kernel::KernelModel;
using kernel::Vector;
using systems::PointMassWall;

/// The point mass's kernels with its floor, made once for the whole file.
const KernelModel& point_mass() {
  static const auto kernels = kernel::ModelAdapter<PointMassWall>::kernels(PointMassWall{}, /*with_walls=*/true);
  return *kernels;
}

Vector scalar(double x) { return Vector::Constant(1, x); }

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

/// The state after one step and the impacts of that step: the kernel driver keeps their count and
/// the last one (what the command line records), not a log.
struct AfterOneStep {
  Vector q, p;
  long impacts;
  KernelImpactRecord last;
};

AfterOneStep one_step(const std::string& method, ImpactLaw law, double q, double p, double h) {
  ImpactOptions o;
  o.law = law;
  KernelImpactDriver d(point_mass(), flow_of(method), h, o);
  d.start(scalar(q), scalar(p));
  d.step();
  return {d.q(), d.p(), d.impact_count(), d.last_impact()};
}

class PointMassBounce : public ::testing::TestWithParam<std::tuple<double, double, double>> {};

/// `method`: the flow of the driver (kernel_flows.hpp), "vi-trapezoid" or "stormer-verlet".
void check_bounce(const std::string& method, double q, double p, double h) {
  const Bounce c = ctec_closed_form(q, p, h), dt = dtec_closed_form(q, p, h);
  ASSERT_GT(c.q1, 0.0);  // one bounce in the step
  for (ImpactLaw law : {ImpactLaw::kCtec, ImpactLaw::kMhc}) {
    const auto d = one_step(method, law, q, p, h);
    ASSERT_EQ(d.impacts, 1);
    EXPECT_NEAR(d.last.alpha, c.alpha, 1e-12);
    EXPECT_NEAR(d.q[0], c.q1, 1e-12) << impact_law_name(law);
    EXPECT_NEAR(d.p[0], c.p1, 1e-12) << impact_law_name(law);
    EXPECT_NEAR(d.last.energy_after, d.last.energy_before, 1e-13);
  }
  const auto d = one_step(method, ImpactLaw::kDtec, q, p, h);
  ASSERT_EQ(d.impacts, 1);
  EXPECT_NEAR(d.q[0], dt.q1, 1e-12);
  EXPECT_NEAR(d.p[0], dt.p1, 1e-12);
  EXPECT_GT(std::abs(dt.q1 - c.q1), 1e-8);  // the two laws really differ here
}

TEST_P(PointMassBounce, TrapezoidViMatchesTheClosedForms) {
  const auto [q, p, h] = GetParam();
  check_bounce("vi-trapezoid", q, p, h);
}

TEST_P(PointMassBounce, StormerVerletMatchesTheClosedForms) {
  const auto [q, p, h] = GetParam();
  check_bounce("stormer-verlet", q, p, h);
}

INSTANTIATE_TEST_SUITE_P(Starts, PointMassBounce,
                         ::testing::Values(std::tuple{0.01, -0.5, 0.1}, std::tuple{0.02, 0.1, 0.5},
                                           std::tuple{0.5, -1.0, 0.5}, std::tuple{1e-4, -2.0, 0.01}));

TEST(PointMassBounce, CtecResolvesSeveralBouncesWithinOneStepExactly) {
  // q0 = 1e-3 at rest, h = 1: eleven bounces inside the first step. With a linear potential the flow
  // is exact and CTEC's reset is the exact one, so the state at t = h is the exact bouncing motion.
  const double q0 = 1e-3, h = 1.0;
  const auto d = one_step("vi-trapezoid", ImpactLaw::kCtec, q0, 0.0, h);
  const double u = std::sqrt(2.0 * q0), first = u, period = 2.0 * u;
  const double since = std::fmod(h - first, period);
  EXPECT_EQ(d.impacts, 1 + static_cast<long>((h - first) / period));
  EXPECT_NEAR(d.q[0], u * since - 0.5 * since * since, 1e-12);
  EXPECT_NEAR(d.p[0], u - since, 1e-12);
  EXPECT_NEAR(d.last.time, first + static_cast<double>(d.impacts - 1) * period, 1e-12);
  // The driver keeps only a step's last impact, so each earlier bounce is the last one of a single
  // step that ends halfway to the next: i + 1 bounces resolved within it, the i-th at its exact time.
  for (long i = 0; i + 1 < d.impacts; ++i) {
    const double hi = first + (static_cast<double>(i) + 0.5) * period;
    const auto di = one_step("vi-trapezoid", ImpactLaw::kCtec, q0, 0.0, hi);
    EXPECT_EQ(di.impacts, i + 1) << "h = " << hi;
    EXPECT_NEAR(di.last.time, first + static_cast<double>(i) * period, 1e-12) << "impact " << i;
  }
}

TEST(PointMassBounce, DtecNeverBouncesTwiceInOneStep) {
  // 004 §III-C: DTEC cannot give q_{j+1} < 0, so a step over which the exact motion bounces twice
  // (and CTEC with it) yields one impact and q > 0, DTEC's closed form. The start falls onto the
  // floor: from rest at q0 = 1e-3 (the set-up above) DTEC's H after a step of eleven bounce periods is
  // more than a hundred times the start's energy terms, which the driver's energy balance
  // (kernel/energy_jump_check.hpp) refuses as a step that does not resolve the motion (RejectedStep);
  // over two bounce periods from a fall at speed 1 it is within them.
  const double q0 = 1e-3, p0 = -1.0, h = 2.2;
  const double first = time_to_floor(q0, p0), period = 2.0 * std::sqrt(2.0 * (q0 + 0.5 * p0 * p0));
  const long exact_bounces = 1 + static_cast<long>((h - first) / period);
  ASSERT_GE(exact_bounces, 2);
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    EXPECT_EQ(one_step(method, ImpactLaw::kCtec, q0, p0, h).impacts, exact_bounces) << method;
    const auto d = one_step(method, ImpactLaw::kDtec, q0, p0, h);
    EXPECT_EQ(d.impacts, 1) << method;
    EXPECT_GT(d.q[0], 0.0) << method;
    EXPECT_NEAR(d.q[0], dtec_closed_form(q0, p0, h).q1, 1e-12) << method;
  }
}

TEST(PointMassBounce, LongRunsStayFiniteAndCtecKeepsTheEnergy) {
  for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) {
    ImpactOptions o;
    o.law = law;
    KernelImpactDriver d(point_mass(), mechint::kernel::Flow::kStormerVerlet, 0.037, o);
    d.start(scalar(1.0), scalar(0.3));
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
    EXPECT_EQ(d.impact_count(), 1 + static_cast<long>((t_end - first) / period));
  }
}

TEST(BadStarts, StartBehindTheWallIsRejected) {
  KernelImpactDriver d(point_mass(), mechint::kernel::Flow::kTrapezoid, 0.1);
  EXPECT_THROW(d.start(scalar(-0.1), scalar(0.0)), InvalidStart);
  EXPECT_THROW(d.start(scalar(std::nan("")), scalar(0.0)), InvalidStart);
  const auto pendulum = kernel::ModelAdapter<systems::DoublePendulum>::kernels(systems::DoublePendulum{}, true);
  KernelImpactDriver dp(*pendulum, mechint::kernel::Flow::kStormerVerlet, 0.01);
  EXPECT_THROW(dp.start(Vector(VecD<2>(-1.0, 0.0)), Vector(VecD<2>(0.0, 0.0))), InvalidStart);  // x2 = −1.68 < −0.25
}

TEST(BadStarts, UnreachableWallGivesNoImpactAndTheSmoothTrajectory) {
  systems::DoublePendulum model;
  model.wall_offset = 3.0;  // |x2| ≤ L1 + L2 = 2
  const auto kernels = kernel::ModelAdapter<systems::DoublePendulum>::kernels(model, /*with_walls=*/true);
  ImpactOptions o;
  o.law = ImpactLaw::kMhc;
  KernelImpactDriver d(*kernels, mechint::kernel::Flow::kTrapezoid, 0.058, o);
  // The same flow stepped alone: with no impact the driver's steps are its steps, bit for bit.
  const auto smooth = kernel::make_kernel_flow(mechint::kernel::Flow::kTrapezoid, *kernels);
  Vector q = VecD<2>(0.5647, 1.1106), p = VecD<2>(3.7270, 0.2415), q1(2), p1(2);
  d.start(q, p);
  for (int k = 0; k < 300; ++k) {
    d.step();
    ASSERT_TRUE(smooth->step(q, p, 0.058, q1, p1).converged);
    q = q1, p = p1;
  }
  EXPECT_EQ(d.impact_count(), 0);
  EXPECT_TRUE(d.q().allFinite() && d.p().allFinite());
  EXPECT_EQ((d.q() - q).norm(), 0.0);
  EXPECT_EQ((d.p() - p).norm(), 0.0);
}

}  // namespace
}  // namespace mechint
