#pragma once
/// \file
/// The one run loop: drives any stepper (integrate/stepper.hpp) from its start to t_end, calls an
/// observer at the start and at the output times, and checks every step (finite state, the model's
/// own domain check). The command line, the experiments and the tests run integrators through it.
///
/// Output times. The grid is t_k = k h from t = 0; rows are produced at the start, every `stride`
/// steps (output_every / h rounded to a whole number of steps, at least 1) and at the last step
/// N = ⌈t_end / h⌉ (t_end a multiple of h up to round-off gives exactly t_end / h steps).
/// A fixed-step method stops after step N; an adaptive method is sampled at the same times, each
/// reached exactly (its steps are clipped there, or interpolated where the method has a continuous
/// extension).

#include <algorithm>
#include <cmath>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/stepper.hpp"

namespace mechint {

/// Where a run ends and where it is sampled.
struct OutputSchedule {
  double h = 0.01;             ///< the step (fixed-step methods) and the unit of the output grid
  double t_end = 10.0;
  double output_every = 0.0;   ///< 0: every step

  /// Number of steps N of size h to reach t_end.
  long steps() const { return static_cast<long>(std::ceil(t_end / h - 1e-9)); }
  /// Steps between output rows.
  long stride() const { return output_every <= 0.0 ? 1L : std::max(1L, std::lround(output_every / h)); }
};

/// Calls `model.validate_configuration(q, t)` if the model has one (it throws on a configuration
/// outside its domain, e.g. a collision with a primary), so that no NaN reaches the output.
template <class M, class V>
void validate_configuration(const M& model, const V& q, double t) {
  if constexpr (requires { model.validate_configuration(q, t); }) model.validate_configuration(q, t);
}

namespace detail {
template <class S>
void check_step(const S& s) {
  if (!s.q().allFinite())
    throw NumericalFailure("the state is not finite at step " + std::to_string(s.step_index()) + " (t = " +
                           format_number(s.time()) + "); reduce the step size");
  validate_configuration(s.model(), s.q(), s.time());
}
}  // namespace detail

/// Runs `s` (already started) to `schedule.t_end`, calling `observe(s)` at the start and at every
/// output time (Boost.Odeint's integrate_n_steps with an observer, for mechint's steppers).
template <Stepper S, class Observer>
void integrate(S& s, const OutputSchedule& schedule, Observer&& observe) {
  const long last = schedule.steps();
  const long stride = schedule.stride();
  detail::check_step(s);
  observe(std::as_const(s));
  if constexpr (FixedStepper<S>) {
    // step_index() counts from t = 0: a start that already took steps (000's start procedure)
    // continues the same grid.
    while (s.step_index() < last) {
      s.step();
      detail::check_step(s);
      if (s.step_index() % stride == 0 || s.step_index() == last) observe(std::as_const(s));
    }
  } else {
    for (long k = stride; k < last + stride; k += stride) {
      const double t_out = static_cast<double>(std::min(k, last)) * schedule.h;
      while (s.time() < t_out) {
        s.step_toward(t_out);
        detail::check_step(s);
      }
      observe(std::as_const(s));
    }
  }
}

}  // namespace mechint
