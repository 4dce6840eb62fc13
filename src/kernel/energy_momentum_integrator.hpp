#pragma once
/// \file
/// The energy–momentum integrator of 003 §5 (eqs. 5.5–5.9) on a kernel model (src/kernel/kernel_model.hpp),
/// compiled once for every dimension, over storage sized once from the model's dimension. For a
/// model whose structure
/// (KernelModel::Structure) says L = ½ vᵀM v − V(q) with M constant and g at most quadratic:
///
///     M e + (h²/2)(𝔻V(q_n, q_{n+1}) + Dg(q_{n+½})ᵀ λ) = 0,   g(q_{n+1}) = 0     (003 eqs. 5.7–5.9)
///     q_{n+1} = q_n + d,  d = h M⁻¹p_n + e,   p_{n+1} = 2 M d / h − p_n         (003 eqs. 5.5–5.6)
///
/// solved by the one Newton solver for (e, μ = (h²/2)λ). From the kernels: M = ∂²L/∂v², and since
/// V(q) = −L(q, 0), ∇V = −∂L/∂q(q, 0) and ∇²V = −∂²L/∂q²(q, 0); the Jacobian's constraint term is the
/// table's curvature Σ μ_i ∂²g_i/∂q². 𝔻V is the midpoint gradient when the potential is at most
/// quadratic, Gonzalez's midpoint discrete gradient otherwise (003 eq. 5.3). `step()` never allocates.
///
/// 𝔻V is a discrete gradient (𝔻V·(q_{n+1} − q_n) = V(q_{n+1}) − V(q_n)), and for quadratic g the
/// midpoint gradient Dg(q_{n+½}) is an exact discrete gradient of g as well (003 eq. 5.7's λ-terms are
/// exactly h Dg(q_{n+½})ᵀ λ with 003's λ absorbing 2h). Energy: ½ p_{n+1}ᵀM⁻¹p_{n+1} − ½ p_nᵀM⁻¹p_n =
/// (p_{n+1} − p_n)·Δq/h = −ΔV − λ·Δg = −ΔV. Momentum J = p·ξ(q) for a linear symmetry ξ(q) = A q (A
/// skew, commuting with M) that leaves V and g invariant: J_{n+1} − J_n = −h (𝔻V + Dgᵀλ)·A q_{n+½} = 0
/// when 𝔻V = ∇V(q_{n+½}). With the Gonzalez correction J is kept only where the correction is
/// orthogonal to A q_{n+½} (not for Kepler's problem: tests/test_kernel_energy_momentum.cpp measures
/// its drift falling at the method's order; docs/rigid-body-and-dsp.md). Both hold to the tolerance
/// of the Newton solve.
///
/// Composition (DESIGN §10, `compose=`; 003 §6): the step is symmetric (exchanging (q_n, p_n) and
/// (q_{n+1}, p_{n+1}) and h ↦ −h leaves eqs. 5.5–5.9 and both discrete gradients unchanged), so the
/// composition Φ_{γ_m h} ∘ … ∘ Φ_{γ_1 h} with the coefficients of a symmetric composition of order r
/// (HLW V.3.2, Thm 3.1) has order r. With constraints the step flips p's component off the hidden
/// constraint, and the composition is one of half-step pairs Φ_{γh/2} ∘ Φ_{γh/2}
/// (integrate/energy_momentum_composition.hpp). Every sub-step keeps H and J as above, so the composed
/// step does too. Steps are confirmed as the variational integrator's are (integrate/step_check.hpp).

#include <vector>

#include "kernel/kernel_model.hpp"
#include "mechint/core/state_archive.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/solve/newton.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint::kernel {

class KernelEnergyMomentumIntegrator {
 public:
  /// `substeps`: the coefficients γ_1..γ_m (Σγ = 1) of a symmetric composition, each step then m
  /// sub-steps γ_i h (empty: the plain step). Throws InvalidInput when the model's structure does not
  /// admit the method.
  KernelEnergyMomentumIntegrator(const KernelModel& model, double h, NewtonOptions options = {},
                                 StepCheckOptions check = {}, std::vector<double> substeps = {});
  KernelEnergyMomentumIntegrator(const KernelEnergyMomentumIntegrator&) = delete;
  KernelEnergyMomentumIntegrator& operator=(const KernelEnergyMomentumIntegrator&) = delete;

  /// Start from (q0, q̇0) on the constraint manifold; p0 = M q̇0.
  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);

  /// One step (or the sub-steps of the composition). Throws NewtonFailure if the equations are not
  /// solved, RejectedStep if the confirmation by two half steps disagrees; the state is then the
  /// last good step's.
  void step();

  // ---- state (the stepper contract, integrate/stepper.hpp) -------------------------------------
  const Vector& q() const { return state_.q; }
  const Vector& p() const { return state_.p; }
  /// Multipliers λ of the last step: the constraint force −Dg(q_{n+½})ᵀλ.
  const Vector& lambda() const { return state_.lambda; }
  double time() const { return t_; }
  double step_size() const { return h_; }
  long step_index() const { return step_index_; }
  const KernelModel& model() const { return *model_; }
  int last_iterations() const { return last_iterations_; }
  long confirmed_steps() const { return confirmed_steps_; }

  Vector velocity() const { return mass_inverse_ * state_.p; }
  /// H = ½ pᵀM⁻¹p + V(q).
  double energy() const;
  /// J_i = p·ξ_i(q).
  double momentum(int i) const;
  Vector constraint_residual() const;

  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(state_.q), a(state_.p), a(state_.q_carry), a(state_.p_carry), a(state_.lambda), a(t0_), a(t_), a(step_index_);
    a(last_iterations_), a(total_iterations_), a(previous_step_), a(confirmed_steps_);
    newton_.checkpoint_state(a);
  }

 private:
  /// What a step changes (saved at its start, restored when it fails).
  struct State {
    Vector q, q_carry, p, p_carry, lambda;  // q and p with their Kahan compensations
  };
  /// Eq. 5.7 and g(q_{n+1}) = 0 for one (sub-)step from a state.
  struct StepEquations;

  double advance(State& state, double h, NewtonSolver<Eigen::Dynamic>& newton);
  double substep(State& state, double h, NewtonSolver<Eigen::Dynamic>& newton);
  void confirm_step(const State& start);
  double potential(const Vector& q) const;
  static void compensated_add(Vector& x, Vector& carry, const Vector& dx, Vector& scratch);

  const KernelModel* model_;
  int n_, k_;
  double h_;
  NewtonOptions options_;
  StepCheckOptions check_;
  std::vector<double> substeps_;  ///< the composition's γ_i (empty: plain steps)
  bool quadratic_potential_;
  NewtonSolver<Eigen::Dynamic> newton_, confirm_newton_;
  RowMatrix mass_, mass_inverse_;
  State state_, start_, half_;
  double t0_ = 0.0, t_ = 0.0;
  long step_index_ = 0;
  int last_iterations_ = 0;
  long total_iterations_ = 0;
  double previous_step_ = 0.0;  ///< ‖q_n − q_{n−1}‖∞ (at the start: ‖h q̇_0‖∞)
  long confirmed_steps_ = 0;
  // Workspace of a step (sized once).
  mutable LagrangianValues values_;
  mutable Vector zero_, gradient_;
  Vector explicit_d_, e_, d_, mu_, scaled_mu_, q1_, qm_, force_, g1_, increment_, scratch_, q_half_;
  RowMatrix dg_m_, dg_1_, curvature_;
  /// ∂²g_i/∂q², block i in rows [i n, (i + 1) n): constant, since the constraints are of degree at
  /// most 2 (energy_momentum_applies), so taken once at the start instead of by the model's
  /// curvature kernel at every Newton iteration.
  RowMatrix constraint_hessians_;
};

}  // namespace mechint::kernel
