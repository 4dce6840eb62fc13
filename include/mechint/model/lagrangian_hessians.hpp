#pragma once
/// \file
/// The first and second derivatives of L that the Euler–Lagrange equations in first-order form
/// need (the Runge–Kutta baselines and the DAE baseline): L_q, L_qv and L_vv.

#include "mechint/core/autodiff.hpp"
#include "mechint/model/lagrangian_derivatives.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint {

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

}  // namespace mechint
