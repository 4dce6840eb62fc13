#pragma once
/// \file
/// The Runge–Kutta baselines (rk4, dopri5, rk78: integrate/odeint_baselines.hpp's steppers, reused
/// as they are) on the forced Euler–Lagrange ODE of an unconstrained kernel model:
///
///     x = (q, v),   q' = v,   L_vv v' = L_q − L_qvᵀ v + f(q, v, u(t), t).
///
/// The state is a std::vector (Boost.Odeint sizes its stages once, at the first step); the ODE's
/// workspace sits behind a pointer, so Odeint's copies of the ODE allocate nothing.

#include <memory>
#include <vector>

#include <Eigen/LU>

#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/integrate/odeint_baselines.hpp"

namespace mechint::kernel {

class KernelEulerLagrangeOde {
 public:
  using State = std::vector<double>;

  KernelEulerLagrangeOde(const KernelModel& model, ControlLaw law);

  /// dx/dt at (x, t); NaN where the model is not defined or L_vv is singular (the run stops there).
  void operator()(const State& x, State& dxdt, double t) const;
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
  }
  /// The method's step, then the model's own check of the step (a model file's domain,
  /// KernelModel::check_step), as the variational integrators on kernels check theirs.
  void step()
    requires requires(Method& m) { m.step(); }
  {
    if (!model().has_step_check()) return Method::step();
    before_ = q();
    Method::step();
    after_ = q();
    model().check_step(before_, after_, this->time());
  }
  void step_toward(double t_out)
    requires requires(Method& m) { m.step_toward(0.0); }
  {
    if (!model().has_step_check()) return Method::step_toward(t_out);
    before_ = q();
    Method::step_toward(t_out);
    after_ = q();
    model().check_step(before_, after_, this->time());
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
  Vector before_, after_;  ///< the step's ends, for the model's step check (sized at the start)
};

using KernelRk4 = KernelRungeKutta<RungeKutta4<KernelEulerLagrangeOde>>;
using KernelDopri5 = KernelRungeKutta<AdaptiveRungeKutta<KernelEulerLagrangeOde, RungeKuttaMethod::kDopri5>>;
using KernelRk78 = KernelRungeKutta<AdaptiveRungeKutta<KernelEulerLagrangeOde, RungeKuttaMethod::kRk78>>;

}  // namespace mechint::kernel
