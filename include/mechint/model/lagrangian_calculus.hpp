#pragma once
/// \file
/// The calculus of a model's Lagrangian, in one place: ∂L/∂q̇, ∂²L/∂q̇², the full gradient and
/// Hessian in (q, q̇), the energy and the Euler–Lagrange acceleration. Every integrator, baseline and
/// diagnostic takes its derivatives of L from here (the discrete Lagrangian's derivatives are in
/// discrete/del_derivatives.hpp, the constraints' in model/constraint_derivatives.hpp).
///
/// Each function uses the model's hand-written `lagrangian_derivatives` when it has them
/// (model/lagrangian_derivatives.hpp), otherwise forward-mode AD of `lagrangian<T>` seeded for what
/// that function needs and no more:
///
///   lagrangian_dv                  one jet over q̇                                  O(n) per operation
///   lagrangian_dq                  one jet over q                                   O(n) per operation
///   lagrangian_dvdv                jet of jets over q̇                              O(n²)
///   lagrangian_velocity_hessians   L_q, L_qv, L_vv: nested Eigen AutoDiff, inner over (q, q̇),
///                                  outer over q̇ (no L_qq)                          O(n²)
///   lagrangian_second_derivatives  everything, one second-order jet over (q, q̇)    O(2n²)

#include <Eigen/LU>
#include <cmath>
#include <utility>

#include "mechint/core/autodiff.hpp"
#include "mechint/core/second_order_jet.hpp"
#include "mechint/model/lagrangian_derivatives.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

/// ∂L/∂q̇ (q, v): the momentum conjugate to q.
template <LagrangianModel M>
VecD<M::kDim> lagrangian_dv(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  if constexpr (HasLagrangianDerivatives<M>) {
    LagrangianDerivatives<n> d;
    model.lagrangian_derivatives(q, v, d);
    return d.v;
  } else {
    return model.template lagrangian<Jet<n>>(lift_constant<Jet<n>, n>(q), seed_gradient<n>(v)).v;
  }
}

/// ∂L/∂q (q, v): the force of the Euler–Lagrange equations (−∇V for L = T(q̇) − V(q)).
template <LagrangianModel M>
VecD<M::kDim> lagrangian_dq(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  if constexpr (HasLagrangianDerivatives<M>) {
    LagrangianDerivatives<n> d;
    model.lagrangian_derivatives(q, v, d);
    return d.q;
  } else {
    return model.template lagrangian<Jet<n>>(seed_gradient<n>(q), lift_constant<Jet<n>, n>(v)).v;
  }
}

/// ∂²L/∂q̇² (q, v).
template <LagrangianModel M>
Mat<M::kDim, M::kDim> lagrangian_dvdv(const M& model, const VecD<M::kDim>& q,
                                      const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  if constexpr (HasLagrangianDerivatives<M>) {
    LagrangianDerivatives<n> d;
    model.lagrangian_derivatives(q, v, d);
    return d.vv;
  } else {
    Vec<Jet2<n>, n> vj;
    for (int i = 0; i < n; ++i) vj[i] = Jet2<n>(Jet<n>(v[i], i), i);
    const Jet2<n> l = model.template lagrangian<Jet2<n>>(lift_constant<Jet2<n>, n>(q), vj);
    Mat<n, n> hess;
    for (int i = 0; i < n; ++i) hess.row(i) = l.v[i].v.transpose();
    return hess;
  }
}

/// Gradient and Hessian of L at (q, v): the model's hand-written ones when it has them, otherwise
/// one evaluation of L on a second-order jet over the 2n variables (q, v).
template <LagrangianModel M>
LagrangianDerivatives<M::kDim> lagrangian_second_derivatives(const M& model, const VecD<M::kDim>& q,
                                                             const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  LagrangianDerivatives<n> d;
  if constexpr (HasLagrangianDerivatives<M>) {
    model.lagrangian_derivatives(q, v, d);
  } else {
    // One evaluation on a second-order jet over the 2n variables (q, v): value, gradient and the
    // Hessian's upper triangle (core/second_order_jet.hpp; about half a jet of jets' arithmetic).
    constexpr int m = 2 * n;
    using S = SecondOrderJet<m>;
    VecD<m> x;
    // Fixed-size halves rather than a comma initializer: for n = 1 GCC's -Warray-bounds took the
    // initializer's vectorized path, never taken for a 1-vector, for a read past q.
    x.template head<n>() = q;
    x.template tail<n>() = v;
    const S l = second_order_expansion<m>(
        [&](const Vec<S, m>& y) {
          const Vec<S, n> qs = y.template head<n>(), vs = y.template tail<n>();
          return model.template lagrangian<S>(qs, vs);
        },
        x);
    const Mat<m, m> hessian = hessian_of(l);
    const VecD<m> gradient = gradient_of(l);
    d.q = gradient.template head<n>();
    d.v = gradient.template tail<n>();
    d.qq = hessian.template topLeftCorner<n, n>();
    d.qv = hessian.template topRightCorner<n, n>();
    d.vv = hessian.template bottomRightCorner<n, n>();
  }
  return d;
}

/// L_q, L_qv and L_vv of a model at (q, v): the model's hand-written ones if it has them,
/// otherwise one evaluation of L on nested Eigen AutoDiff (inner level over (q, v), outer over v).
template <LagrangianModel M, int n = M::kDim>
void lagrangian_velocity_hessians(const M& model, const VecD<n>& q, const VecD<n>& v, VecD<n>& l_q,
                                  Mat<n, n>& l_qv, Mat<n, n>& l_vv) {
  if constexpr (HasLagrangianDerivatives<M>) {
    LagrangianDerivatives<n> d;
    model.lagrangian_derivatives(q, v, d);
    l_q = d.q;
    l_qv = d.qv;
    l_vv = d.vv;
  } else {
    constexpr int m = 2 * n;
    using Inner = AutoDiff1<m>;
    using Scalar = Eigen::AutoDiffScalar<Eigen::Matrix<Inner, n, 1>>;
    const Eigen::Matrix<double, m, 1> zero = Eigen::Matrix<double, m, 1>::Zero();
    Vec<Scalar, n> qs, vs;
    for (int i = 0; i < n; ++i) {
      qs[i].value() = Inner(q[i], m, i);
      qs[i].derivatives().setConstant(Inner(0.0, zero));
      vs[i].value() = Inner(v[i], m, n + i);
      vs[i].derivatives().setConstant(Inner(0.0, zero));
      vs[i].derivatives()[i] = Inner(1.0, zero);
    }
    const Scalar l = model.template lagrangian<Scalar>(qs, vs);
    l_q = l.value().derivatives().template head<n>();
    for (int i = 0; i < n; ++i) {
      l_qv.col(i) = l.derivatives()[i].derivatives().template head<n>();
      l_vv.row(i) = l.derivatives()[i].derivatives().template tail<n>().transpose();
    }
  }
}

/// Energy E = ∂L/∂q̇ · q̇ − L.
template <LagrangianModel M>
double energy(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  return lagrangian_dv(model, q, v).dot(v) - model.template lagrangian<double>(q, v);
}

/// E = ∂L/∂q̇·q̇ − L and the size of its terms, |∂L/∂q̇·q̇| + |L|, from one directional derivative
/// of L along q̇ (a dual number: about two evaluations of L). For the step check's energy balance.
template <LagrangianModel M>
std::pair<double, double> energy_and_size(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  Vec<Jet<1>, n> qs, vs;
  for (int i = 0; i < n; ++i) {
    qs[i] = Jet<1>(q[i]);
    vs[i] = Jet<1>(v[i]);
    vs[i].v[0] = v[i];
  }
  const Jet<1> l = model.template lagrangian<Jet<1>>(qs, vs);
  return {l.v[0] - l.a, std::abs(l.v[0]) + std::abs(l.a)};
}

/// The Euler–Lagrange acceleration a with L_vv a = L_q − L_qvᵀ v (d/dt ∂L/∂v = ∂L/∂q).
template <int n>
VecD<n> euler_lagrange_acceleration(const LagrangianDerivatives<n>& l, const VecD<n>& v) {
  return l.vv.partialPivLu().solve(l.q - l.qv.transpose() * v);
}

}  // namespace mechint
