#pragma once
/// \file
/// The one check that a start (q0, q̇0) lies on the constraint manifold, to tolerances relative to
/// the model's own scale: the same start is accepted in metres or in kilometres, on a sphere of
/// radius 1e-5 or 1e6. (An absolute |g(q0)| ≤ 1e-9 accepted a start 10 % off a sphere of radius
/// 1e-5, where g is ~1e-10, and refused one exactly on a sphere of radius 1e6, where the round-off
/// of g alone is ~1e-4.)
///
/// - Position: each constraint's first-order distance |g_i(q0)| / |∇g_i(q0)| at most
///   kStartTolerance · |q0|∞ (the precision a configuration of that size has is ~1e-16 of it).
/// - Velocity: each |∇g_i(q0) · q̇0| at most kStartTolerance · |∇g_i(q0)| |q̇0|.

#include <cmath>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/core/linear_algebra.hpp"

namespace mechint {

inline constexpr double kStartTolerance = 1e-9;

/// Throws InvalidStart when q0 is off the manifold g = 0 (values g and Jacobian dg at q0).
template <int k, int n>
void check_start_position(const VecD<k>& g, const Mat<k, n>& dg, const VecD<n>& q0) {
  const double size = q0.template lpNorm<Eigen::Infinity>();
  for (int i = 0; i < static_cast<int>(g.size()); ++i) {  // k may be Eigen::Dynamic
    if (g[i] == 0.0) continue;
    const double gradient = dg.row(i).norm();
    const double distance = std::abs(g[i]) / gradient;  // +inf for a vanishing gradient, NaN for NaN
    if (!(distance <= kStartTolerance * size))
      throw InvalidStart("start is off the constraint manifold: constraint " + std::to_string(i + 1) + " has g(q0) = " +
                         format_number(g[i]) + ", a distance of about " + format_number(distance) +
                         " from it, more than 1e-9 of the configuration's size " + format_number(size));
  }
}

/// Throws InvalidStart when q̇0 is not tangent to the manifold (dg = Dg(q0)).
template <int k, int n>
void check_start_velocity(const Mat<k, n>& dg, const VecD<n>& v0) {
  const double speed = v0.norm();
  for (int i = 0; i < static_cast<int>(dg.rows()); ++i) {  // k may be Eigen::Dynamic
    const double normal = dg.row(i).dot(v0);
    if (!(std::abs(normal) <= kStartTolerance * dg.row(i).norm() * speed))
      throw InvalidStart("initial velocity is not tangent to the constraint manifold: constraint " + std::to_string(i + 1) +
                         " has Dg(q0) q̇0 = " + format_number(normal) + ", more than 1e-9 of |Dg| |q̇0| = " +
                         format_number(dg.row(i).norm() * speed));
  }
}

}  // namespace mechint
