#pragma once
/// \file
/// Unilateral (inequality) constraints φ(q) ≥ 0 of a model: walls, stops, contacts (004 §II-A).
///
/// A model with impacts provides, in addition to the `LagrangianModel` interface,
///
///   static constexpr int kNumUnilateral;                              // number of walls (≥ 1)
///   template <class T> Vec<T, kNumUnilateral> unilateral(const Vec<T, n>& q) const;   // φ(q)
///
/// The feasible set is C = {q | φ_c(q) ≥ 0 for every c}; its boundary φ_c = 0 holds the contact
/// configurations. The gradients ∇φ_c(q) come from forward-mode AD of `unilateral<T>`, like every
/// other derivative in mechint. The concept is separate from `LagrangianModel`, so models without
/// walls are unaffected.

#include <concepts>

#include "mechint/core/autodiff.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

template <class M>
concept HasUnilateralConstraints =
    LagrangianModel<M> && requires(const M& m, const Vec<double, M::kDim>& q) {
      { M::kNumUnilateral } -> std::convertible_to<int>;
      { m.template unilateral<double>(q) } -> std::convertible_to<Vec<double, M::kNumUnilateral>>;
    } && (M::kNumUnilateral >= 1);

/// φ(q) (one value per unilateral constraint).
template <HasUnilateralConstraints M>
VecD<M::kNumUnilateral> unilateral_values(const M& model, const VecD<M::kDim>& q) {
  return model.template unilateral<double>(q);
}

/// φ(q) and the Jacobian Dφ(q) (row c is ∇φ_c(q)ᵀ), by forward-mode AD.
template <HasUnilateralConstraints M>
void unilateral_values_and_gradients(const M& model, const VecD<M::kDim>& q,
                                     VecD<M::kNumUnilateral>& phi,
                                     Mat<M::kNumUnilateral, M::kDim>& dphi) {
  constexpr int n = M::kDim;
  const Vec<Jet<n>, M::kNumUnilateral> pj = model.template unilateral<Jet<n>>(seed_gradient<n>(q));
  for (int c = 0; c < M::kNumUnilateral; ++c) {
    phi[c] = pj[c].a;
    dphi.row(c) = pj[c].v.transpose();
  }
}

/// ∇φ_c(q) of one constraint.
template <HasUnilateralConstraints M>
VecD<M::kDim> unilateral_gradient(const M& model, int c, const VecD<M::kDim>& q) {
  VecD<M::kNumUnilateral> phi;
  Mat<M::kNumUnilateral, M::kDim> dphi;
  unilateral_values_and_gradients(model, q, phi, dphi);
  return dphi.row(c).transpose();
}

}  // namespace mechint
