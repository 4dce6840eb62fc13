#pragma once
/// \file
/// Double spherical pendulum in Cartesian coordinates (000 §5.2, 003, DESIGN §2).
///
/// q = (q1, q2) = (x1, y1, z1, x2, y2, z2) ∈ R⁶, M = diag(m1 I, m2 I), V = m1 g z1 + m2 g z2,
///
///     L = ½ q̇ᵀ M q̇ − V(q),   g(q) = (q1·q1 − l1², (q2 − q1)·(q2 − q1) − l2²)      (000 eq. 5.11)
///
/// (000 prints l1² in the second row: a typo, DESIGN §2). Rotation about z, ξ(q) = (−y1, x1, 0,
/// −y2, x2, 0), gives J_z. The model also exposes its constant mass matrix and its potential, so that
/// the energy–momentum integrator (src/kernel/energy_momentum_integrator.hpp) can step it.

#include <Eigen/Cholesky>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mechint/core/autodiff.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::systems {

struct DoubleSphericalPendulum {
  static constexpr int kDim = 6;
  static constexpr int kNumConstraints = 2;
  static constexpr int kNumSymmetries = 1;
  /// V is linear: its midpoint gradient is an exact discrete gradient (no Gonzalez correction).
  static constexpr bool kPotentialAtMostQuadratic = true;

  double m1 = 2.0, m2 = 3.5, l1 = 4.0, l2 = 3.0, gravity = 9.81;

  template <class T>
  T potential(const Vec<T, 6>& q) const {
    return m1 * gravity * q[2] + m2 * gravity * q[5];
  }

  template <class T>
  T lagrangian(const Vec<T, 6>& q, const Vec<T, 6>& v) const {
    const T t1 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    const T t2 = v[3] * v[3] + v[4] * v[4] + v[5] * v[5];
    return 0.5 * m1 * t1 + 0.5 * m2 * t2 - potential<T>(q);
  }

  template <class T>
  Vec<T, 2> constraints(const Vec<T, 6>& q) const {
    const T d0 = q[3] - q[0], d1 = q[4] - q[1], d2 = q[5] - q[2];
    return Vec<T, 2>(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - l1 * l1, d0 * d0 + d1 * d1 + d2 * d2 - l2 * l2);
  }

  VecD<6> symmetry_generator(int, const VecD<6>& q) const {
    VecD<6> xi;
    xi << -q[1], q[0], 0.0, -q[4], q[3], 0.0;
    return xi;
  }

  /// Constant mass matrix M = diag(m1 I, m2 I).
  Mat<6, 6> mass_matrix() const {
    VecD<6> d;
    d << m1, m1, m1, m2, m2, m2;
    return d.asDiagonal();
  }
};

/// Horizontal start data of the double spherical pendulum (003 §4).
struct HorizontalStart {
  double x1, y1, x2, y2, vx1, vy1, vx2, vy2;
};

/// The named starts of 003 §4: pattern I (4.1), II (4.2), III (4.3) and the relative equilibrium
/// that pattern I perturbs (4.1). Throws std::invalid_argument naming the known ones.
inline HorizontalStart named_dsp_start(const std::string& name) {
  if (name == "pattern-1") return {2.820, 0.025, 5.085, 0.105, 3.381, 2.506, 2.497, 10.495};
  if (name == "pattern-2") return {0.012, 0.009, 0.505, 0.510, 0.210, -0.040, -0.477, 0.023};
  if (name == "pattern-3") return {4.000, 0.000, 4.000, 0.060, -0.001, 0.001, 0.000, 6.000};
  if (name == "relative-equilibrium") return {3.0788, 0.0, 5.5418, 0.0, 0.0, 4.8593, 0.0, 8.7468};
  throw InvalidInput("unknown start " + quote_for_message(name) +
                     " (known: pattern-1, pattern-2, pattern-3, relative-equilibrium)");
}

/// Full start (q0, q̇0) on the constraint manifold.
struct DspState {
  VecD<6> q, v;
};

/// Completes horizontal data as DESIGN §2 says: z1 = −sqrt(l1² − x1² − y1²) (below the pivot),
/// z2 = z1 − sqrt(l2² − Δx² − Δy²) (the second mass below the first); ż1, ż2 from the velocity
/// constraints where they determine them, then the smallest change of the velocity that satisfies
/// both (pattern III starts with z1 = 0, where ż1 drops out and ẋ1 is corrected instead).
/// Throws std::invalid_argument if the horizontal data cannot lie on the constraint manifold.
inline DspState complete_dsp_start(const DoubleSphericalPendulum& m, const HorizontalStart& s) {
  const double r1 = m.l1 * m.l1 - s.x1 * s.x1 - s.y1 * s.y1;
  const double dx = s.x2 - s.x1, dy = s.y2 - s.y1;
  const double r2 = m.l2 * m.l2 - dx * dx - dy * dy;
  const double tol = 1e-12;
  if (r1 < -tol * m.l1 * m.l1)
    throw InvalidStart("start: x1² + y1² exceeds l1² (mass 1 cannot reach that horizontal position)");
  if (r2 < -tol * m.l2 * m.l2)
    throw InvalidStart("start: the horizontal distance of the masses exceeds l2");
  DspState st;
  const double z1 = -std::sqrt(std::max(r1, 0.0));
  const double z2 = z1 - std::sqrt(std::max(r2, 0.0));
  st.q << s.x1, s.y1, z1, s.x2, s.y2, z2;
  st.v << s.vx1, s.vy1, 0.0, s.vx2, s.vy2, 0.0;
  const double dz = z2 - z1;
  // ż1 from q1·q̇1 = 0, ż2 from (q2 − q1)·(q̇2 − q̇1) = 0, where the z-components do not vanish.
  if (std::abs(z1) > tol * m.l1) st.v[2] = -(s.x1 * s.vx1 + s.y1 * s.vy1) / z1;
  if (std::abs(dz) > tol * m.l2) st.v[5] = st.v[2] - (dx * (s.vx2 - s.vx1) + dy * (s.vy2 - s.vy1)) / dz;
  // Smallest change v ← v − Gᵀ (G Gᵀ)⁻¹ G v for what the z-components could not absorb.
  Mat<2, 6> g;
  g << s.x1, s.y1, z1, 0, 0, 0, -dx, -dy, -dz, dx, dy, dz;
  const VecD<2> res = g * st.v;
  if (res.lpNorm<Eigen::Infinity>() > 0) st.v -= g.transpose() * (g * g.transpose()).ldlt().solve(res);
  return st;
}

}  // namespace mechint::systems
