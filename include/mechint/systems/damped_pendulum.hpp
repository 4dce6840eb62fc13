#pragma once
/// \file
/// Planar pendulum with viscous damping at the pivot and a torque u at the pivot (one control):
/// θ from the downward vertical, L = ½ m l² θ̇² + m g l cos θ, f = u − c θ̇ (model/forces.hpp).
/// Hanging at rest is θ = 0, upright θ = π.

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct DampedPendulum {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  static constexpr int kNumControls = 1;  ///< u: torque at the pivot

  double mass = 1.0;
  double length = 1.0;
  double gravity = 9.81;
  double damping = 0.0;  ///< c, torque per angular velocity

  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    using std::cos;
    return 0.5 * mass * length * length * v[0] * v[0] + mass * gravity * length * cos(q[0]);
  }

  template <class T>
  Vec<T, 1> generalized_force(const Vec<T, 1>&, const Vec<T, 1>& v, const Vec<T, 1>& u, double) const {
    return Vec<T, 1>(u[0] - damping * v[0]);
  }
};

}  // namespace mechint::systems
