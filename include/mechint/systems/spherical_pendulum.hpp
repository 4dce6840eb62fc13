#pragma once
/// \file
/// Spherical pendulum: a point mass m on a massless rod of length l, gravity g along −z.
///
/// Cartesian formulation: q = (x, y, z) ∈ R³, L = ½ m |q̇|² − m g z, constraint g(q) = |q|² − l².
/// Chart: ψ(θ, φ) = l (sin θ cos φ, sin θ sin φ, −cos θ), θ measured from the downward vertical
/// (singular at θ = 0, π). Rotation about z, ξ(q) = (−y, x, 0), gives the conserved momentum J_z.

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct SphericalPendulum {
  static constexpr int kDim = 3;
  static constexpr int kNumConstraints = 1;
  static constexpr int kNumSymmetries = 1;

  double mass = 1.0;
  double length = 1.0;
  double gravity = 9.81;

  template <class T>
  T lagrangian(const Vec<T, 3>& q, const Vec<T, 3>& v) const {
    return 0.5 * mass * squared_norm(v) - mass * gravity * q[2];
  }

  template <class T>
  Vec<T, 1> constraints(const Vec<T, 3>& q) const {
    return Vec<T, 1>(squared_norm(q) - length * length);
  }

  VecD<3> symmetry_generator(int, const VecD<3>& q) const { return VecD<3>(-q[1], q[0], 0.0); }
};

/// Spherical angles (θ, φ) on the sphere of radius `length`.
struct SphericalAnglesChart {
  static constexpr int kChartDim = 2;
  static constexpr int kAmbientDim = 3;

  double length = 1.0;

  template <class T>
  Vec<T, 3> embed(const Vec<T, 2>& a) const {
    using std::cos;
    using std::sin;
    const T st = sin(a[0]);
    return Vec<T, 3>(length * st * cos(a[1]), length * st * sin(a[1]), -length * cos(a[0]));
  }

  template <class T>
  Vec<T, 3> embed_velocity(const Vec<T, 2>& a, const Vec<T, 2>& ad) const {
    using std::cos;
    using std::sin;
    const T st = sin(a[0]), ct = cos(a[0]), sp = sin(a[1]), cp = cos(a[1]);
    return Vec<T, 3>(length * (ct * cp * ad[0] - st * sp * ad[1]),
                     length * (ct * sp * ad[0] + st * cp * ad[1]), length * st * ad[0]);
  }

  /// Shifts φ of two consecutive points by the same multiple of 2π so that φ stays in [−π, π].
  /// The motion is unchanged (ψ is 2π-periodic in φ), but the discrete momentum stays exact to
  /// round-off: with φ growing without bound, sin and cos of large arguments lose digits and J_z
  /// random-walks (measured: 2e-9 relative after 1e5 steps without wrapping).
  void wrap_periodic(VecD<2>& a_prev, VecD<2>& a) const {
    const double turns = std::round(a[1] / (2.0 * M_PI));
    a_prev[1] -= 2.0 * M_PI * turns;
    a[1] -= 2.0 * M_PI * turns;
  }

  VecD<2> coordinates_of(const VecD<3>& x) const {
    return VecD<2>(std::atan2(std::hypot(x[0], x[1]), -x[2]), std::atan2(x[1], x[0]));
  }
};

}  // namespace mechint::systems
