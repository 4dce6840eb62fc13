#pragma once
/// \file
/// The Galerkin variational integrators (`vi-gauss4/6/8`, DESIGN §10) on a kernel model, and the
/// compositions of a symmetric one (`compose=`): the discrete Euler–Lagrange equations of the
/// Galerkin discrete Lagrangian (galerkin_tableau.hpp) in momentum form, a variational partitioned
/// Runge–Kutta method (Hairer–Lubich–Wanner VI.6.2, Thm 6.4; Marsden & West 2001 §2.6.6). One step
/// from (q0, p0) solves for the stage velocities V_1..V_s
///
///     ∂L/∂v(Q_i, V_i) = p0 + h Σ_j ā_ij P'_j,   Q_i = q0 + h Σ_j a_ij V_j,
///     P'_j = ∂L/∂q(Q_j, V_j) + f(Q_j, V_j, u, t0 + c_j h)                         (i = 1..s)
///
/// by the one Newton solver with the exact Jacobian from the kernels' Hessian blocks, then
///
///     q1 = q0 + h Σ_j b_j V_j,   p1 = p0 + h Σ_j b_j P'_j.
///
/// Forces enter by the discrete Lagrange–d'Alembert principle with the rule's own quadrature
/// (h Σ b_i f_i·δQ_i), so a Noether momentum J = p·ξ(q) of a linear symmetry changes over a step by
/// exactly h Σ_i b_i f_i·ξ(Q_i), its discrete work; unforced it is conserved to round-off, and the
/// step map is symplectic. The 1-stage Gauss rule is the midpoint rule's discrete Lagrangian, so
/// `vi-midpoint` composed (`compose=yoshida4…`) runs here with s = 1. `step()` allocates nothing.
///
/// Step acceptance (integrate/step_check.hpp, `check`): each (sub-)step's energy balance — the
/// quadrature mean of the energy over its stages, Ē = Σ b_i E(Q_i, V_i) (for s = 1 the midpoint
/// energy of the second-order rules), against the previous step's (in a composition, the same
/// sub-step's of the previous step: sub-steps of other lengths have other O(h²) offsets of that
/// energy) plus the forces' work between them, h Σ b_i f_i·V_i per sub-step — relative to the size of
/// the energy's terms. A step off by
/// more than `reject_energy` is a Newton root that is not the continuation of the motion (an acrobot
/// under a rough torque at h = 0.05 reached energies of 1e23 with exit 0 without it): RejectedStep.
///
/// Explicit steps (DESIGN §10): the 2-stage Lobatto IIIA–IIIB tableau (the trapezoid rule) on a model
/// with L = ½ vᵀM v + b·v − V(q), M and b constant (found at the start, kernel/separable.hpp), has
/// V_1 = V_2 and stage equations that are explicit: it is the Störmer–Verlet method (HLW VI.6.2
/// Example 6.2 applied to the trapezoid discrete Lagrangian, I.3 eq. (3.4) in momentum form),
///
///     V = M⁻¹(p0 + (h/2) L_q(q0) − b),   q1 = q0 + h V,   p1 = p0 + (h/2)(L_q(q0) + L_q(q1)),
///
/// one gradient of L per (sub-)step, L_q(q1) reused as the next sub-step's L_q(q0). It solves the
/// same equations as the Newton path, whose root it is up to round-off, so compositions of it are
/// the explicit symplectic methods of order 4–8. A model that supplies the whole step
/// (model_kernels.h, separable_step: the AD backend, a separable model file's C) takes it on its
/// side of the table with the same arithmetic and numbers. There is no root to choose between, but a
/// step can still fail to resolve the motion (a pole of the potential crossed in one step): the step
/// check keeps the same energy balance, Ē = ½VᵀMV − ½[L(q0, 0) + L(q1, 0)] (the stage mean for
/// V_1 = V_2 = V), one value of L per step (kernel/energy_jump_check.hpp). The Newton path stays for tracked deviations, step Jacobians and time
/// scales (their linearisations need the Hessians of the stages).

#include <functional>
#include <optional>

#include "kernel/chaos_indicators.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "kernel/kernel_model.hpp"
#include "kernel/separable.hpp"
#include "kernel/energy_jump_check.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/solve/newton.hpp"
#include "mechint/solve/runtime_lu.hpp"

namespace mechint::kernel {

using ControlLaw = std::function<void(double t, Vector& u)>;

class KernelGalerkinIntegrator {
 public:
  /// A model with holonomic constraints needs a Lobatto tableau (throws InvalidInput otherwise): the
  /// constraints hold at every node, their multipliers Λ_1..Λ_{s−1} are unknowns of the stage
  /// equations and Λ_s comes from the hidden constraint G(q1)v1 = 0 (SPARK/RATTLE type, Jay 1996).
  /// A composition applies its sub-steps γ_i h in turn within one step() (unconstrained models).
  KernelGalerkinIntegrator(const KernelModel& model, GalerkinTableau tableau, double h,
                           Composition composition = {}, NewtonOptions options = {}, StepCheckOptions check = {});
  KernelGalerkinIntegrator(const KernelGalerkinIntegrator&) = delete;
  KernelGalerkinIntegrator& operator=(const KernelGalerkinIntegrator&) = delete;

  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);
  void start_from_momentum(const Vector& q0, const Vector& p0, double t0 = 0.0);

  /// Controls of a forced model: held constant, or a law sampled at each sub-step's midpoint.
  void set_control(const Vector& u);
  void set_control_law(ControlLaw law);

  void step();
  /// The step h of the steps from now on (an output step of adjusted size, adapt=sundman).
  void set_step_size(double h);
  /// Runs the model in the fictive time τ of a Sundman transformation (kernel/sundman_transformation.hpp)
  /// with `base`'s time scale s(q): time() is then the physical time, advanced over each sub-step by
  /// h Σ b_j s(Q_j) (the method's own quadrature of t' = s(q) on the extended system, so of its
  /// order). A time scale that is not positive and finite at a stage stops the run (NumericalFailure).
  void set_time_scale(const KernelModel* base) { time_scale_ = base; }
  /// step(), and the Jacobian ∂(q1, p1)/∂(q0, p0) (2n x 2n) of the step map it took: the exact
  /// linearisation of the discrete flow by the implicit function theorem on the stage equations
  /// (the stage Jacobian at the converged stages), multiplied over the sub-steps of a composition.
  /// Symplectic for an unforced model: MᵀΩM = Ω to round-off (with constraints, on vectors tangent
  /// to the constrained phase space). Allocates (a diagnostic).
  Eigen::MatrixXd step_with_jacobian();

  /// Carries the deviation δ = (δq, δp) (2n, scaled to unit length) along the run: every step maps
  /// it by the exact tangent map (step_with_jacobian's linearisation applied to one vector: the stage
  /// Jacobian assembled and factored once more at the converged stages of each sub-step; no
  /// allocation), then renormalises it and adds its stretch to the chaos indicators
  /// (chaos_indicators.hpp). A later start restarts the indicators. With holonomic constraints the
  /// map includes the multipliers' response and the momentum projection (it needs the kernels'
  /// constraint curvature); its image is tangent to the constrained phase space, so a deviation is
  /// tangent to it from the first step on.
  void track_deviation(const Vector& delta);
  bool tracks_deviation() const { return tracking_; }
  /// δ after the last step (unit length), or as given before the first.
  const Vector& deviation() const { return deviation_; }
  const ChaosIndicators& indicators() const { return indicators_; }

  // ---- state (the stepper contract, integrate/stepper.hpp) -------------------------------------
  const Vector& q() const { return q_; }
  const Vector& p() const { return p_; }
  double time() const { return t_; }
  double step_size() const { return h_; }
  long step_index() const { return step_index_; }
  const KernelModel& model() const { return *model_; }
  const GalerkinTableau& tableau() const { return tableau_; }
  const Composition& composition() const { return composition_; }
  const NewtonStats& last_newton_stats() const { return stats_; }
  /// Whether the steps are the explicit Störmer–Verlet steps (class comment), decided at the start.
  bool explicit_steps() const { return explicit_.has_value(); }
  /// false: the next starts keep the Newton path even where the explicit one applies (a comparison).
  void allow_explicit_steps(bool allow) { allow_explicit_ = allow; }
  /// Whether the explicit steps are the model's own (model_kernels.h, separable_step: the same
  /// numbers, the step's values kept in registers), decided at the start: only with the step check
  /// off (check=off), whose energy balance needs the value of L at q1 the model's step does not give.
  bool model_takes_explicit_steps() const { return model_steps_itself_; }
  /// false: the next starts take the explicit steps here even where the model supplies its own (a
  /// comparison).
  void allow_model_explicit_steps(bool allow) { allow_model_step_ = allow; }
  /// Whether the Newton Jacobian takes L_qq alone from the model (a separable model: L_qv = 0 and
  /// L_vv = M kept from the start; the same numbers, less of the model's arithmetic), decided at the start.
  bool separable_jacobian() const { return separable_jacobian_; }
  /// false: the next starts ask the model for every Hessian block (a comparison).
  void allow_separable_jacobian(bool allow) { allow_separable_jacobian_ = allow; }

  Vector velocity() const;
  double energy() const;
  double momentum(int i) const;
  /// The control of the last step taken (of the next step before the first).
  Vector control() const;
  /// Σ over the steps taken of the change of J_i by the forces (h Σ b_i f_i·ξ_i(Q_i) per sub-step).
  double discrete_work(int i) const { return work_[i]; }
  /// The multipliers of the last step's end node (Λ_s; empty without constraints) and g(q).
  const Vector& lambda() const { return lambda_; }
  Vector constraint_residual() const;

  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(q_), a(p_), a(stages_), a(multipliers_), a(lambda_), a(t0_), a(t_), a(step_index_), a(last_h_), a(u_), a(u_previous_), a(work_);
    a(stats_.iterations), a(stats_.converged), a(stats_.residual_norm), a(stats_.jacobian_evaluations);
    newton_.checkpoint_state(a), a(factored_h_);
    for (EnergyBalance& balance : balances_) balance.checkpoint_state(a);
    for (EnergyJumpCheck& jumps : explicit_jumps_) jumps.reset();  // a resumed state: nothing to compare with
    if (balances_.size() > 1 && model_->forced()) a(substep_work_);
    a(deviation_), indicators_.checkpoint_state(a);
    a(force_now_), a(force_now_valid_);
    potential_now_valid_ = false;  // evaluated again at the next explicit step
  }

 private:
  struct StageSystem;
  struct MomentumProjection;

  void take_step(Eigen::MatrixXd* jacobian);
  /// Returns the sub-step's physical duration (h, or its time-scaled duration).
  /// `index`: the sub-step's place in the composition (its energy balance, check_energy_balance).
  double substep(double h, double t_start, Eigen::MatrixXd* jacobian, int index);
  void explicit_substep(double h, double t_start, int index);
  /// The explicit sub-step's energy balance (kernel/energy_jump_check.hpp), from L(q, 0) at its ends.
  void check_explicit_energy_balance(double t_end, int index);
  bool model_substep(double h);
  bool methods_substep(double h);
  double scaled_duration(double h, double t_start);
  void factor_linearisation(double h, double t_start);
  void factor_projection_linearisation(double t_end);
  /// Refuses (InvalidInput) a tangent map the model's kernels cannot give.
  void require_tangent_map() const;
  void apply_linearisation(double h, Vector& delta);
  void predict(double h);
  void accumulate_work(double h);
  void project_momentum(double h, double t_end);
  void check_energy_balance(double h, double t_end, int index);

  const KernelModel* model_;
  const KernelModel* time_scale_ = nullptr;
  GalerkinTableau tableau_;
  Composition composition_;
  int n_, s_, k_;
  double h_;
  NewtonOptions options_;
  StepCheckOptions check_;
  /// The step check's energy balance: one per sub-step of a composition, each comparing a sub-step
  /// with the same sub-step of the previous step (check_energy_balance).
  std::vector<EnergyBalance> balances_;
  /// The explicit sub-steps' (check_explicit_energy_balance): one per sub-step, as balances_.
  std::vector<EnergyJumpCheck> explicit_jumps_;
  Vector substep_work_;     ///< the forces' work of each sub-step, the latest of each (a forced composition)
  NewtonSolver<Eigen::Dynamic> newton_, projection_;
  double factored_h_ = 0.0;
  // State.
  Vector q_, p_;
  Vector stages_;  ///< V_1..V_s of the last sub-step (n·s), the predictor's data
  double t0_ = 0.0, t_ = 0.0, last_h_ = 0.0;
  long step_index_ = 0;
  NewtonStats stats_;
  Vector u_, u_previous_, work_;
  ControlLaw law_;
  // Workspace (sized once).
  Vector q_before_, predicted_, q_stages_, slopes_, u_step_, xi_;
  std::vector<LagrangianValues> values_;
  std::vector<RowMatrix> force_q_, force_v_, dg_stage_;
  std::vector<Vector> g_stage_;
  std::vector<double> stage_lagrangian_;  ///< L(Q_i, V_i) at the converged stages
  Vector multipliers_, lambda_, g_end_, mu_, v_end_, p_hat_;
  RowMatrix dg_end_;
  LagrangianValues end_values_;
  std::vector<Vector> force_;
  RowMatrix coupled_;
  // The explicit path: M⁻¹ and b when the model is separable, L_q at the current q (reused).
  bool allow_explicit_ = true;
  std::optional<SeparableKinetics> explicit_;
  bool allow_model_step_ = true;
  bool allow_separable_jacobian_ = true;
  std::optional<SeparableKinetics> end_velocity_predictor_;  ///< M⁻¹ and b for predict (Gauss nodes)
  Eigen::MatrixXd predictor_weights_;  ///< ℓ_j(1 + c_i·ratio), s x (s + 1), for the two below (predict)
  double predictor_ratio_ = 0.0;
  Eigen::Index predictor_nodes_ = 0;
  bool separable_jacobian_ = false;
  bool model_steps_itself_ = false;
  Vector force_now_, force_next_, explicit_rhs_, explicit_v_;
  bool force_now_valid_ = false;
  // The explicit steps' energy balance: L(q, 0) at the current q (reused), M V, a zero velocity.
  double potential_now_ = 0.0;
  bool potential_now_valid_ = false;
  /// L(q1, V) from the gradient the methods' explicit sub-step evaluates at q1 (methods_substep), from
  /// which the energy balance takes U(q1) without another evaluation; NaN after the model's own step,
  /// which returns no value of L.
  double lagrangian_next_ = 0.0;
  Vector zero_velocity_;
  // The tangent map of the last sub-step (factor_linearisation) and the tracked deviation.
  bool tracking_ = false;
  Vector deviation_;
  ChaosIndicators indicators_;
  Vector lin_q0_, lin_p0_, lin_residual_, lin_rhs_, lin_dv_, lin_hdq_, lin_dq0_, lin_dp0_, lin_dq_stage_, column_;
  Eigen::MatrixXd lin_jacobian_;
  /// Where the last StageSystem::assemble wrote F_V (null: it assembled the residual only).
  const Eigen::MatrixXd* last_assembled_jacobian_ = nullptr;
  RuntimeLu lin_lu_;
  // Constraints: whether the kernels give their curvature; K_j = ∂(G_jᵀΛ_j)/∂Q_j at the nodes
  // (StageSystem::assemble); the linearised momentum projection (factor_projection_linearisation).
  bool curvature_known_ = false;
  std::vector<RowMatrix> curvature_;
  Vector stage_weights_;  // the weights over j of one stage sum (h a_ij, h ā_ij, −h² ā_ij a_jk)
  RowMatrix end_curvature_, end_velocity_jacobian_;
  Vector unit_, stage_lambda_, projection_rhs_, projection_solution_, lin_dp_hat_, lin_dq1_;
  Eigen::MatrixXd projection_matrix_;
  RuntimeLu projection_lu_;
};

}  // namespace mechint::kernel
