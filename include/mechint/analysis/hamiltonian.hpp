#pragma once
/// \file
/// The Hamiltonian H(q, p) of a hyperregular Lagrangian and its first and second derivatives,
/// from the Legendre transform (004 §II-B) and AD second derivatives of L.
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

#include <stdexcept>

#include <Eigen/LU>

#include "mechint/core/autodiff.hpp"
#include "mechint/model/lagrangian_derivatives.hpp"
#include "mechint/model/lagrangian_model.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint {

/// Gradient and Hessian of L at (q, v): the model's hand-written ones when it has them, otherwise
/// one evaluation of L on a jet of jets over the 2n variables (q, v).
template <LagrangianModel M>
LagrangianDerivatives<M::kDim> lagrangian_second_derivatives(const M& model, const VecD<M::kDim>& q,
                                                             const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  LagrangianDerivatives<n> d;
  if constexpr (HasLagrangianDerivatives<M>) {
    model.lagrangian_derivatives(q, v, d);
  } else {
    constexpr int m = 2 * n;
    Vec<Jet2<m>, n> qj, vj;
    for (int i = 0; i < n; ++i) {
      qj[i] = Jet2<m>(Jet<m>(q[i], i), i);
      vj[i] = Jet2<m>(Jet<m>(v[i], n + i), n + i);
    }
    const Jet2<m> l = model.template lagrangian<Jet2<m>>(qj, vj);
    for (int i = 0; i < n; ++i) {
      d.q[i] = l.v[i].a;
      d.v[i] = l.v[n + i].a;
      for (int j = 0; j < n; ++j) {
        d.qq(i, j) = l.v[i].v[j];
        d.qv(i, j) = l.v[i].v[n + j];
        d.vv(i, j) = l.v[n + i].v[n + j];
      }
    }
  }
  return d;
}

/// H and its derivatives at one point of phase space, with the Lagrangian data they came from.
template <int n>
struct HamiltonianDerivatives {
  double value = 0.0;        ///< H(q, p)
  VecD<n> v;                 ///< velocity, H_p
  VecD<n> hq, hp;            ///< H_q, H_p
  Mat<n, n> hqq, hqp, hpp;   ///< (hqp)_{ij} = ∂²H/∂q_i∂p_j
  LagrangianDerivatives<n> l;  ///< derivatives of L at (q, v)
};

/// Velocity v with ∂L/∂v(q, v) = p, and L's derivatives there. Newton on R = ∂L/∂v(q, v) − p,
/// J = L_vv, from `v`: converged when ‖R‖∞ ≤ 1e-14·(1 + ‖p‖∞) or after an update
/// ‖Δv‖∞ ≤ 1e-12·(1 + ‖v‖∞). Throws std::runtime_error when it does not converge in 30 updates
/// (L not hyperregular near this point).
template <LagrangianModel M>
VecD<M::kDim> velocity_of_momentum(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& p,
                                   LagrangianDerivatives<M::kDim>& l,
                                   VecD<M::kDim> v = VecD<M::kDim>::Zero()) {
  constexpr int n = M::kDim;
  struct Legendre {
    const M& model;
    const VecD<n>& q;
    const VecD<n>& p;
    LagrangianDerivatives<n>& l;
    VecD<n>& v;
    double scale;
    bool l_at_v = false;  // l holds the derivatives at the current v
    void assemble(VecD<n>& r, Mat<n, n>* j) {
      l = lagrangian_second_derivatives(model, q, v);
      l_at_v = true;
      r = l.v - p;
      if (j) *j = l.vv;
    }
    double update(const VecD<n>& delta) {
      v -= delta;
      l_at_v = false;
      return delta.template lpNorm<Eigen::Infinity>();
    }
    bool converged_on_residual(const NewtonIterate& state) const { return state.residual_norm <= scale; }
    bool converged_on_update(const NewtonIterate& state) const {
      return update_below(state, 1e-12, v.template lpNorm<Eigen::Infinity>());
    }
  } problem{model, q, p, l, v, 1e-14 * (1.0 + p.template lpNorm<Eigen::Infinity>())};
  NewtonSolver<n> newton;
  if (!newton.solve(problem, {.max_iterations = 30}).converged)
    throw std::runtime_error("Legendre transform: no velocity found for the given momentum");
  if (!problem.l_at_v) l = lagrangian_second_derivatives(model, q, v);
  return v;
}

/// H(q, p) and its first and second derivatives (see the file comment).
template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
HamiltonianDerivatives<M::kDim> hamiltonian_derivatives(const M& model, const VecD<M::kDim>& q,
                                                        const VecD<M::kDim>& p,
                                                        const VecD<M::kDim>& v_guess = VecD<M::kDim>::Zero()) {
  constexpr int n = M::kDim;
  HamiltonianDerivatives<n> d;
  d.v = velocity_of_momentum(model, q, p, d.l, v_guess);
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
  const VecD<M::kDim> v = velocity_of_momentum(model, q, p, l);
  return p.dot(v) - model.template lagrangian<double>(q, v);
}

/// The Euler–Lagrange acceleration a with L_vv a = L_q − L_qvᵀ v (d/dt ∂L/∂v = ∂L/∂q).
template <int n>
VecD<n> euler_lagrange_acceleration(const LagrangianDerivatives<n>& l, const VecD<n>& v) {
  return l.vv.partialPivLu().solve(l.q - l.qv.transpose() * v);
}

}  // namespace mechint
