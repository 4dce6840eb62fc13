#pragma once
/// \file
/// The energy balance of the steps that have no Newton root to confirm (docs/trustworthy-runs.md,
/// "Step acceptance"): the explicit Störmer–Verlet steps of vi-trapezoid on a separable model
/// (kernel/galerkin_integrator.hpp) and the Runge–Kutta baselines (kernel/kernel_runge_kutta.hpp).
///
/// The implicit rules reject a step whose energy is off from the previous step's by more than the
/// size of the energy's terms (integrate/step_check.hpp, EnergyBalance, `reject_energy` = 1): a
/// Newton root that is not the continuation of the motion. An explicit step has a single answer,
/// but it can be just as wrong: a step across a pole of the potential, b/(x − c) crossed in one
/// step, lands on the other branch with an energy of 285 where the motion has −0.5 (vi-trapezoid,
/// h = 0.01; rk4 at h = 0.1: 31) and the run went on with exit 0. A step that resolves the motion
/// changes the energy by O(h^(p+1)) of its terms (its local error), so the same test of the same
/// figures — this step's energy against the previous one's, over the size of the previous one's
/// terms, with the same allowance for a start from rest at the zero of the potential — tells the
/// two apart without a false alarm on a resolved run. The models without forces only: the work of
/// a force, which these methods do not split into the step's halves, is not part of the balance.

#include <cmath>
#include <limits>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/step_check.hpp"

namespace mechint::kernel {

/// The RejectedStep of step `step` (ending at t) whose energy, `energy`, is off from the previous
/// step's by `ratio` times the size of the energy's terms.
[[noreturn]] inline void reject_energy_jump(long step, double t, double energy, double ratio) {
  throw RejectedStep("step " + std::to_string(step) + " (t = " + format_number(t) + ") rejected: its energy, " +
                         format_number(energy, 6) + ", is off from the previous step's by " + format_number(ratio, 3) +
                         " times the size of the energy's terms: the step does not resolve the motion (a singular "
                         "point of the potential crossed in one step?); reduce the step size, or use adapt=sundman "
                         "with a time scale that shrinks there",
                     FailureLocation{step, t});
}

/// The balance of one sequence of steps (a Runge–Kutta run's).
class EnergyJumpCheck {
 public:
  /// Nothing to compare the next step with (a start).
  void reset() { balance_.reset(); }

  /// Records the energy of step `step` (ending at t) and the size of its terms; throws RejectedStep
  /// (exit 3) when it is off from the previous step's by more than `reject_energy` of that size.
  void judge(double energy, double size, long step, double t) {
    const double ratio = balance_.update(energy, size, 0.0, options_);
    if (!(ratio <= options_.reject_energy)) reject_energy_jump(step, t, energy, ratio);
  }

 private:
  StepCheckOptions options_;
  EnergyBalance balance_;
};

}  // namespace mechint::kernel
