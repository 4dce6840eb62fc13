#pragma once
/// \file
/// Planar circular restricted three-body problem in the frame rotating with the primaries
/// (001 §5, with DESIGN §2's errata): primaries of mass 1−μ at (−μ, 0) and μ at (1−μ, 0), unit
/// distance and angular velocity,
///
///     L = ½((ẋ − y)² + (ẏ + x)²) + (1−μ)/r1 + μ/r2.
///
/// Its energy is E = ½(ẋ² + ẏ²) − ½(x² + y²) − (1−μ)/r1 − μ/r2, so the Jacobi constant
/// C = x² + y² + 2(1−μ)/r1 + 2μ/r2 − ẋ² − ẏ² equals −2E.

#include <array>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mechint/core/autodiff.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/core/segment_clearance.hpp"

namespace mechint::systems {

struct ThreeBody {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;

  double mu = 0.012150585609624;  ///< Earth–Moon mass ratio by default
  /// A configuration closer than this to a primary is a collision (an error). Point masses by
  /// default; 0.0166 is the Earth's radius in Earth–Moon units.
  double collision_radius = 1e-6;
  /// α of the Sundman time scale (adapt=sundman, DESIGN §10): s(q) = (r1⁻² + r2⁻²)^(−α/2), the
  /// distance to the nearer primary to the power α where one encounter dominates, and smooth (a
  /// minimum of the two distances would have a kink, and the method would lose its order there).
  double time_scale_power = 1.5;

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::sqrt;
    const T a = v[0] - q[1], b = v[1] + q[0];
    const T dx1 = q[0] + mu, dx2 = q[0] - (1.0 - mu);
    const T r1 = sqrt(dx1 * dx1 + q[1] * q[1]), r2 = sqrt(dx2 * dx2 + q[1] * q[1]);
    return 0.5 * (a * a + b * b) + (1.0 - mu) / r1 + mu / r2;
  }

  template <class T>
  T time_scale(const Vec<T, 2>& q) const {
    using std::pow;
    const T dx1 = q[0] + mu, dx2 = q[0] - (1.0 - mu);
    const T inverse_squares = 1.0 / (dx1 * dx1 + q[1] * q[1]) + 1.0 / (dx2 * dx2 + q[1] * q[1]);
    return pow(inverse_squares, -0.5 * time_scale_power);
  }

  /// Distances to the two primaries.
  void distances(const VecD<2>& q, double& r1, double& r2) const {
    r1 = std::hypot(q[0] + mu, q[1]);
    r2 = std::hypot(q[0] - (1.0 - mu), q[1]);
  }

  /// Jacobi constant C(q, q̇).
  double jacobi(const VecD<2>& q, const VecD<2>& v) const {
    double r1, r2;
    distances(q, r1, r2);
    return q.squaredNorm() + 2.0 * (1.0 - mu) / r1 + 2.0 * mu / r2 - v.squaredNorm();
  }

  /// Throws DomainError (a std::domain_error) when q is within `collision_radius` of a primary (where the
  /// potential is singular) or not finite.
  void validate_configuration(const VecD<2>& q, double t) const {
    double r1, r2;
    distances(q, r1, r2);
    if (!q.allFinite())
      throw DomainError("the configuration is not finite at t = " + std::to_string(t));
    if (!(r1 > collision_radius) || !(r2 > collision_radius))
      throw DomainError("collision with a primary at t = " + std::to_string(t) +
                              " (distance " + std::to_string(std::min(r1, r2)) + ")");
  }

  /// Throws DomainError when a step (the segment from q_before to q) passes a primary closer than
  /// `collision_radius` or than a quarter of its own length: both ends of a step can be far from a
  /// primary that the step jumps over, and an encounter closer than the step is long is not resolved
  /// (the force varies by orders of magnitude within the step; RK4 once went through the Earth this
  /// way with exit 0).
  void validate_step(const VecD<2>& q_before, const VecD<2>& q, double t) const {
    const VecD<2> first(-mu, 0.0), second(1.0 - mu, 0.0);
    if (segment_clearly_passes(q_before, q, first, collision_radius, kUnresolvedEncounter) &&
        segment_clearly_passes(q_before, q, second, collision_radius, kUnresolvedEncounter))
      return;
    validate_step_exactly(q_before, q, t);
  }

  /// validate_step's exact test (the closest point's distance itself) for the steps
  /// segment_clearly_passes does not clear; throws DomainError with the distance. Out of line, so
  /// that the common case does not set up the frame of its message.
  [[gnu::noinline]] void validate_step_exactly(const VecD<2>& q_before, const VecD<2>& q, double t) const {
    const double length = (q - q_before).norm();
    const double d = std::min(segment_distance(q_before, q, VecD<2>(-mu, 0.0)),
                              segment_distance(q_before, q, VecD<2>(1.0 - mu, 0.0)));
    if (!(d > collision_radius) || !(d > kUnresolvedEncounter * length))
      throw DomainError("the step ending at t = " + format_number(t) + " passes " + format_number(d) +
                        " from a primary" + (d > collision_radius ? ", closer than a quarter of its length " + format_number(length) +
                                                                      ": an encounter the step does not resolve"
                                                                : " (collision radius " + format_number(collision_radius) + "): a collision") +
                        "; reduce the step size");
  }

  /// A step passing a singular point closer than this fraction of its length does not resolve it.
  static constexpr double kUnresolvedEncounter = 0.25;

  /// Distance from point c to the segment [a, b].
  static double segment_distance(const VecD<2>& a, const VecD<2>& b, const VecD<2>& c) {
    const VecD<2> ab = b - a;
    const double len2 = ab.squaredNorm();
    const double s = len2 > 0.0 ? std::clamp((c - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
    return (a + s * ab - c).norm();
  }
};

/// The equations of motion written out by hand, ẍ − 2ẏ = ∂Ω/∂x, ÿ + 2ẋ = ∂Ω/∂y with
/// Ω = ½(x² + y²) + (1−μ)/r1 + μ/r2, on the state (x, y, ẋ, ẏ) in Boost.Odeint's form. Not used by
/// the integrators (they derive everything from L); it is the independent check of the AD-derived
/// equations in the tests and the hand-coded right-hand side the benchmarks compare with.
struct ThreeBodyEquationsOfMotion {
  using State = std::array<double, 4>;
  double mu = ThreeBody{}.mu;
  void operator()(const State& s, State& d, double /*t*/) const {
    const double x = s[0], y = s[1], vx = s[2], vy = s[3];
    const double r1 = std::hypot(x + mu, y), r2 = std::hypot(x - 1 + mu, y);
    const double c1 = (1 - mu) / (r1 * r1 * r1), c2 = mu / (r2 * r2 * r2);
    d[0] = vx;
    d[1] = vy;
    d[2] = 2 * vy + x - c1 * (x + mu) - c2 * (x - 1 + mu);
    d[3] = -2 * vx + y - c1 * y - c2 * y;
  }
};

}  // namespace mechint::systems
