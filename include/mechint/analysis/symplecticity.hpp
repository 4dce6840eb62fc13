#pragma once
/// \file
/// Symplecticity check of the one-step map of an unconstrained discrete system.
///
/// The momentum-form step (q0, p0) ↦ (q1, p1) is defined by p0 = −D1 Ld(q0, q1), p1 = D2 Ld(q0, q1).
/// Differentiating these implicit equations at the converged step gives its Jacobian A exactly:
///
///     dq1 = −D12⁻¹ (D11 dq0 + dp0),     dp1 = D21 dq0 + D22 dq1,
///
/// with the second derivatives of Ld from one jet-of-jets evaluation over (q0, q1). The defect
/// ‖AᵀΩA − Ω‖∞, Ω = [[0, I], [−I, 0]], is zero up to round-off for a variational integrator. For a
/// constrained model, check the chart formulation (000 §4.2), which is unconstrained.

#include <Eigen/LU>

#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/discrete_system.hpp"

namespace mechint {

/// Ω of a 2n-dimensional phase space.
template <int n>
Mat<2 * n, 2 * n> canonical_symplectic_matrix() {
  Mat<2 * n, 2 * n> omega = Mat<2 * n, 2 * n>::Zero();
  omega.template topRightCorner<n, n>().setIdentity();
  omega.template bottomLeftCorner<n, n>() = -Mat<n, n>::Identity();
  return omega;
}

/// ‖AᵀΩA − Ω‖∞ (largest entry in absolute value).
template <int n>
double symplecticity_defect(const Mat<2 * n, 2 * n>& a) {
  const Mat<2 * n, 2 * n> omega = canonical_symplectic_matrix<n>();
  return (a.transpose() * omega * a - omega).cwiseAbs().maxCoeff();
}

/// Jacobian ∂(q1, p1)/∂(q0, p0) of the momentum-form step that took q0 to q1.
template <DiscreteMechanicalSystem S>
Mat<2 * S::kDim, 2 * S::kDim> one_step_map_jacobian(const S& system, const VecD<S::kDim>& q0,
                                                    const VecD<S::kDim>& q1, double h) {
  static_assert(S::kNumConstraints == 0,
                "symplecticity is checked in generalized coordinates (use a chart)");
  constexpr int n = S::kDim;
  constexpr int m = 2 * n;
  Vec<Jet2<m>, n> x0, x1;
  for (int i = 0; i < n; ++i) {
    x0[i] = Jet2<m>(Jet<m>(q0[i], i), i);
    x1[i] = Jet2<m>(Jet<m>(q1[i], n + i), n + i);
  }
  const Jet2<m> ld = system.template discrete_lagrangian<Jet2<m>>(x0, x1, h);
  Mat<m, m> hess;
  for (int i = 0; i < m; ++i) hess.row(i) = ld.v[i].v.transpose();
  const Mat<n, n> d11 = hess.template topLeftCorner<n, n>();
  const Mat<n, n> d12 = hess.template topRightCorner<n, n>();
  const Mat<n, n> d21 = hess.template bottomLeftCorner<n, n>();
  const Mat<n, n> d22 = hess.template bottomRightCorner<n, n>();
  const Eigen::PartialPivLU<Mat<n, n>> lu(d12);
  const Mat<n, n> dq1_dq0 = -lu.solve(d11);
  const Mat<n, n> dq1_dp0 = -lu.solve(Mat<n, n>::Identity());
  Mat<m, m> a;
  a.template topLeftCorner<n, n>() = dq1_dq0;
  a.template topRightCorner<n, n>() = dq1_dp0;
  a.template bottomLeftCorner<n, n>() = d21 + d22 * dq1_dq0;
  a.template bottomRightCorner<n, n>() = d22 * dq1_dp0;
  return a;
}

}  // namespace mechint
