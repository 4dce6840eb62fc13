// The stepper contract (integrate/stepper.hpp) and the one run loop (integrate/run_loop.hpp):
// which capabilities each of the kernel engine's integrators has and how the loop advances it
// (fixed step or adaptive), where a run is sampled, that adaptive methods are sampled at the output
// times exactly, and that a non-finite state or the model's domain stops a run. The runs step the
// kernel engine's integrators on the built-ins' kernels, as the command line does.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/kernel_dae.hpp"
#include "kernel/kernel_impact_driver.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/integrate/odeint_baselines.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/integrate/stepper.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/spherical_pendulum.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using kernel::KernelVariationalIntegrator;
using kernel::Vector;
using systems::HarmonicOscillator;
using systems::Kepler;
using systems::SphericalPendulum;

using Vi = KernelVariationalIntegrator;
using Em = kernel::KernelEnergyMomentumIntegrator;
using Impacts = kernel::KernelImpactDriver;
using Rk4 = kernel::KernelRk4;
using Rk78 = kernel::KernelRk78;
using Dopri5 = kernel::KernelDopri5;
using KernelDae = kernel::KernelDaeStepper;

/// The Noether momenta of a kernel stepper: momentum(i) for i < model().num_symmetries(), a count
/// known at run time (HasNoetherMomenta asks for the model's compile-time kNumSymmetries, which a
/// kernel model does not have).
template <class S>
concept HasRuntimeNoetherMomenta = Stepper<S> && requires(const S& s) {
  { s.momentum(0) } -> std::convertible_to<double>;
  { s.model().num_symmetries() } -> std::convertible_to<int>;
};

// Fixed-step and adaptive methods.
static_assert(FixedStepper<Vi> && FixedStepper<Em> && FixedStepper<Impacts> && FixedStepper<Rk4>);
static_assert(AdaptiveStepper<Rk78> && AdaptiveStepper<Dopri5> && AdaptiveStepper<KernelDae>);
static_assert(!AdaptiveStepper<Vi> && !FixedStepper<KernelDae>);
// The capabilities of the table in docs/architecture.md (one kernel integrator for every model:
// multipliers and the constraint residual are there whether the model has constraints or not).
static_assert(HasMomentum<Vi> && HasVelocity<Vi> && HasEnergy<Vi> && HasRuntimeNoetherMomenta<Vi>);
static_assert(HasMultipliers<Vi> && HasConstraintResidual<Vi>);
static_assert(HasMomentum<Em> && HasEnergy<Em> && HasRuntimeNoetherMomenta<Em> && HasMultipliers<Em>);
static_assert(HasMomentum<Impacts> && HasEnergy<Impacts> && HasModifiedEnergy<Impacts> && HasImpactCount<Impacts>);
static_assert(!HasMomentum<Rk4> && HasVelocity<Rk4> && HasEnergy<Rk4> && HasRuntimeNoetherMomenta<Rk4>);
static_assert(HasMultipliers<KernelDae> && HasConstraintResidual<KernelDae> && HasRuntimeNoetherMomenta<KernelDae>);
static_assert(!HasModifiedEnergy<Vi> && !HasImpactCount<Vi>);
// The compile-time capability of a fixed-size model's stepper (the Odeint baselines): Noether
// momenta where the model has a symmetry, none where it has none.
static_assert(HasNoetherMomenta<RungeKutta4Stepper<Kepler>>);
static_assert(!HasNoetherMomenta<RungeKutta4Stepper<HarmonicOscillator>>);

/// The kernels a built-in's runs use (compiled once in the library).
template <class M>
std::shared_ptr<const kernel::KernelModel> kernels_of(const M& model) {
  return kernel::ModelAdapter<M>::kernels_for_runs(model);
}

const Vector kOne = Vector::Constant(1, 1.0), kZero = Vector::Zero(1);

TEST(RunLoop, FixedStepSamplesEveryStrideAndTheLastStep) {
  const auto kernels = kernels_of(HarmonicOscillator{});
  KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, 0.1);
  vi.start_from_velocity(kOne, kZero);
  std::vector<long> steps;
  std::vector<double> times;
  integrate(vi, OutputSchedule{0.1, 1.1, 0.3}, [&](const auto& s) {
    steps.push_back(s.step_index());
    times.push_back(s.time());
  });
  // N = 1.1 / 0.1 = 11 steps, a row every 3 steps and at the last.
  EXPECT_EQ(steps, (std::vector<long>{0, 3, 6, 9, 11}));
  for (std::size_t i = 0; i < steps.size(); ++i) EXPECT_DOUBLE_EQ(times[i], 0.1 * steps[i]);
  // A t_end that is a multiple of h up to round-off takes exactly that many steps.
  vi.start_from_velocity(kOne, kZero);
  long last = -1;
  integrate(vi, OutputSchedule{0.1, 0.7, 0.0}, [&](const auto& s) { last = s.step_index(); });
  EXPECT_EQ(last, 7);
  // One that is not is refused before any step, as is an output interval that is not a multiple.
  vi.start_from_velocity(kOne, kZero);
  EXPECT_THROW(integrate(vi, OutputSchedule{0.1, 1.05, 0.3}, [](const auto&) {}), InvalidInput);
  EXPECT_THROW(integrate(vi, OutputSchedule{0.1, 1.1, 0.25}, [](const auto&) {}), InvalidInput);
  EXPECT_EQ(vi.step_index(), 0);
}

template <class Stepper>
void expect_adaptive_samples_on_the_exact_solution(Stepper& rk, double tol) {
  // Harmonic oscillator in the Kepler-free form: q = cos t from (1, 0).
  std::vector<double> times;
  integrate(rk, OutputSchedule{0.01, 1.0, 0.25}, [&](const auto& s) {
    times.push_back(s.time());
    EXPECT_NEAR(s.q()[0], std::cos(s.time()), tol) << s.time();
    EXPECT_NEAR(s.velocity()[0], -std::sin(s.time()), tol) << s.time();
  });
  EXPECT_EQ(times, (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));  // exactly the output times
}

TEST(RunLoop, AdaptiveMethodsAreSampledAtTheOutputTimesExactly) {
  const auto kernels = kernels_of(HarmonicOscillator{});
  const kernel::KernelEulerLagrangeOde ode(*kernels, nullptr);
  kernel::KernelRk78 rk78(ode, 0.01, RungeKuttaTolerances{1e-12, 1e-12});
  rk78.start_from_velocity(kOne, kZero);
  expect_adaptive_samples_on_the_exact_solution(rk78, 1e-10);
  kernel::KernelDopri5 dopri5(ode, 0.01, RungeKuttaTolerances{1e-10, 1e-10});
  dopri5.start_from_velocity(kOne, kZero);
  expect_adaptive_samples_on_the_exact_solution(dopri5, 1e-8);
}

TEST(RunLoop, TheDaeStepperKeepsTheConstraintAtTheOutputTimes) {
  const SphericalPendulum model{1.0, 1.0, 9.81};
  const auto kernels = kernels_of(model);
  KernelDae dae(*kernels, 1e-3, KernelDae::Tolerances{1e-10, 1e-12});
  const VecD<3> q0(std::sin(1.0), 0.0, -std::cos(1.0)), v0(0.0, 1.5, 0.0);
  dae.start_from_velocity(Vector(q0), Vector(v0));
  const double e0 = energy(model, q0, v0);
  int rows = 0;
  integrate(dae, OutputSchedule{0.1, 2.0, 0.1}, [&](const KernelDae& s) {
    ++rows;
    EXPECT_NEAR(s.time(), 0.1 * (rows - 1), 1e-14);
    EXPECT_LE(std::abs(s.constraint_residual()[0]), 1e-9);
    EXPECT_NEAR(s.energy(), e0, 1e-6);
  });
  EXPECT_EQ(rows, 21);
  EXPECT_THROW(dae.start_from_velocity(Vector(VecD<3>(1.0, 0.0, 0.5)), Vector(v0)), InvalidStart);
}

/// A stepper whose state becomes NaN at its third step.
struct FailingStepper {
  Kepler kepler;
  VecD<2> x = VecD<2>(1.0, 0.0);
  long k = 0;
  void step() {
    ++k;
    if (k == 3) x[0] = std::nan("");
  }
  double step_size() const { return 0.5; }
  double time() const { return 0.5 * k; }
  long step_index() const { return k; }
  const VecD<2>& q() const { return x; }
  const Kepler& model() const { return kepler; }
};
static_assert(FixedStepper<FailingStepper> && !HasEnergy<FailingStepper>);

TEST(RunLoop, ANonFiniteStateIsANumericalFailure) {
  FailingStepper s;
  std::vector<long> seen;
  EXPECT_THROW(integrate(s, OutputSchedule{0.5, 10.0, 0.0}, [&](const auto& st) { seen.push_back(st.step_index()); }),
               NumericalFailure);
  EXPECT_EQ(seen, (std::vector<long>{0, 1, 2}));  // the rows before the failure, none after
}

TEST(RunLoop, TheModelsDomainCheckStopsARun) {
  // Released at rest (inertially) relative to the Earth, the body falls straight in and reaches the
  // collision radius 0.0166 at t ≈ 0.035: the model's validate_configuration, which its kernels
  // carry as the step check the integrator calls after every step (KernelModel::check_step), stops
  // the run there.
  systems::ThreeBody tb{0.012150585609624, 0.0166};
  const auto kernels = kernels_of(tb);
  KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, 1e-3);
  vi.start_from_velocity(Vector(VecD<2>(0.1, 0.0)), Vector(VecD<2>(0.0, -0.112150585609624)));
  double last_time = 0.0;
  EXPECT_THROW(integrate(vi, OutputSchedule{1e-3, 1.0, 0.0}, [&](const auto& s) { last_time = s.time(); }),
               DomainError);
  EXPECT_GT(last_time, 0.02);
  EXPECT_LT(last_time, 0.05);
}

}  // namespace
}  // namespace mechint
