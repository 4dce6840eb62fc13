#pragma once
/// \file
/// Truncated modified Hamiltonians H̃ (004 §III-A): the O(h³) truncation of the Hamiltonian that a
/// second-order symplectic method conserves exactly (backward error analysis), one per method.
///
/// * Generalized Störmer–Verlet in Hamiltonian form (Lobatto IIIA–IIIB, src/kernel/kernel_flows.hpp),
///   004's printed formula (DESIGN §2):
///
///       H̃ = H + h²/24 · (2 H_qq(H_p, H_p) + 2 H_qp(H_p, H_q) − H_pp(H_q, H_q)).
///
/// * Variational integrator of the trapezoid discrete Lagrangian (004 eq. 16), in Lagrangian terms,
///   with v = H_p(q, p) and a the Euler–Lagrange acceleration at (q, v):
///
///       H̃ = H − h² B,   B = L_qq(v, v)/12 + L_q·a/12 − L_qv(v, a)/12 − L_vv(a, a)/24.
///
///   For a constant mass matrix both reduce to H + h²(V''(v, v)/12 − V'ᵀM⁻¹V'/24) and the two
///   methods coincide; with a configuration-dependent M they differ at O(h²), and each method keeps
///   only its own H̃ to O(h⁴) (tests/test_modified_hamiltonian.cpp measures the slopes).
///
/// Second derivatives come from one jet-of-jets evaluation of L (model/hamiltonian.hpp).

#include "mechint/model/hamiltonian.hpp"

namespace mechint {

/// Which truncated modified Hamiltonian.
enum class ModifiedHamiltonianKind {
  kStormerVerlet,  ///< 004's formula, belongs to the generalized Störmer–Verlet method
  kTrapezoidVi,    ///< H − h² B, belongs to the trapezoid variational integrator
};

/// H̃ of the generalized Störmer–Verlet method, 004 §III-A.
template <LagrangianModel M>
double modified_hamiltonian_stormer_verlet(const M& model, const VecD<M::kDim>& q,
                                           const VecD<M::kDim>& p, double h) {
  const auto d = hamiltonian_derivatives(model, q, p);
  const double correction = 2.0 * d.hp.dot(d.hqq * d.hp) + 2.0 * d.hp.dot(d.hqp * d.hq) -
                            d.hq.dot(d.hpp * d.hq);
  return d.value + h * h / 24.0 * correction;
}

/// H̃ of the trapezoid variational integrator: H − h² B (see the file comment).
template <LagrangianModel M>
double modified_hamiltonian_trapezoid(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& p,
                                      double h) {
  LagrangianDerivatives<M::kDim> l;
  const VecD<M::kDim> v = velocity_and_derivatives_from_momentum(model, q, p, l);
  const VecD<M::kDim> a = euler_lagrange_acceleration(l, v);
  const double b = v.dot(l.qq * v) / 12.0 + l.q.dot(a) / 12.0 - v.dot(l.qv * a) / 12.0 -
                   a.dot(l.vv * a) / 24.0;
  const double hamiltonian_value = p.dot(v) - model.template lagrangian<double>(q, v);
  return hamiltonian_value - h * h * b;
}

/// H̃ of the given kind.
template <LagrangianModel M>
double modified_hamiltonian(ModifiedHamiltonianKind kind, const M& model, const VecD<M::kDim>& q,
                            const VecD<M::kDim>& p, double h) {
  return kind == ModifiedHamiltonianKind::kStormerVerlet
             ? modified_hamiltonian_stormer_verlet(model, q, p, h)
             : modified_hamiltonian_trapezoid(model, q, p, h);
}

}  // namespace mechint
