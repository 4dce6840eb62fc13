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
#include "mechint/model/lagrangian_derivatives.hpp"

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

  /// Gradient and Hessian of L in O(N²) (AD of the O(N) Lagrangian costs O(N³)); tests compare
  /// them with AD. In absolute angles φ = Sθ, ω = Sθ̇ (S lower-triangular ones),
  ///   L = ½ Σ_jk c_jk cos(φ_j − φ_k) ω_j ω_k + Σ_j d_j cos φ_j,
  ///   c_jk = m l² (N − max(j, k)),  d_j = m g l (N − j)   (0-based: masses beyond link j);
  /// with C_jk = c_jk cos(φ_j − φ_k), S_jk = c_jk sin(φ_j − φ_k):
  ///   L_ω = C ω,  L_φ_j = −ω_j (S ω)_j − d_j sin φ_j,  L_ωω = C,
  ///   L_φω: (j,k≠j) −S_jk ω_j, (j,j) −(S ω)_j;  L_φφ: (j,k≠j) C_jk ω_j ω_k, (j,j) −ω_j((Cω)_j − C_jj ω_j) − d_j cos φ_j;
  /// and back to relative angles: L_θ = Sᵀ L_φ, L_θθ = Sᵀ L_φφ S, etc. (suffix sums).
  void lagrangian_derivatives(const VecD<N>& theta, const VecD<N>& theta_dot,
                              LagrangianDerivatives<N>& d) const {
    VecD<N> w, c, s, dj;
    double phi = 0.0, rate = 0.0;
    for (int j = 0; j < N; ++j) {
      phi += theta[j];
      rate += theta_dot[j];
      w[j] = rate;
      c[j] = std::cos(phi);
      s[j] = std::sin(phi);
      dj[j] = mass * gravity * length * (N - j);
    }
    const double ml2 = mass * length * length;
    Mat<N, N> cm, sm;
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k) {
        const double weight = ml2 * (N - std::max(j, k));
        cm(j, k) = weight * (c[j] * c[k] + s[j] * s[k]);
        sm(j, k) = weight * (s[j] * c[k] - c[j] * s[k]);
      }
    const VecD<N> cw = cm * w, sw = sm * w;
    VecD<N> l_phi;
    Mat<N, N> l_phiphi, l_phiw;
    for (int j = 0; j < N; ++j) {
      l_phi[j] = -w[j] * sw[j] - dj[j] * s[j];
      for (int k = 0; k < N; ++k) {
        l_phiw(j, k) = -sm(j, k) * w[j];
        l_phiphi(j, k) = cm(j, k) * w[j] * w[k];
      }
      l_phiw(j, j) = -sw[j];
      l_phiphi(j, j) = -w[j] * (cw[j] - cm(j, j) * w[j]) - dj[j] * c[j];
    }
    d.q = suffix_sums(l_phi);
    d.v = suffix_sums(cw);
    d.qq = congruence(l_phiphi);
    d.qv = congruence(l_phiw);
    d.vv = congruence(cm);
  }

  /// The starts of DESIGN §5: π/4 for one link, (π/2, 0) for two, (π/4, 0, …) for more; at rest.
  static VecD<N> peer_start() {
    VecD<N> q = VecD<N>::Zero();
    q[0] = (N == 2) ? M_PI / 2 : M_PI / 4;
    return q;
  }

 private:
  // Sᵀx: (Sᵀx)_i = Σ_{j≥i} x_j.
  static VecD<N> suffix_sums(const VecD<N>& x) {
    VecD<N> out;
    double acc = 0.0;
    for (int i = N - 1; i >= 0; --i) out[i] = acc += x[i];
    return out;
  }
  // SᵀAS: (SᵀAS)_ik = Σ_{j≥i} Σ_{l≥k} A_jl, by suffix sums along both directions.
  static Mat<N, N> congruence(Mat<N, N> a) {
    for (int i = N - 2; i >= 0; --i) a.row(i) += a.row(i + 1);
    for (int k = N - 2; k >= 0; --k) a.col(k) += a.col(k + 1);
    return a;
  }
};

}  // namespace mechint::systems
