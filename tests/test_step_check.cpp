// Step acceptance (docs/trustworthy-runs.md): a Newton solution that is not the continuation of the
// motion is rejected with exit 3, a step that jumps over a singular point of the potential too; the
// check never changes an accepted trajectory and costs a few percent of the steps. The integrators
// are the kernel engine's (the command line's), on the built-ins' kernels compiled once in the
// library and the chain's hand-derived ones; the segment guards are the model structs' own.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "cli_harness.hpp"
#include "kernel/chain_kernels.hpp"
#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/core/errors.hpp"
#include "mechint/core/segment_clearance.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/systems/acrobot.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "mechint/systems/three_body.hpp"

namespace {

using namespace mechint;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;
using mechint::systems::Kepler;
using mechint::systems::PendulumChain;
using mechint::systems::ThreeBody;
using ::mechint::testing::count_lines;
using ::mechint::testing::run_mechint;

/// The runs that used to write a wrong trajectory with exit 0 (Newton converged to another root):
/// the bound Kepler orbit escaping at h = 3, the Jacobi constant of the three-body problem jumping
/// from 3.347 to −0.13 in one step, a 10-link chain gaining 870 units of energy.
TEST(StepCheck, RejectsTheSilentWrongTrajectories) {
  for (const std::string run : {"run kepler --h 3 --t-end 99", "run three-body --h 1 --t-end 10",
                                "run pendulum-chain --set links=10 --h 1.25 --t-end 12.5 --set newton=simplified"}) {
    const auto r = run_mechint(run);
    EXPECT_EQ(r.status, 3) << run << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("rejected"), std::string::npos) << r.err;
  }
  // The same chain run with the check off is the wrong trajectory: from rest at E = -381.5 it gains
  // hundreds of units of energy (the chain has no singular point for a model guard to catch; the
  // Kepler and three-body runs are also stopped by their models' step guards). At h = 1 simplified
  // Newton, held to round-off (solve/newton.hpp), no longer converges on the wrong root by step 10.
  const auto unchecked =
      run_mechint("run pendulum-chain --set links=10 --h 1.25 --t-end 12.5 --set newton=simplified --set check=off");
  ASSERT_EQ(unchecked.status, 0) << unchecked.err;
  const std::string last = unchecked.out.substr(unchecked.out.rfind('\n', unchecked.out.size() - 2) + 1);
  const double energy = std::stod(last.substr(last.rfind(',') + 1));
  EXPECT_GT(energy, -300.0) << last;
}

/// A composition's energy balance compares each sub-step with the same sub-step one step before:
/// consecutive sub-steps of different lengths differ in their midpoint energy by their O(h²) offsets,
/// which, next to the energy's terms of a chain starting from rest at the zero of its potential, the
/// check took for a failed step (exit 3 at step 1, with the energy conserved to 1e-14). Those runs
/// pass, the check leaves them as they are, and a wrong root of a coarse composed run is still
/// caught: rejected at t = 11.17, where without the check Newton fails a sub-step later.
TEST(StepCheck, CompositionsBalanceEachSubStepWithItselfOneStepBefore) {
  for (const std::string method : {"vi-midpoint --set compose=kahan-li8", "vi-trapezoid --set compose=kahan-li6",
                                   "vi-midpoint --set compose=yoshida4"}) {
    for (const std::string start : {"", " --set g=1", " --set dth1=0.001"}) {
      const std::string run = "run pendulum-chain --method " + method + start + " --h 0.01 --t-end 2 --output-every 0.25";
      const auto checked = run_mechint(run);
      ASSERT_EQ(checked.status, 0) << run << ": " << checked.err;
      EXPECT_EQ(run_mechint(run + " --set check=off").out, checked.out) << run;
      auto table = ::mechint::testing::parse_csv(checked.out);
      ASSERT_EQ(table["energy"].size(), 9u) << run;
      for (double e : table["energy"]) EXPECT_NEAR(e, table["energy"][0], 1e-4) << run;  // of energies of order m g l = 10
    }
  }
  const std::string coarse = "run pendulum-chain --set links=10 --set th1=0.7853981633974483 --h 0.625 --t-end 25 "
                             "--method vi-midpoint --set compose=kahan-li8";
  const auto rejected = run_mechint(coarse);
  EXPECT_EQ(rejected.status, 3);
  EXPECT_NE(rejected.err.find("rejected"), std::string::npos) << rejected.err;
  const auto unchecked = run_mechint(coarse + " --set check=off");
  EXPECT_EQ(unchecked.status, 3);
  EXPECT_NE(unchecked.err.find("Newton did not converge"), std::string::npos) << unchecked.err;
}

/// The forces' work between a composition's sub-step and the same sub-step one step before is that
/// of a whole step's sub-steps: an acrobot driven by a constant elbow torque of 5 at h = 0.01, its
/// energy changing by about a tenth a step (a hundredth of its terms' size), balances at every
/// sub-step within a thousandth of that size (reject_energy 1e-3; measured 2.7e-4 with yoshida4 and
/// 3.4e-5 with kahan-li8, falling as h³; the work left out, or only one sub-step's of it, is
/// rejected at once).
TEST(StepCheck, ForcedCompositionsBalanceTheWorkOfAWholeStep) {
  const auto model = kernel::ModelAdapter<systems::Acrobot>::kernels(systems::Acrobot{});
  StepCheckOptions strict;
  strict.reject_energy = 1e-3;
  for (const char* scheme : {"yoshida4", "kahan-li8"}) {
    kernel::KernelGalerkinIntegrator vi(*model, kernel::gauss_tableau(1), 0.01, kernel::composition_named(scheme), {},
                                        strict);
    vi.set_control(kernel::Vector::Constant(1, 5.0));
    vi.start_from_velocity(Eigen::Vector2d(1.0, 0.0), Eigen::Vector2d::Zero());
    double largest_change = 0.0, energy = vi.energy();
    for (int k = 0; k < 100; ++k) {
      ASSERT_NO_THROW(vi.step()) << scheme << ", step " << k + 1;
      largest_change = std::max(largest_change, std::abs(vi.energy() - energy));
      energy = vi.energy();
    }
    EXPECT_GT(largest_change, 0.05) << scheme;  // the work is not small next to the threshold
  }
}

/// A fall into the centre of the Kepler problem, and an RK4 step through a primary of the three-body
/// problem with both ends outside its collision radius: collisions, exit 3.
TEST(StepCheck, RejectsStepsThroughASingularity) {
  for (const std::string run : {"run kepler --set x=1e-10 --set vy=0", "run kepler --method rk4 --set x=1e-10 --set vy=0",
                                "run three-body --method rk4 --set x=-0.002 --set vy=0 --set collision_radius=1e-6"}) {
    const auto r = run_mechint(run);
    EXPECT_EQ(r.status, 3) << run << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
  }
}

/// The segment test of the three-body model against its closed form (a segment through a primary is
/// within 0 of it, one beside it at its perpendicular distance), and the steps it refuses.
TEST(StepCheck, SegmentDistance) {
  EXPECT_EQ(ThreeBody::segment_distance(VecD<2>(-1, 0), VecD<2>(1, 0), VecD<2>(0, 0)), 0.0);
  EXPECT_DOUBLE_EQ(ThreeBody::segment_distance(VecD<2>(-1, 0.5), VecD<2>(1, 0.5), VecD<2>(0, 0)), 0.5);
  EXPECT_DOUBLE_EQ(ThreeBody::segment_distance(VecD<2>(1, 0), VecD<2>(2, 0), VecD<2>(0, 0)), 1.0);
  const ThreeBody model;
  // Through the primary; past it at 0.01, closer than a quarter of the step's length 0.2; past it at
  // 0.1 with a step of 0.02 (resolved).
  EXPECT_THROW(model.validate_step(VecD<2>(-model.mu - 0.1, 1e-9), VecD<2>(-model.mu + 0.1, -1e-9), 1.0), DomainError);
  EXPECT_THROW(model.validate_step(VecD<2>(-model.mu - 0.1, 0.01), VecD<2>(-model.mu + 0.1, 0.01), 1.0), DomainError);
  EXPECT_NO_THROW(model.validate_step(VecD<2>(-model.mu - 0.01, 0.1), VecD<2>(-model.mu + 0.01, 0.1), 1.0));
}

/// The guards' common case (core/segment_clearance.hpp, no square root or division) against the
/// closest point's distance computed directly: on random segments, wherever it clears a step the
/// exact distance is above the bound (to round-off), and wherever the exact distance is above the
/// bound by a margin it clears it; ends, degenerate segments and NaN included.
TEST(StepCheck, SegmentClearanceAgreesWithTheClosestPointsDistance) {
  std::mt19937_64 random(20261129);
  std::uniform_real_distribution<double> coordinate(-2.0, 2.0), fraction(0.0, 0.5), clearance(0.0, 0.3);
  int cleared = 0, refused = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const VecD<2> a(coordinate(random), coordinate(random));
    const VecD<2> b = trial % 97 == 0 ? a : VecD<2>(coordinate(random), coordinate(random));
    const VecD<2> c(coordinate(random), coordinate(random));
    const double f = fraction(random), r = trial % 2 ? clearance(random) : 0.0;
    const double bound = std::max(r, f * (b - a).norm());
    const double distance = ThreeBody::segment_distance(a, b, c);
    const bool clear = segment_clearly_passes(a, b, c, r, f);
    if (clear) {
      ++cleared;
      EXPECT_GT(distance, bound * (1 - 1e-12)) << trial;
    } else {
      ++refused;
      EXPECT_LE(distance, bound * (1 + 1e-9) + 1e-300) << trial;
    }
  }
  EXPECT_GT(cleared, 1000);
  EXPECT_GT(refused, 1000);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(segment_clearly_passes(VecD<2>(nan, 0), VecD<2>(1, 1), VecD<2>(0, 0), 0.0, 0.25));
  EXPECT_FALSE(segment_clearly_passes(VecD<2>(1, 0), VecD<2>(1, 1), VecD<2>(0, 0), nan, 0.25));
  // Through the centre; an end on it; a step that does not move, away from it and on it.
  EXPECT_FALSE(segment_clearly_passes(VecD<2>(-1, 0), VecD<2>(1, 0), VecD<2>(0, 0), 0.0, 0.25));
  EXPECT_FALSE(segment_clearly_passes(VecD<2>(0, 0), VecD<2>(1, 0), VecD<2>(0, 0), 0.0, 0.25));
  EXPECT_TRUE(segment_clearly_passes(VecD<2>(1, 0), VecD<2>(1, 0), VecD<2>(0, 0), 0.0, 0.25));
  EXPECT_FALSE(segment_clearly_passes(VecD<2>(0, 0), VecD<2>(0, 0), VecD<2>(0, 0), 0.0, 0.25));
  // Kepler's guard, whose exact test is the same closest point: a fall through the centre and a
  // step beside it at a tenth of its length are refused, one at twice its length passes.
  const Kepler kepler;
  EXPECT_THROW(kepler.validate_step(VecD<2>(-0.1, 1e-12), VecD<2>(0.1, 0.0), 1.0), DomainError);
  EXPECT_THROW(kepler.validate_step(VecD<2>(-0.1, 0.02), VecD<2>(0.1, 0.02), 1.0), DomainError);
  EXPECT_NO_THROW(kepler.validate_step(VecD<2>(-0.1, 0.4), VecD<2>(0.1, 0.4), 1.0));
}

/// Confirmation only observes: the trajectory with the check on is the one with it off, bit for
/// bit, and the share of confirmed steps is small on a resolved run.
TEST(StepCheck, DoesNotChangeAnAcceptedTrajectory) {
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  const double h = 2 * M_PI / 200;
  StepCheckOptions off;
  off.enabled = false;
  const auto kepler = kernel::ModelAdapter<Kepler>::kernels_for_runs(Kepler{});
  KernelVariationalIntegrator checked(*kepler, Rule::kMidpoint, h);
  KernelVariationalIntegrator unchecked(*kepler, Rule::kMidpoint, h, {}, DelForm::kMomentum, off);
  checked.start_from_velocity(q0, v0);
  unchecked.start_from_velocity(q0, v0);
  for (int k = 0; k < 2000; ++k) {
    checked.step();
    unchecked.step();
  }
  EXPECT_EQ(checked.q(), unchecked.q());
  EXPECT_EQ(checked.p(), unchecked.p());
  EXPECT_EQ(unchecked.confirmed_steps(), 0);
  EXPECT_GT(checked.confirmed_steps(), 0);
  EXPECT_LT(checked.confirmed_steps(), 2000 / 20);  // below 5% of the steps
}

/// On a coarse but resolved run (10-link chain at h = 0.05, simplified Newton, the regime of the
/// pendulum-chain experiments) nothing is rejected, and the rejection threshold is not close: the
/// run passes with an eighth of the default threshold, every step confirmed.
TEST(StepCheck, AcceptsResolvedCoarseRuns) {
  // The chain's kernels as the command line's pendulum-chain builds them, with the struct's parameters.
  const PendulumChain<10> chain;
  const kernel::KernelModel kernels =
      kernel::pendulum_chain_model(PendulumChain<10>::kDim, chain.mass, chain.length, chain.gravity);
  Vector c0 = Vector::Zero(10);
  c0[0] = M_PI / 4;
  NewtonOptions newton;
  newton.variant = NewtonVariant::kSimplified;
  StepCheckOptions strict;
  strict.max_ratio = 0.25;
  strict.every = 1;  // confirm every step
  KernelVariationalIntegrator vi(kernels, Rule::kMidpoint, 0.05, newton, DelForm::kMomentum, strict);
  vi.start_from_velocity(c0, Vector::Zero(10));
  EXPECT_NO_THROW(integrate(vi, {.h = 0.05, .t_end = 20.0, .output_every = 20.0}, [](const auto&) {}));
  EXPECT_EQ(vi.confirmed_steps(), 400);
}

/// The energy–momentum integrator confirms its steps too: never changing an accepted trajectory,
/// confirming a few percent of the steps, and with every step confirmed at an eighth of the default
/// threshold a resolved run of the double spherical pendulum passes.
TEST(StepCheck, EnergyMomentumConfirmsWithoutChangingTheTrajectory) {
  using systems::DoubleSphericalPendulum;
  const DoubleSphericalPendulum dsp;
  const systems::DspState start = systems::complete_dsp_start(dsp, systems::named_dsp_start("pattern-1"));
  const auto kernels = kernel::ModelAdapter<DoubleSphericalPendulum>::kernels_for_runs(dsp);
  StepCheckOptions off, strict;
  off.enabled = false;
  strict.max_ratio = 0.25;
  strict.every = 1;
  kernel::KernelEnergyMomentumIntegrator checked(*kernels, 0.01), unchecked(*kernels, 0.01, {}, off),
      every(*kernels, 0.01, {}, strict);
  for (auto* em : {&checked, &unchecked, &every}) em->start_from_velocity(start.q, start.v);
  for (int k = 0; k < 3000; ++k) {
    checked.step();
    unchecked.step();
    every.step();
  }
  EXPECT_EQ(checked.q(), unchecked.q());
  EXPECT_EQ(checked.p(), unchecked.p());
  EXPECT_EQ(every.q(), unchecked.q());
  EXPECT_EQ(unchecked.confirmed_steps(), 0);
  EXPECT_EQ(every.confirmed_steps(), 3000);
  EXPECT_GT(checked.confirmed_steps(), 0);
  EXPECT_LT(checked.confirmed_steps(), 3000 / 20);
}

}  // namespace
