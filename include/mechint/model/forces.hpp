#pragma once
/// \file
/// Forces on a model: the optional capability of a Lagrangian model to declare non-conservative
/// generalized forces, control inputs and a Rayleigh dissipation function (docs/forces.md).
///
/// A model declares forces with either or both of
///
///   static constexpr int kNumControls;   // number m of control inputs u (may be 0)
///   template <class T> Vec<T, n> generalized_force(const Vec<T, n>& q, const Vec<T, n>& qdot,
///                                                  const Vec<T, m>& u, double t) const;
///
///   template <class T> T rayleigh_dissipation(const Vec<T, n>& q, const Vec<T, n>& qdot) const;
///
/// The force acting on the motion is the sum f = generalized_force − ∂R/∂q̇. The dissipative part is
/// obtained from R by one forward-mode AD pass over q̇ on top of whatever scalar the caller uses, so
/// R is written once like L. u is templated on the scalar too: optimal control (DESIGN §7)
/// differentiates the forced equations with respect to the controls.
///
/// The scalars `T` used on forces are double and ceres::Jet (nested to any depth); the Rayleigh
/// convenience differentiates with a ceres::Jet over `T`. A model without any of these members is
/// unforced and every integrator takes exactly the code path it took before forces existed.

#include <concepts>

#include "mechint/core/autodiff.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

/// The model declares a number of control inputs.
template <class M>
concept HasControlInputs = requires {
  { M::kNumControls } -> std::convertible_to<int>;
};

/// Number of control inputs of a model: its `kNumControls`, or 0 when it declares none.
template <class M>
inline constexpr int kModelNumControls = [] {
  if constexpr (HasControlInputs<M>)
    return static_cast<int>(M::kNumControls);
  else
    return 0;
}();

/// The model declares generalized forces f(q, q̇, u, t).
template <class M>
concept HasGeneralizedForces =
    LagrangianModel<M> && HasControlInputs<M> &&
    requires(const M& m, const VecD<M::kDim>& q, const VecD<kModelNumControls<M>>& u, double t) {
      { m.template generalized_force<double>(q, q, u, t) } -> std::convertible_to<VecD<M::kDim>>;
    };

/// The model declares a Rayleigh dissipation function R(q, q̇), whose force is −∂R/∂q̇.
template <class M>
concept HasRayleighDissipation = LagrangianModel<M> && requires(const M& m, const VecD<M::kDim>& q) {
  { m.template rayleigh_dissipation<double>(q, q) } -> std::convertible_to<double>;
};

/// A model on which non-conservative forces act.
template <class M>
concept ForcedModel = HasGeneralizedForces<M> || HasRayleighDissipation<M>;

/// −∂R/∂q̇ (q, q̇): R evaluated once on jets over q̇ whose value type is `T` itself.
template <HasRayleighDissipation M, class T>
Vec<T, M::kDim> rayleigh_force(const M& model, const Vec<T, M::kDim>& q, const Vec<T, M::kDim>& qdot) {
  constexpr int n = M::kDim;
  using J = ceres::Jet<T, n>;
  Vec<J, n> qj, vj;
  for (int i = 0; i < n; ++i) {
    qj[i] = J(q[i]);
    // Not Jet(value, i): its unit is T(1.0), which a jet of jets cannot be built from (the AD
    // kernels of optimal control evaluate the forces on jets two deep).
    vj[i] = J(qdot[i]);
    vj[i].v[i] = constant<T>(1.0);
  }
  const J r = model.template rayleigh_dissipation<J>(qj, vj);
  Vec<T, n> f;
  for (int i = 0; i < n; ++i) f[i] = -r.v[i];
  return f;
}

/// The total generalized force f(q, q̇, u, t) = generalized_force − ∂R/∂q̇ of a forced model.
template <ForcedModel M, class T>
Vec<T, M::kDim> model_generalized_force(const M& model, const Vec<T, M::kDim>& q,
                                        const Vec<T, M::kDim>& qdot,
                                        const Vec<T, kModelNumControls<M>>& u, double t) {
  if constexpr (HasGeneralizedForces<M> && HasRayleighDissipation<M>) {
    Vec<T, M::kDim> f = model.template generalized_force<T>(q, qdot, u, t);
    const Vec<T, M::kDim> dissipative = rayleigh_force<M, T>(model, q, qdot);
    for (int i = 0; i < M::kDim; ++i) f[i] += dissipative[i];
    return f;
  } else if constexpr (HasGeneralizedForces<M>) {
    return model.template generalized_force<T>(q, qdot, u, t);
  } else {
    (void)u, (void)t;
    return rayleigh_force<M, T>(model, q, qdot);
  }
}

}  // namespace mechint
