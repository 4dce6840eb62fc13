#pragma once
/// \file
/// Cart-pole: a cart of mass M on a horizontal rail, a pendulum (point mass m, massless rod of length
/// l) hinged on it, a horizontal force u on the cart (one control). q = (x, θ), θ from the downward
/// vertical (the pendulum bob at (x + l sin θ, −l cos θ), upright at θ = π):
///
///     L = ½(M + m) ẋ² + m l ẋ θ̇ cos θ + ½ m l² θ̇² + m g l cos θ,     f = (u, 0).
///
/// L does not depend on x: translation along the rail, ξ = (1, 0), is a symmetry whose momentum
/// p_x changes by the impulse of u alone (forced Noether theorem, docs/forces.md).

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct CartPole {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 1;
  static constexpr int kNumControls = 1;  ///< u: horizontal force on the cart

  double cart_mass = 1.0;
  double pole_mass = 0.3;
  double length = 0.5;
  double gravity = 9.81;

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    const T c = cos(q[1]);
    return 0.5 * (cart_mass + pole_mass) * v[0] * v[0] + pole_mass * length * v[0] * v[1] * c +
           0.5 * pole_mass * length * length * v[1] * v[1] + pole_mass * gravity * length * c;
  }

  template <class T>
  Vec<T, 2> generalized_force(const Vec<T, 2>&, const Vec<T, 2>&, const Vec<T, 1>& u, double) const {
    return Vec<T, 2>(u[0], constant<T>(0.0));
  }

  VecD<2> symmetry_generator(int, const VecD<2>&) const { return VecD<2>(1.0, 0.0); }
};

}  // namespace mechint::systems
