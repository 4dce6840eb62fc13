#pragma once
/// \file
/// Runge–Kutta baselines from Boost.Odeint for any unconstrained model, on the Euler–Lagrange ODE:
/// `rk4` (classical, fixed step), `dopri5` (Dormand–Prince 5(4), adaptive) and `rk78`
/// (Runge–Kutta–Fehlberg 7(8), adaptive, the high-accuracy reference).

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/numeric/odeint.hpp>

#include "mechint/integrate/euler_lagrange_ode.hpp"

namespace mechint {

enum class RungeKuttaMethod { kRk4, kDopri5, kRk78 };

/// Parses "rk4", "dopri5", "rk78"; throws std::invalid_argument otherwise.
inline RungeKuttaMethod parse_runge_kutta_method(const std::string& name) {
  if (name == "rk4") return RungeKuttaMethod::kRk4;
  if (name == "dopri5") return RungeKuttaMethod::kDopri5;
  if (name == "rk78") return RungeKuttaMethod::kRk78;
  throw std::invalid_argument("unknown Runge-Kutta method '" + name + "' (known: rk4, dopri5, rk78)");
}

/// Tolerances of the adaptive methods (Boost.Odeint's per-component error control).
struct RungeKuttaTolerances {
  double rtol = 1e-8;
  double atol = 1e-10;
};

/// Integrates `ode` from (x, t0) over `segments` output intervals of length `dt_out`, calling
/// `observe(x, t)` at t0 and at the end of every interval. rk4 uses the fixed step h (dt_out must be
/// a multiple of it); the adaptive methods start from h and choose their own steps, delivering the
/// state at each output time exactly (rk78 by clipping a step, dopri5 by its continuous
/// extension). Returns the number of steps taken (accepted steps for the adaptive methods).
template <class Ode, class Observe>
long integrate_runge_kutta(const Ode& ode, RungeKuttaMethod method, typename Ode::State& x, double t0,
                           double h, double dt_out, long segments, RungeKuttaTolerances tol,
                           Observe&& observe) {
  namespace odeint = boost::numeric::odeint;
  using State = typename Ode::State;
  observe(x, t0);
  long steps = 0;
  if (method == RungeKuttaMethod::kRk4) {
    odeint::runge_kutta4<State> stepper;
    const long stride = std::max(1L, std::lround(dt_out / h));
    double t = t0;
    for (long s = 0; s < segments; ++s) {
      for (long k = 0; k < stride; ++k) {
        stepper.do_step(ode, x, t, h);
        ++steps;
        t = t0 + static_cast<double>(steps) * h;
      }
      observe(x, t);
    }
    return steps;
  }
  // rk78: controlled steps, clipped at the output times; the step size the controller proposed
  // before a clipped step is kept for the next interval, so dense output times cost at most one
  // short step each.
  auto run_controlled = [&](auto controlled) {
    double t = t0, dt = h;
    int rejected_in_a_row = 0;
    for (long s = 0; s < segments; ++s) {
      const double b = t0 + static_cast<double>(s + 1) * dt_out;
      while (b - t > 1e-13 * std::max(1.0, std::abs(b))) {
        double dt_try = std::min(dt, b - t);
        const bool clipped = dt_try < dt;
        if (controlled.try_step(ode, x, t, dt_try) == odeint::success) {
          ++steps;
          rejected_in_a_row = 0;
          if (!clipped) dt = dt_try;
        } else {
          dt = dt_try;
          if (++rejected_in_a_row > 200 || !(dt > 0.0))
            throw std::runtime_error("Runge-Kutta step size underflow at t = " + std::to_string(t));
        }
      }
      t = b;
      observe(x, b);
    }
  };
  // dopri5: Dormand–Prince's continuous extension (order 4) gives the state at the output times,
  // so sampling does not constrain the steps.
  auto run_dense = [&](auto dense) {
    dense.initialize(x, t0, h);
    for (long s = 0; s < segments; ++s) {
      const double b = t0 + static_cast<double>(s + 1) * dt_out;
      while (dense.current_time() < b) {
        dense.do_step(ode);
        ++steps;
      }
      dense.calc_state(b, x);
      observe(x, b);
    }
  };
  // Odeint's steppers copy their (still unset) scratch arrays when the controller is built; GCC
  // reports that copy as (possibly) uninitialized although every entry is written before it is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
  if (method == RungeKuttaMethod::kDopri5)
    run_dense(odeint::make_dense_output(tol.atol, tol.rtol, odeint::runge_kutta_dopri5<State>()));
  else
    run_controlled(odeint::make_controlled(tol.atol, tol.rtol, odeint::runge_kutta_fehlberg78<State>()));
#pragma GCC diagnostic pop
  return steps;
}

}  // namespace mechint
