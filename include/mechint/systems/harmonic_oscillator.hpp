#pragma once
/// \file
/// One-dimensional harmonic oscillator, L = ½ m q̇² − ½ k q². The closed-form solution
/// q(t) = q0 cos ωt + (v0/ω) sin ωt, ω = √(k/m), is the test oracle of the core.

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct HarmonicOscillator {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;

  double mass = 1.0;
  double stiffness = 1.0;

  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    return 0.5 * mass * v[0] * v[0] - 0.5 * stiffness * q[0] * q[0];
  }
};

}  // namespace mechint::systems
