#pragma once
/// \file
/// The Runge–Kutta baselines (rk4, dopri5, rk78: integrate/odeint_baselines.hpp's steppers, reused
/// as they are) on the forced Euler–Lagrange ODE of an unconstrained kernel model:
///
///     x = (q, v),   q' = v,   L_vv v' = L_q − L_qvᵀ v + f(q, v, u(t), t).
///
/// The state is a std::vector (Boost.Odeint sizes its stages once, at the first step); the ODE's
/// workspace sits behind a pointer, so Odeint's copies of the ODE allocate nothing.
///
/// With a deviation tracked (rk4, rk78, dopri5 without dense output: `track_deviation`) the state is x = (q, v, δq, δp) and the
/// ODE carries δ by the variational equations of the same flow, written in the coordinates (q, p =
/// ∂L/∂v) of the variational integrators' tangent maps (docs/chaos-indicators.md):
///
///     δv = L_vv⁻¹ (δp − L_qvᵀ δq),   δq' = δv,   δp' = (L_qq + f_q) δq + (L_qv + f_v) δv,
///
/// the linearisation of q' = v(q, p), p' = L_q + f. Only second derivatives of L enter: in (q, v)
/// the linearised acceleration would need its third.

#include <memory>
#include <vector>

#include <Eigen/LU>

#include "kernel/chaos_indicators.hpp"
#include "kernel/energy_jump_check.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/integrate/odeint_baselines.hpp"

namespace mechint::kernel {

class KernelEulerLagrangeOde {
 public:
  using State = std::vector<double>;

  KernelEulerLagrangeOde(const KernelModel& model, ControlLaw law);

  /// dx/dt at (x, t); NaN where the model is not defined or L_vv is singular (the run stops there).
  /// A state of 4n entries carries the deviation (δq, δp) as well (the file comment).
  void operator()(const State& x, State& dxdt, double t) const;
  /// The forces' power f(q, v, u(t), t)·v (a forced model's energy balance); false where the forces
  /// are not defined.
  bool power(const Vector& q, const Vector& v, double t, double& power) const;
  const KernelModel& model() const { return *model_; }

 private:
  struct Workspace;
  const KernelModel* model_;
  ControlLaw law_;
  std::shared_ptr<Workspace> work_;
};

/// A Runge–Kutta stepper (RungeKutta4 or AdaptiveRungeKutta of odeint_baselines.hpp) on the kernel
/// ODE, with the stepper contract's q, velocity, energy and Noether momenta.
template <class Method>
class KernelRungeKutta : public Method {
 public:
  using Method::Method;

  void start_from_velocity(const Vector& q0, const Vector& v0, double t0 = 0.0) {
    if (!q0.allFinite() || !v0.allFinite()) throw InvalidStart("initial data contain NaN or infinity");
    std::vector<double> x(2 * q0.size());
    Eigen::Map<Vector>(x.data(), q0.size()) = q0;
    Eigen::Map<Vector>(x.data() + q0.size(), v0.size()) = v0;
    this->start(x, t0);
    before_.resize(q0.size());
    after_.resize(q0.size());
    energy_q_.resize(q0.size()), energy_v_.resize(q0.size()), energy_l_v_.resize(q0.size());
    energy_jumps_.reset();
    judge_energy();
  }
  /// The method's step, then the model's own check of the step (a model file's domain,
  /// KernelModel::check_step), as the variational integrators on kernels check theirs.
  void step()
    requires requires(Method& m) { m.step(); }
  {
    if (!model().has_step_check()) {
      Method::step();
    } else {
      before_ = q();
      Method::step();
      after_ = q();
      model().check_step(before_, after_, this->time());
    }
    judge_energy();
    if (tracking_) renormalise_deviation();
  }
  void step_toward(double t_out)
    requires requires(Method& m) { m.step_toward(0.0); }
  {
    if (!model().has_step_check()) {
      Method::step_toward(t_out);
    } else {
      before_ = q();
      Method::step_toward(t_out);
      after_ = q();
      model().check_step(before_, after_, this->time());
    }
    judge_energy();
    if (tracking_) renormalise_deviation();
  }

  /// Carries the deviation δ = (δq, δp) (2n values, scaled to unit length; p = ∂L/∂v) by the
  /// variational equations (the file comment), integrated by the method together with the motion,
  /// renormalised after every step, its stretch added to the chaos indicators (chaos_indicators.hpp).
  /// From the start only: Odeint sizes its stages at the first step. rk4, rk78 and dopri5 stepped
  /// without its dense output (KernelDopri5Stepped): their state is all they keep between steps, so it
  /// can be rescaled. The adaptive methods control the error of δ's entries too, so their steps are
  /// not those of a run without a deviation.
  void track_deviation(const Vector& delta)
    requires requires(Method& m) { m.scale_state_tail(0, 1.0); }
  {
    const int n = model().dim();
    const double norm = delta.norm();
    if (delta.size() != 2 * n || !(norm > 0.0) || !std::isfinite(norm))
      throw InvalidInput("the deviation must be a non-zero finite vector of 2n = " + std::to_string(2 * n) + " values");
    if (this->step_index() != 0)
      throw InvalidInput("a Runge-Kutta run carries a deviation from its start: track it before the first step");
    std::vector<double> x(4 * static_cast<std::size_t>(n));
    std::copy(this->state().begin(), this->state().begin() + 2 * n, x.begin());
    Eigen::Map<Vector>(x.data() + 2 * n, 2 * n) = delta / norm;
    this->start(x, this->time());
    tracking_ = true;
    indicators_.restart(this->time());
  }
  bool tracks_deviation() const { return tracking_; }
  /// δ after the last step (unit length), or as given before the first.
  Vector deviation() const {
    const int n = model().dim();
    return tracking_ ? Vector(Eigen::Map<const Vector>(this->state().data() + 2 * n, 2 * n)) : Vector();
  }
  const ChaosIndicators& indicators() const { return indicators_; }

  /// The method's state (with δ when tracked), then the indicators' sums when tracked (a resumed
  /// run tracks a deviation from its start, as the interrupted one did).
  template <class Archive>
    requires requires(Method& m, Archive& a) { m.checkpoint_state(a); }
  void checkpoint_state(Archive& a) {
    Method::checkpoint_state(a);
    energy_jumps_.reset();  // a resumed state has no previous step to compare with
    if (tracking_) indicators_.checkpoint_state(a);
  }

  const KernelModel& model() const { return this->ode().model(); }
  Eigen::Map<const Vector> q() const { return {this->state().data(), model().dim()}; }
  Eigen::Map<const Vector> velocity() const { return {this->state().data() + model().dim(), model().dim()}; }
  double energy() const {
    const Vector q = this->q(), v = velocity();
    double value = 0.0;
    Vector l_v(q.size());
    if (!model().gradient(q, v, &value, nullptr, &l_v)) return std::numeric_limits<double>::quiet_NaN();
    return l_v.dot(v) - value;
  }
  /// ⟨∂L/∂v, ξ_i(q)⟩, conserved by the exact flow only.
  double momentum(int i) const {
    const Vector q = this->q(), v = velocity();
    Vector l_v(q.size()), xi(q.size());
    if (!model().gradient(q, v, nullptr, nullptr, &l_v) || !model().symmetry(i, q, xi))
      return std::numeric_limits<double>::quiet_NaN();
    return l_v.dot(xi);
  }

 private:
  /// Adds the deviation's stretch over the step to the indicators and scales it back to unit length
  /// (only the methods that can track one get here: tracking_ is set by track_deviation alone).
  void renormalise_deviation() {
    if constexpr (requires(Method& m) { m.scale_state_tail(std::size_t{0}, 1.0); }) {
      const int n = model().dim();
      // A motion that is not finite itself is the run loop's to report.
      if (!Eigen::Map<const Vector>(this->state().data(), 2 * n).allFinite()) return;
      const double stretch = Eigen::Map<const Vector>(this->state().data() + 2 * n, 2 * n).norm();
      if (!(stretch > 0.0) || !std::isfinite(stretch))
        throw NumericalFailure("the deviation of the chaos indicators is not finite at t = " +
                                   format_number(this->time()) + " (step " + std::to_string(this->step_index()) +
                                   "); reduce the step size",
                               FailureLocation{this->step_index(), this->time()});
      indicators_.add_step(this->time(), std::log(stretch));
      this->scale_state_tail(2 * static_cast<std::size_t>(n), 1.0 / stretch);
    }
  }

  /// The step's energy against the previous one's (kernel/energy_jump_check.hpp): a step that does
  /// not resolve the motion (a pole of the potential crossed in one step) is refused, not written.
  /// Models without forces; a state that is not finite is the run loop's to report.
  /// A forced model's energy changes by the forces' work, W ≈ ½Δt (P₀ + P₁) with P = f·v (the
  /// trapezoid rule: O(Δt³) off, far below the size of the energy's terms the balance allows).
  void judge_energy() {
    const int n = model().dim();
    energy_q_ = Eigen::Map<const Vector>(this->state().data(), n);
    energy_v_ = Eigen::Map<const Vector>(this->state().data() + n, n);
    if (!energy_q_.allFinite() || !energy_v_.allFinite()) return;
    double energy = std::numeric_limits<double>::quiet_NaN(), size = 0.0;
    if (!model().energy(energy_q_, energy_v_, energy, size, energy_l_v_)) return;
    double work = 0.0;
    if (model().forced()) {
      double power = 0.0;
      if (!this->ode().power(energy_q_, energy_v_, this->time(), power) || !std::isfinite(power)) return;
      work = 0.5 * (this->time() - power_time_) * (power_ + power);
      power_ = power, power_time_ = this->time();
    }
    energy_jumps_.judge(energy, size, work, this->step_index(), this->time());
  }

  Vector before_, after_;  ///< the step's ends, for the model's step check (sized at the start)
  Vector energy_q_, energy_v_, energy_l_v_;  ///< judge_energy's workspace (sized at the start)
  EnergyJumpCheck energy_jumps_;
  double power_ = 0.0, power_time_ = 0.0;  ///< the forces' power at the previous step's end (forced models)
  bool tracking_ = false;
  ChaosIndicators indicators_;
};

using KernelRk4 = KernelRungeKutta<RungeKutta4<KernelEulerLagrangeOde>>;
using KernelDopri5 = KernelRungeKutta<AdaptiveRungeKutta<KernelEulerLagrangeOde, RungeKuttaMethod::kDopri5>>;
/// dopri5 stepped without its dense output (each output time clips a step, as for rk78): the stepper
/// of dopri5 carrying a deviation, whose state must be rescaled between steps.
using KernelDopri5Stepped =
    KernelRungeKutta<AdaptiveRungeKutta<KernelEulerLagrangeOde, RungeKuttaMethod::kDopri5, /*kDense=*/false>>;
using KernelRk78 = KernelRungeKutta<AdaptiveRungeKutta<KernelEulerLagrangeOde, RungeKuttaMethod::kRk78>>;

/// Returns f(stepper) for the kernel stepper of `method` on `ode`, not yet started: rk4 at the step h,
/// dopri5 (with its dense output) and rk78 from the first step h under `tol`. For code that picks a
/// baseline by the enum (experiments, tests); the command line's rows are src/methods/runge_kutta_methods.cpp.
template <class F>
auto with_kernel_runge_kutta(const KernelEulerLagrangeOde& ode, RungeKuttaMethod method, double h,
                             RungeKuttaTolerances tol, F&& f) {
  if (method == RungeKuttaMethod::kRk4) {
    KernelRk4 rk(ode, h);
    return f(rk);
  }
  if (method == RungeKuttaMethod::kDopri5) {
    KernelDopri5 rk(ode, h, tol);
    return f(rk);
  }
  KernelRk78 rk(ode, h, tol);
  return f(rk);
}

}  // namespace mechint::kernel
