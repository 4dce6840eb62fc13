#pragma once
/// \file
/// Exact derivatives of small dense blocks by nested forward-mode AD (ceres::Jet), as the AD backend's
/// kernels of optimal control need them (kernel/model_adapter.txx: L's third derivatives, the forces'
/// second derivatives):
///
/// - `value_gradient_hessian`: f, ∇f and ∇²f of a scalar function of D variables, one pass over a jet
///   of jets seeded in both levels;
/// - `directional_hessian`: ∇²(∇f·w), the Hessian of the derivative of f along a fixed direction w
///   (third derivatives of f contracted with w), one pass over a jet of jets of a one-direction jet.
///
/// The second is what the Hessian of the Lagrangian of a DMOC program needs: the constraints are
/// gradients of the discrete Lagrangian, and Σλ·∇Ld is the derivative of Ld along the multipliers.
/// Functions are generic lambdas `[&](const auto& y) { ... }` taking `Vec<T, D>` for any scalar T.
///
/// Why the innermost scalar of the third-order pass is `DirectionalJet` and not a plain third ceres
/// jet: ceres's functions write constants as `T(1.0)`, which compiles only when T is constructible
/// from a double, i.e. for at most two levels of jets (`Jet<Jet<double, 1>, D>(1.0)` does not exist).
/// `DirectionalJet` is a `ceres::Jet<double, 1>` that also converts implicitly from a double, so
/// `Jet<Jet<DirectionalJet, D>, D>` passes through every function of the models, each computed by
/// ceres's own overloads (found through the base class). (Eigen's AutoDiffScalar would convert too,
/// but its default constructor leaves value and derivative uninitialized, and ceres default-constructs
/// scalars as zeros.)

#include "mechint/core/autodiff.hpp"

namespace mechint::optimal {

/// A number with one directional derivative, constructible from a double: the innermost scalar of
/// `directional_hessian`.
struct DirectionalJet : ceres::Jet<double, 1> {
  using Base = ceres::Jet<double, 1>;
  DirectionalJet() = default;
  DirectionalJet(double value) : Base(value) {}  // NOLINT: implicit on purpose (see the file comment)
  DirectionalJet(const Base& jet) : Base(jet) {}  // NOLINT: results of ceres's functions
  DirectionalJet(double value, double derivative) : Base(value) { v[0] = derivative; }
};

// Comparisons look at the value, as ceres's own (whose operand check does not know this type).
#define MECHINT_DIRECTIONAL_JET_COMPARISON(OP)                                                          \
  inline bool operator OP(const DirectionalJet& a, const DirectionalJet& b) { return a.a OP b.a; } \
  inline bool operator OP(const DirectionalJet& a, double b) { return a.a OP b; }                  \
  inline bool operator OP(double a, const DirectionalJet& b) { return a OP b.a; }
MECHINT_DIRECTIONAL_JET_COMPARISON(<)
MECHINT_DIRECTIONAL_JET_COMPARISON(<=)
MECHINT_DIRECTIONAL_JET_COMPARISON(>)
MECHINT_DIRECTIONAL_JET_COMPARISON(>=)
MECHINT_DIRECTIONAL_JET_COMPARISON(==)
MECHINT_DIRECTIONAL_JET_COMPARISON(!=)
#undef MECHINT_DIRECTIONAL_JET_COMPARISON

/// ceres's pow compares a jet with floor of its inner scalar: keep the type.
inline DirectionalJet floor(const DirectionalJet& a) { return DirectionalJet(ceres::floor(static_cast<const DirectionalJet::Base&>(a))); }

}  // namespace mechint::optimal

namespace Eigen {
/// Eigen sees a DirectionalJet as the ceres jet it is.
template <>
struct NumTraits<mechint::optimal::DirectionalJet> : NumTraits<ceres::Jet<double, 1>> {
  using Real = mechint::optimal::DirectionalJet;
  using NonInteger = mechint::optimal::DirectionalJet;
  using Nested = mechint::optimal::DirectionalJet;
  using Literal = mechint::optimal::DirectionalJet;
};
}  // namespace Eigen

namespace mechint::optimal {

/// Value, gradient and Hessian of a scalar function of D variables.
template <int D>
struct ScalarDerivatives {
  double value = 0.0;
  VecD<D> gradient = VecD<D>::Zero();
  Mat<D, D> hessian = Mat<D, D>::Zero();
};

/// f(y), ∇f(y), ∇²f(y), exact: y seeded in both levels of a Jet2<D>.
template <int D, class F>
ScalarDerivatives<D> value_gradient_hessian(F&& f, const VecD<D>& y) {
  using Inner = Jet<D>;
  Vec<Jet2<D>, D> seeded;
  for (int i = 0; i < D; ++i) {
    seeded[i] = Jet2<D>(Inner(y[i], i));
    seeded[i].v[i] = Inner(1.0);
  }
  const Jet2<D> r = f(seeded);
  ScalarDerivatives<D> out;
  out.value = r.a.a;
  out.gradient = r.a.v;
  for (int i = 0; i < D; ++i) out.hessian.row(i) = r.v[i].v.transpose();
  return out;
}

/// ∇²_y (∇f(y)·w), exact: y + εw seeded in a jet of jets over y whose innermost scalar carries the
/// derivative in ε (see the file comment for its type).
template <int D, class F>
Mat<D, D> directional_hessian(F&& f, const VecD<D>& y, const VecD<D>& w) {
  using Along = DirectionalJet;
  using Middle = ceres::Jet<Along, D>;
  using Outer = ceres::Jet<Middle, D>;
  Vec<Outer, D> seeded;
  for (int i = 0; i < D; ++i) {
    const Along along(y[i], w[i]);
    Middle middle(along);
    middle.v[i] = Along(1.0);
    seeded[i] = Outer(middle);
    seeded[i].v[i] = Middle(Along(1.0));
  }
  const Outer r = f(seeded);
  Mat<D, D> h;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) h(i, j) = r.v[i].v[j].v[0];
  return h;
}

}  // namespace mechint::optimal
