#pragma once
/// \file
/// Planar double pendulum with an optional wall (004 §IV-A, DESIGN §2).
///
/// q = (θ1, θ2): θ1 the angle of the first rod from the downward vertical, θ2 the angle of the second
/// rod relative to the first. L = ½ q̇ᵀM(q)q̇ − V(q) with
///
///     M = [[m1 L1² + m2 (L1² + L2² + 2 L1 L2 c2),  m2 (L2² + L1 L2 c2)],
///          [m2 (L2² + L1 L2 c2),                   m2 L2²            ]],
///     V = m1 g L1 (1 − c1) + m2 g (L1 (1 − c1) + L2 (1 − c12))
///
/// (004 prints c2 in the first term of V: a typo, DESIGN §2). The wall keeps the horizontal
/// position of the second mass at or right of −wall_offset: φ(q) = L1 s1 + L2 s12 + wall_offset ≥ 0.

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct DoublePendulum {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  static constexpr int kNumUnilateral = 1;

  double m1 = 1.0, m2 = 1.0;
  double l1 = 1.0, l2 = 1.0;
  double gravity = 10.0;
  double wall_offset = 0.25;

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    const T c1 = cos(q[0]), c2 = cos(q[1]), c12 = cos(q[0] + q[1]);
    const T m11 = m1 * l1 * l1 + m2 * (l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * c2);
    const T m12 = m2 * (l2 * l2 + l1 * l2 * c2);
    const double m22 = m2 * l2 * l2;
    const T kinetic = 0.5 * (m11 * v[0] * v[0] + 2.0 * m12 * v[0] * v[1] + m22 * v[1] * v[1]);
    const T potential = m1 * gravity * l1 * (1.0 - c1) + m2 * gravity * (l1 * (1.0 - c1) + l2 * (1.0 - c12));
    return kinetic - potential;
  }

  template <class T>
  Vec<T, 1> unilateral(const Vec<T, 2>& q) const {
    using std::sin;
    return Vec<T, 1>(l1 * sin(q[0]) + l2 * sin(q[0] + q[1]) + wall_offset);
  }

  /// Mass matrix M(q) (004 §IV-A), for tests and closed-form checks.
  Mat<2, 2> mass_matrix(const VecD<2>& q) const {
    const double c2 = std::cos(q[1]);
    Mat<2, 2> m;
    m(0, 0) = m1 * l1 * l1 + m2 * (l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * c2);
    m(0, 1) = m(1, 0) = m2 * (l2 * l2 + l1 * l2 * c2);
    m(1, 1) = m2 * l2 * l2;
    return m;
  }
};

/// The starts of 004 (configuration and canonical momentum).
struct DoublePendulumStart {
  const char* name;
  double th1, th2, p1, p2;
  const char* description;
};

/// 004 Fig. 1 left and right (smooth runs) and Fig. 2 (the run with the wall).
inline constexpr DoublePendulumStart kDoublePendulumStarts[] = {
    {"fig2", 0.5647, 1.1106, 3.7270, 0.2415, "004 Fig. 2: the run with five impacts"},
    {"fig1-left", 0.0, 0.0, 8.0, 3.0, "004 Fig. 1 left: small variation of H"},
    {"fig1-right", 0.2, -1.5, 3.0, -1.8, "004 Fig. 1 right: spikes in H and H~"},
};

}  // namespace mechint::systems
