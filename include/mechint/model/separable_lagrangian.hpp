#pragma once
/// \file
/// Whether a Lagrangian is L = ½ vᵀM v + b·v − V(q) with a constant mass matrix M and a constant b
/// (DESIGN §10, "explicit where the model allows"): ∂²L/∂q∂v = 0 and ∂²L/∂v² = M everywhere. There the
/// trapezoid rule in momentum form is the Störmer–Verlet method and needs no Newton
/// (src/kernel/galerkin_integrator.hpp, kernel/separable.hpp).
///
/// A model does not declare this structure, so it is read from its second derivatives: both blocks
/// at the start (q0, v0), at (q0, 0), and at 4n points around the start (each coordinate and each
/// velocity moved by 3 % and 5 % of its size plus one, both ways). The Lagrangian is taken as
/// separable only when L_qv is exactly zero and L_vv exactly its value at the start at every one of
/// them: the derivatives of a separable L (hand-written, generated or by AD) do not depend on q, so
/// they come out without rounding differences, while a mass matrix that varies near the start
/// changes them. A point outside the model's domain counts as "not separable" (Newton stays).

#include <cmath>

namespace mechint {

/// The sampling rule of the file comment. `same_blocks(q, v)` evaluates the model at (q, v) and
/// returns whether it is defined there with L_qv = 0 and L_vv equal to the start's; it is first
/// called at the start itself.
template <class Vector, class SameBlocks>
bool separable_around(const Vector& q0, const Vector& v0, SameBlocks&& same_blocks) {
  if (!same_blocks(q0, v0)) return false;
  Vector q = q0, v = v0;
  v.setZero();
  if (!same_blocks(q0, v)) return false;
  for (int i = 0; i < q0.size(); ++i)
    for (double sign : {-1.0, 1.0}) {
      q = q0, v = v0;
      q[i] += sign * 0.03 * (1.0 + std::abs(q0[i]));
      v[i] += sign * 0.05 * (1.0 + std::abs(v0[i]));
      if (!same_blocks(q, v)) return false;
    }
  return true;
}

}  // namespace mechint
