#include "kernel/galerkin_tableau.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace mechint::kernel {
namespace {

using Real = long double;  // the coefficients are computed once, to a few ulps of double

/// P_n(x) and P_n'(x) by the three-term recurrence.
void legendre(int n, Real x, Real& p, Real& dp) {
  Real p0 = 1, p1 = x;
  if (n == 0) {
    p = 1, dp = 0;
    return;
  }
  for (int k = 2; k <= n; ++k) {
    const Real pk = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1, p1 = pk;
  }
  p = p1;
  dp = n * (x * p1 - p0) / (x * x - 1);
}

/// The roots of P_s on (−1, 1), ascending (Newton from Chebyshev guesses).
std::vector<Real> legendre_roots(int s) {
  std::vector<Real> x(s);
  for (int i = 0; i < s; ++i) {
    Real r = -std::cos(std::numbers::pi_v<Real> * (i + 0.75L) / (s + 0.5L));
    for (int it = 0; it < 100; ++it) {
      Real p, dp;
      legendre(s, r, p, dp);
      const Real dr = p / dp;
      r -= dr;
      if (std::fabs(dr) < 1e-19L) break;
    }
    x[i] = r;
  }
  return x;
}

/// The interior Lobatto nodes: the roots of P'_{s−1} on (−1, 1), ascending. P'_{n} = 0 is solved
/// by Newton on P'_n with P''_n = (2x P'_n − n(n+1) P_n) / (1 − x²).
std::vector<Real> lobatto_interior(int s) {
  const int n = s - 1;
  std::vector<Real> x(s - 2);
  for (int i = 0; i < s - 2; ++i) {
    Real r = -std::cos(std::numbers::pi_v<Real> * (i + 1) / n);
    for (int it = 0; it < 100; ++it) {
      Real p, dp;
      legendre(n, r, p, dp);
      const Real ddp = (2 * r * dp - n * (n + 1) * p) / (1 - r * r);
      const Real dr = dp / ddp;
      r -= dr;
      if (std::fabs(dr) < 1e-19L) break;
    }
    x[i] = r;
  }
  return x;
}

/// ℓ_j(τ) over the nodes c.
Real lagrange_basis(const std::vector<Real>& c, int j, Real tau) {
  Real l = 1;
  for (std::size_t m = 0; m < c.size(); ++m)
    if (static_cast<int>(m) != j) l *= (tau - c[m]) / (c[j] - c[m]);
  return l;
}

/// Fills a (∫_0^{c_i} ℓ_j), ā, the predictor and the end weights from nodes and weights on [0, 1].
GalerkinTableau complete(Quadrature quadrature, int order, const std::vector<Real>& c, const std::vector<Real>& b) {
  const int s = static_cast<int>(c.size());
  GalerkinTableau t;
  t.quadrature = quadrature;
  t.stages = s;
  t.order = order;
  t.a.resize(s, s), t.a_bar.resize(s, s), t.b.resize(s), t.c.resize(s);
  t.extrapolate.resize(s, s), t.end_weights.resize(s);
  // ∫_0^{c_i} ℓ_j exactly: ℓ_j has degree s − 1, an (s+1)-point Gauss rule integrates it exactly.
  const std::vector<Real> x = legendre_roots(s + 1);
  std::vector<Real> w(s + 1);
  for (int m = 0; m <= s; ++m) {
    Real p, dp;
    legendre(s + 1, x[m], p, dp);
    w[m] = 2 / ((1 - x[m] * x[m]) * dp * dp);
  }
  Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> a(s, s);
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j) {
      Real sum = 0;
      for (int m = 0; m <= s; ++m) sum += w[m] / 2 * lagrange_basis(c, j, c[i] * (x[m] + 1) / 2);
      a(i, j) = c[i] * sum;
    }
  for (int i = 0; i < s; ++i) {
    t.b[i] = static_cast<double>(b[i]);
    t.c[i] = static_cast<double>(c[i]);
    t.end_weights[i] = static_cast<double>(lagrange_basis(c, i, 1));
    for (int j = 0; j < s; ++j) {
      t.a(i, j) = static_cast<double>(a(i, j));
      t.a_bar(i, j) = static_cast<double>(b[j] * (1 - a(j, i) / b[i]));  // b_i ā_ij + b_j a_ji = b_i b_j
      t.extrapolate(i, j) = static_cast<double>(lagrange_basis(c, j, 1 + c[i]));
    }
  }
  return t;
}

}  // namespace

GalerkinTableau gauss_tableau(int stages) {
  if (stages < 1) throw std::invalid_argument("a Gauss–Legendre tableau needs at least one stage");
  const std::vector<Real> x = legendre_roots(stages);
  std::vector<Real> c(stages), b(stages);
  for (int i = 0; i < stages; ++i) {
    Real p, dp;
    legendre(stages, x[i], p, dp);
    c[i] = (x[i] + 1) / 2;
    b[i] = 1 / ((1 - x[i] * x[i]) * dp * dp);  // the weight 2/((1−x²)P'²) on [−1, 1], halved
  }
  return complete(Quadrature::kGauss, 2 * stages, c, b);
}

GalerkinTableau lobatto_tableau(int stages) {
  if (stages < 2) throw std::invalid_argument("a Lobatto tableau needs at least two stages");
  const int n = stages - 1;
  std::vector<Real> x{-1};
  for (Real r : lobatto_interior(stages)) x.push_back(r);
  x.push_back(1);
  std::vector<Real> c(stages), b(stages);
  for (int i = 0; i < stages; ++i) {
    Real p, dp;
    legendre(n, x[i], p, dp);
    c[i] = (x[i] + 1) / 2;
    b[i] = 1 / (static_cast<Real>(n) * (n + 1) * p * p);  // 2/(s(s−1)P_{s−1}²) on [−1, 1], halved
  }
  return complete(Quadrature::kLobatto, 2 * stages - 2, c, b);
}

namespace {

/// A symmetric composition from its first half γ_1..γ_k; the middle one is 1 − 2Σ so that the
/// coefficients sum to 1 in double.
Composition symmetric(std::string name, int order, std::vector<double> half) {
  double sum = 0.0;
  for (double g : half) sum += g;
  std::vector<double> gammas = half;
  gammas.push_back(1.0 - 2.0 * sum);
  gammas.insert(gammas.end(), half.rbegin(), half.rend());
  return {std::move(name), order, std::move(gammas)};
}

}  // namespace

const std::vector<std::string>& composition_names() {
  static const std::vector<std::string> names{"none", "yoshida4", "suzuki4", "kahan-li6", "kahan-li8"};
  return names;
}

Composition composition_named(std::string_view name) {
  if (name == "none") return {"none", 2, {1.0}};
  if (name == "yoshida4") {  // the triple jump: γ1 = γ3 = 1/(2 − 2^{1/3})
    return symmetric("yoshida4", 4, {1.0 / (2.0 - std::cbrt(2.0))});
  }
  if (name == "suzuki4") {  // γ1 = γ2 = γ4 = γ5 = 1/(4 − 4^{1/3})
    const double g = 1.0 / (4.0 - std::cbrt(4.0));
    return symmetric("suzuki4", 4, {g, g});
  }
  if (name == "kahan-li6") {  // HLW V.3 (3.11), s = 9
    return symmetric("kahan-li6", 6,
                     {0.39216144400731413927925056, 0.33259913678935943859974864, -0.70624617255763935980996482,
                      0.08221359629355080023149045});
  }
  if (name == "kahan-li8") {  // HLW V.3 (3.12), s = 17
    return symmetric("kahan-li8", 8,
                     {0.13020248308889008087881763, 0.56116298177510838456196441, -0.38947496264484728640807860,
                      0.15884190655515560089621075, -0.39590389413323757733623154, 0.18453964097831570709183254,
                      0.25837438768632204729397911, 0.29501172360931029887096624});
  }
  throw std::invalid_argument("unknown composition '" + std::string(name) +
                              "': use none, yoshida4, suzuki4, kahan-li6 or kahan-li8");
}

}  // namespace mechint::kernel
