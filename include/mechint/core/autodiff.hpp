#pragma once
/// \file
/// Forward-mode automatic differentiation types (ceres::Jet) and the seeding helpers the
/// discrete mechanics layer needs.
///
/// `Jet<N>` carries a value and a gradient of length `N`; `Jet2<N>` is a jet of jets, used to get
/// mixed second derivatives `∂²f/∂x_i∂y_j` of a function of two vector arguments in one pass:
/// seed `x` in the outer level and `y` in the inner level (see `seed_outer`, `seed_inner`).
/// docs/autodiff.md records why ceres::Jet was chosen over Eigen's AutoDiffScalar.

#include <ceres/jet.h>

#include <type_traits>

#include "mechint/core/linear_algebra.hpp"

namespace mechint {

/// A double as a constant of scalar type `T` (double or a jet of any nesting depth).
template <class T>
T constant(double x) {
  if constexpr (std::is_same_v<T, double>) {
    return x;
  } else {
    return T(constant<typename T::Scalar>(x));
  }
}

}  // namespace mechint

// ceres::Jet<T, N> mixes with its own inner scalar `T` only; a jet of jets cannot be multiplied by a
// plain double. Models are written once for every scalar type, so that `0.5 * m * v.dot(v)` must
// compile for nested jets too. These overloads lift the double to a constant of the inner type.
// They live in namespace ceres so that argument-dependent lookup finds them next to Jet's own.
namespace ceres {

template <class T>
struct JetInnerScalar {
  using type = T;
};
template <class T, int N>
struct JetInnerScalar<Jet<T, N>> {
  using type = T;
};

template <class T, int N, class S>
concept NestedJetWithArithmetic = std::is_arithmetic_v<S> && !std::is_same_v<T, double>;

#define MECHINT_NESTED_JET_BINARY_OP(OP)                                                      \
  template <class T, int N, class S>                                                          \
    requires NestedJetWithArithmetic<T, N, S>                                                 \
  inline Jet<T, N> operator OP(const Jet<T, N>& f, S s) {                                     \
    return f OP mechint::constant<T>(static_cast<double>(s));                                 \
  }                                                                                           \
  template <class T, int N, class S>                                                          \
    requires NestedJetWithArithmetic<T, N, S>                                                 \
  inline Jet<T, N> operator OP(S s, const Jet<T, N>& f) {                                     \
    return mechint::constant<T>(static_cast<double>(s)) OP f;                                 \
  }
MECHINT_NESTED_JET_BINARY_OP(+)
MECHINT_NESTED_JET_BINARY_OP(-)
MECHINT_NESTED_JET_BINARY_OP(*)
MECHINT_NESTED_JET_BINARY_OP(/)
#undef MECHINT_NESTED_JET_BINARY_OP

}  // namespace ceres

namespace mechint {

template <int N>
using Jet = ceres::Jet<double, N>;

template <int N>
using Jet2 = ceres::Jet<ceres::Jet<double, N>, N>;

/// Value part of a double (identity), used by code templated on the scalar.
inline double scalar_value(double x) { return x; }

/// Value part of a jet of any nesting depth.
template <class T, int N>
double scalar_value(const ceres::Jet<T, N>& x) {
  return scalar_value(x.a);
}

/// Lifts a vector of doubles to jets whose gradient is the unit vector of each component
/// (component `i` gets `∂/∂x_i = 1`).
template <int N>
Vec<Jet<N>, N> seed_gradient(const VecD<N>& x) {
  Vec<Jet<N>, N> out;
  for (int i = 0; i < N; ++i) out[i] = Jet<N>(x[i], i);
  return out;
}

/// Lifts a vector of doubles to constant jets (zero gradient).
template <class J, int N>
Vec<J, N> lift_constant(const VecD<N>& x) {
  Vec<J, N> out;
  for (int i = 0; i < N; ++i) out[i] = constant<J>(x[i]);
  return out;
}

/// Second-order seeding: the variable differentiated by the outer level of a `Jet2`.
template <int N>
Vec<Jet2<N>, N> seed_outer(const VecD<N>& x) {
  Vec<Jet2<N>, N> out;
  for (int i = 0; i < N; ++i) out[i] = Jet2<N>(Jet<N>(x[i]), i);
  return out;
}

/// Second-order seeding: the variable differentiated by the inner level of a `Jet2`.
template <int N>
Vec<Jet2<N>, N> seed_inner(const VecD<N>& x) {
  Vec<Jet2<N>, N> out;
  for (int i = 0; i < N; ++i) out[i] = Jet2<N>(Jet<N>(x[i], i));
  return out;
}

/// Dot product that works for every scalar type. Eigen's own reductions (`dot`, `squaredNorm`,
/// `sum`) construct `Scalar(0)` from an int, which a jet of jets does not allow; models written for
/// all scalar types use these helpers instead.
template <class DerivedA, class DerivedB>
typename DerivedA::Scalar dot(const Eigen::MatrixBase<DerivedA>& a, const Eigen::MatrixBase<DerivedB>& b) {
  using T = typename DerivedA::Scalar;
  T sum = a.coeff(0) * b.coeff(0);
  for (Eigen::Index i = 1; i < a.size(); ++i) sum += a.coeff(i) * b.coeff(i);
  return sum;
}

/// |a|² for every scalar type (see `dot`).
template <class Derived>
typename Derived::Scalar squared_norm(const Eigen::MatrixBase<Derived>& a) {
  return dot(a, a);
}

}  // namespace mechint
