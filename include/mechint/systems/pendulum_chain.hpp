#pragma once
/// \file
/// Planar chain of N point masses on massless links, in relative joint angles.
///
/// θ_1 is the angle of the first link from the downward vertical, θ_i (i > 1) the angle of link i
/// relative to link i−1; the absolute angle of link i is φ_i = θ_1 + … + θ_i. Mass i sits at
/// x_i = Σ_{j≤i} l sin φ_j, y_i = −Σ_{j≤i} l cos φ_j. L = Σ ½ m (ẋ_i² + ẏ_i²) − Σ m g y_i.
/// The Lagrangian is evaluated in O(N) by running sums. This is the model on which DESIGN §5 quotes
/// trep's timings (unit masses and lengths, g = 9.81).

#include <cmath>

#include "mechint/core/autodiff.hpp"

namespace mechint::systems {

template <int N>
struct PendulumChain {
  static_assert(N >= 1);
  static constexpr int kDim = N;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;

  double mass = 1.0;    ///< every point mass
  double length = 1.0;  ///< every link
  double gravity = 9.81;

  template <class T>
  T lagrangian(const Vec<T, N>& theta, const Vec<T, N>& theta_dot) const {
    using std::cos;
    using std::sin;
    T phi = theta[0], phi_dot = theta_dot[0];
    T c = cos(phi), s = sin(phi);
    T vx = length * c * phi_dot, vy = length * s * phi_dot, y = -length * c;
    T kinetic = vx * vx + vy * vy, height = y;
    for (int i = 1; i < N; ++i) {
      phi += theta[i];
      phi_dot += theta_dot[i];
      c = cos(phi);
      s = sin(phi);
      vx += length * c * phi_dot;
      vy += length * s * phi_dot;
      y -= length * c;
      kinetic += vx * vx + vy * vy;
      height += y;
    }
    return 0.5 * mass * kinetic - mass * gravity * height;
  }

  /// The starts of DESIGN §5: π/4 for one link, (π/2, 0) for two, (π/4, 0, …) for more; at rest.
  static VecD<N> peer_start() {
    VecD<N> q = VecD<N>::Zero();
    q[0] = (N == 2) ? M_PI / 2 : M_PI / 4;
    return q;
  }
};

}  // namespace mechint::systems
