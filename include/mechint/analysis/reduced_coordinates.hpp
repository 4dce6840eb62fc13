#pragma once
/// \file
/// Reduced coordinates of a two-mass trace (003 §3.3): r1, r2 the horizontal distances of the
/// masses from the z axis and θ the signed angle from the horizontal projection of mass 1 to that of
/// mass 2, unwrapped in time; and the unwrapped azimuths φ1, φ2 of the masses (the cyclic
/// coordinates the S¹ symmetry acts on).

#include <cmath>
#include <vector>

#include "mechint/analysis/rotating_frame.hpp"

namespace mechint::analysis {

/// r1, r2, θ, φ1, φ2 at every sample; θ and the φ's are continuous in time (no 2π jumps).
struct ReducedTrace {
  std::vector<double> t, r1, r2, theta, phi1, phi2;
};

/// Adds the multiple of 2π to `angle` that brings it closest to `previous`.
inline double unwrap_angle(double angle, double previous) {
  return angle - 2.0 * M_PI * std::round((angle - previous) / (2.0 * M_PI));
}

inline ReducedTrace reduced_coordinates(const TwoMassTrace& trace) {
  ReducedTrace r;
  const std::size_t n = trace.size();
  r.t = trace.t;
  r.r1.resize(n);
  r.r2.resize(n);
  r.theta.resize(n);
  r.phi1.resize(n);
  r.phi2.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Eigen::Vector3d& a = trace.q1[i];
    const Eigen::Vector3d& b = trace.q2[i];
    r.r1[i] = std::hypot(a[0], a[1]);
    r.r2[i] = std::hypot(b[0], b[1]);
    const double theta = std::atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]);
    const double p1 = std::atan2(a[1], a[0]), p2 = std::atan2(b[1], b[0]);
    r.theta[i] = i == 0 ? theta : unwrap_angle(theta, r.theta[i - 1]);
    r.phi1[i] = i == 0 ? p1 : unwrap_angle(p1, r.phi1[i - 1]);
    r.phi2[i] = i == 0 ? p2 : unwrap_angle(p2, r.phi2[i - 1]);
  }
  return r;
}

}  // namespace mechint::analysis
