#pragma once
/// \file
/// Planar Kepler problem, L = ½|q̇|² + μ/|q| (unit mass). Invariant under rotations about the
/// origin: ξ(q) = (−y, x), whose Noether momentum is the angular momentum x ẏ − y ẋ.

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "mechint/core/autodiff.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/core/segment_clearance.hpp"

namespace mechint::systems {

/// Whether T is a first-order jet (core/autodiff.hpp's Jet<N>).
template <class T>
struct IsFirstOrderJet : std::false_type {};
template <int N>
struct IsFirstOrderJet<Jet<N>> : std::true_type {};

struct Kepler {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 1;

  double mu = 1.0;  ///< gravitational parameter G·M
  /// α of the Sundman time scale s(q) = |q|^α (adapt=sundman, DESIGN §10). α = 3/2 makes the physical
  /// step follow the local time scale of the motion, √(r³/μ), the same at every eccentricity.
  double time_scale_power = 1.5;

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    if constexpr (IsFirstOrderJet<T>::value) {
      // L and its gradient by the chain rule in one division (μ/r = (μ/r³)·r², ∂(μ/r) = −(μ/r³) q·∂q),
      // where the jet arithmetic of μ/√(q·q) takes three and adds the kinetic term's zero derivatives
      // after them: the explicit vi-trapezoid step evaluates ∂L/∂q once per step, and these were most
      // of what it cost beyond a hand-written leapfrog (docs/performance.md). Tested against the
      // closed form.
      const double r2 = q[0].a * q[0].a + q[1].a * q[1].a;
      const double mu_r3 = mu / (r2 * std::sqrt(r2));
      T l;
      l.a = 0.5 * (v[0].a * v[0].a + v[1].a * v[1].a) + mu_r3 * r2;
      l.v = v[0].a * v[0].v + v[1].a * v[1].v - mu_r3 * (q[0].a * q[0].v + q[1].a * q[1].v);
      return l;
    } else {
      using std::sqrt;
      return 0.5 * (v[0] * v[0] + v[1] * v[1]) + mu / sqrt(q[0] * q[0] + q[1] * q[1]);
    }
  }

  template <class T>
  T time_scale(const Vec<T, 2>& q) const {
    using std::pow;
    return pow(q[0] * q[0] + q[1] * q[1], 0.5 * time_scale_power);
  }

  VecD<2> symmetry_generator(int, const VecD<2>& q) const { return VecD<2>(-q[1], q[0]); }

  /// The potential is singular at the origin: throws DomainError when a step (the segment from
  /// q_before to q) passes the centre closer than a quarter of its own length, an encounter the step
  /// does not resolve (a radial fall into the centre, or a pericentre passage at too large a step).
  void validate_step(const VecD<2>& q_before, const VecD<2>& q, double t) const {
    if (!segment_clearly_passes(q_before, q, VecD<2>::Zero(), 0.0, 0.25)) validate_step_exactly(q_before, q, t);
  }

  /// validate_step's exact test, for the steps segment_clearly_passes does not clear: the closest
  /// point itself; throws DomainError with its distance. Out of line, so that the common case does
  /// not set up the frame of its message.
  [[gnu::noinline]] static void validate_step_exactly(const VecD<2>& q_before, const VecD<2>& q, double t) {
    const VecD<2> ab = q - q_before;
    const double len2 = ab.squaredNorm();
    const double s = len2 > 0.0 ? std::clamp(-q_before.dot(ab) / len2, 0.0, 1.0) : 0.0;
    const double closest = (q_before + s * ab).norm();
    if (!(closest > 0.25 * std::sqrt(len2)))
      throw DomainError("the step ending at t = " + format_number(t) + " passes " + format_number(closest) +
                        " from the centre, closer than a quarter of its length " + format_number(std::sqrt(len2)) +
                        ": a collision or an encounter the step does not resolve; reduce the step size");
  }

  /// Start at pericentre of the orbit with semi-major axis a and eccentricity e (period 2π√(a³/μ)).
  static void pericentre_start(double mu, double a, double e, VecD<2>& q0, VecD<2>& v0) {
    q0 = VecD<2>(a * (1.0 - e), 0.0);
    v0 = VecD<2>(0.0, std::sqrt(mu * (1.0 + e) / (a * (1.0 - e))));
  }

  /// Exact position at time t on the orbit started by `pericentre_start`, from Kepler's equation
  /// E − e sin E = √(μ/a³) t solved by Newton (until |ΔE| < 1e-16·(1 + |E|), at most 50 updates).
  /// A scalar equation, solved in place: the project's NewtonSolver would be instantiated in every
  /// source that includes this header (about 1.4 s of compile time each).
  static VecD<2> exact_position(double mu, double a, double e, double t) {
    const double mean_anomaly = std::sqrt(mu / (a * a * a)) * t;
    double ecc_anomaly = mean_anomaly + e * std::sin(mean_anomaly);
    for (int k = 0; k < 50; ++k) {
      const double update = (ecc_anomaly - e * std::sin(ecc_anomaly) - mean_anomaly) / (1.0 - e * std::cos(ecc_anomaly));
      if (!std::isfinite(update)) return VecD<2>::Constant(std::numeric_limits<double>::quiet_NaN());
      ecc_anomaly -= update;
      if (std::abs(update) < 1e-16 * (1.0 + std::abs(ecc_anomaly))) break;
    }
    return VecD<2>(a * (std::cos(ecc_anomaly) - e), a * std::sqrt(1.0 - e * e) * std::sin(ecc_anomaly));
  }
};

}  // namespace mechint::systems
