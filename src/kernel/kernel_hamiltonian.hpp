#pragma once
/// \file
/// The Hamiltonian H(q, p) of an unconstrained kernel model and its first and second derivatives —
/// model/hamiltonian.hpp's `hamiltonian_derivatives`, runtime-sized — and the two truncated modified
/// Hamiltonians of analysis/modified_hamiltonian.hpp (004 §III-A). What the impact driver and its
/// flows on kernels ask of the model (kernel/kernel_impact_driver.hpp).
///
/// At (q, p) the velocity v solves ∂L/∂v(q, v) = p by Newton (model/legendre.hpp's tolerances:
/// ‖R‖∞ ≤ 1e-14·(1 + ‖p‖∞) or an update ‖Δv‖∞ ≤ 1e-12·(1 + ‖v‖∞), at most 30 updates); then with
/// A = L_vv:
///
///     H = p·v − L,  H_p = v,  H_q = −L_q,  H_pp = A⁻¹,  (H_qp)_ij = ∂²H/∂q_i∂p_j = −(L_qv A⁻¹)_ij,
///     H_qq = −L_qq + L_qv A⁻¹ L_qvᵀ.
///
/// Only L's second derivatives enter: every kernel table supplies them. The workspace is sized once;
/// an evaluation allocates nothing.
///
/// On a separable model (L = ½ vᵀM v + b·v − V(q), M and b constant: kernel/separable.hpp), once told
/// so by set_separable, the transform is v = M⁻¹(p − b) with no Newton: L_v is linear in v there, so
/// Newton's first update lands on the same v to round-off, after two evaluations of L_v and L_vv.

#include <optional>

#include "kernel/kernel_model.hpp"
#include "kernel/separable.hpp"
#include "kernel/sized_newton.hpp"
#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

class KernelHamiltonian {
 public:
  explicit KernelHamiltonian(const KernelModel& model);

  /// The model's separable kinetics (found by the caller at its start), or nothing: Newton again.
  void set_separable(std::optional<SeparableKinetics> kinetics);

  /// v with ∂L/∂v(q, v) = p, Newton from `guess` on L_v and L_vv alone, then L's value at (q, v) and
  /// H. False when Newton does not converge (L not regular here) or the model is not defined on the
  /// way. l() then holds the value, L_v and L_vv; derivatives() adds the other blocks.
  bool velocity(const Vector& q, const Vector& p, const Vector& guess);
  /// velocity(), then H, H_q, H_pp, H_qp and H_qq (see the file comment).
  bool derivatives(const Vector& q, const Vector& p, const Vector& guess);
  /// H(q, p), NaN where velocity() fails.
  double value(const Vector& q, const Vector& p);

  /// H̃ of the given kind at step size h (analysis/modified_hamiltonian.hpp's formulas), NaN where
  /// the derivatives are not defined.
  double modified(ModifiedHamiltonianKind kind, const Vector& q, const Vector& p, double h);

  // ---- the last evaluation -----------------------------------------------------------------------
  double h() const { return value_; }      ///< H (velocity() sets it too)
  const Vector& v() const { return v_; }   ///< H_p
  const Vector& hq() const { return hq_; }
  const RowMatrix& hpp() const { return hpp_; }
  const RowMatrix& hqp() const { return hqp_; }
  const RowMatrix& hqq() const { return hqq_; }
  const LagrangianValues& l() const { return l_; }  ///< after derivatives(): every block at (q, v)
  const Vector& zero() const { return zero_; }

 private:
  /// L_q, L_qq, L_qv (and L_v, L_vv again) at (q, v_), keeping the value velocity() found.
  bool second_derivatives_at_velocity(const Vector& q);
  /// velocity() and every block of L at (q, v): on a separable model in one evaluation.
  bool blocks(const Vector& q, const Vector& p, const Vector& guess);
  /// v = M⁻¹(p − b) of a separable model.
  void separable_velocity(const Vector& p);

  const KernelModel* model_;
  int n_;
  LagrangianValues l_;
  Vector v_, hq_, zero_, column_, unit_, a_, work_;
  RowMatrix hpp_, hqp_, hqq_, qv_hpp_;
  Eigen::MatrixXd vv_;
  RuntimeLu lu_;
  SizedNewton newton_;  ///< the Legendre transform's
  double value_ = 0.0;
  /// The (q, p) of the last velocity() from v = 0 that succeeded: asked again, it is not solved again.
  Vector solved_q_, solved_p_;
  bool solved_from_zero_ = false;
  std::optional<SeparableKinetics> separable_;
  Vector offset_;  ///< p − b of the separable transform
};

}  // namespace mechint::kernel
