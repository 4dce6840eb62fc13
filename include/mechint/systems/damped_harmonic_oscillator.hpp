#pragma once
/// \file
/// Damped harmonic oscillator m q̈ = −k q − c q̇: L = ½ m q̇² − ½ k q², Rayleigh dissipation
/// R = ½ c q̇² (force −∂R/∂q̇ = −c q̇, model/forces.hpp).
///
/// Underdamped (c² < 4mk), q(t) = e^{−γt}(A cos ω_d t + B sin ω_d t), γ = c/(2m),
/// ω_d = √(k/m − γ²). The state (q, q̇) is e^{−γt} times a function of period 2π/ω_d, so over every
/// damped period the energy E = ½ m q̇² + ½ k q² shrinks by exactly e^{−(c/m)·2π/ω_d}: its decay rate
/// is c/m, the test oracle of the forced integrators (tests/test_forced_vi.cpp).

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct DampedHarmonicOscillator {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;

  double mass = 1.0;
  double stiffness = 1.0;
  double damping = 0.0;  ///< c

  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    return 0.5 * mass * v[0] * v[0] - 0.5 * stiffness * q[0] * q[0];
  }

  template <class T>
  T rayleigh_dissipation(const Vec<T, 1>&, const Vec<T, 1>& v) const {
    return 0.5 * damping * v[0] * v[0];
  }

  /// Decay rate c/m of the energy.
  double energy_decay_rate() const { return damping / mass; }
  /// ω_d = √(k/m − (c/2m)²) (underdamped).
  double damped_frequency() const {
    const double gamma = 0.5 * damping / mass;
    return std::sqrt(stiffness / mass - gamma * gamma);
  }
  /// Exact q(t) from q(0) = q0, q̇(0) = v0 (underdamped).
  double exact_position(double q0, double v0, double t) const {
    const double gamma = 0.5 * damping / mass, wd = damped_frequency();
    return std::exp(-gamma * t) * (q0 * std::cos(wd * t) + (v0 + gamma * q0) / wd * std::sin(wd * t));
  }
};

}  // namespace mechint::systems
