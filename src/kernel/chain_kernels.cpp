#include "kernel/chain_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>
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
inline void suffix_sums(double* x, int n, int stride) {
  for (int i = n - 2; i >= 0; --i) x[i * stride] += x[(i + 1) * stride];
}

/// SᵀAS in place for a row-major n x n matrix: suffix sums along both directions.
inline void congruence(double* a, int n) {
  for (int i = n - 2; i >= 0; --i)
    for (int k = 0; k < n; ++k) a[i * n + k] += a[(i + 1) * n + k];
  for (int i = 0; i < n; ++i) suffix_sums(a + i * n, n, 1);
}

/// Scratch of `N` doubles: on the stack for a length known at compile time (the kernels of a short
/// chain then keep nothing in their context), else the context's vector of the runtime length.
template <int N>
struct Scratch {
  std::array<double, N> local;
  double* get(std::vector<double>&) { return local.data(); }
};
template <>
struct Scratch<0> {
  double* get(std::vector<double>& shared) { return shared.data(); }
};

/// L = ½ Σ_jk c_jk cos(φ_j − φ_k) ω_j ω_k + Σ_j d_j cos φ_j with c_jk = m l² (N − max(j, k)) (0-based),
/// φ = Sθ, ω = Sθ̇; the derivatives as PendulumChain::lagrangian_derivatives (same formulas):
///   L_ω = C ω,  L_φ_j = −ω_j (S ω)_j − d_j sin φ_j,  L_ωω = C,
///   L_φω: (j,k≠j) −S_jk ω_j, (j,j) −(S ω)_j;  L_φφ: (j,k≠j) C_jk ω_j ω_k, (j,j) −ω_j((Cω)_j − C_jj ω_j) − d_j cos φ_j;
/// and back to relative angles by Sᵀ(·) and Sᵀ(·)S.
///
/// `N` > 0 is the length as a compile-time constant: the same arithmetic in the same order, with
/// the loops' bounds known, which a short chain's step needs (docs/performance-history.md, "A fast path for
/// short chains"); `N` = 0 takes the length from the context.
template <int N>
int chain_lagrangian(const void* context, const double* theta, const double* theta_dot, double* value, double* l_q,
                     double* l_v, double* l_qq, double* l_qv, double* l_vv) {
  const Chain& ch = *static_cast<const Chain*>(context);
  const int n = N > 0 ? N : ch.n;
  if (n < 1) return MECHINT_KERNEL_OUTSIDE_DOMAIN;  // never (pendulum_chain_model); says n ≥ 1 to the compiler
  Scratch<N> w_s, c_s, s_s, cw_s, sw_s, l_phi_s;
  Scratch<N * N> cm_s, sm_s;
  double* const w = w_s.get(ch.w);
  double* const c = c_s.get(ch.c);
  double* const s = s_s.get(ch.s);
  double* const cw_all = cw_s.get(ch.cw);
  double* const sw_all = sw_s.get(ch.sw);
  double* const l_phi = l_phi_s.get(ch.l_phi);
  double* const cm = cm_s.get(ch.cm);
  double* const sm = sm_s.get(ch.sm);
  const double* const d = ch.d.data();
  double phi = 0.0, rate = 0.0;
  for (int j = 0; j < n; ++j) {
    phi += theta[j];
    rate += theta_dot[j];
    w[j] = rate;
    c[j] = std::cos(phi);
    s[j] = std::sin(phi);
  }
  if (value) {
    // O(N) by running sums of the velocity and height of each mass (PendulumChain::lagrangian).
    double vx = 0.0, vy = 0.0, y = 0.0, kinetic = 0.0, height = 0.0;
    for (int j = 0; j < n; ++j) {
      vx += ch.length * c[j] * w[j];
      vy += ch.length * s[j] * w[j];
      y -= ch.length * c[j];
      kinetic += vx * vx + vy * vy;
      height += y;
    }
    *value = 0.5 * ch.mass * kinetic - ch.mass * ch.gravity * height;
  }
  if (!(l_q || l_v || l_qq || l_qv || l_vv)) return MECHINT_KERNEL_OK;
  const double ml2 = ch.mass * ch.length * ch.length;
  for (int j = 0; j < n; ++j) {
    double cw = 0.0, sw = 0.0;
    for (int k = 0; k < n; ++k) {
      const double weight = ml2 * (n - std::max(j, k));
      const double cjk = weight * (c[j] * c[k] + s[j] * s[k]);
      const double sjk = weight * (s[j] * c[k] - c[j] * s[k]);
      cm[j * n + k] = cjk;
      sm[j * n + k] = sjk;
      cw += cjk * w[k];
      sw += sjk * w[k];
    }
    cw_all[j] = cw;
    sw_all[j] = sw;
    l_phi[j] = -w[j] * sw - d[j] * s[j];
  }
  if (l_q) {
    std::copy(l_phi, l_phi + n, l_q);
    suffix_sums(l_q, n, 1);
  }
  if (l_v) {
    std::copy(cw_all, cw_all + n, l_v);
    suffix_sums(l_v, n, 1);
  }
  if (l_qq) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) l_qq[j * n + k] = cm[j * n + k] * w[j] * w[k];
      l_qq[j * n + j] = -w[j] * (cw_all[j] - cm[j * n + j] * w[j]) - d[j] * c[j];
    }
    congruence(l_qq, n);
  }
  if (l_qv) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) l_qv[j * n + k] = -sm[j * n + k] * w[j];
      l_qv[j * n + j] = -sw_all[j];
    }
    congruence(l_qv, n);
  }
  if (l_vv) {
    std::copy(cm, cm + n * n, l_vv);
    congruence(l_vv, n);
  }
  return MECHINT_KERNEL_OK;
}

/// The kernel of a chain of `links`: a compile-time length up to kLongestFixed, else the runtime one.
constexpr int kLongestFixed = 6;
using LagrangianKernel = decltype(&chain_lagrangian<0>);
template <int... N>
LagrangianKernel kernel_of_length(int links, std::integer_sequence<int, N...>) {
  LagrangianKernel kernel = &chain_lagrangian<0>;
  ((links == N + 1 ? (kernel = &chain_lagrangian<N + 1>) : kernel), ...);
  return kernel;
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
  k.lagrangian = kernel_of_length(links, std::make_integer_sequence<int, kLongestFixed>{});
  return KernelModel(k, chain);
}

}  // namespace mechint::kernel
