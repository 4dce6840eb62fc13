#pragma once
/// \file
/// `SecondOrderJet<N>`: a forward-mode scalar carrying a value, its gradient and its Hessian over N
/// variables, the Hessian stored once (its upper triangle, packed by rows). One evaluation of a
/// function on it gives the whole Hessian, as a jet of jets (`Jet2<N>`, autodiff.hpp) does, at about
/// half the arithmetic: a jet of jets holds (N+1)² numbers and computes the mixed derivatives
/// ∂²f/∂x_i∂x_j and ∂²f/∂x_j∂x_i separately; this holds 1 + N + N(N+1)/2. It is what
/// `lagrangian_second_derivatives` evaluates L on (N = 2n over (q, q̇)): the Hessian blocks of the
/// kernels of a built-in model (kernel/model_adapter.hpp). bench/bench_autodiff.cpp measures both.
///
/// `SecondOrderJet<N, H>` keeps the Hessian over the first H variables only (the gradient over all
/// N): L_q, L_v and L_qq in one evaluation over (q, q̇), without the velocity blocks a separable
/// model's Newton Jacobian does not ask for. Every entry is formed from the same entries of the
/// operands by the same operations whatever H is, so the entries it keeps are the numbers the full
/// jet gives, bit for bit.
///
/// Second-order chain rule, for c = f(a):           c' = f'(a) a',  c'' = f'(a) a'' + f''(a) a' a'ᵀ;
/// for c = f(a, b): c'' = f_a a'' + f_b b'' + f_aa a'a'ᵀ + f_bb b'b'ᵀ + f_ab (a'b'ᵀ + b'a'ᵀ).
/// The functions a model may call are those of every scalar type of the library (autodiff.hpp's file
/// comment): + − × ÷, sin, cos, tan, sqrt, exp, log, pow, atan2, hypot, abs, asin, acos, atan, sinh,
/// cosh, tanh, and comparisons on the value.

#include <Eigen/Core>
#include <cmath>
#include <type_traits>

#include "mechint/core/linear_algebra.hpp"

namespace mechint {

template <int N, int H = N>
struct SecondOrderJet {
  static_assert(1 <= H && H <= N);
  static constexpr int kPacked = H * (H + 1) / 2;
  using Scalar = double;

  double a;
  double g[N];  ///< ∂/∂x_i
  double h[kPacked];  ///< ∂²/∂x_i∂x_j for i ≤ j < H, row by row: (0,0), (0,1), …, (0,H−1), (1,1), …

  SecondOrderJet() : SecondOrderJet(0.0) {}
  SecondOrderJet(double value) : a(value) {  // NOLINT: a constant converts implicitly, as for ceres::Jet
    for (double& x : g) x = 0.0;
    for (double& x : h) x = 0.0;
  }
  /// The variable x_i at `value`: gradient e_i, Hessian 0.
  SecondOrderJet(double value, int i) : SecondOrderJet(value) { g[i] = 1.0; }

  /// Index of (i, j), i ≤ j, in `h`.
  static constexpr int packed_index(int i, int j) { return i * H - i * (i - 1) / 2 + (j - i); }
  double hessian(int i, int j) const { return i <= j ? h[packed_index(i, j)] : h[packed_index(j, i)]; }

  SecondOrderJet& operator+=(const SecondOrderJet& b) { return *this = *this + b; }
  SecondOrderJet& operator-=(const SecondOrderJet& b) { return *this = *this - b; }
  SecondOrderJet& operator*=(const SecondOrderJet& b) { return *this = *this * b; }
  SecondOrderJet& operator/=(const SecondOrderJet& b) { return *this = *this / b; }

  friend SecondOrderJet operator+(const SecondOrderJet& x) { return x; }
  friend SecondOrderJet operator-(const SecondOrderJet& x) { return scaled(x, -1.0); }
  friend SecondOrderJet operator+(const SecondOrderJet& x, const SecondOrderJet& y) {
    SecondOrderJet c(kUninitialized);
    c.a = x.a + y.a;
    for (int i = 0; i < N; ++i) c.g[i] = x.g[i] + y.g[i];
    for (int k = 0; k < kPacked; ++k) c.h[k] = x.h[k] + y.h[k];
    return c;
  }
  friend SecondOrderJet operator-(const SecondOrderJet& x, const SecondOrderJet& y) {
    SecondOrderJet c(kUninitialized);
    c.a = x.a - y.a;
    for (int i = 0; i < N; ++i) c.g[i] = x.g[i] - y.g[i];
    for (int k = 0; k < kPacked; ++k) c.h[k] = x.h[k] - y.h[k];
    return c;
  }
  friend SecondOrderJet operator*(const SecondOrderJet& x, const SecondOrderJet& y) {
    SecondOrderJet c(kUninitialized);
    c.a = x.a * y.a;
    for (int i = 0; i < N; ++i) c.g[i] = x.a * y.g[i] + y.a * x.g[i];
    for (int i = 0, k = 0; i < H; ++i)
      for (int j = i; j < H; ++j, ++k) c.h[k] = x.a * y.h[k] + y.a * x.h[k] + (x.g[i] * y.g[j] + y.g[i] * x.g[j]);
    return c;
  }
  friend SecondOrderJet operator/(const SecondOrderJet& x, const SecondOrderJet& y) {
    // c = x/y from x = c·y: c' = (x' − c y')/y, c'' = (x'' − c y'' − (c'y'ᵀ + y'c'ᵀ))/y.
    const double r = 1.0 / y.a;
    SecondOrderJet c(kUninitialized);
    c.a = x.a * r;
    for (int i = 0; i < N; ++i) c.g[i] = (x.g[i] - c.a * y.g[i]) * r;
    for (int i = 0, k = 0; i < H; ++i)
      for (int j = i; j < H; ++j, ++k) c.h[k] = (x.h[k] - c.a * y.h[k] - (c.g[i] * y.g[j] + y.g[i] * c.g[j])) * r;
    return c;
  }

  // A constant on either side: the Hessian's outer-product terms vanish.
  friend SecondOrderJet operator+(const SecondOrderJet& x, double s) {
    SecondOrderJet c = x;
    c.a += s;
    return c;
  }
  friend SecondOrderJet operator+(double s, const SecondOrderJet& x) { return x + s; }
  friend SecondOrderJet operator-(const SecondOrderJet& x, double s) { return x + (-s); }
  friend SecondOrderJet operator-(double s, const SecondOrderJet& x) { return (-x) + s; }
  friend SecondOrderJet operator*(const SecondOrderJet& x, double s) { return scaled(x, s); }
  friend SecondOrderJet operator*(double s, const SecondOrderJet& x) { return scaled(x, s); }
  friend SecondOrderJet operator/(const SecondOrderJet& x, double s) {
    SecondOrderJet c(kUninitialized);
    c.a = x.a / s;
    for (int i = 0; i < N; ++i) c.g[i] = x.g[i] / s;
    for (int k = 0; k < kPacked; ++k) c.h[k] = x.h[k] / s;
    return c;
  }
  friend SecondOrderJet operator/(double s, const SecondOrderJet& y) {
    const double r = 1.0 / y.a;
    return unary(y, s * r, -s * r * r, 2.0 * s * r * r * r);
  }

  /// f(x) from f, f' and f'' at x.a.
  static SecondOrderJet unary(const SecondOrderJet& x, double f, double df, double ddf) {
    SecondOrderJet c(kUninitialized);
    c.a = f;
    for (int i = 0; i < N; ++i) c.g[i] = df * x.g[i];
    for (int i = 0, k = 0; i < H; ++i)
      for (int j = i; j < H; ++j, ++k) c.h[k] = df * x.h[k] + ddf * x.g[i] * x.g[j];
    return c;
  }
  /// f(x, y) from f and its first and second partial derivatives at (x.a, y.a).
  static SecondOrderJet binary(const SecondOrderJet& x, const SecondOrderJet& y, double f, double fx, double fy,
                               double fxx, double fxy, double fyy) {
    SecondOrderJet c(kUninitialized);
    c.a = f;
    for (int i = 0; i < N; ++i) c.g[i] = fx * x.g[i] + fy * y.g[i];
    for (int i = 0, k = 0; i < H; ++i)
      for (int j = i; j < H; ++j, ++k)
        c.h[k] = fx * x.h[k] + fy * y.h[k] + fxx * x.g[i] * x.g[j] + fyy * y.g[i] * y.g[j] + fxy * (x.g[i] * y.g[j] + y.g[i] * x.g[j]);
    return c;
  }

#define MECHINT_SECOND_ORDER_JET_COMPARISON(OP)                                                           \
  friend bool operator OP(const SecondOrderJet& x, const SecondOrderJet& y) { return x.a OP y.a; }        \
  friend bool operator OP(const SecondOrderJet& x, double s) { return x.a OP s; }                         \
  friend bool operator OP(double s, const SecondOrderJet& y) { return s OP y.a; }
  MECHINT_SECOND_ORDER_JET_COMPARISON(<)
  MECHINT_SECOND_ORDER_JET_COMPARISON(>)
  MECHINT_SECOND_ORDER_JET_COMPARISON(<=)
  MECHINT_SECOND_ORDER_JET_COMPARISON(>=)
  MECHINT_SECOND_ORDER_JET_COMPARISON(==)
  MECHINT_SECOND_ORDER_JET_COMPARISON(!=)
#undef MECHINT_SECOND_ORDER_JET_COMPARISON

  // The elementary functions, found by argument-dependent lookup next to `using std::sin;`.
  friend SecondOrderJet sin(const SecondOrderJet& x) {
    const double s = std::sin(x.a), c = std::cos(x.a);
    return unary(x, s, c, -s);
  }
  friend SecondOrderJet cos(const SecondOrderJet& x) {
    const double s = std::sin(x.a), c = std::cos(x.a);
    return unary(x, c, -s, -c);
  }
  friend SecondOrderJet tan(const SecondOrderJet& x) {
    const double t = std::tan(x.a), d = 1.0 + t * t;
    return unary(x, t, d, 2.0 * t * d);
  }
  friend SecondOrderJet sqrt(const SecondOrderJet& x) {
    const double s = std::sqrt(x.a), d = 0.5 / s;
    return unary(x, s, d, -0.5 * d / x.a);
  }
  friend SecondOrderJet exp(const SecondOrderJet& x) {
    const double e = std::exp(x.a);
    return unary(x, e, e, e);
  }
  friend SecondOrderJet log(const SecondOrderJet& x) {
    const double r = 1.0 / x.a;
    return unary(x, std::log(x.a), r, -r * r);
  }
  friend SecondOrderJet sinh(const SecondOrderJet& x) {
    const double s = std::sinh(x.a), c = std::cosh(x.a);
    return unary(x, s, c, s);
  }
  friend SecondOrderJet cosh(const SecondOrderJet& x) {
    const double s = std::sinh(x.a), c = std::cosh(x.a);
    return unary(x, c, s, c);
  }
  friend SecondOrderJet tanh(const SecondOrderJet& x) {
    const double t = std::tanh(x.a), d = 1.0 - t * t;
    return unary(x, t, d, -2.0 * t * d);
  }
  friend SecondOrderJet asin(const SecondOrderJet& x) {
    const double w = 1.0 / (1.0 - x.a * x.a), d = std::sqrt(w);
    return unary(x, std::asin(x.a), d, x.a * d * w);
  }
  friend SecondOrderJet acos(const SecondOrderJet& x) {
    const double w = 1.0 / (1.0 - x.a * x.a), d = std::sqrt(w);
    return unary(x, std::acos(x.a), -d, -x.a * d * w);
  }
  friend SecondOrderJet atan(const SecondOrderJet& x) {
    const double d = 1.0 / (1.0 + x.a * x.a);
    return unary(x, std::atan(x.a), d, -2.0 * x.a * d * d);
  }
  friend SecondOrderJet abs(const SecondOrderJet& x) { return x.a < 0.0 ? -x : x; }
  friend SecondOrderJet fabs(const SecondOrderJet& x) { return abs(x); }
  /// x^p for a constant p.
  friend SecondOrderJet pow(const SecondOrderJet& x, double p) {
    const double f = std::pow(x.a, p), d = p * std::pow(x.a, p - 1.0);
    return unary(x, f, d, p * (p - 1.0) * std::pow(x.a, p - 2.0));
  }
  /// x^y = exp(y log x), x > 0.
  friend SecondOrderJet pow(const SecondOrderJet& x, const SecondOrderJet& y) { return exp(y * log(x)); }
  friend SecondOrderJet pow(double s, const SecondOrderJet& y) { return exp(y * std::log(s)); }
  friend SecondOrderJet atan2(const SecondOrderJet& y, const SecondOrderJet& x) {
    // ∂/∂y = x/r², ∂/∂x = −y/r²; ∂²/∂y² = −2xy/r⁴ = −∂²/∂x², ∂²/∂x∂y = (y² − x²)/r⁴.
    const double r2 = x.a * x.a + y.a * y.a, r4 = r2 * r2;
    return binary(y, x, std::atan2(y.a, x.a), x.a / r2, -y.a / r2, -2.0 * x.a * y.a / r4,
                  (y.a * y.a - x.a * x.a) / r4, 2.0 * x.a * y.a / r4);
  }
  friend SecondOrderJet hypot(const SecondOrderJet& x, const SecondOrderJet& y) { return sqrt(x * x + y * y); }
  friend bool isfinite(const SecondOrderJet& x) {
    bool finite = std::isfinite(x.a);
    for (double d : x.g) finite = finite && std::isfinite(d);
    for (double d : x.h) finite = finite && std::isfinite(d);
    return finite;
  }

 private:
  enum Uninitialized { kUninitialized };
  explicit SecondOrderJet(Uninitialized) {}  // every member written by the caller

  static SecondOrderJet scaled(const SecondOrderJet& x, double s) {
    SecondOrderJet c(kUninitialized);
    c.a = x.a * s;
    for (int i = 0; i < N; ++i) c.g[i] = x.g[i] * s;
    for (int k = 0; k < kPacked; ++k) c.h[k] = x.h[k] * s;
    return c;
  }
};

/// Value part of a SecondOrderJet.
template <int N, int H>
double scalar_value(const SecondOrderJet<N, H>& x) {
  return x.a;
}

/// f(x) with its gradient and Hessian: one evaluation of f on the variables x_i seeded as
/// SecondOrderJet<N, H>. The one way the library takes a Hessian by AD of a scalar function (L over
/// (q, q̇), a potential, λ·g(q), a time scale). With H < N, the gradient over all N variables and the
/// Hessian over the first H only, in the numbers the full expansion gives for those entries.
template <int N, int H = N, class F>
SecondOrderJet<N, H> second_order_expansion(const F& f, const VecD<N>& x) {
  Vec<SecondOrderJet<N, H>, N> seeded;
  for (int i = 0; i < N; ++i) seeded[i] = SecondOrderJet<N, H>(x[i], i);
  return f(seeded);
}

/// The gradient of an expansion.
template <int N, int H>
VecD<N> gradient_of(const SecondOrderJet<N, H>& e) {
  return Eigen::Map<const VecD<N>>(e.g);
}

/// The Hessian of an expansion, both triangles filled (symmetric exactly).
template <int N, int H>
Mat<H, H> hessian_of(const SecondOrderJet<N, H>& e) {
  Mat<H, H> h;
  for (int i = 0, k = 0; i < H; ++i)
    for (int j = i; j < H; ++j, ++k) h(i, j) = h(j, i) = e.h[k];
  return h;
}

}  // namespace mechint

namespace Eigen {

template <int N, int H>
struct NumTraits<mechint::SecondOrderJet<N, H>> : NumTraits<double> {
  using Real = mechint::SecondOrderJet<N, H>;
  using NonInteger = mechint::SecondOrderJet<N, H>;
  using Nested = mechint::SecondOrderJet<N, H>;
  using Literal = mechint::SecondOrderJet<N, H>;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 1 + N + H * (H + 1) / 2,
    AddCost = 1 + N + H * (H + 1) / 2,
    MulCost = 3 * (1 + N + H * (H + 1) / 2),
  };
  static inline Real epsilon() { return Real(NumTraits<double>::epsilon()); }
  static inline Real dummy_precision() { return Real(NumTraits<double>::dummy_precision()); }
  static inline Real highest() { return Real(NumTraits<double>::highest()); }
  static inline Real lowest() { return Real(NumTraits<double>::lowest()); }
  static inline int digits10() { return NumTraits<double>::digits10(); }
};

template <int N, int H, typename BinaryOp>
struct ScalarBinaryOpTraits<mechint::SecondOrderJet<N, H>, double, BinaryOp> {
  using ReturnType = mechint::SecondOrderJet<N, H>;
};
template <int N, int H, typename BinaryOp>
struct ScalarBinaryOpTraits<double, mechint::SecondOrderJet<N, H>, BinaryOp> {
  using ReturnType = mechint::SecondOrderJet<N, H>;
};

}  // namespace Eigen
