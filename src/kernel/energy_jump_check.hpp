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
/// two apart without a false alarm on a resolved run. With forces, the change is held to the work
/// the caller estimates over the step (the Runge–Kutta baselines: the trapezoid rule of the power).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/step_check.hpp"

namespace mechint::kernel {

/// The RejectedStep of step `step` (ending at t) whose energy, `energy`, is off from the previous
/// step's (`back` = 1) or from the energy two steps before (`back` = 2) by `ratio` times the size of
/// the energy's terms.
[[noreturn]] inline void reject_energy_jump(long step, double t, double energy, double ratio, int back = 1) {
  throw RejectedStep("step " + std::to_string(step) + " (t = " + format_number(t) + ") rejected: its energy, " +
                         format_number(energy, 6) + ", is off from " +
                         (back == 1 ? "the previous step's" : "the energy two steps before") + " by " +
                         format_number(ratio, 3) +
                         " times the size of the energy's terms: the step does not resolve the motion (a singular "
                         "point of the potential crossed in a step or two?); reduce the step size, or use "
                         "adapt=sundman with a time scale that shrinks there",
                     FailureLocation{step, t});
}

/// The balance of one sequence of steps (a Runge–Kutta run's).
class EnergyJumpCheck {
 public:
  /// Nothing to compare the next step with (a start).
  void reset() { *this = EnergyJumpCheck(); }

  /// Records the energy of step `step` (ending at t) and the size of its terms; throws RejectedStep
  /// (exit 3) when it is off from the previous step's, plus the forces' `work` over the step, by more
  /// than `reject_energy` of that size — or off from the energy two steps back by more than twice
  /// that of the smaller size of the two steps' starts. The terms grow toward a pole while the energy
  /// does not: a crossing spread over two steps can keep each step within the allowance of its own
  /// start (rk4 at h = 0.005 on V = 1/(x − 1): −0.47 → 19.4 → 276 with sizes 74 and 325), never
  /// the two together within twice the allowance of the first (276/74).
  ///
  /// Where the previous step's terms are below a thousandth of this one's, the balance takes no scale
  /// from them (a start from rest at the zero of the potential, whose implicit rules then confirm the
  /// step by half steps). An explicit step has nothing to confirm it, and a jump to the far side of a
  /// pole lands exactly there (terms 30 → 10^5): such a step is judged against its own size, which a
  /// resolved start changes the energy by O(h^p) of and a jump by about 1/3 (a state made of its
  /// kinetic energy: E/size = ½v²/(3/2 v²)) or more — rejected above `trigger_energy` (0.25).
  void judge(double energy, double size, double work, long step, double t) {
    const double ratio = balance_.update_with_work_between(energy, size, work, options_);
    if (!(ratio <= options_.reject_energy)) reject_energy_jump(step, t, energy, ratio);
    if (std::isfinite(last_.energy) && last_.size < 1e-3 * size) {
      const double own = energy_balance_ratio(energy, last_.energy, size, work);
      if (!(own <= options_.trigger_energy)) reject_energy_jump(step, t, energy, own);
    }
    const double smaller = std::min(before_.size, last_.size);
    if (std::isfinite(before_.energy) && !(smaller < 1e-3 * size)) {  // a start from rest: no scale yet
      const double ratio2 = energy_balance_ratio(energy, before_.energy, smaller, work + last_.work);
      if (!(ratio2 <= 2.0 * options_.reject_energy)) reject_energy_jump(step, t, energy, ratio2, 2);
    }
    before_ = last_;
    last_ = {energy, size, work};
  }
  void judge(double energy, double size, long step, double t) { judge(energy, size, 0.0, step, t); }

 private:
  StepCheckOptions options_;
  EnergyBalance balance_;
  struct Ends {
    double energy = std::numeric_limits<double>::quiet_NaN(), size = 0.0, work = 0.0;
  };
  Ends last_, before_;  ///< the energy at the last step's end and at the one's before, their sizes and works
};

}  // namespace mechint::kernel
