#pragma once
/// \file
/// Acrobot: a planar two-link pendulum hinged at a fixed shoulder, with a torque u at the elbow
/// only (one control; the shoulder is passive). The standard model of Spong (1995, "The swing up
/// control problem for the acrobot") and Tedrake's *Underactuated Robotics*: links of mass m1, m2
/// and length l1, l2, centres of mass at lc1, lc2 from their joints, moments of inertia I1, I2
/// about the centres of mass, gravity g. q = (θ1, θ2): θ1 the angle of link 1 from the downward
/// vertical at the shoulder, θ2 the angle of link 2 relative to link 1 at the elbow; hanging at
/// rest is (0, 0), upright (π, 0). With c1 = cos θ1, c2 = cos θ2, c12 = cos(θ1 + θ2), the centres
/// of mass are at lc1 (sin θ1, −c1) and l1 (sin θ1, −c1) + lc2 (sin(θ1 + θ2), −c12), and
///
///     L = ½ q̇ᵀ M(q) q̇ − V(q),      f = (0, u),
///
///     M11 = I1 + I2 + m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 c2),
///     M12 = M21 = I2 + m2 (lc2² + l1 lc2 c2),
///     M22 = I2 + m2 lc2²,
///     V   = −m1 g lc1 c1 − m2 g (l1 c1 + lc2 c12).
///
/// The Euler–Lagrange equations are M q̈ + C(q, q̇) q̇ + G(q) = (0, u) with h = m2 l1 lc2 sin θ2,
///
///     C q̇ = (−h (2 θ̇1 θ̇2 + θ̇2²),  h θ̇1²),
///     G   = (g (m1 lc1 + m2 l1) sin θ1 + m2 g lc2 sin(θ1 + θ2),  m2 g lc2 sin(θ1 + θ2)),
///
/// and the energy E = ½ q̇ᵀ M q̇ + V changes by the power of the elbow torque: dE/dt = u θ̇2.
/// The Lagrangian is written below from the kinematics (the velocities of the centres of mass and
/// the angular velocities θ̇1, θ̇1 + θ̇2 of the links), which expands to the M above. l2 does not
/// enter the dynamics: it only places the tip (`tip`). M is positive definite for every q when
/// m2, l1, I2 > 0 and m1 lc1², I1 ≥ 0. No symmetry: gravity breaks the rotation about the shoulder.

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct Acrobot {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  static constexpr int kNumControls = 1;  ///< u: torque at the elbow (on link 2, reacting on link 1)

  double m1 = 1.0, m2 = 1.0;              ///< link masses
  double l1 = 1.0, l2 = 1.0;              ///< link lengths
  double lc1 = 0.5, lc2 = 0.5;            ///< joint-to-centre-of-mass distances
  double i1 = 1.0 / 12.0, i2 = 1.0 / 12.0;  ///< moments of inertia about the centres of mass (uniform rods)
  double gravity = 9.81;

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    using std::sin;
    const T c1 = cos(q[0]), s1 = sin(q[0]);
    const T q12 = q[0] + q[1];
    const T c12 = cos(q12), s12 = sin(q12);
    const T w2 = v[0] + v[1];  // angular velocity of link 2
    // Velocity of the centre of mass of link 2: l1 θ̇1 (c1, s1) + lc2 (θ̇1 + θ̇2) (c12, s12).
    const T vx2 = l1 * v[0] * c1 + lc2 * w2 * c12;
    const T vy2 = l1 * v[0] * s1 + lc2 * w2 * s12;
    const T kinetic = 0.5 * (m1 * lc1 * lc1 + i1) * v[0] * v[0] + 0.5 * m2 * (vx2 * vx2 + vy2 * vy2) +
                      0.5 * i2 * w2 * w2;
    const T potential = -m1 * gravity * lc1 * c1 - m2 * gravity * (l1 * c1 + lc2 * c12);
    return kinetic - potential;
  }

  template <class T>
  Vec<T, 2> generalized_force(const Vec<T, 2>&, const Vec<T, 2>&, const Vec<T, 1>& u, double) const {
    return Vec<T, 2>(constant<T>(0.0), u[0]);
  }

  /// Position of the tip of link 2 (x right, y up, shoulder at the origin).
  VecD<2> tip(const VecD<2>& q) const {
    return VecD<2>(l1 * std::sin(q[0]) + l2 * std::sin(q[0] + q[1]),
                   -l1 * std::cos(q[0]) - l2 * std::cos(q[0] + q[1]));
  }
};

/// Named starts (angles and angular velocities).
struct AcrobotStart {
  const char* name;
  double th1, th2, dth1, dth2;
  const char* description;
};

inline constexpr AcrobotStart kAcrobotStarts[] = {
    {"swing", 1.0, 0.0, 0.0, 0.0, "released at rest with link 1 at 1 rad, the elbow straight"},
    {"rest", 0.0, 0.0, 0.0, 0.0, "hanging at rest (a torque u1 pumps it up)"},
    {"upright", 3.1, 0.05, 0.0, 0.0, "released at rest just off the upright equilibrium (pi, 0)"},
};

}  // namespace mechint::systems
