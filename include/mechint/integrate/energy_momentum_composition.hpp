#pragma once
/// \file
/// The sub-steps of a composed energy–momentum step (003 §6, DESIGN §10 `compose=`).
///
/// Without constraints the energy–momentum step Φ_h of 003 §5 is a symmetric one-step map close to
/// the identity, and the symmetric composition Φ_{γ_m h} ∘ … ∘ Φ_{γ_1 h} of order r (HLW V.3.2) has
/// order r. With constraints it is not close to the identity: p_{n+1} = 2M(q_{n+1} − q_n)/h − p_n
/// leaves the component of p off the hidden constraint Dg M⁻¹ p = 0 free, and the step returns it
/// with its sign flipped (the midpoint velocity must stay tangent for g(q_{n+1}) = 0 to hold). On
/// that component Φ_h is −id + O(h), composition theory does not apply, and the compositions stopped
/// at order 4 (kahan-li6 and kahan-li8 measured 4.0 on the double spherical pendulum and the
/// Cartesian double pendulum).
///
/// The pair Ψ_h = Φ_{h/2} ∘ Φ_{h/2} flips that component twice: it is close to the identity, still
/// symmetric (Ψ_h⁻¹ = Φ_{−h/2} ∘ Φ_{−h/2} = Ψ_{−h}), of order 2, and keeps energy and momentum exactly
/// as every sub-step does. Composing Ψ instead of Φ gives the scheme's order with constraints
/// (tests/test_composed_energy_momentum.cpp measures 6 for kahan-li6 on both problems), at twice the
/// sub-steps. A model without constraints keeps the composition of Φ itself.

#include <vector>

namespace mechint {

/// The sizes, as fractions of h, of the sub-steps taken for the composition `gammas` (empty or one
/// coefficient: the plain step, returned as given) on a model with `num_constraints` constraints.
inline std::vector<double> energy_momentum_substeps(const std::vector<double>& gammas, int num_constraints) {
  if (gammas.size() <= 1 || num_constraints == 0) return gammas;
  std::vector<double> pairs;
  pairs.reserve(2 * gammas.size());
  for (const double gamma : gammas) pairs.insert(pairs.end(), {gamma / 2, gamma / 2});
  return pairs;
}

}  // namespace mechint
