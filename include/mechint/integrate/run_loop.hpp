#pragma once
/// \file
/// The one run loop: drives any stepper (integrate/stepper.hpp) from its start to t_end, calls an
/// observer at the start and at the output times, and checks every step (finite state, the model's
/// own domain check). The command line, the experiments and the tests run integrators through it.
///
/// The time grid (OutputSchedule). A run covers [0, t_end] in N = t_end / h steps of size h, and
/// t_end must be a whole multiple of h (to rounding: |t_end/h − N| ≤ 1e-9 + 8ε·N): a fixed-step
/// method then ends exactly at t_end with every step of the same size, which is what its preserved
/// structure (symplecticity, the discrete Noether theorem) is proved for; a run that is not a
/// multiple is refused rather than ended by a shorter step or overshot. Rows are written at the start,
/// at every multiple of `output_every` (itself a multiple of h, or 0 for every step; at least t_end:
/// only the start and the end) and at t_end. The time written is the grid time k·h, and t_end itself
/// for the last row. An adaptive method is sampled at the same times, each reached exactly (its steps
/// are clipped there, or interpolated where the method has a continuous extension).
/// Refused with InvalidInput: a non-positive or non-finite h or t_end, a negative or non-finite
/// output_every, h larger than t_end, more than 2^44 ≈ 1.8e13 steps (far beyond a run that ends:
/// below it the grid points k·h are at least 256 rounding units apart and the multiple-of-h test
/// resolves a thirtieth of a step; near 2^52 consecutive k·h would coincide and t + h == t), a
/// t_end or output_every that is not a multiple of h.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/stepper.hpp"

namespace mechint {

/// Where a run ends and where it is sampled (the time grid of the file comment).
struct OutputSchedule {
  double h = 0.01;             ///< the step (fixed-step methods) and the unit of the output grid
  double t_end = 10.0;
  double output_every = 0.0;   ///< 0: every step

  /// Throws InvalidInput unless the grid is one that can be integrated (see the file comment).
  void validate() const {
    if (!(std::isfinite(h) && h > 0.0)) throw InvalidInput("the step h must be a positive number, got " + format_number(h));
    if (!(std::isfinite(t_end) && t_end > 0.0))
      throw InvalidInput("the end time t_end must be a positive number, got " + format_number(t_end));
    if (!(std::isfinite(output_every) && output_every >= 0.0))
      throw InvalidInput("output_every must be zero or a positive number, got " + format_number(output_every));
    if (h > t_end)
      throw InvalidInput("the step h = " + format_number(h) + " is longer than the run (t_end = " + format_number(t_end) + ")");
    const double n = t_end / h;
    if (!(n <= kMaxSteps))
      throw InvalidInput("t_end / h = " + format_number(n) + " steps is more than 2^44 (1.8e13): the time grid k*h "
                         "cannot be resolved in double precision at that many steps; use a larger h");
    if (!is_whole(n))
      throw InvalidInput("t_end = " + format_number(t_end, 17) + " is not a multiple of h = " + format_number(h, 17) +
                         " (t_end / h = " + format_number(n, 10) + "); a fixed step must end exactly at t_end: choose t_end = " +
                         format_number(std::floor(n) * h, 17) + " or " + format_number(std::ceil(n) * h, 17) +
                         ", or an h that divides it");
    // A multiple of h means at least one step: 1e-11 with h = 0.01 is not a row every step.
    if (output_every > 0.0 && output_every < t_end && (!is_whole(output_every / h) || std::round(output_every / h) < 1.0))
      throw InvalidInput("output_every = " + format_number(output_every, 17) + " is not a multiple of h = " +
                         format_number(h, 17) + " (output_every / h = " + format_number(output_every / h, 10) + ")");
  }

  /// Number of steps N (validate() first).
  long steps() const { return std::lround(t_end / h); }
  /// Steps between output rows, in [1, N].
  long stride() const {
    if (output_every <= 0.0) return 1L;
    if (output_every >= t_end) return steps();
    return std::clamp(std::lround(output_every / h), 1L, steps());
  }
  /// Time of grid point k: k·h, and t_end exactly at k = N.
  double time_at(long k) const { return k == steps() ? t_end : static_cast<double>(k) * h; }

  /// 2^44 steps (see the file comment).
  static constexpr double kMaxSteps = 17592186044416.0;

 private:
  static bool is_whole(double ratio) {
    return std::abs(ratio - std::round(ratio)) <= 1e-9 + 8.0 * std::numeric_limits<double>::epsilon() * ratio;
  }
};

/// Calls `model.validate_configuration(q, t)` if the model has one (it throws on a configuration
/// outside its domain, e.g. a collision with a primary), so that no NaN reaches the output.
template <class M, class V>
void validate_configuration(const M& model, const V& q, double t) {
  if constexpr (requires { model.validate_configuration(q, t); }) model.validate_configuration(q, t);
}

/// Calls `model.validate_step(q_before, q, t)` if the model has one: a check of the whole step, e.g.
/// that it does not jump over a singular point of the potential with both ends outside it.
template <class M, class V>
void validate_step(const M& model, const V& q_before, const V& q, double t) {
  if constexpr (requires { model.validate_step(q_before, q, t); }) model.validate_step(q_before, q, t);
}

namespace detail {
template <class S>
void check_step(const S& s) {
  if (!s.q().allFinite())
    throw NumericalFailure("the state is not finite at step " + std::to_string(s.step_index()) + " (t = " +
                           format_number(s.time()) + "); reduce the step size",
                           FailureLocation{s.step_index(), s.time()});
  try {
    validate_configuration(s.model(), s.q(), s.time());
  } catch (DomainError& e) {
    e.locate(s.step_index(), s.time());
    throw;
  }
}

/// The step a failure while advancing `s` belongs to: the next one, and the time it was to reach
/// (an adaptive method's next time is not known: the time it started from).
template <class S, class Failure>
void locate_next_step(const S& s, Failure& e) {
  if constexpr (FixedStepper<S>)
    e.locate(s.step_index() + 1, s.time() + s.step_size());
  else
    e.locate(s.step_index() + 1, s.time());
}

template <class S>
constexpr bool kModelChecksSteps = requires(const StepperModel<S>& m, const std::remove_cvref_t<decltype(std::declval<const S&>().q())>& q) {
  m.validate_step(q, q, 0.0);
};

/// Advances `s` by `advance(s)` and checks the step (finite state, the model's domain, the step).
/// A failure leaves with its step and time (FailureLocation) filled in where its thrower did not.
template <class S, class Advance>
void advance_and_check(S& s, Advance&& advance) {
  try {
    if constexpr (kModelChecksSteps<S>) {
      const auto q_before = s.q();  // fixed-size: a copy on the stack
      advance(s);
      check_step(s);
      validate_step(s.model(), q_before, s.q(), s.time());
    } else {
      advance(s);
      check_step(s);
    }
  } catch (NumericalFailure& e) {
    locate_next_step(s, e);
    throw;
  } catch (DomainError& e) {
    locate_next_step(s, e);
    throw;
  }
}

}  // namespace detail

/// One step of a fixed-step method, checked as the run loop checks its steps.
template <FixedStepper S>
void take_step(S& s) {
  detail::advance_and_check(s, [](S& x) { x.step(); });
}

/// Advances an adaptive method to exactly `t_out` by steps of its own, each checked as the run loop
/// checks its steps.
template <AdaptiveStepper S>
void advance_to(S& s, double t_out) {
  while (s.time() < t_out) detail::advance_and_check(s, [t_out](S& x) { x.step_toward(t_out); });
}

/// Steps between two calls of a run's interrupt check (`integrate`'s `poll`): rare enough to cost
/// nothing per step, frequent enough to stop within milliseconds.
inline constexpr long kPollInterval = 1024;

/// The time of the row `s` is at: its grid time k·h (t_end for the last) for a fixed-step method,
/// its own time (already on the grid) for an adaptive one.
template <Stepper S>
double output_time(const S& s, const OutputSchedule& schedule) {
  if constexpr (FixedStepper<S>)
    return schedule.time_at(s.step_index());
  else
    return s.time();
}

/// How a run begins: from a stepper just started, or from one restored from a checkpoint taken at
/// an output time (whose row, like every row before it, was written by the run that took it).
enum class RunStart { kFresh, kResumed };

/// Runs `s` to `schedule.t_end`, calling `observe(s)` at every output time — at the start too unless
/// `start` is kResumed — and then `after_row(s)` (where a checkpoint may be taken: the rows so far
/// are written and `s` is at an output time). `poll()` is called every kPollInterval steps of a
/// fixed-step method and before every step of an adaptive one: it throws (e.g. Interrupted) to stop
/// the run there. Boost.Odeint's integrate_n_steps with an observer, for mechint's steppers.
template <Stepper S, class Observer, class AfterRow, class Poll>
void integrate(S& s, const OutputSchedule& schedule, Observer&& observe, AfterRow&& after_row, RunStart start,
               Poll&& poll) {
  schedule.validate();
  const long last = schedule.steps();
  const long stride = schedule.stride();
  const auto row = [&] {
    observe(std::as_const(s));
    after_row(s);
  };
  detail::check_step(s);
  if (start == RunStart::kFresh) row();
  if constexpr (FixedStepper<S>) {
    // step_index() counts from t = 0: a start that already took steps (000's start procedure)
    // continues the same grid, and so does a restored stepper.
    while (s.step_index() < last) {
      take_step(s);
      if (s.step_index() % kPollInterval == 0) poll();
      if (s.step_index() % stride == 0 || s.step_index() == last) row();
    }
  } else {
    // A restored stepper is at the output time k·h it was saved at; the next row is k + stride.
    const long done = start == RunStart::kFresh ? 0 : std::lround(s.time() / schedule.h);
    for (long k = done + stride; k < last + stride; k += stride) {
      const double t_out = schedule.time_at(std::min(k, last));
      while (s.time() < t_out) {
        poll();
        detail::advance_and_check(s, [t_out](S& x) { x.step_toward(t_out); });
      }
      row();
    }
  }
}

/// Runs `s` (already started) to `schedule.t_end`, calling `observe(s)` at the start and at every
/// output time.
template <Stepper S, class Observer>
void integrate(S& s, const OutputSchedule& schedule, Observer&& observe) {
  integrate(s, schedule, std::forward<Observer>(observe), [](const S&) {}, RunStart::kFresh, [] {});
}

}  // namespace mechint
