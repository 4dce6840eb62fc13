#pragma once
/// \file
/// The discrete Lagrangians of DESIGN §1 on a kernel model: D1 Ld, D2 Ld, D12 Ld and the discrete
/// forces f⁻, f⁺ of the discrete Lagrange–d'Alembert principle, from L's derivatives at the rule's
/// quadrature points. The same formulas as the fixed-size rules' `derivatives` and
/// `discrete_forces` (include/mechint/discrete/discrete_lagrangians.hpp; derived in
/// docs/conventions.md); Ld includes the factor h and takes the earlier point first.
///
/// A model that supplies a rule's discrete derivatives itself (model_kernels.h, `discrete_rules`: the
/// built-ins' AD discrete Lagrangians, kernel/model_adapter.txx) has them taken as they are.
///
/// A `DiscreteRule` is the workspace of one integrator: every evaluation writes into storage sized
/// at construction, so a step allocates nothing. Each returns false when the model is not defined
/// at a quadrature point.

#include <string_view>

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

enum class Rule {
  kMidpoint,    ///< 000 eq. 4.1: Ld = h L((q0+q1)/2, (q1−q0)/h)
  kTrapezoid,   ///< 004 eq. 16: Ld = h/2 [L(q0, v) + L(q1, v)]
  kFirstOrder,  ///< 000 eq. 4.20: Ld = h L(q1, (q1−q0)/h)
};


class DiscreteRule {
 public:
  DiscreteRule(const KernelModel& model, Rule rule);

  Rule rule() const { return rule_; }
  const KernelModel& model() const { return *model_; }

  /// D1 Ld(q0, q1) and, when `d12` is not null, D12 Ld (∂²Ld/∂q0_i∂q1_j). `N`: the model's dimension
  /// when the caller knows it at compile time (instantiated for 1–4; the same arithmetic).
  ///
  /// A supplied rule goes straight to the model's kernel from here, inline: the out-of-line body that
  /// composes L's derivatives saves and restores registers a short model's call does not need (about
  /// 40 instructions of a harmonic oscillator's ~200 per call; docs/performance-history.md).
  template <int N = Eigen::Dynamic>
  bool d1(const Vector& q0, const Vector& q1, double h, Vector& d1, RowMatrix* d12) {
    if (supplied_) return model_->discrete_lagrangian(code_, h, q0, q1, &d1, nullptr, d12);
    return composed_d1<N>(q0, q1, h, d1, d12);
  }
  /// D2 Ld(q0, q1): the discrete Legendre transform p1.
  template <int N = Eigen::Dynamic>
  bool d2(const Vector& q0, const Vector& q1, double h, Vector& d2) {
    if (supplied_) return model_->discrete_lagrangian(code_, h, q0, q1, nullptr, &d2, nullptr);
    return composed_d2<N>(q0, q1, h, d2);
  }
  /// Whether the model solves this rule's steps itself (KernelModel::supplies_discrete_step): full
  /// Newton on its own DEL equations, the same arithmetic at the model's size.
  bool steps_itself() const { return steps_itself_; }
  /// q1 of the step from (q0, p0) under the held control u (null without forces), by the model's Newton
  /// from the guess in q1. Only when steps_itself(). With `p1` not null, a converged step also gives
  /// p1 = D2 Ld + f⁺ at q1 and, forced, the step's f⁻ and f⁺ (KernelModel::discrete_step).
  void solve_step(double h, const Vector& q0, const Vector& p0, const Vector* u, double t0, const NewtonOptions& options,
                  Vector& q1, NewtonStats& stats, Vector* p1 = nullptr, Vector* f_minus = nullptr,
                  Vector* f_plus = nullptr) const {
    model_->discrete_step(code_, h, q0, p0, u, t0, options, q1, stats, p1, f_minus, f_plus);
  }
  /// f⁻ and f⁺ of the step from (q0, t0) to q1 under the held control u, and ∂f⁻/∂q1 when asked.
  template <int N = Eigen::Dynamic>
  bool forces(const Vector& q0, const Vector& q1, const Vector& u, double t0, double h, Vector& f_minus,
              Vector& f_plus, RowMatrix* df_minus) {
    if (supplied_) return model_->discrete_forces(code_, h, q0, q1, u, t0, f_minus, f_plus, df_minus);
    return composed_forces<N>(q0, q1, u, t0, h, f_minus, f_plus, df_minus);
  }

 private:
  const KernelModel* model_;
  Rule rule_;
  LagrangianValues a_, b_;
  Vector point_, velocity_, force_, gradient_a_, gradient_b_, momentum_a_, momentum_b_;
  RowMatrix force_q_, force_v_;
  int code_;       ///< the rule's MECHINT_RULE_* code
  bool supplied_;  ///< the model supplies this rule's discrete derivatives
  bool steps_itself_;  ///< ... and solves its steps

  /// The rule's MECHINT_RULE_* code.
  static int rule_code(Rule rule);

  /// d1, d2 and forces composed from L's derivatives at the rule's quadrature points (a model that
  /// does not supply the rule).
  template <int N>
  bool composed_d1(const Vector& q0, const Vector& q1, double h, Vector& d1, RowMatrix* d12);
  template <int N>
  bool composed_d2(const Vector& q0, const Vector& q1, double h, Vector& d2);
  template <int N>
  bool composed_forces(const Vector& q0, const Vector& q1, const Vector& u, double t0, double h, Vector& f_minus,
                       Vector& f_plus, RowMatrix* df_minus);
};

#define MECHINT_DISCRETE_RULE_SIZED(EXTERN, N)                                                                  \
  EXTERN template bool DiscreteRule::composed_d1<N>(const Vector&, const Vector&, double, Vector&, RowMatrix*);  \
  EXTERN template bool DiscreteRule::composed_d2<N>(const Vector&, const Vector&, double, Vector&);             \
  EXTERN template bool DiscreteRule::composed_forces<N>(const Vector&, const Vector&, const Vector&, double, double, \
                                                        Vector&, Vector&, RowMatrix*);
MECHINT_DISCRETE_RULE_SIZED(extern, Eigen::Dynamic)
MECHINT_DISCRETE_RULE_SIZED(extern, 1)
MECHINT_DISCRETE_RULE_SIZED(extern, 2)
MECHINT_DISCRETE_RULE_SIZED(extern, 3)
MECHINT_DISCRETE_RULE_SIZED(extern, 4)

}  // namespace mechint::kernel
