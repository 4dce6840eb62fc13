#pragma once
/// \file
/// Forward-mode automatic differentiation types (ceres::Jet) and the seeding helpers the
/// discrete mechanics layer needs.
///
/// `Jet<N>` carries a value and a gradient of length `N`; `Jet2<N>` is a jet of jets, used to get
/// mixed second derivatives `∂²f/∂x_i∂y_j` of a function of two vector arguments in one pass:
/// seed `x` in the outer level and `y` in the inner level (see `seed_outer`, `seed_inner`).
///
/// The Jacobian of the DEL equations, evaluated at every Newton iteration, uses `Hessian2<N>`
/// instead: Eigen's AutoDiffScalar nested the same way, measured 1.1–2.2× faster than the jet of
/// jets for this one computation (bench/bench_autodiff.cpp, figures in docs/autodiff.md). A model
/// therefore compiles for both families: write it with `using std::sin;`-style calls, `dot` and
/// `squared_norm` below, and no `pow` (x*x instead; Eigen's nested AutoDiff has no pow).

#include <Eigen/Core>
#include <ceres/jet.h>
#include <unsupported/Eigen/AutoDiff>

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

/// Value part of an Eigen AutoDiffScalar of any nesting depth.
template <class D>
double scalar_value(const Eigen::AutoDiffScalar<D>& x) {
  return scalar_value(x.value());
}

/// First derivatives with Eigen's AutoDiff (fixed size, no heap).
template <int N>
using AutoDiff1 = Eigen::AutoDiffScalar<Eigen::Matrix<double, N, 1>>;

/// Nested Eigen AutoDiff: mixed second derivatives of the DEL Jacobian (see the file comment).
template <int N>
using Hessian2 = Eigen::AutoDiffScalar<Eigen::Matrix<AutoDiff1<N>, N, 1>>;

/// x seeded in the outer level of a Hessian2 (∂/∂x is read from `.derivatives()[i].value()`).
template <int N>
Vec<Hessian2<N>, N> hessian_seed_outer(const VecD<N>& x) {
  using D = Eigen::Matrix<double, N, 1>;
  Vec<Hessian2<N>, N> out;
  for (int i = 0; i < N; ++i) {
    out[i].value() = AutoDiff1<N>(x[i], D::Zero());
    out[i].derivatives().setConstant(AutoDiff1<N>(0.0, D::Zero()));
    out[i].derivatives()[i] = AutoDiff1<N>(1.0, D::Zero());
  }
  return out;
}

/// y seeded in the inner level of a Hessian2 (∂/∂y is read from `.value().derivatives()`).
template <int N>
Vec<Hessian2<N>, N> hessian_seed_inner(const VecD<N>& y) {
  using D = Eigen::Matrix<double, N, 1>;
  Vec<Hessian2<N>, N> out;
  for (int i = 0; i < N; ++i) {
    out[i].value() = AutoDiff1<N>(y[i], N, i);
    out[i].derivatives().setConstant(AutoDiff1<N>(0.0, D::Zero()));
  }
  return out;
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
