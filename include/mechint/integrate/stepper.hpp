#pragma once
/// \file
/// The stepper contract: what every integrator of mechint offers, as C++20 concepts.
///
/// A `Stepper` has been started (each has its own start functions: the initial data differ, e.g.
/// velocities for the variational integrator, momenta for the impact driver) and then
///
///     s.step()          advances one step (fixed-step methods) — or, for an `AdaptiveStepper`,
///     s.step_toward(t)  advances by one step of its own choosing, never past t;
///     s.time(), s.step_index(), s.q(), s.model().
///
/// Everything else is a named optional capability that generic code asks for with `if constexpr`:
///
/// | capability               | members                                   | who has it                        |
/// |--------------------------|-------------------------------------------|-----------------------------------|
/// | `HasMomentum`            | `p()` canonical / discrete momentum       | VI, energy–momentum, impact driver |
/// | `HasVelocity`            | `velocity()`                              | VI, energy–momentum, RK, DAE      |
/// | `HasEnergy`              | `energy()`                                | all of mechint's                  |
/// | `HasNoetherMomenta`      | `momentum(i)`, i < Model::kNumSymmetries  | VI, energy–momentum, RK, DAE      |
/// | `HasMultipliers`         | `lambda()`                                | constrained VI, EM, DAE           |
/// | `HasConstraintResidual`  | `constraint_residual()` (the vector g(q)) | constrained VI, EM, DAE           |
/// | `HasModifiedEnergy`      | `htilde()` (truncated modified H)         | impact driver                     |
/// | `HasControls`            | `control()`, the control of the last step | VI of a forced model              |
/// | `HasDiscreteWork`        | `discrete_work(i)`, i < kNumSymmetries    | VI of a forced model              |
/// | `HasImpactCount`         | `impact_count()`, impacts resolved so far | impact driver                     |
///
/// Failures are exceptions of core/errors.hpp: `NumericalFailure` (exit 3) when a step cannot be
/// taken, `InvalidStart` (exit 2) from a start. A failed step leaves the state at the last good step.
/// The one run loop that drives any stepper is integrate/run_loop.hpp.

#include <concepts>
#include <type_traits>

namespace mechint {

/// The model a stepper integrates.
template <class S>
using StepperModel = std::remove_cvref_t<decltype(std::declval<const S&>().model())>;

/// What every stepper offers besides the way it advances.
template <class S>
concept SteppedState = requires(const S& s) {
  { s.time() } -> std::convertible_to<double>;
  { s.step_index() } -> std::convertible_to<long>;
  { s.q() };
  { s.model() };
};

/// A fixed-step method: `step()` advances by h; after k steps from t0, time() = t0 + k h.
template <class S>
concept FixedStepper = SteppedState<S> && requires(S& s) {
  { s.step() };
  { s.step_size() } -> std::convertible_to<double>;
};

/// An adaptive method: `step_toward(t)` advances by one step of its own choosing, clipped so that
/// time() never passes t and equals t exactly once it is reached.
template <class S>
concept AdaptiveStepper = SteppedState<S> && requires(S& s, double t) {
  { s.step_toward(t) };
};

template <class S>
concept Stepper = FixedStepper<S> || AdaptiveStepper<S>;

// ---- optional capabilities ----------------------------------------------------------------------

template <class S>
concept HasMomentum = Stepper<S> && requires(const S& s) { { s.p() }; };

template <class S>
concept HasVelocity = Stepper<S> && requires(const S& s) { { s.velocity() }; };

template <class S>
concept HasEnergy = Stepper<S> && requires(const S& s) { { s.energy() } -> std::convertible_to<double>; };

template <class S>
concept HasNoetherMomenta = Stepper<S> && StepperModel<S>::kNumSymmetries > 0 &&
                            requires(const S& s) { { s.momentum(0) } -> std::convertible_to<double>; };

template <class S>
concept HasMultipliers = Stepper<S> && requires(const S& s) { { s.lambda() }; };

template <class S>
concept HasConstraintResidual = Stepper<S> && requires(const S& s) { { s.constraint_residual() }; };

template <class S>
concept HasModifiedEnergy = Stepper<S> && requires(const S& s) { { s.htilde() } -> std::convertible_to<double>; };

/// The controls u_k held over the last step taken (piecewise constant per step; docs/forces.md).
template <class S>
concept HasControls = Stepper<S> && requires(const S& s) { { s.control() }; };

/// The discrete work of the forces along each symmetry generator, summed over the steps taken: by
/// it the Noether momentum changes (forced Noether theorem, docs/forces.md), so that
/// momentum(i) − momentum(i) at the start − discrete_work(i) closes to round-off.
template <class S>
concept HasDiscreteWork = Stepper<S> && StepperModel<S>::kNumSymmetries > 0 &&
                          requires(const S& s) { { s.discrete_work(0) } -> std::convertible_to<double>; };

/// The number of impacts the stepper has resolved since its start (004 §III): a cumulative count,
/// so that any two output rows say whether an impact happened between them, however thinned.
template <class S>
concept HasImpactCount = Stepper<S> && requires(const S& s) { { s.impact_count() } -> std::convertible_to<long>; };

}  // namespace mechint
