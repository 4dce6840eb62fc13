#include "kernel/chain_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace mechint::kernel {
namespace {

struct Chain {
  int n;
  double mass, length, gravity;
  // Scratch of one evaluation (sized once): absolute rates w, cos/sin of the absolute angles,
  // d_j = m g l (N − j), C ω, S ω, the gradient in absolute angles, and the matrices C and S.
  mutable std::vector<double> w, c, s, d, cw, sw, l_phi, cm, sm;
};

/// Sᵀx in place: x_i ← Σ_{j≥i} x_j (S: lower-triangular ones, φ = Sθ).
void suffix_sums(double* x, int n, int stride) {
  for (int i = n - 2; i >= 0; --i) x[i * stride] += x[(i + 1) * stride];
}

/// SᵀAS in place for a row-major n x n matrix: suffix sums along both directions.
void congruence(double* a, int n) {
  for (int i = n - 2; i >= 0; --i)
    for (int k = 0; k < n; ++k) a[i * n + k] += a[(i + 1) * n + k];
  for (int i = 0; i < n; ++i) suffix_sums(a + i * n, n, 1);
}

/// L = ½ Σ_jk c_jk cos(φ_j − φ_k) ω_j ω_k + Σ_j d_j cos φ_j with c_jk = m l² (N − max(j, k)) (0-based),
/// φ = Sθ, ω = Sθ̇; the derivatives as PendulumChain::lagrangian_derivatives (same formulas):
///   L_ω = C ω,  L_φ_j = −ω_j (S ω)_j − d_j sin φ_j,  L_ωω = C,
///   L_φω: (j,k≠j) −S_jk ω_j, (j,j) −(S ω)_j;  L_φφ: (j,k≠j) C_jk ω_j ω_k, (j,j) −ω_j((Cω)_j − C_jj ω_j) − d_j cos φ_j;
/// and back to relative angles by Sᵀ(·) and Sᵀ(·)S.
int chain_lagrangian(const void* context, const double* theta, const double* theta_dot, double* value, double* l_q,
                     double* l_v, double* l_qq, double* l_qv, double* l_vv) {
  const Chain& ch = *static_cast<const Chain*>(context);
  const int n = ch.n;
  double phi = 0.0, rate = 0.0;
  for (int j = 0; j < n; ++j) {
    phi += theta[j];
    rate += theta_dot[j];
    ch.w[j] = rate;
    ch.c[j] = std::cos(phi);
    ch.s[j] = std::sin(phi);
  }
  if (value) {
    // O(N) by running sums of the velocity and height of each mass (PendulumChain::lagrangian).
    double vx = 0.0, vy = 0.0, y = 0.0, kinetic = 0.0, height = 0.0;
    for (int j = 0; j < n; ++j) {
      vx += ch.length * ch.c[j] * ch.w[j];
      vy += ch.length * ch.s[j] * ch.w[j];
      y -= ch.length * ch.c[j];
      kinetic += vx * vx + vy * vy;
      height += y;
    }
    *value = 0.5 * ch.mass * kinetic - ch.mass * ch.gravity * height;
  }
  if (!(l_q || l_v || l_qq || l_qv || l_vv)) return MECHINT_KERNEL_OK;
  const double ml2 = ch.mass * ch.length * ch.length;
  double* cm = ch.cm.data();
  double* sm = ch.sm.data();
  for (int j = 0; j < n; ++j) {
    double cw = 0.0, sw = 0.0;
    for (int k = 0; k < n; ++k) {
      const double weight = ml2 * (n - std::max(j, k));
      const double cjk = weight * (ch.c[j] * ch.c[k] + ch.s[j] * ch.s[k]);
      const double sjk = weight * (ch.s[j] * ch.c[k] - ch.c[j] * ch.s[k]);
      cm[j * n + k] = cjk;
      sm[j * n + k] = sjk;
      cw += cjk * ch.w[k];
      sw += sjk * ch.w[k];
    }
    ch.cw[j] = cw;
    ch.sw[j] = sw;
    ch.l_phi[j] = -ch.w[j] * sw - ch.d[j] * ch.s[j];
  }
  if (l_q) {
    std::copy(ch.l_phi.begin(), ch.l_phi.end(), l_q);
    suffix_sums(l_q, n, 1);
  }
  if (l_v) {
    std::copy(ch.cw.begin(), ch.cw.end(), l_v);
    suffix_sums(l_v, n, 1);
  }
  if (l_qq) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) l_qq[j * n + k] = cm[j * n + k] * ch.w[j] * ch.w[k];
      l_qq[j * n + j] = -ch.w[j] * (ch.cw[j] - cm[j * n + j] * ch.w[j]) - ch.d[j] * ch.c[j];
    }
    congruence(l_qq, n);
  }
  if (l_qv) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) l_qv[j * n + k] = -sm[j * n + k] * ch.w[j];
      l_qv[j * n + j] = -ch.sw[j];
    }
    congruence(l_qv, n);
  }
  if (l_vv) {
    std::copy(ch.cm.begin(), ch.cm.end(), l_vv);
    congruence(l_vv, n);
  }
  return MECHINT_KERNEL_OK;
}

}  // namespace

KernelModel pendulum_chain_model(int links, double mass, double length, double gravity) {
  if (links < 1) throw std::invalid_argument("a pendulum chain needs at least one link");
  const auto n = static_cast<std::size_t>(links);
  auto chain = std::make_shared<Chain>(Chain{links, mass, length, gravity, std::vector<double>(n), std::vector<double>(n),
                                             std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
                                             std::vector<double>(n), std::vector<double>(n), std::vector<double>(n * n),
                                             std::vector<double>(n * n)});
  for (int j = 0; j < links; ++j) chain->d[static_cast<std::size_t>(j)] = mass * gravity * length * (links - j);
  mechint_model_kernels k{};
  k.abi_version = MECHINT_KERNEL_ABI_VERSION;
  k.struct_size = sizeof(mechint_model_kernels);
  k.dim = links;
  k.context = chain.get();
  k.lagrangian = &chain_lagrangian;
  return KernelModel(k, chain);
}

}  // namespace mechint::kernel
