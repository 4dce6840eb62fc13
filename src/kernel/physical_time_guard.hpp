#pragma once
/// \file
/// What keeps `adapt=sundman` from going wrong silently (docs/adaptive-steps.md, "Failures"): after
/// every step of the trajectory, the time scale at the step's end and the progress of the physical
/// time, judged against figures of the run itself.
///
/// The steps are fixed in the fictive time τ, and dt = s(q) dτ. A time scale that vanishes along the
/// motion (s = x on an orbit that crosses x = 0) makes the exact τ-motion approach s = 0 without
/// reaching it while the physical time converges to the instant the physical motion would cross:
/// the run would step forever, or — once the O(h^p) error of the energy level pushes the fictive
/// motion back off s = 0 — go on with a motion that is not the model's (a mirrored orbit). A time
/// scale tiny from the start (s = 1e-300) is a time grid no run reaches the end of. The guard stops
/// both with exit 3 (NumericalFailure naming the step and its time):
///
/// * s(q) at the step's end must be positive and finite (the stages are checked as they are
///   evaluated: sundman_transformation.cpp);
/// * the step must advance the time;
/// * the physical step may not fall below kSmallestStepRatio (2^-30 ≈ 9.3e-10) of the largest
///   physical step of the run so far. A legitimate time scale follows the motion's own: s = r^1.5 on
///   a Kepler orbit of eccentricity e varies by ((1 − e)/(1 + e))^1.5 over an orbit — 3.6e-4 at
///   e = 0.99, 3.5e-7 at e = 0.9999 — and reaching 2^-30 takes e > 0.999997; a vanishing one falls
///   through it within a few hundred steps where it vanishes exponentially in τ (s = x) and within
///   a few thousand where it vanishes as a power (s = x², the step then shrinking as 1/k²): see the
///   next rule;
/// * the physical time may not converge: at the step counts 2^j (j ≥ kFirstWindow) since the guard's
///   start, the time gained over the last doubling of the steps is compared with the time gained over
///   the doubling before; once kConvergingWindows successive doublings each gained less than the one
///   before, the geometric series of the gains (their last ratio r) bounds the time the run will ever
///   reach, t_lim = t + gain·r/(1 − r); if t_lim falls short of the row being stepped to, the
///   physical time stalls. So it does if the row lies short of t_lim but the series would need more
///   than kMostFurtherDoublings further doublings (2^4 times the steps taken so far) to reach it: a
///   row just short of t_lim is reached only after ever more doublings (s = x⁴ on the example's
///   orbit: 2^30 steps to the row at t = 0.02, where t_lim ≈ 0.021). A time scale vanishing as a power along the motion, s ~ x^m with
///   x ~ τ^(−1/(m−1)), gains 2^(−1/(m−1)) as much per doubling (x²: 0.5, x⁴: 0.79) and is caught
///   within 2^4 times the steps it took to start vanishing. A periodic motion gains about twice as
///   much per doubling once a window holds an orbit, and before that its gains shrink during a
///   pericentre approach for a doubling or two, not four;
/// * reaching the row being stepped to at the current physical step may not take more than 2^44
///   steps, the bound of a fixed-step run's time grid (integrate/run_loop.hpp): at 2^44 steps the
///   grid points k·dt can no longer be told apart in double precision.

#include <algorithm>
#include <cmath>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::kernel {

class PhysicalTimeGuard {
 public:
  static constexpr double kSmallestStepRatio = 0x1.0p-30;
  static constexpr double kMostStepsToARow = 17592186044416.0;  // 2^44, OutputSchedule::kMaxSteps
  static constexpr int kFirstWindow = 6;                          // windows from 64 steps on
  static constexpr int kConvergingWindows = 4;
  static constexpr int kMostFurtherDoublings = 4;  // a stalling run may take 2^4 times its steps to a row

  /// A trajectory starting afresh (a resumed run's guard starts again at its first step).
  /// `h`: the fictive step, also the unit of the rows' grid (no row lies beyond 2^44 h).
  void start(double h) { *this = PhysicalTimeGuard(), row_horizon_ = kMostStepsToARow * h; }

  /// Judges step `step` of the trajectory, from t_before to t_after, taken toward the row at
  /// `target`; `scale` is s(q) at its end. Throws NumericalFailure (exit 3) as the file comment says.
  void after_step(long step, double t_before, double t_after, double target, double scale) {
    const FailureLocation where{step, t_before};
    if (!(scale > 0.0) || !std::isfinite(scale))
      throw NumericalFailure("the time scale s(q) is " + format_number(scale) + " at the end of step " +
                                 std::to_string(step) + " (t = " + format_number(t_before) +
                                 "): it must stay positive and finite; reduce the step size or check time_scale",
                             where);
    const double dt = t_after - t_before;
    if (!(dt > 0.0))
      throw NumericalFailure("the physical step h*s(q) = " + format_number(dt) + " no longer advances the time t = " +
                                 format_number(t_before) + " (step " + std::to_string(step) +
                                 "): the time scale vanishes along the motion (check time_scale)",
                             where);
    if (steps_ == 0) window_start_t_ = t_before;
    largest_step_ = std::max(largest_step_, dt);
    if (dt < kSmallestStepRatio * largest_step_)
      stall(step, t_before, "the physical step h*s(q) = " + format_number(dt) + " fell below 2^-30 of the run's largest (" +
                                format_number(largest_step_) + "), s(q) = " + format_number(scale));
    // A target beyond any row of a run (a caller stepping freely) is not judged.
    if (target - t_after <= row_horizon_ && (target - t_after) / dt > kMostStepsToARow)
      stall(step, t_before, "the physical step h*s(q) = " + format_number(dt) + " would need more than 2^44 steps to reach t = " +
                                format_number(target) + ", s(q) = " + format_number(scale));
    judge_convergence(step, t_after, target);
  }

  double largest_step() const { return largest_step_; }

 private:
  [[noreturn]] static void stall(long step, double t, const std::string& why) {
    throw NumericalFailure("the physical time stalls at t = " + format_number(t) + " (step " + std::to_string(step) +
                               "): " + why + "; the time scale vanishes along the motion (check time_scale), or "
                               "reduce the step size",
                           FailureLocation{step, t});
  }

  /// The doubling test of the file comment, at the steps 2^j.
  void judge_convergence(long step, double t, double target) {
    ++steps_;
    if (steps_ != next_window_end_) return;
    const double gain = t - window_start_t_;
    if (steps_ >= (1L << kFirstWindow) && previous_gain_ > 0.0 && gain < previous_gain_) {
      ++converging_;
      if (converging_ >= kConvergingWindows) {
        const double ratio = gain / previous_gain_;
        const double limit = t + gain * ratio / (1.0 - ratio);  // the gains' geometric series
        const std::string shrank = "over the last " + std::to_string(kConvergingWindows) +
                                   " doublings of the steps taken the time gained shrank each time (lastly to " +
                                   format_number(ratio, 3) + " of the one before): at that rate ";
        if (limit < target)
          stall(step, t, shrank + "the run cannot pass t = " + format_number(limit) + " on its way to t = " +
                             format_number(target));
        // The row lies short of the limit, but the series approaches it ever more slowly: the doublings
        // n it needs satisfy gain·r·(1 − rⁿ)/(1 − r) ≥ target − t. Each doubles the steps taken so far.
        const double share = (target - t) * (1.0 - ratio) / (gain * ratio);  // of the series' rest, in (0, 1]
        const double doublings = std::log1p(-std::min(share, 1.0)) / std::log(ratio);
        if (doublings > kMostFurtherDoublings)
          stall(step, t, shrank + "reaching t = " + format_number(target) + " would take more than 2^" +
                             std::to_string(kMostFurtherDoublings) + " times the " + std::to_string(steps_) +
                             " steps taken so far (the time gained converges to t = " + format_number(limit) + ")");
      }
    } else {
      converging_ = 0;
    }
    previous_gain_ = gain;
    window_start_t_ = t;
    next_window_end_ *= 2;
  }

  double largest_step_ = 0.0, row_horizon_ = 0.0;
  long steps_ = 0, next_window_end_ = 1;
  double window_start_t_ = 0.0, previous_gain_ = 0.0;
  int converging_ = 0;
};

}  // namespace mechint::kernel
