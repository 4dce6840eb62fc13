#pragma once
// The harmonic oscillator driven by a force, m q̈ = −k q + u, and its minimum-energy transfer in closed
// form: the independent reference of the DMOC tests (test_kernel_dmoc.cpp).
#include <Eigen/Dense>

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint {

/// m q̈ = −k q + u: a harmonic oscillator driven by a force u (one control).
struct ForcedOscillator {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  static constexpr int kNumControls = 1;
  double mass = 1.0;
  double stiffness = 1.0;
  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    return 0.5 * mass * v[0] * v[0] - 0.5 * stiffness * q[0] * q[0];
  }
  template <class T>
  Vec<T, 1> generalized_force(const Vec<T, 1>&, const Vec<T, 1>&, const Vec<T, 1>& u, double) const {
    return Vec<T, 1>(u[0]);
  }
};

/// J* = dᵀ W(T)⁻¹ d, d = x_T − e^{AT} x_0, W(T) = ∫_0^T e^{Aτ} B Bᵀ e^{Aᵀτ} dτ for x = (q, q̇),
/// A = [0 1; −ω² 0], B = (0, 1/m): the minimum of ∫u² dt (controllability Gramian, closed form).
double oscillator_minimum_energy(const ForcedOscillator& o, double T, const Eigen::Vector2d& x0,
                                 const Eigen::Vector2d& xT) {
  const double w = std::sqrt(o.stiffness / o.mass);
  Eigen::Matrix2d phi;
  phi << std::cos(w * T), std::sin(w * T) / w, -w * std::sin(w * T), std::cos(w * T);
  const double ss = T / 2 - std::sin(2 * w * T) / (4 * w);  // ∫ sin²(ωτ)
  const double cc = T / 2 + std::sin(2 * w * T) / (4 * w);  // ∫ cos²(ωτ)
  const double sc = std::sin(w * T) * std::sin(w * T) / (2 * w);  // ∫ sin(ωτ) cos(ωτ)
  Eigen::Matrix2d gramian;
  gramian << ss / (w * w), sc / w, sc / w, cc;
  gramian /= o.mass * o.mass;
  const Eigen::Vector2d d = xT - phi * x0;
  return d.dot(gramian.inverse() * d);
}

}  // namespace mechint
