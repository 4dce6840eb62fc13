#pragma once
/// \file
/// Point mass on a line in a linear potential above a floor (004 §III-C): L = ½ q̇² − q, φ(q) = q ≥ 0.
/// The example with closed forms for the impact laws (004 eq. 27 and §III-C).

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct PointMassWall {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  static constexpr int kNumUnilateral = 1;

  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    return 0.5 * v[0] * v[0] - q[0];
  }

  template <class T>
  Vec<T, 1> unilateral(const Vec<T, 1>& q) const {
    return q;
  }
};

}  // namespace mechint::systems
