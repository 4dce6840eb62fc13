#pragma once
/// \file
/// Optional hand-written derivatives of a model's Lagrangian.
///
/// By default every derivative comes from automatic differentiation of `lagrangian<T>`. A model may
/// also provide
///
///   void lagrangian_derivatives(const VecD<n>& q, const VecD<n>& v, LagrangianDerivatives<n>& d) const;
///
/// filling the gradient and Hessian of L in (q, v), when its structure allows a cheaper evaluation
/// than nested AD (e.g. O(n²) instead of O(n³) for a chain). The discrete Lagrangians then build
/// D1 Ld, D2 Ld and D12 Ld from these (discrete_lagrangians.hpp), and tests compare them with AD.

#include "mechint/core/linear_algebra.hpp"

namespace mechint {

/// Gradient and Hessian of L(q, v).
template <int n>
struct LagrangianDerivatives {
  VecD<n> q;     ///< ∂L/∂q
  VecD<n> v;     ///< ∂L/∂v
  Mat<n, n> qq;  ///< ∂²L/∂q∂q
  Mat<n, n> qv;  ///< (qv)_{ij} = ∂²L/∂q_i∂v_j
  Mat<n, n> vv;  ///< ∂²L/∂v∂v
};

template <class M>
concept HasLagrangianDerivatives =
    requires(const M& m, const VecD<M::kDim>& q, LagrangianDerivatives<M::kDim>& d) {
      m.lagrangian_derivatives(q, q, d);
    };

}  // namespace mechint
