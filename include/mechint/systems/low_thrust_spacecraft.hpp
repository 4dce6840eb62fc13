#pragma once
/// \file
/// Planar spacecraft of mass m around one central body (gravitational parameter μ) with a low
/// thrust: two controls, the thrust accelerations u = (u_r, u_t) along the radial and the tangential
/// direction, so f = m (u_r r̂ + u_t t̂), r̂ = q/|q|, t̂ = (−y, x)/|q|. L = ½ m|q̇|² + μ m/|q|.
/// Rotations about the body, ξ(q) = (−y, x), are a symmetry of L; the angular momentum changes by the
/// torque of the thrust, ⟨f, ξ⟩ = m |q| u_t (forced Noether theorem, docs/forces.md).

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct LowThrustSpacecraft {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 1;
  static constexpr int kNumControls = 2;  ///< (u_r, u_t): radial and tangential thrust acceleration

  double mass = 1.0;
  double mu = 1.0;

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::sqrt;
    return 0.5 * mass * (v[0] * v[0] + v[1] * v[1]) + mu * mass / sqrt(q[0] * q[0] + q[1] * q[1]);
  }

  template <class T>
  Vec<T, 2> generalized_force(const Vec<T, 2>& q, const Vec<T, 2>&, const Vec<T, 2>& u, double) const {
    using std::sqrt;
    const T r = sqrt(q[0] * q[0] + q[1] * q[1]);
    return Vec<T, 2>(mass * (u[0] * q[0] - u[1] * q[1]) / r, mass * (u[0] * q[1] + u[1] * q[0]) / r);
  }

  VecD<2> symmetry_generator(int, const VecD<2>& q) const { return VecD<2>(-q[1], q[0]); }
};

}  // namespace mechint::systems
