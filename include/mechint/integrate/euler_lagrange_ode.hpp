#pragma once
/// \file
/// The Euler–Lagrange equations of an unconstrained model as a first-order ODE, derived from L by
/// automatic differentiation, for the Runge–Kutta baselines.
///
/// State x = (q, v). d/dt ∂L/∂v = ∂L/∂q gives
///
///     q̇ = v,     ∂²L/∂v² · v̇ = ∂L/∂q − ∂²L/∂v∂q · v.
///
/// The derivatives come from the model's hand-written ones when it has them, otherwise from one
/// evaluation of L on nested forward-mode AD scalars (Eigen's AutoDiff, as the DEL Jacobian). Fixed-size storage throughout (std::array state,
/// as Boost.Odeint's array algebra expects): an evaluation does not allocate.
///
/// A forced model (model/forces.hpp) adds its generalized force on the right:
///
///     ∂²L/∂v² · v̇ = ∂L/∂q − ∂²L/∂v∂q · v + f(q, v, u(t), t)      (Lagrange–d'Alembert),
///
/// with the controls a function of time given at construction (zero when none is given): the
/// reference integrations of the forced variational integrators.

#include <array>
#include <functional>
#include <type_traits>

#include <Eigen/LU>

#include "mechint/core/autodiff.hpp"
#include "mechint/model/forces.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
class EulerLagrangeOde {
 public:
  static constexpr int n = M::kDim;
  using State = std::array<double, 2 * n>;
  static constexpr int kNumControls = kModelNumControls<M>;
  using Control = VecD<kNumControls>;
  /// u(t) of a forced model.
  using ControlLaw = std::function<Control(double)>;

  explicit EulerLagrangeOde(M model) : model_(std::move(model)) {}
  /// A forced model under the controls u(t).
  EulerLagrangeOde(M model, ControlLaw controls)
    requires ForcedModel<M>
      : model_(std::move(model)), controls_{std::move(controls)} {}

  /// dx/dt at (x, t): the form Boost.Odeint calls. A model with
  /// `validate_configuration(q, t)` (it throws at a singular configuration, e.g. a collision) is
  /// checked at every stage, so an integrator never evaluates the equations there.
  void operator()(const State& x, State& dxdt, double t) const {
    VecD<n> q, v;
    for (int i = 0; i < n; ++i) {
      q[i] = x[i];
      v[i] = x[n + i];
    }
    if constexpr (requires { model_.validate_configuration(q, t); }) model_.validate_configuration(q, t);
    VecD<n> a;
    if constexpr (ForcedModel<M>)
      a = acceleration(q, v, t);
    else
      a = acceleration(q, v);
    for (int i = 0; i < n; ++i) {
      dxdt[i] = v[i];
      dxdt[n + i] = a[i];
    }
  }

  /// q̈ from L_vv q̈ = L_q − L_vq q̇.
  VecD<n> acceleration(const VecD<n>& q, const VecD<n>& v) const
    requires(!ForcedModel<M>)
  {
    VecD<n> l_q;
    Mat<n, n> l_vv, l_qv;  // (l_qv)_{ij} = ∂²L/∂q_i∂v_j
    lagrangian_velocity_hessians(model_, q, v, l_q, l_qv, l_vv);
    return l_vv.partialPivLu().solve(l_q - l_qv.transpose() * v);
  }

  /// q̈ from L_vv q̈ = L_q − L_vq q̇ + f(q, q̇, u(t), t).
  VecD<n> acceleration(const VecD<n>& q, const VecD<n>& v, double t) const
    requires ForcedModel<M>
  {
    VecD<n> l_q;
    Mat<n, n> l_vv, l_qv;
    lagrangian_velocity_hessians(model_, q, v, l_q, l_qv, l_vv);
    const Control u = controls_.law ? controls_.law(t) : Control::Zero();
    return l_vv.partialPivLu().solve(l_q - l_qv.transpose() * v + model_generalized_force<M, double>(model_, q, v, u, t));
  }

  const M& model() const { return model_; }

  static State pack(const VecD<n>& q, const VecD<n>& v) {
    State x;
    for (int i = 0; i < n; ++i) {
      x[i] = q[i];
      x[n + i] = v[i];
    }
    return x;
  }
  static VecD<n> position(const State& x) { return Eigen::Map<const VecD<n>>(x.data()); }
  static VecD<n> velocity(const State& x) { return Eigen::Map<const VecD<n>>(x.data() + n); }

 private:
  M model_;
  struct ForcedControls {
    ControlLaw law;
  };
  struct NoControls {};
  [[no_unique_address]] std::conditional_t<ForcedModel<M>, ForcedControls, NoControls> controls_;
};

}  // namespace mechint
