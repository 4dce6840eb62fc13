#pragma once
/// \file
/// The calculus of holonomic constraints g(q) = 0, in one place: g and its Jacobian Dg in one AD
/// pass, Dg alone, and the curvature term g''(q)[v, v]. Written for anything that declares `kDim`,
/// `kNumConstraints` and (when kNumConstraints > 0) `template <class T> Vec<T, k> constraints(q)`:
/// a model (model/lagrangian_model.hpp) and a discrete system (discrete/discrete_system.hpp) alike.
/// With no constraints every function returns empty (0 × n) results.

#include <concepts>

#include "mechint/core/autodiff.hpp"
#include "mechint/core/second_order_jet.hpp"

namespace mechint {

/// Something with holonomic constraints on R^kDim.
template <class S>
concept HasConstraintCount = requires {
  { S::kDim } -> std::convertible_to<int>;
  { S::kNumConstraints } -> std::convertible_to<int>;
};

/// g(q) and its Jacobian Dg(q) (k × n), by one evaluation of g on a jet over q.
template <HasConstraintCount S>
void constraints_and_jacobian(const S& system, const VecD<S::kDim>& q, VecD<S::kNumConstraints>& g,
                              Mat<S::kNumConstraints, S::kDim>& dg) {
  constexpr int n = S::kDim;
  constexpr int k = S::kNumConstraints;
  if constexpr (k > 0) {
    const Vec<Jet<n>, k> gj = system.template constraints<Jet<n>>(seed_gradient<n>(q));
    for (int r = 0; r < k; ++r) {
      g[r] = gj[r].a;
      dg.row(r) = gj[r].v.transpose();
    }
  } else {
    (void)system, (void)q, (void)g, (void)dg;
  }
}

/// Dg(q) alone.
template <HasConstraintCount S>
Mat<S::kNumConstraints, S::kDim> constraint_jacobian(const S& system, const VecD<S::kDim>& q) {
  VecD<S::kNumConstraints> g;
  Mat<S::kNumConstraints, S::kDim> dg;
  constraints_and_jacobian(system, q, g, dg);
  return dg;
}

/// d²/ds² g(q + s v) at s = 0, i.e. g''(q)[v, v] = (d/dt Dg(q)) v along q̇ = v: the term the
/// acceleration-level constraint Dg v̇ + g''[v, v] = 0 needs (consistent initial values of a DAE).
template <HasConstraintCount S>
VecD<S::kNumConstraints> constraint_curvature(const S& system, const VecD<S::kDim>& q,
                                              const VecD<S::kDim>& v) {
  constexpr int n = S::kDim;
  constexpr int k = S::kNumConstraints;
  VecD<k> out;
  if constexpr (k > 0) {
    using D = Eigen::Matrix<double, 1, 1>;
    Hessian2<1> s;
    s.value() = AutoDiff1<1>(0.0, D::Ones());
    s.derivatives()[0] = AutoDiff1<1>(1.0, D::Zero());
    Vec<Hessian2<1>, n> x;
    for (int i = 0; i < n; ++i) x[i] = q[i] + v[i] * s;
    const Vec<Hessian2<1>, k> gs = system.template constraints<Hessian2<1>>(x);
    for (int r = 0; r < k; ++r) out[r] = gs[r].derivatives()[0].derivatives()[0];
  } else {
    (void)system, (void)q, (void)v;
  }
  return out;
}

/// Σ_r λ_r ∂²g_r/∂q² (n × n, symmetric): the derivative of the constraint force Dg(q)ᵀλ in q, the
/// Hessian of λ·g(q) by one evaluation on a second-order jet over q.
template <HasConstraintCount S>
Mat<S::kDim, S::kDim> constraint_hessian_contracted(const S& system, const VecD<S::kDim>& q,
                                                    const VecD<S::kNumConstraints>& lambda) {
  constexpr int n = S::kDim;
  constexpr int k = S::kNumConstraints;
  if constexpr (k > 0) {
    using J = SecondOrderJet<n>;
    return hessian_of(second_order_expansion<n>(
        [&](const Vec<J, n>& x) {
          const Vec<J, k> g = system.template constraints<J>(x);
          J sum = lambda[0] * g[0];
          for (int r = 1; r < k; ++r) sum += lambda[r] * g[r];
          return sum;
        },
        q));
  } else {
    (void)system, (void)q, (void)lambda;
    return Mat<n, n>::Zero();
  }
}

}  // namespace mechint
