#pragma once
/// \file
/// The discrete forces of a forced discrete system, as the forced DEL equations need them
/// (discrete Lagrange–d'Alembert principle, docs/forces.md):
///
///     p_k + D1 Ld(q_k, q_{k+1}) + f⁻_k + Dg(q_k)ᵀλ_k = 0,   g(q_{k+1}) = 0,
///     p_{k+1} = D2 Ld(q_k, q_{k+1}) + f⁺_k,
///
/// with f^±_k = f^±(q_k, q_{k+1}, u_k, t_k, h). `StepForcing` is what a step needs besides the
/// configurations: the control u_k held over the step and the time t_k at its start. Unforced systems
/// get the empty `NoForcing`, and the functions below reduce at compile time to what they computed
/// before forces existed.

#include <concepts>

#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/del_derivatives.hpp"
#include "mechint/discrete/discrete_system.hpp"

namespace mechint {

/// A discrete system with discrete forces (a `DiscreteSystem` of a forced model).
template <class S>
concept ForcedDiscreteSystem =
    DiscreteMechanicalSystem<S> &&
    requires(const S& s, const VecD<S::kDim>& q, const VecD<S::kNumControls>& u, VecD<S::kDim>& f) {
      { S::kNumControls } -> std::convertible_to<int>;
      s.template discrete_forces<double>(q, q, u, 0.0, 0.1, f, f);
    };

/// The control u_k held over one step and the time t_k at the start of the step.
template <int m>
struct StepForcing {
  VecD<m> u = VecD<m>::Zero();
  double t = 0.0;
};

/// What an unforced step needs besides the configurations: nothing.
struct NoForcing {};

template <class S>
struct ForcingOfTrait {
  using type = NoForcing;
};
template <ForcedDiscreteSystem S>
struct ForcingOfTrait<S> {
  using type = StepForcing<S::kNumControls>;
};
/// `StepForcing` for forced systems, `NoForcing` otherwise.
template <class S>
using ForcingOf = typename ForcingOfTrait<S>::type;

/// f⁻_k and f⁺_k at doubles.
template <ForcedDiscreteSystem S>
void discrete_forces(const S& system, const VecD<S::kDim>& q0, const VecD<S::kDim>& q1,
                     const ForcingOf<S>& forcing, double h, VecD<S::kDim>& f_minus, VecD<S::kDim>& f_plus) {
  system.template discrete_forces<double>(q0, q1, forcing.u, forcing.t, h, f_minus, f_plus);
}

/// f⁻_k and its Jacobian ∂f⁻_k/∂q_{k+1} (n × n), exact, by one evaluation on jets over q_{k+1}: the
/// force's share of the Newton Jacobian of the forced DEL equation.
template <ForcedDiscreteSystem S>
void discrete_force_minus_and_jacobian(const S& system, const VecD<S::kDim>& q0, const VecD<S::kDim>& q1,
                                       const ForcingOf<S>& forcing, double h, VecD<S::kDim>& f_minus,
                                       Mat<S::kDim, S::kDim>& df_minus_dq1) {
  constexpr int n = S::kDim;
  constexpr int m = S::kNumControls;
  Vec<Jet<n>, n> fm, fp;
  system.template discrete_forces<Jet<n>>(lift_constant<Jet<n>, n>(q0), seed_gradient<n>(q1),
                                          lift_constant<Jet<n>, m>(forcing.u), forcing.t, h, fm, fp);
  for (int i = 0; i < n; ++i) {
    f_minus[i] = fm[i].a;
    df_minus_dq1.row(i) = fm[i].v.transpose();
  }
}

/// The forced discrete Legendre transform p_{k+1} = D2 Ld(q_k, q_{k+1}) + f⁺_k (just D2 Ld for an
/// unforced system).
template <DiscreteMechanicalSystem S>
VecD<S::kDim> discrete_momentum(const S& system, const VecD<S::kDim>& q0, const VecD<S::kDim>& q1,
                                const ForcingOf<S>& forcing, double h) {
  if constexpr (ForcedDiscreteSystem<S>) {
    VecD<S::kDim> f_minus, f_plus;
    discrete_forces(system, q0, q1, forcing, h, f_minus, f_plus);
    return discrete_lagrangian_d2(system, q0, q1, h) + f_plus;
  } else {
    (void)forcing;
    return discrete_lagrangian_d2(system, q0, q1, h);
  }
}

}  // namespace mechint
