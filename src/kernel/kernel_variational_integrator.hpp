#pragma once
/// \file
/// The variational integrator on a kernel model (src/kernel/kernel_model.hpp), compiled once for
/// every dimension: the discrete Euler–Lagrange equations with holonomic constraints and forces, in
/// momentum or position form (DESIGN §1, 000 §4, 004 §III-A), over storage sized once from the
/// model's dimension. State after step k: q_k, the discrete momentum p_k = D2 Ld(q_{k−1}, q_k), the
/// multipliers λ_{k−1} of the step just taken. One step solves
///
///     p_k + D1 Ld(q_k, q_{k+1}) + f⁻_k + Dg(q_k)ᵀ λ_k = 0,   g(q_{k+1}) = 0      (000 eqs. 4.4–4.6)
///     p_{k+1} = D2 Ld(q_k, q_{k+1}) + f⁺_k
///
/// by the one Newton solver (solve/newton.hpp) from the extrapolated guess 2q_k − q_{k−1}. In
/// position form p_k is not carried but recomputed from (q_{k−1}, q_k) at the start of every step,
/// which is the DEL equation D2 Ld(q_{k−1}, q_k) + D1 Ld(q_k, q_{k+1}) + Dg(q_k)ᵀ λ_k = 0 as 000
/// writes it. `step()` never allocates (tests/test_kernel_integrators.cpp counts); a failure to
/// converge throws `NewtonFailure` naming the step, the time, the residual and the iteration count,
/// and leaves the state at the last good step.
///
/// The bordered system is row-scaled as 000 eqs. 4.15–4.18: the momentum rows are multiplied by h and
/// the unknown multiplier is ν = hλ, so the Jacobian [[h (D12 Ld + ∂f⁻/∂q_{k+1}), Dg(q_k)ᵀ],
/// [Dg(q_{k+1}), 0]] (000 eq. 4.14, scaled) has entries of the size of the mass matrix and of Dg,
/// independent of h (Ld contains h, so D12 Ld ~ M/h). Stopping rule: ‖R‖∞ ≤ residual_tolerance·
/// (1 + ‖h p_k‖∞), or ‖Δq‖∞ ≤ step_tolerance·(1 + ‖q‖∞) (simplified Newton: through the contraction
/// estimate θ/(1 − θ)·‖Δq‖).
///
/// Forced models (docs/forces.md): the forced DEL equations of the discrete Lagrange–d'Alembert
/// principle above, with the control u_k of the step (`set_control`, or `set_control_law` sampled at
/// the step's midpoint t_k + h/2) held over [t_k, t_{k+1}]; the discrete work of the forces along each
/// symmetry generator, by which the Noether momentum changes, is accumulated (`discrete_work`).
///
/// Step confirmation (StepCheckOptions, integrate/step_check.hpp). Newton can converge to a root of
/// the DEL equations that is not the continuation of the motion: at a step far beyond what resolves
/// the motion the equations have other solutions (the Kepler orbit at h = 3 escapes in one step while
/// Newton contracts normally). A solution that continues the motion is the limit of the solutions at
/// smaller steps, so a step is confirmed by two steps of h/2 from the same state (q_k, p_k), each from
/// its own predictor and with full Newton: the step is rejected (`RejectedStep`, exit 3) when these
/// do not converge, or when they end farther from q_{k+1} than `max_ratio` times the length of a step
/// of the trusted motion, max(‖q_k − q_{k−1}‖, 2‖q_{k+½} − q_k‖, 2‖q̃_{k+1} − q_{k+½}‖,
/// 4‖q̃_{k+1} − 2q_{k+½} + q_k‖), at least ten Newton tolerances. For a method of order r the two
/// differ by O(h^{r+1}), a small fraction of the O(h) motion of a step that resolves it
/// (docs/trustworthy-runs.md has the measured values). Confirmation costs about two steps, so it
/// runs on steps 1, 2, 4, … up to `every`, then every `every` steps, and on any step that looks
/// suspicious at no cost: Newton's first contraction above `trigger_contraction` or a displacement
/// that grew by more than `trigger_growth` in one step.
///
/// The step is one body over the dimension `N`: Eigen::Dynamic for every model, or n itself for an
/// unconstrained model of n ≤ 4 coordinates (forced or not) — the short models' fast path
/// (docs/performance-history.md, "A step sized at compile time"). The state stays in runtime-sized vectors;
/// the step sees them through maps of size N and solves with a Newton solver of size N, which changes
/// no operation and no order of the arithmetic, only what the compiler knows. The choice is made once,
/// at construction.

#include <functional>
#include <limits>
#include <variant>

#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_legendre.hpp"
#include "mechint/core/state_archive.hpp"
#include "mechint/integrate/step_check.hpp"
#include "kernel/del_form.hpp"
#include "kernel/sized_newton.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

/// The controls over time: fills u (sized num_controls) at time t.
using ControlLaw = std::function<void(double t, Vector& u)>;

class KernelVariationalIntegrator {
 public:
  KernelVariationalIntegrator(const KernelModel& model, Rule rule, double h, NewtonOptions options = {},
                              DelForm form = DelForm::kMomentum, StepCheckOptions check = {});
  KernelVariationalIntegrator(const KernelVariationalIntegrator&) = delete;
  KernelVariationalIntegrator& operator=(const KernelVariationalIntegrator&) = delete;

  // ---- starts ----------------------------------------------------------------------------------
  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);
  void start_from_momentum(const Vector& q0, const Vector& p0, double t0 = 0.0);
  void start_from_two_points(const Vector& q_prev, const Vector& q0, double t0 = 0.0);
  void start_source_procedure(const Vector& q0, const Vector& qdot0, double fine_h, double t0 = 0.0);

  /// Controls of a forced model: held constant, or a law sampled at each step's midpoint.
  void set_control(const Vector& u);
  void set_control_law(ControlLaw law);

  /// Moves the pair (q_{k−1}, q_k) to the canonical representatives of a chart's periodic
  /// coordinates after each step (discrete/chart.hpp, wrap_periodic); the motion is unchanged.
  using PeriodicWrap = std::function<void(Vector& previous, Vector& current)>;
  void set_periodic_wrap(PeriodicWrap wrap) { wrap_ = std::move(wrap); }

  void step();

  // ---- state (the stepper contract, integrate/stepper.hpp) -------------------------------------
  const Vector& q() const { return q_; }
  /// q_{k−1}: the configuration one step back (after a start from two points, the first of them).
  const Vector& q_previous() const { return q_prev_; }
  /// p_k. In position form computed from the last step (D2 Ld + f⁺), once per state.
  const Vector& p() const;
  const Vector& lambda() const { return lambda_; }
  double time() const { return t_; }
  double step_size() const { return h_; }
  long step_index() const { return step_index_; }
  const KernelModel& model() const { return *model_; }
  const NewtonStats& last_newton_stats() const { return stats_; }
  /// Newton iterations of every step since the start (a start's own solves not counted).
  long total_newton_iterations() const { return total_iterations_; }
  long confirmed_steps() const { return confirmed_steps_; }

  /// The velocity whose Legendre transform is p(), once per state (a row asks for it and its energy).
  const Vector& velocity() const;
  double energy() const;
  double momentum(int i) const;
  Vector constraint_residual() const;
  /// The control of the last step taken (of the next step before the first).
  Vector control() const;
  double discrete_work(int i) const { return work_[i]; }

  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(q_), a(q_prev_), a(p_), a(lambda_), a(t0_), a(t_), a(step_index_);
    a(stats_.iterations), a(stats_.converged), a(stats_.residual_norm), a(stats_.first_update_norm);
    a(stats_.first_contraction), a(stats_.jacobian_evaluations);
    a(total_iterations_), a(confirmed_steps_);
    balance_.checkpoint_state(a);
    std::visit([&](auto& newton) { newton.checkpoint_state(a); }, newton_);
    a(factored_h_);
    a(u_), a(u_previous_), a(work_), a(momenta_at_start_), a(balance_started_);
    forget_diagnostics();
  }

 private:
  struct Forcing {
    const Vector* u = nullptr;
    double t = 0.0;
  };
  /// The bordered DEL system of one step (solve/del_newton.hpp's, runtime-sized; `N`, `K`: the
  /// dimension and the number of constraints when known at compile time, the short models' fast path).
  template <int N, int K>
  struct DelSystem;
  /// The size of the step's Newton solver at sizes (N, K): N on the unconstrained fast path, else
  /// runtime-sized. A constrained step keeps the runtime-sized solver: its LU (solve/runtime_lu.hpp)
  /// is bit for bit Eigen's runtime-sized one, which Eigen's fixed-size LU of 4 and 5 unknowns is not
  /// (it changed the rigid body's and the spherical pendulum's motions in the last bit), and costs
  /// little at these sizes.
  template <int N, int K>
  static constexpr int kStepUnknowns = (N == Eigen::Dynamic || K != 0) ? Eigen::Dynamic : N;
  /// The step's Newton solver (kStepUnknowns).
  using StepNewton = SizedNewton;
  static StepNewton step_newton_of(int n, int k);

  /// The step at sizes (N, K) (the one body of `step()`, chosen once: `step_`).
  template <int N, int K>
  void step_sized();
  /// Solves one (half) step into q_next, lambda and `stats` — written in place, not returned: a
  /// returned NewtonStats is copied by wide loads over the narrow stores that just wrote it, which the
  /// store buffer cannot forward (a stall of about 10 % of a short model's step; docs/performance-history.md).
  template <int N, int K>
  [[gnu::always_inline]] inline void solve(NewtonSolver<kStepUnknowns<N, K>>& newton, bool step_solver, double h,
                                           const Vector& q_k, const Vector& p_k, const RowMatrix& dg_k,
                                           Forcing forcing, Vector& q_next, Vector& lambda, NewtonStats& stats);
  /// The solve by the integrator's own Newton (not the model's): out of line, so that the model's
  /// step does not pay its prologue.
  template <int N, int K>
  [[gnu::noinline]] void solve_here(NewtonSolver<kStepUnknowns<N, K>>& newton, bool step_solver, const NewtonOptions& options, double h,
                                    const Vector& q_k, const Vector& p_k, const RowMatrix& dg_k, Forcing forcing,
                                    Vector& q_next, Vector& lambda, NewtonStats& stats);
  /// Whether a solve with these options is the model's own (model_kernels.h, discrete_step): full
  /// Newton on an unconstrained model that solves its rule's steps; simplified Newton keeps its
  /// factorization here, across steps.
  bool steps_by_model(const NewtonOptions& options) const {
    return k_ == 0 && options.variant == NewtonVariant::kFull && rule_.steps_itself();
  }
  template <int N = Eigen::Dynamic>
  void discrete_momentum(const Vector& q0, const Vector& q1, Forcing forcing, double h, Vector& p) const;
  void reset(const Vector& q0, const Vector& p0, const Vector& q_prev, double t0);
  /// The forcing of the step being taken (none for an unforced model, without a call).
  Forcing forcing_of_step() const { return model_->forced() ? forced_step_forcing() : Forcing{}; }
  Forcing forced_step_forcing() const;
  Forcing forcing_of_previous_step() const;
  Forcing forcing_before_start() const;
  void check_on_manifold(const Vector& q) const;
  Vector project_to_manifold(Vector x) const;
  template <int N>
  bool should_confirm() const;
  template <int N, int K>
  void confirm_step(Forcing forcing);
  template <int N>
  [[gnu::always_inline]] inline void check_turns();
  [[gnu::noinline]] void judge_turn(int i, double change);
  template <int N>
  double update_energy_balance();
  void accumulate_work();
  Vector noether_momenta(const Vector& q, const Vector& p) const;
  /// The state changed: p() and velocity() are computed again when next asked for.
  void forget_diagnostics() const { diagnostics_.has_p = diagnostics_.has_velocity = false; }

  const KernelModel* model_;
  int n_, k_;
  double h_;
  DelForm form_;
  NewtonOptions options_;
  NewtonOptions confirm_options_;  ///< full Newton: a confirmation's half steps
  StepCheckOptions check_;
  mutable DiscreteRule rule_;  // workspace, also of the const diagnostics
  StepNewton newton_;
  StepNewton confirm_newton_;  ///< of the confirmations (full Newton), of the step's size
  void (KernelVariationalIntegrator::*step_)();
  double factored_h_ = 0.0;
  // State.
  Vector q_, q_prev_, p_, q_next_, lambda_;
  Vector p_next_;  ///< p_{k+1} from the model's own step (p_ is p_k until the step check is done)
  double t0_ = 0.0, t_ = 0.0;
  long step_index_ = 0, total_iterations_ = 0, confirmed_steps_ = 0;
  NewtonStats stats_;
  EnergyBalance balance_;  ///< of the previous step (integrate/step_check.hpp)
  // Forces and controls.
  Vector u_, u_previous_, work_, momenta_at_start_;
  /// The law's values for the step being taken and for the step before the start.
  mutable Vector u_law_, u_law_before_;
  PeriodicWrap wrap_;
  ControlLaw law_;
  bool balance_started_ = false;
  // Workspace of the step (sized once).
  mutable Vector f_minus_, f_plus_;
  Vector g_k_, g_next_, d1_, nu_, q_half_, q_two_, p_half_, lambda_half_, xi_, xi_next_;
  Vector step_f_minus_, step_f_plus_;  ///< the discrete forces of the step being taken
  Vector energy_gradient_, mid_, vel_;
  RowMatrix dg_k_, dg_next_, dg_half_, d12_, df_minus_;
  // The diagnostics of the current state (p in position form, the velocity), kept until it changes.
  struct StateDiagnostics {
    bool has_p = false, has_velocity = false;
    Vector p, velocity;
  };
  mutable Vector vel_guess_, xi_row_;  ///< the rows' workspace
  mutable StateDiagnostics diagnostics_;
  mutable LegendreWorkspace legendre_;
};

}  // namespace mechint::kernel
