#pragma once
/// \file
/// Planar Kepler problem, L = ½|q̇|² + μ/|q| (unit mass). Invariant under rotations about the
/// origin: ξ(q) = (−y, x), whose Noether momentum is the angular momentum x ẏ − y ẋ.

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

struct Kepler {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 1;

  double mu = 1.0;  ///< gravitational parameter G·M

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::sqrt;
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) + mu / sqrt(q[0] * q[0] + q[1] * q[1]);
  }

  VecD<2> symmetry_generator(int, const VecD<2>& q) const { return VecD<2>(-q[1], q[0]); }

  /// Start at pericentre of the orbit with semi-major axis a and eccentricity e (period 2π√(a³/μ)).
  static void pericentre_start(double mu, double a, double e, VecD<2>& q0, VecD<2>& v0) {
    q0 = VecD<2>(a * (1.0 - e), 0.0);
    v0 = VecD<2>(0.0, std::sqrt(mu * (1.0 + e) / (a * (1.0 - e))));
  }

  /// Exact position at time t on the orbit started by `pericentre_start`, from Kepler's equation
  /// E − e sin E = √(μ/a³) t solved by Newton.
  static VecD<2> exact_position(double mu, double a, double e, double t) {
    const double mean_anomaly = std::sqrt(mu / (a * a * a)) * t;
    double ecc_anomaly = mean_anomaly + e * std::sin(mean_anomaly);
    for (int it = 0; it < 50; ++it) {
      const double f = ecc_anomaly - e * std::sin(ecc_anomaly) - mean_anomaly;
      const double step = f / (1.0 - e * std::cos(ecc_anomaly));
      ecc_anomaly -= step;
      if (std::abs(step) < 1e-16 * (1.0 + std::abs(ecc_anomaly))) break;
    }
    return VecD<2>(a * (std::cos(ecc_anomaly) - e), a * std::sqrt(1.0 - e * e) * std::sin(ecc_anomaly));
  }
};

}  // namespace mechint::systems
