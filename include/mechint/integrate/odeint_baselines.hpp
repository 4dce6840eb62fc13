#pragma once
/// \file
/// Runge–Kutta baselines from Boost.Odeint for any unconstrained model, on the Euler–Lagrange ODE:
/// `rk4` (classical, fixed step), `dopri5` (Dormand–Prince 5(4), adaptive) and `rk78`
/// (Runge–Kutta–Fehlberg 7(8), adaptive, the high-accuracy reference).

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/numeric/odeint.hpp>

#include "mechint/model/legendre.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/euler_lagrange_ode.hpp"

namespace mechint {

enum class RungeKuttaMethod { kRk4, kDopri5, kRk78 };


/// Tolerances of the adaptive methods (Boost.Odeint's per-component error control).
struct RungeKuttaTolerances {
  double rtol = 1e-8;
  double atol = 1e-10;
};

// ---- steppers on any ODE x' = f(x, t) with a std::array state (integrate/stepper.hpp) -----------

/// Classical Runge–Kutta at the fixed step h: after k steps from t0, time() = t0 + k h exactly.
template <class Ode>
class RungeKutta4 {
 public:
  using State = typename Ode::State;

  RungeKutta4(Ode ode, double h) : ode_(std::move(ode)), h_(h) {
    if (!(h > 0.0) || !std::isfinite(h))
      throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
  }

  void start(const State& x0, double t0 = 0.0) {
    x_ = x0;
    t0_ = t_ = t0;
    steps_ = 0;
  }
  void step() {
    stepper_.do_step(ode_, x_, t_, h_);
    ++steps_;
    t_ = t0_ + static_cast<double>(steps_) * h_;
  }

  const State& state() const { return x_; }
  double time() const { return t_; }
  long step_index() const { return steps_; }
  double step_size() const { return h_; }
  const Ode& ode() const { return ode_; }

  /// Odeint's classical Runge–Kutta keeps nothing between steps but x and t.
  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(x_), a(t0_), a(t_), a(steps_);
  }

  /// Multiplies the state's entries from `first` on by `factor`. Where the ODE is linear and
  /// homogeneous in those entries (a deviation carried by the variational equations) that is the same
  /// solution scaled, and the method keeps nothing else between steps: the next steps are unchanged.
  void scale_state_tail(std::size_t first, double factor) {
    for (std::size_t i = first; i < x_.size(); ++i) x_[i] *= factor;
  }

 private:
  Ode ode_;
  double h_;
  boost::numeric::odeint::runge_kutta4<State> stepper_;
  State x_{};
  double t0_ = 0.0, t_ = 0.0;
  long steps_ = 0;
};

/// The adaptive methods, starting from the step h0 and choosing their own steps under Odeint's
/// per-component error control. `step_toward(t_out)` takes one accepted step, never past t_out:
/// dopri5 steps freely and evaluates Dormand–Prince's continuous extension (order 4) at t_out, so
/// sampling does not constrain its steps; rk78 clips its step at t_out and keeps the step size
/// the controller proposed before the clipped step, so each output time costs at most one short step.
/// `kDense = false` steps dopri5 as rk78 is stepped (Odeint's controlled stepper, no dense output):
/// then its state is all it keeps between steps, as for rk78 (checkpoint_state, scale_state_tail).
template <class Ode, RungeKuttaMethod kMethod, bool kDense = kMethod == RungeKuttaMethod::kDopri5>
  requires(kMethod != RungeKuttaMethod::kRk4 && (kMethod == RungeKuttaMethod::kDopri5 || !kDense))
class AdaptiveRungeKutta {
 public:
  using State = typename Ode::State;

  AdaptiveRungeKutta(Ode ode, double h0, RungeKuttaTolerances tol)
      : ode_(std::move(ode)), h0_(h0), stepper_(make_stepper(tol)) {
    if (!(h0 > 0.0) || !std::isfinite(h0))
      throw InvalidInput("initial step size must be positive and finite, got " + format_number(h0));
  }

  void start(const State& x0, double t0 = 0.0) {
    x_ = x0;
    t_ = t0;
    dt_ = h0_;
    steps_ = 0;
    rejected_in_a_row_ = 0;
    if constexpr (kDense) stepper_.initialize(x_, t0, h0_);
  }

  void step_toward(double t_out) {
    if constexpr (kDense) {
      if (stepper_.current_time() < t_out) {
        stepper_.do_step(ode_);
        ++steps_;
      }
      if (stepper_.current_time() >= t_out) {
        stepper_.calc_state(t_out, x_);
        t_ = t_out;
      } else {
        x_ = stepper_.current_state();
        t_ = stepper_.current_time();
      }
    } else {
      namespace odeint = boost::numeric::odeint;
      for (;;) {
        double dt_try = std::min(dt_, t_out - t_);
        const bool clipped = dt_try < dt_;
        if (stepper_.try_step(ode_, x_, t_, dt_try) == odeint::success) {
          ++steps_;
          rejected_in_a_row_ = 0;
          if (!clipped) dt_ = dt_try;
          break;
        }
        dt_ = dt_try;
        if (++rejected_in_a_row_ > 200 || !(dt_ > 0.0))
          throw NumericalFailure("Runge-Kutta step size underflow at t = " + format_number(t_) +
                                 "; loosen the tolerances or check the model");
      }
      if (t_out - t_ <= 1e-13 * std::max(1.0, std::abs(t_out))) t_ = t_out;
    }
  }

  const State& state() const { return x_; }
  double time() const { return t_; }
  /// Accepted steps since the start.
  long step_index() const { return steps_; }
  const Ode& ode() const { return ode_; }

  /// rk78's controlled stepper evaluates everything afresh at each try: its state is x, t and the
  /// proposed step; dopri5's without dense output keeps besides the derivative at x (first same as
  /// last), which a resumed run evaluates again at x: the same values. Not offered for dopri5 with its
  /// dense output, which keeps the stage values of its last step inside Odeint (it interpolates the
  /// output times from them) where they cannot be read.
  template <class Archive>
    requires(!kDense)
  void checkpoint_state(Archive& a) {
    a(x_), a(t_), a(dt_), a(steps_), a(rejected_in_a_row_);
  }

  /// As RungeKutta4::scale_state_tail; not with dense output, for the reason above (the stage values
  /// of its last step would keep the old scale). dopri5's controlled stepper keeps the derivative at
  /// the current state for its next step (first same as last): it is dropped, and evaluated again at
  /// the rescaled state — one more evaluation, the same values but for the scale.
  void scale_state_tail(std::size_t first, double factor)
    requires(!kDense)
  {
    for (std::size_t i = first; i < x_.size(); ++i) x_[i] *= factor;
    if constexpr (kMethod == RungeKuttaMethod::kDopri5) stepper_.reset();
  }

 private:
  // Odeint's steppers copy their (still unset) scratch arrays when the controller is built; GCC
  // reports that copy as (possibly) uninitialized although every entry is written before it is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
  static auto make_stepper(RungeKuttaTolerances tol) {
    namespace odeint = boost::numeric::odeint;
    if constexpr (kDense)
      return odeint::make_dense_output(tol.atol, tol.rtol, odeint::runge_kutta_dopri5<State>());
    else if constexpr (kMethod == RungeKuttaMethod::kDopri5)
      return odeint::make_controlled(tol.atol, tol.rtol, odeint::runge_kutta_dopri5<State>());
    else
      return odeint::make_controlled(tol.atol, tol.rtol, odeint::runge_kutta_fehlberg78<State>());
  }
#pragma GCC diagnostic pop

  Ode ode_;
  double h0_;
  decltype(make_stepper(RungeKuttaTolerances{})) stepper_;
  State x_{};
  double t_ = 0.0, dt_ = 0.0;
  long steps_ = 0;
  int rejected_in_a_row_ = 0;
};

/// A Runge–Kutta method (`RungeKutta4` or `AdaptiveRungeKutta`) on the Euler–Lagrange ODE of an
/// unconstrained model, as a stepper of integrate/stepper.hpp: q, q̇, energy and Noether momenta.
template <class Method>
class LagrangianRungeKutta : public Method {
 public:
  using Ode = std::remove_cvref_t<decltype(std::declval<const Method&>().ode())>;
  using Model = std::remove_cvref_t<decltype(std::declval<const Ode&>().model())>;
  static constexpr int n = Model::kDim;

  using Method::Method;

  void start_from_velocity(const VecD<n>& q0, const VecD<n>& v0, double t0 = 0.0) {
    if (!q0.allFinite() || !v0.allFinite()) throw InvalidStart("initial data contain NaN or infinity");
    this->start(Ode::pack(q0, v0), t0);
  }

  const Model& model() const { return this->ode().model(); }
  VecD<n> q() const { return Ode::position(this->state()); }
  VecD<n> velocity() const { return Ode::velocity(this->state()); }
  double energy() const { return mechint::energy(model(), q(), velocity()); }
  /// ⟨∂L/∂q̇, ξ_i(q)⟩, conserved by the exact flow only.
  double momentum(int i) const {
    const VecD<n> q = this->q();
    return noether_momentum(model(), i, q, lagrangian_dv(model(), q, velocity()));
  }
};

template <LagrangianModel M>
using RungeKutta4Stepper = LagrangianRungeKutta<RungeKutta4<EulerLagrangeOde<M>>>;
template <LagrangianModel M, RungeKuttaMethod kMethod>
using AdaptiveRungeKuttaStepper = LagrangianRungeKutta<AdaptiveRungeKutta<EulerLagrangeOde<M>, kMethod>>;

/// Integrates any `ode` from (x, t0) over `segments` output intervals of length `dt_out`, calling
/// `observe(x, t)` at t0 and at the end of every interval (the reference integrations of the tests
/// and experiments, also for ODEs that are not Euler–Lagrange equations). rk4 uses the fixed step h
/// (dt_out must be a multiple of it); the adaptive methods start from h and deliver the state at
/// each output time exactly. Returns the number of steps taken (accepted steps when adaptive).
template <class Ode, class Observe>
long integrate_runge_kutta(const Ode& ode, RungeKuttaMethod method, typename Ode::State& x, double t0,
                           double h, double dt_out, long segments, RungeKuttaTolerances tol,
                           Observe&& observe) {
  observe(x, t0);
  const auto run = [&](auto& stepper, auto&& advance) {
    stepper.start(x, t0);
    for (long s = 0; s < segments; ++s) {
      advance(t0 + static_cast<double>(s + 1) * dt_out);
      observe(stepper.state(), stepper.time());
    }
    x = stepper.state();
    return stepper.step_index();
  };
  if (method == RungeKuttaMethod::kRk4) {
    RungeKutta4<Ode> rk(ode, h);
    const long stride = std::max(1L, std::lround(dt_out / h));
    return run(rk, [&](double) {
      for (long k = 0; k < stride; ++k) rk.step();
    });
  }
  const auto adaptive = [&]<RungeKuttaMethod kMethod>() {
    AdaptiveRungeKutta<Ode, kMethod> rk(ode, h, tol);
    return run(rk, [&](double t_out) {
      while (rk.time() < t_out) rk.step_toward(t_out);
    });
  };
  return method == RungeKuttaMethod::kDopri5 ? adaptive.template operator()<RungeKuttaMethod::kDopri5>()
                                             : adaptive.template operator()<RungeKuttaMethod::kRk78>();
}

}  // namespace mechint
