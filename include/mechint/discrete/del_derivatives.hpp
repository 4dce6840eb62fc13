#pragma once
/// \file
/// Derivatives of a discrete Lagrangian by forward-mode AD (those of the constraints:
/// model/constraint_derivatives.hpp).
///
/// One evaluation of Ld on nested forward-mode AD scalars (Hessian2, see core/autodiff.hpp), with
/// q0 seeded in the outer level and q1 in the inner level, yields at once D1 Ld(q0, q1) (the residual of the momentum-form DEL equation) and
/// D12 Ld(q0, q1) (its exact Jacobian with respect to q1, 000 eq. 4.14).

#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/model/constraint_derivatives.hpp"

namespace mechint {

// `inline`: called once per Newton iteration, so GCC should inline them into the step like the
// solve itself (solve/newton.hpp); as plain templates they fell out of the grown step.

/// True when the system computes its Ld derivatives from hand-written derivatives of L.
template <class S>
concept HasHandWrittenDerivatives =
    requires(const S& s, const VecD<S::kDim>& q, VecD<S::kDim>& d, Mat<S::kDim, S::kDim>& m) {
      s.discrete_lagrangian_derivatives(q, q, 0.1, d, d, m);
    };

/// Computes D1 Ld(q0, q1) and the mixed second derivative D12 Ld(q0, q1)_{ij} = ∂²Ld/∂q0_i∂q1_j.
template <DiscreteMechanicalSystem S>
inline void discrete_lagrangian_d1_d12(const S& system, const VecD<S::kDim>& q0, const VecD<S::kDim>& q1,
                                       double h, VecD<S::kDim>& d1, Mat<S::kDim, S::kDim>& d12) {
  constexpr int n = S::kDim;
  if constexpr (HasHandWrittenDerivatives<S>) {
    VecD<n> d2;
    system.discrete_lagrangian_derivatives(q0, q1, h, d1, d2, d12);
    return;
  }
  const Hessian2<n> ld = system.template discrete_lagrangian<Hessian2<n>>(
      hessian_seed_outer<n>(q0), hessian_seed_inner<n>(q1), h);
  for (int i = 0; i < n; ++i) {
    d1[i] = ld.derivatives()[i].value();
    d12.row(i) = ld.derivatives()[i].derivatives().transpose();
  }
}

/// D1 Ld(q0, q1): derivative in the first slot.
template <DiscreteMechanicalSystem S>
inline VecD<S::kDim> discrete_lagrangian_d1(const S& system, const VecD<S::kDim>& q0,
                                            const VecD<S::kDim>& q1, double h) {
  constexpr int n = S::kDim;
  const Jet<n> ld = system.template discrete_lagrangian<Jet<n>>(seed_gradient<n>(q0),
                                                                lift_constant<Jet<n>, n>(q1), h);
  return ld.v;
}

/// D2 Ld(q0, q1): derivative in the second slot, the discrete Legendre transform p1 = D2 Ld.
template <DiscreteMechanicalSystem S>
inline VecD<S::kDim> discrete_lagrangian_d2(const S& system, const VecD<S::kDim>& q0,
                                            const VecD<S::kDim>& q1, double h) {
  constexpr int n = S::kDim;
  if constexpr (HasHandWrittenDerivatives<S>) {
    VecD<n> d1, d2;
    Mat<n, n> d12;
    system.discrete_lagrangian_derivatives(q0, q1, h, d1, d2, d12);
    return d2;
  }
  const Jet<n> ld = system.template discrete_lagrangian<Jet<n>>(lift_constant<Jet<n>, n>(q0),
                                                                seed_gradient<n>(q1), h);
  return ld.v;
}

}  // namespace mechint
