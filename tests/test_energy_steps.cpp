// adapt=energy (kernel/energy_step_integrator.hpp): the symplectic-energy-momentum midpoint rule of
// Kane, Marsden & Ortiz. What is asserted, each against something independent:
//   - the discrete energy of every step equal to the first step's to Newton's tolerance, and the
//     angular momentum to round-off, on the Kepler problem (e = 0.5 and 0.9) and the double pendulum;
//   - the steps adapt: on e = 0.5 the pericentre's are several times shorter than the apocentre's;
//   - where no step keeps the discrete energy (e = 0.9 at a coarse start), the fallbacks counted;
//   - the order 2, measured on the closure of the Kepler orbit after one period (the exact solution
//     is periodic) over three nominal steps;
//   - the node energy within O(h²) of the conserved discrete energy, with no drift;
//   - rows at the requested times exactly;
//   - a model with constraints or forces refused.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "kernel/energy_step_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::KernelEnergyStepIntegrator;
using kernel::Vector;
using systems::Kepler;

struct Start {
  Vector q0, v0;
};

Start kepler_start(double e) {
  VecD<2> q, v;
  Kepler::pericentre_start(1.0, 1.0, e, q, v);
  return {q, v};
}

/// Steps the whole run, checking every step's discrete energy against E_d.
void expect_energy_kept(const kernel::KernelModel& model, const Start& s, double h, double t_end, double* min_step,
                        double* max_step) {
  KernelEnergyStepIntegrator vi(model, h);
  vi.start_from_velocity(s.q0, s.v0);
  const bool momentum = model.num_symmetries() > 0;
  const double j0 = momentum ? vi.momentum(0) : 0.0;
  double worst = 0.0, worst_momentum = 0.0;
  *min_step = std::numeric_limits<double>::infinity(), *max_step = 0.0;
  while (vi.time() < t_end) {
    vi.step_toward(t_end);
    if (vi.step_index() > 1 && vi.time() < t_end) {  // the first step defines E_d; the last lands aside
      worst = std::max(worst, std::abs(vi.last_discrete_energy() - vi.discrete_energy()));
      *min_step = std::min(*min_step, vi.last_step_size());
      *max_step = std::max(*max_step, vi.last_step_size());
    }
    if (momentum) worst_momentum = std::max(worst_momentum, std::abs(vi.momentum(0) - j0));
  }
  EXPECT_EQ(vi.fallbacks(), 0);
  EXPECT_LT(worst, 1e-13 * (1.0 + std::abs(vi.discrete_energy()))) << worst;
  EXPECT_LT(worst_momentum, 1e-12);
}

TEST(EnergySteps, DiscreteEnergyKeptAtEveryStepOnKepler) {
  const auto model = kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0});
  double min_step = 0.0, max_step = 0.0;
  expect_energy_kept(*model, kepler_start(0.5), 0.01, 4 * std::numbers::pi, &min_step, &max_step);
  // The steps follow the motion: shorter at pericentre than at apocentre (about as r^1.5).
  EXPECT_GT(max_step, 3.0 * min_step) << min_step << " " << max_step;
}

/// Where no step size keeps the discrete energy (e = 0.9 from a pericentre step of 0.002: E_d is
/// 3 % below the energy, and out of reach of the midpoint rule further out), the steps that fall back
/// are counted, never silent, and those that do not keep E_d to round-off.
TEST(EnergySteps, StepsThatFallBackAreCounted) {
  const auto model = kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0});
  const Start s = kepler_start(0.9);
  KernelEnergyStepIntegrator vi(*model, 0.002);
  vi.start_from_velocity(s.q0, s.v0);
  long kept = 0, fell_back = 0;
  for (int k = 0; k < 1000; ++k) {  // before the next pericentre, which the fallen-back step misses
    const long before = vi.fallbacks();
    vi.step_toward(1e9);
    if (k == 0) continue;
    const double miss = std::abs(vi.last_discrete_energy() - vi.discrete_energy());
    if (vi.fallbacks() > before) {
      ++fell_back;
      EXPECT_GT(miss, 1e-10);
    } else {
      ++kept;
      EXPECT_LT(miss, 1e-13);
    }
  }
  EXPECT_GT(kept, 10);
  EXPECT_GT(fell_back, 0);
  EXPECT_EQ(fell_back, vi.fallbacks());
}

TEST(EnergySteps, DiscreteEnergyKeptAtEveryStepOnTheDoublePendulum) {
  const auto model = kernel::ModelAdapter<systems::DoublePendulum>::kernels(systems::DoublePendulum{});
  double min_step = 0.0, max_step = 0.0;
  expect_energy_kept(*model, {Eigen::Vector2d(0.8, -0.5), Eigen::Vector2d(0.3, 1.2)}, 0.005, 10.0, &min_step,
                     &max_step);
}

TEST(EnergySteps, SecondOrderOnTheKeplerOrbit) {
  const auto model = kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0});
  const Start s = kepler_start(0.5);
  const double period = 2 * std::numbers::pi;
  std::vector<double> errors;
  for (double h : {0.02, 0.01, 0.005}) {
    KernelEnergyStepIntegrator vi(*model, h);
    vi.start_from_velocity(s.q0, s.v0);
    advance_to(vi, period);
    ASSERT_EQ(vi.time(), period);
    errors.push_back((vi.q() - s.q0).norm());
  }
  const double order = std::log(errors[1] / errors[2]) / std::log(2.0);
  EXPECT_NEAR(order, 2.0, 0.3) << errors[0] << " " << errors[1] << " " << errors[2];
}

/// The node energy E(q_k, v_k) stays within O(h²) of E_d over 50 orbits, the same at the end as at
/// the start (no drift).
TEST(EnergySteps, NodeEnergyBoundedWithoutDrift) {
  const auto model = kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0});
  const Start s = kepler_start(0.5);
  KernelEnergyStepIntegrator vi(*model, 0.02);
  vi.start_from_velocity(s.q0, s.v0);
  const double e0 = vi.energy();
  double early = 0.0, late = 0.0;
  for (int k = 1; k <= 50 * 16; ++k) {
    advance_to(vi, 2 * std::numbers::pi * k / 16);
    const double error = std::abs(vi.energy() - e0);
    (k <= 5 * 16 ? early : late) = std::max(k <= 5 * 16 ? early : late, error);
  }
  EXPECT_LT(early, 5e-3);
  EXPECT_LT(late, 2.0 * early) << early << " " << late;
}

TEST(EnergySteps, RefusesConstraintsAndForces) {
  const auto pendulum = kernel::ModelAdapter<systems::DampedPendulum>::kernels(systems::DampedPendulum{});
  EXPECT_THROW(KernelEnergyStepIntegrator(*pendulum, 0.01), InvalidInput);
  const auto spherical = kernel::ModelAdapter<systems::SphericalPendulum>::kernels(systems::SphericalPendulum{});
  EXPECT_THROW(KernelEnergyStepIntegrator(*spherical, 0.01), InvalidInput);
}

}  // namespace
}  // namespace mechint
