#pragma once
// Constrained models of the energy–momentum and DAE tests written a second way, in angles and
// without constraints, so that an unconstrained method (the kernel rk78 at tight tolerance) gives a
// reference for their Cartesian forms that shares neither the formulation nor the method: the
// Lagrangians here are written from the geometry, independently of the systems' headers. A test
// that uses one instantiates its kernels (kernel/model_adapter.txx) itself.

#include <cmath>
#include <utility>
#include <vector>

#include "kernel/kernel_model.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "mechint/core/linear_algebra.hpp"

namespace mechint::testing {

/// The unit vector at angle θ from the downward vertical and azimuth φ, u = (sθ cφ, sθ sφ, −cθ), and
/// its rate u̇ = u_θ θ̇ + u_φ φ̇, u_θ = (cθ cφ, cθ sφ, sθ), u_φ = (−sθ sφ, sθ cφ, 0).
template <class T>
Vec<T, 3> unit_at(const T& th, const T& ph) {
  using std::cos;
  using std::sin;
  return Vec<T, 3>(sin(th) * cos(ph), sin(th) * sin(ph), -cos(th));
}
template <class T>
Vec<T, 3> unit_rate(const T& th, const T& ph, const T& thd, const T& phd) {
  using std::cos;
  using std::sin;
  return Vec<T, 3>(cos(th) * cos(ph) * thd - sin(th) * sin(ph) * phd, cos(th) * sin(ph) * thd + sin(th) * cos(ph) * phd,
                   sin(th) * thd);
}

/// The angles and their rates of a rod r (any length) moving at ṙ: θ = acos(−z/|r|), φ = atan2(y, x);
/// u_θ and u_φ are orthogonal with |u_θ| = 1, |u_φ| = sin θ, so θ̇ = ṙ·u_θ/|r|, φ̇ = ṙ·u_φ/(|r| sin²θ).
inline void angles_of_rod(const VecD<3>& r, const VecD<3>& rd, double& th, double& ph, double& thd, double& phd) {
  const double l = r.norm();
  th = std::acos(-r[2] / l);
  ph = std::atan2(r[1], r[0]);
  const VecD<3> u_th(std::cos(th) * std::cos(ph), std::cos(th) * std::sin(ph), std::sin(th));
  const VecD<3> u_ph(-std::sin(th) * std::sin(ph), std::sin(th) * std::cos(ph), 0.0);
  thd = rd.dot(u_th) / l;
  phd = rd.dot(u_ph) / (l * std::sin(th) * std::sin(th));
}

/// The spherical pendulum in (θ, φ): L = ½ m l² (θ̇² + sin²θ φ̇²) + m g l cos θ.
struct AnglesPendulum {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  double m, l, g;
  template <class T>
  T lagrangian(const Vec<T, 2>& a, const Vec<T, 2>& ad) const {
    using std::cos;
    using std::sin;
    const T s = sin(a[0]);
    return 0.5 * m * l * l * (ad[0] * ad[0] + s * s * ad[1] * ad[1]) + m * g * l * cos(a[0]);
  }
};

/// The double spherical pendulum in the absolute angles of its two rods, a = (θ1, φ1, θ2, φ2):
/// x1 = l1 u(θ1, φ1), x2 = x1 + l2 u(θ2, φ2), L = ½ m1 |ẋ1|² + ½ m2 |ẋ2|² − g (m1 z1 + m2 z2).
struct AnglesDoubleSphericalPendulum {
  static constexpr int kDim = 4;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  double m1, m2, l1, l2, g;
  template <class T>
  T lagrangian(const Vec<T, 4>& a, const Vec<T, 4>& ad) const {
    const Vec<T, 3> u1 = unit_at<T>(a[0], a[1]), u2 = unit_at<T>(a[2], a[3]);
    const Vec<T, 3> w1 = unit_rate<T>(a[0], a[1], ad[0], ad[1]), w2 = unit_rate<T>(a[2], a[3], ad[2], ad[3]);
    T kinetic = T(0.0);
    for (int i = 0; i < 3; ++i) {
      const T v1 = l1 * w1[i], v2 = v1 + l2 * w2[i];
      kinetic += 0.5 * m1 * v1 * v1 + 0.5 * m2 * v2 * v2;
    }
    const T z1 = l1 * u1[2], z2 = z1 + l2 * u2[2];
    return kinetic - g * (m1 * z1 + m2 * z2);
  }

  /// Cartesian (q, q̇) = (x1, x2, ẋ1, ẋ2) of an angle state.
  void embed(const VecD<4>& a, const VecD<4>& ad, VecD<6>& q, VecD<6>& v) const {
    q << l1 * unit_at<double>(a[0], a[1]), l1 * unit_at<double>(a[0], a[1]) + l2 * unit_at<double>(a[2], a[3]);
    const VecD<3> v1 = l1 * unit_rate<double>(a[0], a[1], ad[0], ad[1]);
    v << v1, v1 + l2 * unit_rate<double>(a[2], a[3], ad[2], ad[3]);
  }
  /// The angle state of a Cartesian one on the constraints.
  static void angles_of(const VecD<6>& q, const VecD<6>& v, VecD<4>& a, VecD<4>& ad) {
    angles_of_rod(q.head<3>(), v.head<3>(), a[0], a[1], ad[0], ad[1]);
    angles_of_rod(q.tail<3>() - q.head<3>(), v.tail<3>() - v.head<3>(), a[2], a[3], ad[2], ad[3]);
  }
};

/// The angle states at `times` (increasing, from t = 0) by the kernel rk78 at rtol = atol = 1e-13 on
/// the Euler–Lagrange equations of an unconstrained model's kernels, started at (a0, ȧ0).
inline std::vector<std::pair<kernel::Vector, kernel::Vector>> rk78_reference(const kernel::KernelModel& angles,
                                                                             const kernel::Vector& a0,
                                                                             const kernel::Vector& ad0,
                                                                             const std::vector<double>& times) {
  kernel::KernelRk78 rk(kernel::KernelEulerLagrangeOde(angles, nullptr), 1e-3, RungeKuttaTolerances{1e-13, 1e-13});
  rk.start_from_velocity(a0, ad0);
  std::vector<std::pair<kernel::Vector, kernel::Vector>> out;
  for (double t : times) {
    while (rk.time() < t) rk.step_toward(t);
    out.emplace_back(rk.q(), rk.velocity());
  }
  return out;
}

}  // namespace mechint::testing
