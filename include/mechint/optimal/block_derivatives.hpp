#pragma once
/// \file
/// Exact derivatives of small dense blocks by nested forward-mode AD (ceres::Jet), as the DMOC
/// transcription needs them (optimal/dmoc.hpp):
///
/// - `value_gradient_hessian`: f, ∇f and ∇²f of a scalar function of D variables, one pass over a jet
///   of jets seeded in both levels;
/// - `directional_hessian`: ∇²(∇f·w), the Hessian of the derivative of f along a fixed direction w
///   (third derivatives of f contracted with w), one pass over a jet of jets of a one-direction jet.
///
/// The second is what the Hessian of the Lagrangian of a DMOC program needs: the constraints are
/// gradients of the discrete Lagrangian, and Σλ·∇Ld is the derivative of Ld along the multipliers.
/// Functions are generic lambdas `[&](const auto& y) { ... }` taking `Vec<T, D>` for any scalar T.

#include "mechint/core/autodiff.hpp"

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

/// ∇²_y (∇f(y)·w), exact: y + εw seeded in a jet of jets over y whose innermost scalar is a jet in ε.
template <int D, class F>
Mat<D, D> directional_hessian(F&& f, const VecD<D>& y, const VecD<D>& w) {
  using Along = ceres::Jet<double, 1>;
  using Middle = ceres::Jet<Along, D>;
  using Outer = ceres::Jet<Middle, D>;
  Vec<Outer, D> seeded;
  for (int i = 0; i < D; ++i) {
    Along along(y[i]);
    along.v[0] = w[i];
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
