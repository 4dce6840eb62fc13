#pragma once
/// \file
/// The discrete Lagrange–d'Alembert integrator of a kernel model with nonholonomic constraints
/// linear in the velocities, A(q) q̇ = 0 (DESIGN §10; docs/nonholonomic.md). The continuous
/// equations (Lagrange–d'Alembert principle) are
///
///     d/dt ∂L/∂q̇ − ∂L/∂q = A(q)ᵀ μ,      A(q) q̇ = 0.
///
/// The constraint force A(q)ᵀμ enters the discrete principle as a discrete force (the forced discrete
/// Lagrange–d'Alembert principle, Marsden & West 2001, part 3), split in halves over the two ends of the
/// step, and the constraint is imposed on the step's difference quotient (Cortés & Martínez 2001's
/// discrete constraint space). Momentum form: given (q_k, p_k) solve for (q_{k+1}, μ_k)
///
///     p_k + D1 Ld(q_k, q_{k+1}) + h/2 A⁻ᵀ μ_k = 0,      Ā (q_{k+1} − q_k) / h = 0,
///     p_{k+1} = D2 Ld(q_k, q_{k+1}) + h/2 A⁺ᵀ μ_k,
///
/// with, for the midpoint rule, A⁻ = A⁺ = Ā = A((q_k + q_{k+1})/2), and for the trapezoid rule
/// A⁻ = A(q_k), A⁺ = A(q_{k+1}), Ā = (A(q_k) + A(q_{k+1}))/2. Placing the force at the node q_k alone
/// (Cortés & Martínez's DLA) gives a scheme that is not reversible; McLachlan & Perlmutter 2006 prefer
/// reversible variants (and Modin & Verdier 2020 trace the good long-time energy behaviour of
/// nonholonomic integrators to reversibility), so both placements here are symmetric: for L even in
/// q̇ the step is reversible under (q, p) → (q, −p), and the method is of order 2.
///
/// Newton (solve/newton.hpp) runs on (q_{k+1}, ν) with ν = h²μ/2 and the rows scaled by h, like the
/// holonomic DEL system (000 eqs. 4.15–4.18):
///
///     R = [h (p_k + D1 Ld) + A⁻ᵀ ν ; Ā (q_{k+1} − q_k)],
///     J = [[h D12 Ld + ∂(A⁻ᵀν)/∂q_{k+1}, A⁻ᵀ], [Ā + ∂Ā/∂q_{k+1} (q_{k+1} − q_k), 0]].
///
/// Holonomic constraints g(q) = 0 (k of them) may come alongside, as in the holonomic DEL step: their
/// force G(q_k)ᵀη at the step's start node (η = hλ, the scaling of 000 eqs. 4.15–4.18) and g(q_{k+1}) = 0,
///
///     R = [h (p_k + D1 Ld) + A⁻ᵀ ν + G(q_k)ᵀ η ; Ā (q_{k+1} − q_k) ; g(q_{k+1})],
///
/// with the Jacobian's new blocks G(q_k)ᵀ and G(q_{k+1}). Forces are not combined with nonholonomic
/// constraints here (refused at the start). `step()` never allocates (tests/test_nonholonomic.cpp
/// counts).

#include "kernel/discrete_rules.hpp"
#include "mechint/core/state_archive.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

class NonholonomicIntegrator {
 public:
  /// `rule`: kMidpoint or kTrapezoid (the symmetric ones); throws InvalidInput for a model this
  /// integrator does not take (no nonholonomic constraint, forces).
  NonholonomicIntegrator(const KernelModel& model, Rule rule, double h, NewtonOptions options = {});
  NonholonomicIntegrator(const NonholonomicIntegrator&) = delete;
  NonholonomicIntegrator& operator=(const NonholonomicIntegrator&) = delete;

  /// p0 = ∂L/∂q̇(q0, q̇0); refuses (InvalidStart) a q̇0 that violates A(q0) q̇0 = 0 beyond 1e-9 of
  /// |A_i| |q̇0| (as holonomic starts, model/start_on_manifold.hpp), and with holonomic constraints a
  /// q0 off g(q0) = 0 or a q̇0 off Dg(q0) q̇0 = 0.
  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);
  /// From the scheme's own state (q_k, p_k), e.g. another run's with p reversed (the reversibility
  /// test); p0 need not be ∂L/∂q̇ of a velocity in the distribution.
  void start_from_momentum(const Vector& q0, const Vector& p0, double t0 = 0.0);

  void step();

  // ---- state (the stepper contract, integrate/stepper.hpp) -------------------------------------
  const Vector& q() const { return q_; }
  const Vector& p() const { return p_; }
  /// μ_k of the last step (force units); 0 before the first step. The equations fix only the sum of
  /// the two half impulses at each node, h/2 (A⁺_{k−1}ᵀμ_{k−1} + A⁻_kᵀμ_k): with the midpoint rule the
  /// sequence μ_k carries a component (−1)^k e of size O(h) set by the start, while the node averages
  /// (μ_{k−1} + μ_k)/2 approximate μ(t_k) to O(h²); the trapezoid rule's μ_k approximate μ(t_{k+½})
  /// to O(h²) (measured, tests/test_nonholonomic.cpp).
  const Vector& mu() const { return mu_; }
  /// The multiplier of the continuous equations at the recorded state (q_k, velocity()): the μ of
  /// [[M, −Aᵀ], [A, 0]] (v̇, μ) = (∂L/∂q − (∂²L/∂q∂q̇)ᵀ q̇, −∂(A q̇)/∂q q̇), second-order accurate like
  /// the state, free of the parasitic component of mu(). What the `mu1…` columns report (allocates).
  /// With holonomic constraints the system is bordered by G as well, whose row of the right-hand side
  /// is −q̇ᵀ ∂²g/∂q² q̇ (the kernels' constraint curvature; NaN without it).
  Vector multiplier() const;
  /// The discrete constraint of the last step, ‖Ā (q_k − q_{k−1}) / h‖∞ (‖A(q0) q̇0‖∞ at the start).
  double nonholonomic_residual() const { return residual_; }
  double time() const { return t_; }
  double step_size() const { return h_; }
  long step_index() const { return step_index_; }
  const KernelModel& model() const { return *model_; }
  const NewtonStats& last_newton_stats() const { return stats_; }

  /// The velocity at q_k in the constraint distribution whose Legendre transform is p_k up to a
  /// constraint force: ∂L/∂q̇(q_k, v) + C(q_k)ᵀζ = p_k, C(q_k) v = 0 with C = [A; Dg] (diagnostics;
  /// allocates).
  Vector velocity() const;
  /// E(q_k, velocity()).
  double energy() const;
  /// ⟨p_k, ξ_i(q_k)⟩ (conserved when L is invariant and ξ_i lies in the distribution, A ξ_i = 0).
  double momentum(int i) const;

  /// The holonomic constraints' multipliers of the last step (η / h, as the holonomic DEL step's;
  /// empty without them) and g(q_k).
  const Vector& lambda() const { return lambda_; }
  Vector constraint_residual() const;
  // What the recorder's variational rows ask and does not apply here (no forces): empty.
  Vector control() const { return empty_; }
  double discrete_work(int) const { return 0.0; }

  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(q_), a(q_prev_), a(p_), a(nu_), a(mu_), a(eta_), a(lambda_), a(residual_), a(t0_), a(t_), a(step_index_);
    a(stats_.iterations), a(stats_.converged), a(stats_.residual_norm), a(stats_.first_update_norm);
    a(stats_.first_contraction), a(stats_.jacobian_evaluations);
    newton_.checkpoint_state(a);
  }

 private:
  struct StepSystem;

  const KernelModel* model_;
  int n_, r_, k_;
  Rule rule_kind_;
  double h_;
  NewtonOptions options_;
  DiscreteRule rule_;
  NewtonSolver<Eigen::Dynamic> newton_;
  // State.
  Vector q_, q_prev_, p_, q_next_, nu_, mu_, eta_, lambda_;
  double residual_ = 0.0, t0_ = 0.0, t_ = 0.0;
  long step_index_ = 0;
  NewtonStats stats_;
  // Workspace of the step (sized once).
  Vector d1_, mid_, w_, unit_, c_, g_next_, empty_, jacobian_row_;
  RowMatrix d12_, a_minus_, a_plus_, a_bar_, aw_q_, a_derivative_, dg_k_, dg_next_;
};

}  // namespace mechint::kernel
