#pragma once
/// \file
/// `adapt=energy` (DESIGN §10): the symplectic-energy-momentum midpoint rule of Kane, Marsden &
/// Ortiz (1999), the step size h_k an unknown of the step. Their variational principle over
/// positions and times gives, beside the discrete Euler–Lagrange equations, the conservation of the
/// discrete energy E_k = −∂L_d/∂h (q_k, q_{k+1}, h_k); for the midpoint rule,
/// L_d = h L(Q, V) with Q = (q_k + q_{k+1})/2 and V = (q_{k+1} − q_k)/h, it is E(Q, V) = V·L_v − L at
/// the midpoint. In momentum form a step from (q_k, p_k) solves for (V, h > 0)
///
///     L_v(Q, V) − (h/2) L_q(Q, V) = p_k,     E(Q, V) = E_d,     Q = q_k + (h/2) V,
///
/// then q_{k+1} = q_k + h V, p_{k+1} = L_v(Q, V) + (h/2) L_q(Q, V): the midpoint rule at the step h
/// that keeps E_d. E_d is the discrete energy of the first step, taken at the nominal h (the
/// equation has h = 0 for a root and no information at the start). E(Q, V) − E(q_k, v_k) is about
/// c h² with c set by the local motion, so the steps follow it: short where |c| is large (a
/// pericentre passage), long where it is small. The Noether momenta of the model's symmetries are
/// conserved (the step is the midpoint rule's).
///
/// The step size is found by the secant method on u = h² (E(Q, V) − E(q_k, v_k) ≈ c h²: nearly
/// linear in u), each evaluation the midpoint rule's Newton at that h. Fallback: where the equation
/// has no root near the previous step (the secant fails, or its h leaves [h_{k−1}/4, 4 h_{k−1}] or
/// [h/64, 64 h] of the nominal h: a turning point of E(h), or a far root that is not the continuation
/// of the step sizes), the step is the midpoint rule's at h_{k−1} and is counted (`fallbacks()`, the
/// `energy_fallbacks` column): never silently. Rows at the requested times come from a midpoint step
/// of the size that ends there, taken aside from the trajectory (as adapt=sundman's land=aside).
/// Unconstrained models without forces.

#include "kernel/energy_jump_check.hpp"
#include "kernel/kernel_model.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

class KernelEnergyStepIntegrator {
 public:
  /// `h` is the nominal step: the first step's, and what E_d is measured at.
  KernelEnergyStepIntegrator(const KernelModel& model, double h, NewtonOptions options = {});
  KernelEnergyStepIntegrator(const KernelEnergyStepIntegrator&) = delete;
  KernelEnergyStepIntegrator& operator=(const KernelEnergyStepIntegrator&) = delete;

  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);
  /// One step of its own toward t (never past it; exactly t once reached).
  void step_toward(double t);

  double time() const { return showing_aside_ ? aside_t_ : t_; }
  long step_index() const { return steps_; }
  const KernelModel& model() const { return *model_; }
  const Vector& q() const { return showing_aside_ ? aside_q_ : q_; }
  const Vector& p() const { return showing_aside_ ? aside_p_ : p_; }
  Vector velocity() const;
  /// E(q, v) at the row (a node): within O(h²) of the discrete energy, which the steps keep.
  double energy() const;
  double momentum(int i) const;
  Vector lambda() const { return Vector(); }
  Vector constraint_residual() const { return Vector(); }
  double discrete_work(int) const { return 0.0; }
  Vector control() const { return Vector(); }
  /// E_d, and the discrete energy of the trajectory's last step (equal to E_d to Newton's tolerance
  /// unless that step fell back).
  double discrete_energy() const { return target_; }
  double last_discrete_energy() const { return last_energy_; }
  double last_step_size() const { return h_; }
  /// How far a step may be from the nominal one, either way: bounds the cost of a run to kMaxRange
  /// times that of the nominal step, whatever the steps do (they collapse where the energy equation
  /// has no root near them, and a fallback keeps the last size).
  static constexpr double kMaxRange = 64.0;
  /// Steps that fell back to the previous step size (class comment).
  long fallbacks() const { return fallbacks_; }

  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(q_), a(p_), a(v_), a(t_), a(h_), a(target_), a(last_energy_), a(steps_), a(fallbacks_), a(started_);
    a(previous_q_), a(previous_p_), a(previous_v_), a(previous_t_), a(aside_q_), a(aside_p_), a(aside_v_), a(aside_t_),
        a(showing_aside_);
    energy_jumps_.reset();  // a resumed state has no previous step to compare with
  }

 private:
  struct StepSystem;
  /// The midpoint velocity V of a step of size h from (q0, p0), v the first guess; false when Newton
  /// does not converge to finite values.
  bool solve(const Vector& q0, const Vector& p0, Vector& v, double h);
  /// E(Q, V) of the step of size h with midpoint velocity v, and the size of its terms.
  double midpoint_energy(const Vector& q0, const Vector& v, double h, double* size);
  /// The step size that keeps E_d (into h and v_); false when there is none near h_.
  bool energy_step(double& h);
  /// q1, p1 of the step solved, and its discrete energy E(Q, V).
  /// The step's end (q1, p1) and its midpoint energy; the size of the energy's terms into `size`.
  double finish(const Vector& q0, const Vector& v, double h, Vector& q1, Vector& p1, double* size = nullptr);
  void trajectory_step();
  void land(double t);

  const KernelModel* model_;
  int n_;
  double nominal_h_;
  NewtonOptions options_;
  NewtonSolver<Eigen::Dynamic> newton_;
  // State.
  Vector q_, p_, v_;  ///< the node and the last step's midpoint velocity (the next predictor)
  double t_ = 0.0, h_ = 0.0, target_ = 0.0, last_energy_ = 0.0;
  long steps_ = 0, fallbacks_ = 0;
  bool started_ = false;
  /// A fallback step keeps no energy by construction: it is held to the energy balance of the
  /// midpoint rule (kernel/energy_jump_check.hpp), as every step is (one that keeps E_d passes).
  EnergyJumpCheck energy_jumps_;
  Vector previous_q_, previous_p_, previous_v_;
  double previous_t_ = 0.0;
  Vector aside_q_, aside_p_, aside_v_;
  double aside_t_ = 0.0;
  bool showing_aside_ = false;
  // Workspace.
  LagrangianValues values_;
  Vector midpoint_, q1_, p1_, saved_v_;
};

}  // namespace mechint::kernel
