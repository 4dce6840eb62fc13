#pragma once
/// \file
/// Free rigid body in unit quaternions (000 §5.1, DESIGN §2).
///
/// Configuration q = (q_s, q_x, q_y, q_z) ∈ R⁴ with the constraint g(q) = q·q − 1 (S³). The body
/// angular velocity is (0, ω_b) = 2 q̄ ⋆ q̇, and
///
///     L(q, q̇) = ½ (2 q̄ ⋆ q̇)ᵀ diag(0, 𝕀) (2 q̄ ⋆ q̇)                    (000 eq. 5.3)
///
/// L is invariant under left multiplication q ↦ r ⋆ q by a unit quaternion, with generators
/// ξ_i(q) = ½ (0, e_i) ⋆ q; their Noether momenta are the components of the spatial angular
/// momentum π = R(q) 𝕀 ω_b.
///
/// `RigidBodyQuaternionSystem` is 000's discrete Lagrangian (eq. 5.8 times h, DESIGN §2):
/// ω_d = (2/h) vec(q̄0 ⋆ q1), Ld = (h/2) ω_dᵀ 𝕀 ω_d. On S³ × S³ it equals the midpoint rule of L
/// (000 eqs. 5.4–5.7), so both give the same motion (tested); off S³ they differ, which only changes
/// the multiplier.

#include <cmath>

#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint::systems {

/// Quaternion product a ⋆ b: (a_s b_s − a_v·b_v, a_s b_v + b_s a_v + a_v × b_v).
/// Each component is accumulated term by term: with nested AD scalars a long expression would be
/// kept lazy and its inner derivatives re-evaluated many times (measured 10× slower).
template <class T>
Vec<T, 4> quaternion_product(const Vec<T, 4>& a, const Vec<T, 4>& b) {
  Vec<T, 4> c;
  c[0] = a[0] * b[0];
  c[0] -= a[1] * b[1];
  c[0] -= a[2] * b[2];
  c[0] -= a[3] * b[3];
  c[1] = a[0] * b[1];
  c[1] += b[0] * a[1];
  c[1] += a[2] * b[3];
  c[1] -= a[3] * b[2];
  c[2] = a[0] * b[2];
  c[2] += b[0] * a[2];
  c[2] += a[3] * b[1];
  c[2] -= a[1] * b[3];
  c[3] = a[0] * b[3];
  c[3] += b[0] * a[3];
  c[3] += a[1] * b[2];
  c[3] -= a[2] * b[1];
  return c;
}

/// Conjugate ā = (a_s, −a_v).
template <class T>
Vec<T, 4> quaternion_conjugate(const Vec<T, 4>& a) {
  return Vec<T, 4>(a[0], -a[1], -a[2], -a[3]);
}

struct RigidBody {
  static constexpr int kDim = 4;
  static constexpr int kNumConstraints = 1;
  static constexpr int kNumSymmetries = 3;

  /// Principal moments of inertia (000 eq. 5.9: diag(1, 2, 3)).
  VecD<3> inertia = VecD<3>(1.0, 2.0, 3.0);

  template <class T>
  T lagrangian(const Vec<T, 4>& q, const Vec<T, 4>& v) const {
    const Vec<T, 4> w = quaternion_product<T>(quaternion_conjugate<T>(q), v);  // (·, ω_b / 2)
    return 2.0 * (inertia[0] * w[1] * w[1] + inertia[1] * w[2] * w[2] + inertia[2] * w[3] * w[3]);
  }

  template <class T>
  Vec<T, 1> constraints(const Vec<T, 4>& q) const {
    return Vec<T, 1>(squared_norm(q) - 1.0);
  }

  /// ξ_i(q) = ½ (0, e_i) ⋆ q: rotation of the body about the spatial axis i.
  VecD<4> symmetry_generator(int i, const VecD<4>& q) const {
    VecD<4> axis = VecD<4>::Zero();
    axis[i + 1] = 0.5;
    return quaternion_product<double>(axis, q);
  }

  /// q̇ = ½ q ⋆ (0, ω_b) for a body angular velocity ω_b.
  static VecD<4> velocity_from_body_rate(const VecD<4>& q, const VecD<3>& omega) {
    return quaternion_product<double>(q, VecD<4>(0.0, 0.5 * omega[0], 0.5 * omega[1], 0.5 * omega[2]));
  }

  /// ω_b = 2 vec(q̄ ⋆ q̇) (for q on S³ and q̇ tangent to it).
  static VecD<3> body_rate(const VecD<4>& q, const VecD<4>& v) {
    const VecD<4> w = quaternion_product<double>(quaternion_conjugate<double>(q), v);
    return 2.0 * VecD<3>(w[1], w[2], w[3]);
  }

  /// Spatial angular momentum π = R(q) 𝕀 ω_b, from (0, π) = q ⋆ (0, 𝕀 ω_b) ⋆ q̄.
  VecD<3> spatial_momentum(const VecD<4>& q, const VecD<3>& omega) const {
    const VecD<4> body(0.0, inertia[0] * omega[0], inertia[1] * omega[1], inertia[2] * omega[2]);
    const VecD<4> s = quaternion_product<double>(quaternion_product<double>(q, body), quaternion_conjugate<double>(q));
    return VecD<3>(s[1], s[2], s[3]);
  }

  /// Kinetic energy ½ ω_bᵀ 𝕀 ω_b.
  double energy_of_rate(const VecD<3>& omega) const {
    return 0.5 * (inertia[0] * omega[0] * omega[0] + inertia[1] * omega[1] * omega[1] +
                  inertia[2] * omega[2] * omega[2]);
  }
};

/// The discrete rigid body of 000 eq. 5.8 (times h): a `DiscreteMechanicalSystem`.
class RigidBodyQuaternionSystem {
 public:
  static constexpr int kDim = 4;
  static constexpr int kNumConstraints = 1;
  using ContinuousModel = RigidBody;

  explicit RigidBodyQuaternionSystem(RigidBody body = {}) : body_(body) {}

  /// Ld(q0, q1) = (h/2) ω_dᵀ 𝕀 ω_d with ω_d = (2/h) vec(q̄0 ⋆ q1), i.e. (2/h) Σ 𝕀_i vec_i².
  template <class T>
  T discrete_lagrangian(const Vec<T, 4>& q0, const Vec<T, 4>& q1, double h) const {
    const Vec<T, 4> w = quaternion_product<T>(quaternion_conjugate<T>(q0), q1);
    T sum = body_.inertia[0] * (w[1] * w[1]);
    sum += body_.inertia[1] * (w[2] * w[2]);
    sum += body_.inertia[2] * (w[3] * w[3]);
    return (2.0 / h) * sum;
  }

  template <class T>
  Vec<T, 1> constraints(const Vec<T, 4>& q) const {
    return body_.template constraints<T>(q);
  }

  const RigidBody& continuous_model() const { return body_; }

 private:
  RigidBody body_;
};

}  // namespace mechint::systems

namespace mechint {

/// The variational methods' midpoint rule of the rigid body is eq. 5.8 (the midpoint rule of L
/// restricted to S³, in closed form).
template <>
struct DiscreteSystemFor<systems::RigidBody, MidpointRule> {
  using type = systems::RigidBodyQuaternionSystem;
};

}  // namespace mechint
