#pragma once
/// \file
/// The arithmetic and the functions of the model-file grammar (DESIGN §6) for every scalar type a
/// model is evaluated with: `double`, ceres jets (`Jet<N>`, jets of jets) and Eigen's nested
/// AutoDiffScalar (`Hessian2<N>`, core/autodiff.hpp). The evaluation of expression trees
/// (model_file/evaluate.hpp: the checks of a model file, `mechint check`) calls only these, so that
/// one formula serves every derivative those checks take; the generated kernels' C follows the same
/// rules (model_file/kernel_codegen.cpp).
///
/// Why not the types' own overloads: Eigen's AutoDiffScalar has no `atan`, an `atan2` that returns
/// a dynamically sized (allocating) derivative, a `pow` that fails for nested scalars, and no
/// `double − x` or `double / x` when nested. For Eigen's type every function here applies the chain
/// rule once, value and derivative evaluated by the same functions one level down, so nesting works
/// to any depth; ceres jets and doubles use their own (complete) overloads.

#include <cmath>
#include <type_traits>

#include "mechint/core/autodiff.hpp"

namespace mechint::model_file::math {

template <class T>
struct IsEigenAutoDiff : std::false_type {};
template <class D>
struct IsEigenAutoDiff<Eigen::AutoDiffScalar<D>> : std::true_type {};
template <class T>
inline constexpr bool kIsEigenAutoDiff = IsEigenAutoDiff<std::decay_t<T>>::value;

/// f(x) for Eigen's AutoDiffScalar: value f(v), derivatives x' · f'(v), v = x.value().
template <class T, class Slope>
T chain(const T& x, const typename T::Scalar& value, const Slope& slope) {
  using Der = typename T::DerType;
  return T(value, Der(x.derivatives() * slope));
}

/// v·v as a value (Eigen's products are expression templates).
template <class V>
V square(const V& v) { return V(v * v); }
inline double square(double v) { return v * v; }

// ---- declarations: the definitions below call each other by qualified name ----------------------

#define MECHINT_MODEL_DECLARE_UNARY(NAME) \
  inline double NAME(double x);           \
  template <class T>                      \
    requires(!std::is_arithmetic_v<T>)    \
  T NAME(const T& x);
MECHINT_MODEL_DECLARE_UNARY(sin)
MECHINT_MODEL_DECLARE_UNARY(cos)
MECHINT_MODEL_DECLARE_UNARY(tan)
MECHINT_MODEL_DECLARE_UNARY(asin)
MECHINT_MODEL_DECLARE_UNARY(acos)
MECHINT_MODEL_DECLARE_UNARY(atan)
MECHINT_MODEL_DECLARE_UNARY(sinh)
MECHINT_MODEL_DECLARE_UNARY(cosh)
MECHINT_MODEL_DECLARE_UNARY(tanh)
MECHINT_MODEL_DECLARE_UNARY(exp)
MECHINT_MODEL_DECLARE_UNARY(log)
MECHINT_MODEL_DECLARE_UNARY(sqrt)
MECHINT_MODEL_DECLARE_UNARY(abs)
#undef MECHINT_MODEL_DECLARE_UNARY

// ---- mixed double/scalar arithmetic (double op double and T op T use the operators) ------------

inline double add(double a, double b) { return a + b; }
inline double sub(double a, double b) { return a - b; }
inline double mul(double a, double b) { return a * b; }
inline double div(double a, double b) { return a / b; }

template <class T>
  requires(!std::is_arithmetic_v<T>)
T add(const T& x, double d) {
  if constexpr (kIsEigenAutoDiff<T>) return T(math::add(x.value(), d), x.derivatives());
  else return x + d;
}
template <class T>
  requires(!std::is_arithmetic_v<T>)
T add(double d, const T& x) { return add(x, d); }

template <class T>
  requires(!std::is_arithmetic_v<T>)
T sub(const T& x, double d) { return add(x, -d); }
template <class T>
  requires(!std::is_arithmetic_v<T>)
T sub(double d, const T& x) {
  if constexpr (kIsEigenAutoDiff<T>) return T(math::sub(d, x.value()), typename T::DerType(-x.derivatives()));
  else return d - x;
}

template <class T>
  requires(!std::is_arithmetic_v<T>)
T mul(const T& x, double d) {
  if constexpr (kIsEigenAutoDiff<T>) return T(math::mul(x.value(), d), typename T::DerType(x.derivatives() * d));
  else return x * d;
}
template <class T>
  requires(!std::is_arithmetic_v<T>)
T mul(double d, const T& x) { return mul(x, d); }

template <class T>
  requires(!std::is_arithmetic_v<T>)
T div(const T& x, double d) { return mul(x, 1.0 / d); }
template <class T>
  requires(!std::is_arithmetic_v<T>)
T div(double d, const T& x) {
  if constexpr (kIsEigenAutoDiff<T>) {
    using V = typename T::Scalar;
    const V v = x.value();
    const V r = math::div(d, v);  // d/v; its derivative is −(d/v)/v
    return chain(x, r, V(math::div(-1.0, v) * r));
  } else {
    return d / x;
  }
}

/// A double as a constant of the scalar type of `like`.
template <class T>
T lift(double d) { return mechint::constant<T>(d); }

// ---- functions -------------------------------------------------------------------------------------

#define MECHINT_MODEL_UNARY(NAME, SLOPE)                                          \
  inline double NAME(double x) { return std::NAME(x); }                           \
  template <class T>                                                              \
    requires(!std::is_arithmetic_v<T>)                                            \
  T NAME(const T& x) {                                                            \
    if constexpr (kIsEigenAutoDiff<T>) {                                          \
      using V = typename T::Scalar;                                               \
      const V v = x.value();                                                      \
      return chain(x, math::NAME(v), V(SLOPE));                                   \
    } else {                                                                      \
      using std::NAME;                                                            \
      return NAME(x);                                                             \
    }                                                                             \
  }

// Slopes in terms of v (the inner value) and the functions of this namespace.
MECHINT_MODEL_UNARY(sin, math::cos(v))
MECHINT_MODEL_UNARY(cos, math::sub(0.0, math::sin(v)))
MECHINT_MODEL_UNARY(tan, math::add(1.0, math::square(math::tan(v))))
MECHINT_MODEL_UNARY(asin, math::div(1.0, math::sqrt(math::sub(1.0, math::square(v)))))
MECHINT_MODEL_UNARY(acos, math::div(-1.0, math::sqrt(math::sub(1.0, math::square(v)))))
MECHINT_MODEL_UNARY(atan, math::div(1.0, math::add(1.0, math::square(v))))
MECHINT_MODEL_UNARY(sinh, math::cosh(v))
MECHINT_MODEL_UNARY(cosh, math::sinh(v))
MECHINT_MODEL_UNARY(tanh, math::sub(1.0, math::square(math::tanh(v))))
MECHINT_MODEL_UNARY(exp, math::exp(v))
MECHINT_MODEL_UNARY(log, math::div(1.0, v))
MECHINT_MODEL_UNARY(sqrt, math::div(0.5, math::sqrt(v)))
#undef MECHINT_MODEL_UNARY

inline double abs(double x) { return std::abs(x); }
template <class T>
  requires(!std::is_arithmetic_v<T>)
T abs(const T& x) {
  if constexpr (kIsEigenAutoDiff<T>) {
    using V = typename T::Scalar;
    const V v = x.value();
    return mechint::scalar_value(v) < 0.0 ? chain(x, math::abs(v), -1.0) : chain(x, math::abs(v), 1.0);
  } else {
    using std::abs;
    return abs(x);
  }
}

inline double atan2(double y, double x) { return std::atan2(y, x); }
/// atan2 of two scalars of type T (a double argument is lifted first by the caller, `lift`).
template <class T>
  requires(!std::is_arithmetic_v<T>)
T atan2(const T& y, const T& x) {
  if constexpr (kIsEigenAutoDiff<T>) {
    using V = typename T::Scalar;
    const V yv = y.value(), xv = x.value();
    const V r2 = math::square(xv) + math::square(yv);
    using Der = typename T::DerType;
    return T(math::atan2(yv, xv), Der(y.derivatives() * V(xv / r2) - x.derivatives() * V(yv / r2)));
  } else {
    using std::atan2;
    return atan2(y, x);
  }
}

/// min and max pick one argument by value (the derivative is the chosen argument's).
template <class T>
  requires(!std::is_arithmetic_v<T>)
T min(const T& a, const T& b) { return mechint::scalar_value(b) < mechint::scalar_value(a) ? b : a; }
template <class T>
  requires(!std::is_arithmetic_v<T>)
T max(const T& a, const T& b) { return mechint::scalar_value(a) < mechint::scalar_value(b) ? b : a; }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }

/// x^n for an integer n, by repeated squaring (exact for the AD types, no log of x).
template <class T>
T integer_power(const T& x, long n) {
  if (n < 0) return math::div(1.0, integer_power(x, -n));
  if (n == 0) return lift<T>(1.0);
  T result = x;
  T base = x;
  long rest = n - 1;
  while (rest > 0) {
    if (rest & 1) result = result * base;
    rest >>= 1;
    if (rest > 0) base = base * base;
  }
  return result;
}

/// x^N for an integer N known when the model is generated (a literal exponent): multiplications
/// the compiler sees through.
template <long N, class T>
T static_power(const T& x) {
  if constexpr (N < 0) {
    return math::div(1.0, static_power<-N>(x));
  } else if constexpr (N == 0) {
    return lift<T>(1.0);
  } else if constexpr (N == 1) {
    return x;
  } else {
    const T half = static_power<N / 2>(x);
    if constexpr (N % 2 == 0) return T(half * half);
    else return T(T(half * half) * x);
  }
}

/// x^c for a constant c: integers by multiplication, halves as x^k·sqrt(x) (r^(3/2) of gravity),
/// anything else as exp(c·log x).
template <class T>
T constant_power(const T& x, double c) {
  if (c == std::trunc(c) && std::abs(c) <= 64) return integer_power(x, static_cast<long>(c));
  const double twice = 2.0 * c;
  if (twice == std::trunc(twice) && std::abs(twice) <= 129) {
    const long k = static_cast<long>(std::floor(c));  // c = k + 1/2
    const T root = math::sqrt(x);
    return k == 0 ? root : k > 0 ? T(integer_power(x, k) * root) : div(1.0, T(integer_power(x, -k - 1) * root));
  }
  return math::exp(math::mul(c, math::log(x)));
}

/// x^y for a variable exponent: exp(y·log x) (x > 0).
template <class T>
  requires(!std::is_arithmetic_v<T>)
T variable_power(const T& x, const T& y) { return math::exp(T(y * math::log(x))); }
inline double variable_power(double x, double y) { return std::pow(x, y); }

}  // namespace mechint::model_file::math
