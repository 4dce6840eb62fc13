#pragma once
/// \file
/// The Hamiltonian H(q, p) of a hyperregular Lagrangian and its first and second derivatives,
/// from the Legendre transform (004 §II-B, model/legendre.hpp) and the second derivatives of L
/// (model/lagrangian_calculus.hpp).
///
/// At (q, p) the velocity v solves ∂L/∂v(q, v) = p (Newton; one update is exact for an L quadratic
/// in v), and H = p·v − L(q, v). With A = L_vv and (L_qv)_{ij} = ∂²L/∂q_i∂v_j, the implicit function
/// theorem gives ∂v/∂p = A⁻¹ and ∂v/∂q = −A⁻¹ L_qvᵀ, hence
///
///     H_p = v,                  H_q = −L_q,
///     H_pp = A⁻¹,               (H_qp)_{ij} = ∂²H/∂q_i∂p_j = −(L_qv A⁻¹)_{ij},
///     H_qq = −L_qq + L_qv A⁻¹ L_qvᵀ.
///
/// For L = ½ vᵀM(q)v − V(q) these are the derivatives of H = ½ pᵀM⁻¹(q)p + V(q) (004 eq. 13).
/// Fixed-size storage only: no allocation. Unconstrained models (kNumConstraints = 0).

#include <Eigen/LU>

#include "mechint/model/legendre.hpp"

namespace mechint {

/// H and its derivatives at one point of phase space, with the Lagrangian data they came from.
template <int n>
struct HamiltonianDerivatives {
  double value = 0.0;        ///< H(q, p)
  VecD<n> v;                 ///< velocity, H_p
  VecD<n> hq, hp;            ///< H_q, H_p
  Mat<n, n> hqq, hqp, hpp;   ///< (hqp)_{ij} = ∂²H/∂q_i∂p_j
  LagrangianDerivatives<n> l;  ///< derivatives of L at (q, v)
};

/// H(q, p) and its first and second derivatives (see the file comment).
template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
HamiltonianDerivatives<M::kDim> hamiltonian_derivatives(const M& model, const VecD<M::kDim>& q,
                                                        const VecD<M::kDim>& p,
                                                        const VecD<M::kDim>& v_guess = VecD<M::kDim>::Zero()) {
  constexpr int n = M::kDim;
  HamiltonianDerivatives<n> d;
  d.v = velocity_and_derivatives_from_momentum(model, q, p, d.l, v_guess);
  const auto lu = d.l.vv.partialPivLu();
  d.hpp = lu.inverse();
  d.hpp = 0.5 * (d.hpp + d.hpp.transpose()).eval();
  d.hp = d.v;
  d.hq = -d.l.q;
  d.hqp = -d.l.qv * d.hpp;
  d.hqq = -d.l.qq + d.l.qv * d.hpp * d.l.qv.transpose();
  d.value = p.dot(d.v) - model.template lagrangian<double>(q, d.v);
  return d;
}

/// H(q, p) = p·v − L(q, v), ∂L/∂v(q, v) = p.
template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
double hamiltonian(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& p) {
  LagrangianDerivatives<M::kDim> l;
  const VecD<M::kDim> v = velocity_and_derivatives_from_momentum(model, q, p, l);
  return p.dot(v) - model.template lagrangian<double>(q, v);
}

}  // namespace mechint
