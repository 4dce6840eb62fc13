#pragma once
/// \file
/// The variational integrator: discrete Euler–Lagrange equations with holonomic constraints,
/// stepped in position form or momentum form (DESIGN §1, 000 §4, 004 §III-A).
///
/// State after step k: q_k, the discrete momentum p_k = D2 Ld(q_{k−1}, q_k), the multipliers λ_{k−1}
/// of the step just taken. One step solves
///
///     p_k + D1 Ld(q_k, q_{k+1}) + Dg(q_k)^T λ_k = 0,   g(q_{k+1}) = 0      (000 eqs. 4.4–4.6)
///
/// by Newton (solve/del_newton.hpp) from the extrapolated guess 2q_k − q_{k−1}, then sets
/// p_{k+1} = D2 Ld(q_k, q_{k+1}) (discrete Legendre transform). In position form p_k is not carried
/// but recomputed from (q_{k−1}, q_k) at the start of every step, which is the DEL equation
/// D2 Ld(q_{k−1}, q_k) + D1 Ld(q_k, q_{k+1}) + Dg(q_k)^T λ_k = 0 as 000 writes it.
///
/// Forced models (model/forces.hpp, docs/forces.md): the step solves the forced DEL equations of the
/// discrete Lagrange–d'Alembert principle,
///
///     p_k + D1 Ld(q_k, q_{k+1}) + f⁻_k + Dg(q_k)^T λ_k = 0,   g(q_{k+1}) = 0,
///     p_{k+1} = D2 Ld(q_k, q_{k+1}) + f⁺_k,
///
/// with the control u_k of the step (`set_control`, or `set_control_law` sampled at the step's
/// midpoint t_k + h/2) held over [t_k, t_{k+1}], and accumulates the discrete work of the forces
/// along each symmetry generator, by which the Noether momentum changes (`discrete_work`,
/// `noether_balance`). Unforced systems compile to the step above, unchanged.
///
/// `step()` never allocates; failure to converge throws `NewtonFailure` naming the step, the time,
/// the residual and the iteration count, and leaves the state at the last good step.
///
/// Step confirmation (StepCheckOptions). Newton can converge to a root of the DEL equations that
/// is not the continuation of the motion: at a step far beyond what resolves the motion, the
/// equations have other solutions, and the one found is then a trajectory that gains energy or
/// jumps (the Kepler orbit at h = 3 escapes in one step while Newton contracts normally; at h = 2,
/// 1 and 0.5 Newton fails). A solution that continues the motion is the limit of the solutions at
/// smaller steps, so a step is confirmed by two steps of h/2 from the same state (q_k, p_k), each
/// from its own predictor and with full Newton: the step is rejected (`RejectedStep`, exit 3)
/// when these do not converge, or when they end farther from q_{k+1} than `max_ratio` times the
/// length of a step of the trusted motion: max(‖q_k − q_{k−1}‖, 2‖q_{k+½} − q_k‖, 2‖q̃_{k+1} − q_{k+½}‖,
/// 4‖q̃_{k+1} − 2q_{k+½} + q_k‖) (the previous step, the half steps and their second difference, the
/// motion of a step from rest; not the candidate, whose own length a far spurious root would
/// inflate), at least ten Newton tolerances. For a method of order r the two differ by
/// O(h^{r+1}), a small fraction of the O(h) motion of a step that resolves it (docs/trustworthy-runs.md
/// has the measured values). Confirmation costs about
/// two steps, so it runs on steps 1, 2, 4, … up to `every`, then every `every` steps, and on any step
/// that looks suspicious at no cost: Newton's first contraction θ₁ = ‖Δ₁‖/‖Δ₀‖ above
/// `trigger_contraction` (outside the region where Newton is known to converge to the root
/// nearest its guess) or a displacement that grew by more than `trigger_growth` in one step.
///
/// Explicit steps (DESIGN §10): the trapezoid rule in momentum form, on an unconstrained, unforced
/// model whose Lagrangian is L = ½ vᵀM v + b·v − V(q) with M and b constant (found at a start from
/// velocity or momentum, model/separable_lagrangian.hpp), has D1 Ld = (h/2) L_q(q_k) − (M v + b),
/// v = (q_{k+1} − q_k)/h, so that its DEL equation is explicit: it is the Störmer–Verlet method
/// (HLW VI.6.2 Example 6.2; I.3 eq. (3.4))
///
///     v = M⁻¹(p_k + (h/2) L_q(q_k) − b),   q_{k+1} = q_k + h v,   p_{k+1} = p_k + (h/2)(L_q(q_k) + L_q(q_{k+1})),
///
/// one gradient of L per step, the Newton root to round-off.
/// There is no root to choose between, so the step confirmation has nothing to reject and is not run.
/// `allow_explicit_steps(false)` keeps Newton (a comparison).

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "mechint/model/legendre.hpp"
#include "mechint/model/separable_lagrangian.hpp"
#include "mechint/model/start_on_manifold.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/discrete/discrete_forces.hpp"
#include "mechint/solve/del_newton.hpp"
#include "mechint/solve/newton.hpp"
#include "mechint/integrate/step_check.hpp"
#include "kernel/del_form.hpp"

namespace mechint {


template <DiscreteMechanicalSystem S>
class VariationalIntegrator {
 public:
  static constexpr int n = S::kDim;
  static constexpr int k = S::kNumConstraints;
  using Config = VecD<n>;
  using Model = std::remove_cvref_t<decltype(std::declval<const S&>().continuous_model())>;
  /// The system has discrete forces (docs/forces.md).
  static constexpr bool kForced = ForcedDiscreteSystem<S>;
  using Forcing = ForcingOf<S>;

  VariationalIntegrator(S system, double h, NewtonOptions options = {},
                        DelForm form = DelForm::kMomentum, StepCheckOptions check = {})
      : system_(std::move(system)), h_(h), form_(form), solver_(options), check_(check),
        confirm_solver_(full_newton(options)) {
    if (!(h > 0.0) || !std::isfinite(h))
      throw InvalidInput("step size h must be positive and finite, got " +
                                  format_number(h));
  }

  // ---- starts -------------------------------------------------------------------------------

  /// Start from (q0, q̇0): p0 = ∂L/∂q̇(q0, q̇0) (DESIGN §1).
  void start_from_velocity(const Config& q0, const Config& qdot0, double t0 = 0.0) {
    check_finite(q0, "q0");
    check_finite(qdot0, "initial velocity");
    check_on_manifold(q0);
    if constexpr (k > 0) check_start_velocity(constraint_jacobian(model(), q0), qdot0);
    reset(q0, lagrangian_dv(model(), q0, qdot0), q0 - h_ * qdot0, t0);
    detect_explicit_steps(q0, qdot0);
  }

  /// Start from (q0, p0), p0 the canonical momentum ∂L/∂q̇.
  void start_from_momentum(const Config& q0, const Config& p0, double t0 = 0.0) {
    check_finite(q0, "q0");
    check_finite(p0, "initial momentum");
    check_on_manifold(q0);
    const Config v0 = velocity_from_momentum(model(), q0, p0);
    reset(q0, p0, q0 - h_ * v0, t0);
    detect_explicit_steps(q0, v0);
  }

  /// Whether the steps are the explicit Störmer–Verlet steps (file comment), decided at the start.
  bool explicit_steps() const { return explicit_.on; }
  /// false: the next starts keep the Newton path even where the explicit one applies.
  void allow_explicit_steps(bool allow) { allow_explicit_ = allow; }

  /// Start from two points (q_{−1}, q_0) one step apart, as the position form of 000 does;
  /// t0 is the time of q_0.
  void start_from_two_points(const Config& q_prev, const Config& q0, double t0 = 0.0) {
    check_finite(q_prev, "q_{-1}");
    check_finite(q0, "q0");
    check_on_manifold(q_prev);
    check_on_manifold(q0);
    reset(q0, Config::Zero(), q_prev, t0);
    p_ = discrete_momentum(system_, q_prev, q0, forcing_before_start(), h_);
  }

  /// The start 000 §5.1 uses for its tables: an explicit Euler step q0 + h_f q̇0 at a fine step h_f
  /// (projected back onto the constraint manifold along Dg^T), then the integrator itself at h_f up
  /// to t0 + h, which gives the second point for the step h. h must be a multiple of h_f.
  void start_source_procedure(const Config& q0, const Config& qdot0, double fine_h, double t0 = 0.0) {
    if (!(fine_h > 0.0) || fine_h > h_)
      throw InvalidStart("fine start step must be in (0, h]");
    const long fine_steps = std::lround(h_ / fine_h);
    if (std::abs(fine_steps * fine_h - h_) > 1e-9 * h_)
      throw InvalidStart("h must be an integer multiple of the fine start step");
    check_finite(q0, "q0");
    check_finite(qdot0, "initial velocity");
    check_on_manifold(q0);
    VariationalIntegrator fine(system_, fine_h, solver_.options(), DelForm::kPosition, check_);
    if constexpr (kForced) fine.forced_ = forced_;
    Config q_euler = project_to_manifold(q0 + fine_h * qdot0);
    fine.reset(q_euler, Config::Zero(), q0, t0 + fine_h);
    fine.p_ = discrete_momentum(system_, q0, q_euler, fine.forcing_before_start(), fine_h);
    for (long i = 1; i < fine_steps; ++i) fine.step();
    start_from_two_points(q0, fine.q(), t0 + h_);
    // The state now is the second point at t0 + h; step index 1.
    step_index_ = 1;
  }

  // ---- stepping -----------------------------------------------------------------------------

  /// Advances one step of size h. Throws NewtonFailure if the DEL equations cannot be solved.
  /// Small, so that a loop of explicit steps inlines it; the Newton step is a call.
  void step() {
    if constexpr (kExplicitCandidate)
      if (explicit_.on) return explicit_step();
    newton_step();
  }

 private:
  [[gnu::noinline]] void newton_step() {
    const Forcing forcing = forcing_of_step();
    if (form_ == DelForm::kPosition) p_ = discrete_momentum(system_, q_prev_, q_, forcing_of_previous_step(), h_);
    if constexpr (kForced) {
      if (!forced_.balance_started) {
        forced_.momenta_at_start = noether_momenta(q_, p_);
        forced_.balance_started = true;
      }
    }
    constraints_and_jacobian(system_, q_, g_k_, dg_k_);
    q_next_ = 2.0 * q_ - q_prev_;
    stats_ = solver_.solve(system_, h_, q_, p_, dg_k_, forcing, q_next_, lambda_);
    if (!stats_.converged || !q_next_.allFinite())
      throw NewtonFailure(step_index_ + 1, t_ + h_, stats_.residual_norm, stats_.iterations);
    // The discrete forces of the step, once: the energy balance and the Noether balance use them.
    Config f_minus = Config::Zero(), f_plus = Config::Zero();
    if constexpr (kForced) discrete_forces(system_, q_, q_next_, forcing, h_, f_minus, f_plus);
    if (check_.enabled) {
      check_turns();
      const double energy_off = update_energy_balance(f_minus, f_plus);
      if (energy_off > check_.trigger_energy || should_confirm()) confirm_step(forcing);
      if (!(energy_off <= check_.reject_energy)) balance_.reject(step_index_ + 1, t0_ + (step_index_ + 1) * h_, energy_off);
    }
    if constexpr (kForced) accumulate_work(f_minus, f_plus);
    q_prev_ = q_;
    q_ = q_next_;
    if constexpr (requires { system_.wrap_periodic(q_prev_, q_); }) system_.wrap_periodic(q_prev_, q_);
    if (form_ == DelForm::kMomentum) p_ = discrete_momentum(system_, q_prev_, q_, forcing, h_);
    if constexpr (kForced) forced_.u_previous = forcing.u;
    ++step_index_;
    t_ = t0_ + step_index_ * h_;
    total_iterations_ += stats_.iterations;
    total_jacobians_ += stats_.jacobian_evaluations;
  }

 public:

  // ---- state and diagnostics ----------------------------------------------------------------

  const Config& q() const { return q_; }
  const Config& q_previous() const { return q_prev_; }
  /// Discrete momentum p_k = D2 Ld(q_{k−1}, q_k) (+ f⁺_{k−1} when forced; computed on demand in
  /// position form).
  Config p() const {
    return form_ == DelForm::kPosition && step_index_ > 0
               ? Config(discrete_momentum(system_, q_prev_, q_, forcing_of_previous_step(), h_))
               : p_;
  }
  /// Multipliers λ_{k−1} of the last step (000 eq. 4.6).
  const VecD<k>& lambda() const { return lambda_; }
  double time() const { return t_; }
  double step_size() const { return h_; }
  long step_index() const { return step_index_; }
  const NewtonStats& last_newton_stats() const { return stats_; }
  long total_newton_iterations() const { return total_iterations_; }
  /// Jacobians evaluated and factored since the start (fewer than iterations for simplified Newton).
  long total_jacobian_evaluations() const { return total_jacobians_; }
  DelForm form() const { return form_; }
  const StepCheckOptions& step_check() const { return check_; }
  /// Steps confirmed by two half steps since the start.
  long confirmed_steps() const { return confirmed_steps_; }
  const S& system() const { return system_; }
  const Model& model() const { return system_.continuous_model(); }

  /// Everything the next steps depend on (core/state_archive.hpp); the step size, form and options
  /// are the configuration the checkpoint's owner records.
  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(q_), a(q_prev_), a(p_), a(lambda_), a(t0_), a(t_), a(step_index_);
    a(stats_.iterations), a(stats_.converged), a(stats_.residual_norm), a(stats_.first_update_norm);
    a(stats_.first_contraction), a(stats_.jacobian_evaluations);
    a(total_iterations_), a(total_jacobians_), a(confirmed_steps_);
    balance_.checkpoint_state(a);
    solver_.checkpoint_state(a);
    confirm_solver_.checkpoint_state(a);
    a(explicit_.on), a(explicit_.kick);
    // A control law is configuration (a function the resumed run is given again), not state.
    if constexpr (kForced) {
      a(forced_.u), a(forced_.u_previous), a(forced_.work), a(forced_.momenta_at_start);
      a(forced_.balance_started);
    }
  }

  /// Velocity tangent to the constraint manifold recovered from p_k.
  Config velocity() const { return velocity_from_momentum(model(), q_, p(), (q_ - q_prev_) / h_); }
  /// Energy E(q_k, v_k).
  double energy() const { return mechint::energy(model(), q_, velocity()); }
  /// Discrete Noether momentum ⟨p_k, ξ_i(q_k)⟩, conserved to round-off (000 §3.3).
  double momentum(int i) const { return noether_momentum(model(), i, q_, p()); }

  // ---- forces and controls (forced systems) --------------------------------------------------

  static constexpr int kNumControls = [] {
    if constexpr (kForced) return S::kNumControls; else return 0;
  }();
  static constexpr int kNumSymmetries = Model::kNumSymmetries;
  using Control = VecD<kNumControls>;
  /// u(t), sampled at the midpoint t_k + h/2 of each step and held over the step.
  using ControlLaw = std::function<Control(double)>;

  /// The control u_k held over the following steps (replaces a control law).
  void set_control(const Control& u)
    requires kForced
  {
    if (!u.allFinite()) throw InvalidInput("control contains NaN or infinity");
    forced_.u = u;
    forced_.law = nullptr;
  }
  /// Controls as a function of time: step k holds u(t_k + h/2), the midpoint of the step, so that
  /// a smooth u(t) keeps the order 2 of the midpoint and trapezoid rules.
  void set_control_law(ControlLaw law)
    requires kForced
  {
    forced_.law = std::move(law);
  }
  /// The control of the last step taken (of the next step before the first).
  Control control() const
    requires kForced
  {
    return step_index_ > 0 ? forced_.u_previous : forcing_of_step().u;
  }
  /// Σ_j ⟨f⁻_j, ξ_i(q_j)⟩ + ⟨f⁺_j, ξ_i(q_{j+1})⟩ over the steps taken: the discrete work of the forces
  /// along generator i, by which the Noether momentum J_i changes (forced Noether theorem).
  double discrete_work(int i) const
    requires kForced
  {
    return forced_.work[i];
  }
  /// J_i(k) − J_i(0) − discrete_work(i): zero up to round-off. J_i(0) is the momentum the first
  /// step started from (in position form after a start from velocity that is ⟨D2 Ld(q_{−1}, q_0) +
  /// f⁺_{−1}, ξ_i(q_0)⟩, the momentum the position form propagates).
  double noether_balance(int i) const
    requires kForced
  {
    if (!forced_.balance_started) return 0.0;
    return momentum(i) - forced_.momenta_at_start[i] - forced_.work[i];
  }

  /// g(q_k).
  VecD<k> constraint_residual() const {
    VecD<k> g;
    Mat<k, n> dg;
    constraints_and_jacobian(system_, q_, g, dg);
    return g;
  }

  /// Newton projection of x onto g = 0 along Dg(x)^T (minimum-norm correction
  /// x ← x − Dgᵀ(Dg Dgᵀ)⁻¹g), until |g(x)|∞ < 1e-15 or 50 updates.
  Config project_to_manifold(Config x) const {
    if constexpr (k > 0) {
      struct Projection {
        const S& system;
        Config& x;
        VecD<k> g;
        Mat<k, n> dg;
        void assemble(VecD<k>& r, Mat<k, k>* gram) {
          constraints_and_jacobian(system, x, g, dg);
          r = g;
          if (gram) *gram = dg * dg.transpose();
        }
        double update(const VecD<k>& delta) {
          x -= dg.transpose() * delta;
          return 0.0;
        }
        bool converged_on_residual(const NewtonIterate& state) const { return state.residual_norm < 1e-15; }
        bool converged_on_update(const NewtonIterate&) const { return false; }
      } projection{system_, x, {}, {}};
      NewtonSolver<k> newton;
      newton.solve(projection, {.max_iterations = 50});
      // As the plain iteration did, a residual or update with NaN or infinity poisons the result.
      if (newton.last_stop() == NewtonStop::kNonFinite) x.setConstant(std::numeric_limits<double>::quiet_NaN());
    }
    return x;
  }

 private:
  static NewtonOptions full_newton(NewtonOptions options) {
    options.variant = NewtonVariant::kFull;
    return options;
  }

  /// Steps 1, 2, 4, … below `every`, every `every` steps, and the suspicious ones (step_check.hpp).
  bool should_confirm() const {
    return mechint::should_confirm(check_, step_index_ + 1, stats_.first_contraction,
                                   (q_next_ - q_).template lpNorm<Eigen::Infinity>(),
                                   (q_ - q_prev_).template lpNorm<Eigen::Infinity>());
  }

  /// One half step of the check, out of line: the Newton solve is inlined where it is called, and
  /// the check's two calls would otherwise be two more copies of it.
  [[gnu::noinline]] NewtonStats solve_half_step(const Config& q, const Config& p, const Mat<k, n>& dg,
                                                const Forcing& forcing, Config& q_next, VecD<k>& lambda) {
    return confirm_solver_.solve(system_, 0.5 * h_, q, p, dg, forcing, q_next, lambda);
  }

  /// Two steps of h/2 from (q_k, p_k), each from its own extrapolated guess; throws RejectedStep
  /// unless they converge and end within max_ratio step displacements of q_{k+1}.
  /// Forced: both half steps hold the step's control u_k; the second starts at t_k + h/2.
  void confirm_step(const Forcing& forcing) {
    ++confirmed_steps_;
    const double half = 0.5 * h_;
    VecD<k> lambda;
    Config q_half = q_ + 0.5 * (q_ - q_prev_);
    NewtonStats first = solve_half_step(q_, p_, dg_k_, forcing, q_half, lambda);
    Config q_two = 2.0 * q_half - q_;
    bool converged = first.converged && q_half.allFinite();
    if (converged) {
      const Config p_half = discrete_momentum(system_, q_, q_half, forcing, half);
      VecD<k> g_half;
      Mat<k, n> dg_half;
      constraints_and_jacobian(system_, q_half, g_half, dg_half);
      Forcing second_half = forcing;
      if constexpr (kForced) second_half.t += half;
      const NewtonStats second =
          solve_half_step(q_half, p_half, dg_half, second_half, q_two, lambda);
      converged = second.converged && q_two.allFinite();
    }
    // The scale of the motion, from what is trusted: the previous step, the two half steps (doubled
    // to a step's length) and their second difference (×4: h²·q̈, the motion of a step from rest or
    // at a turning point), not the candidate itself (a far spurious root would set its own scale);
    // at least ten times Newton's tolerance, below which the solutions are not resolved.
    const double motion = motion_scale<n>(q_, (q_ - q_prev_).template lpNorm<Eigen::Infinity>(), q_half, q_two,
                                          solver_.options().step_tolerance);
    const double ratio = (q_two - q_next_).template lpNorm<Eigen::Infinity>() / motion;
    judge_confirmation(converged, ratio, check_.max_ratio, step_index_ + 1, t0_ + (step_index_ + 1) * h_);
  }

  /// The trapezoid rule on an unconstrained, unforced model: a candidate for explicit steps.
  static constexpr bool kExplicitCandidate = [] {
    if constexpr (requires { typename S::QuadratureRule; })
      return std::is_same_v<typename S::QuadratureRule, TrapezoidRule> && k == 0 && !kForced;
    else
      return false;
  }();

  /// Explicit steps in momentum form when the Lagrangian is separable around the start.
  void detect_explicit_steps(const Config& q0, const Config& v0) {
    explicit_.on = false;
    if constexpr (kExplicitCandidate) {
      if (!allow_explicit_ || form_ != DelForm::kMomentum) return;
      Mat<n, n> mass;
      bool first = true;
      const bool separable = separable_around(q0, v0, [&](const Config& q, const Config& v) {
        const LagrangianDerivatives<n> l = lagrangian_second_derivatives(model(), q, v);
        if (!l.qv.allFinite() || !l.vv.allFinite() || !(l.qv.array() == 0.0).all()) return false;
        const bool same = first || l.vv == mass;
        if (first) mass = l.vv;
        first = false;
        return same;
      });
      const Eigen::FullPivLU<Mat<n, n>> lu(mass);
      if (!separable || !lu.isInvertible()) return;
      explicit_.mass_inverse = lu.inverse();
      explicit_.inverse_diagonal = explicit_.mass_inverse.diagonal();
      explicit_.mass = explicit_.mass_inverse == Mat<n, n>::Identity() ? MassKind::kUnit
                       : explicit_.mass_inverse == Mat<n, n>(explicit_.inverse_diagonal.asDiagonal())
                           ? MassKind::kDiagonal
                           : MassKind::kDense;
      explicit_.linear = lagrangian_dv(model(), q0, Config::Zero());
      explicit_.kick = p_ + (0.5 * h_) * lagrangian_dq(model(), q0, v0) - explicit_.linear;
      explicit_.on = explicit_.kick.allFinite() && explicit_.linear.allFinite();
      if (explicit_.on) stats_.converged = true;  // no Newton solve, from now on
    }
  }

  /// The Störmer–Verlet step of the file comment. The state changes only once L_q(q_{k+1}) is
  /// known and finite.
  ///
  /// It carries the half-kicked momentum k = p_k + (h/2) L_q(q_k) − b = M v_{k+½}, so that a step's
  /// chain of dependent operations is as short as the leapfrog's (drift, force, kick):
  /// q_{k+1} = q_k + h M⁻¹k, p_{k+1} = k + b + (h/2) L_q(q_{k+1}), the next k = k + h L_q(q_{k+1}).
  void explicit_step() {
    // M⁻¹k: each product is one more operation on the step's chain, so a unit or diagonal M saves it.
    const Config v = explicit_.mass == MassKind::kUnit       ? explicit_.kick
                     : explicit_.mass == MassKind::kDiagonal ? Config(explicit_.inverse_diagonal.cwiseProduct(explicit_.kick))
                                                             : Config(explicit_.mass_inverse * explicit_.kick);
    const Config q1 = q_ + h_ * v;
    const Config force1 = lagrangian_dq(model(), q1, v);
    if (!force1.allFinite() || !q1.allFinite()) [[unlikely]]
      throw NewtonFailure(step_index_ + 1, t_ + h_, std::numeric_limits<double>::quiet_NaN(), 0);
    p_ = explicit_.kick + explicit_.linear + (0.5 * h_) * force1;
    explicit_.kick += h_ * force1;
    q_prev_ = q_;
    q_ = q1;
    ++step_index_;
    t_ = t0_ + step_index_ * h_;
  }

  void reset(const Config& q0, const Config& p0, const Config& q_prev, double t0) {
    q_ = q0;
    p_ = p0;
    q_prev_ = q_prev;
    lambda_.setZero();
    t0_ = t0;
    t_ = t0;
    step_index_ = 0;
    total_iterations_ = 0;
    total_jacobians_ = 0;
    confirmed_steps_ = 0;
    stats_ = {};
    balance_.reset();
    explicit_.on = false;  // a start from velocity or momentum decides again
    if constexpr (kForced) {
      forced_.work.setZero();
      forced_.momenta_at_start.setZero();
      forced_.balance_started = false;
    }
  }

  /// u_k and t_k of the step from the current state (NoForcing for an unforced system).
  Forcing forcing_of_step() const {
    if constexpr (kForced)
      return {forced_.law ? forced_.law(t_ + 0.5 * h_) : forced_.u, t_};
    else
      return {};
  }
  /// u_{k−1} and t_{k−1} of the step that ended at q_k: the force f⁺_{k−1} of the position form's
  /// momentum. Before the first step, the step before the start (see `forcing_before_start`).
  Forcing forcing_of_previous_step() const {
    if constexpr (kForced) {
      if (step_index_ == 0) return forcing_before_start();
      return {forced_.u_previous, t_ - h_};
    } else {
      return {};
    }
  }
  /// The fictitious step [t0 − h, t0] of a two-point start: the control law at t0 − h/2, or the
  /// control set for the first step.
  Forcing forcing_before_start() const {
    if constexpr (kForced)
      return {forced_.law ? forced_.law(t_ - 0.5 * h_) : forced_.u, t_ - h_};
    else
      return {};
  }

  /// ⟨p, ξ_i(q)⟩ for every symmetry.
  VecD<kNumSymmetries> noether_momenta(const Config& q, const Config& p) const {
    VecD<kNumSymmetries> j;
    for (int i = 0; i < Model::kNumSymmetries; ++i) j[i] = noether_momentum(model(), i, q, p);
    return j;
  }

  /// The energy balance of the step just solved (q_ to q_next_, discrete forces f⁻, f⁺) against the
  /// previous one's (EnergyBalance in integrate/step_check.hpp).
  double update_energy_balance(const Config& f_minus, const Config& f_plus) {
    const Config q_mid = 0.5 * (q_ + q_next_), v_mid = (q_next_ - q_) / h_;
    const auto [energy, size] = energy_and_size(model(), q_mid, v_mid);
    // F·Δq over the step: (f⁻ + f⁺)·Δq / h for the discrete forces (0 for an unforced system).
    const double work = kForced ? (f_minus + f_plus).dot(q_next_ - q_) / h_ : 0.0;
    return balance_.update(energy, size, work, check_);
  }

  /// Rejects the step q_ → q_next_ when it turns an angle L depends on by more than half a turn
  /// (turns_more_than_half in integrate/step_check.hpp); L's gradient only when one turns so far.
  void check_turns() const {
    for (int i = 0; i < n; ++i) {
      const double change = q_next_[i] - q_[i];
      if (!turns_more_than_half(check_, i, change)) continue;
      const Config q_mid = 0.5 * (q_ + q_next_), v_mid = (q_next_ - q_) / h_;
      if (lagrangian_second_derivatives(model(), q_mid, v_mid).q[i] != 0.0)
        reject_turn(step_index_ + 1, t0_ + (step_index_ + 1) * h_, i, change);
    }
  }

  /// Forced Noether theorem: J_i(k+1) − J_i(k) = ⟨f⁻_k, ξ_i(q_k)⟩ + ⟨f⁺_k, ξ_i(q_{k+1})⟩ (the
  /// invariance of Ld gives ⟨D1 Ld, ξ(q_k)⟩ + ⟨D2 Ld, ξ(q_{k+1})⟩ = 0, and Dg ξ = 0 removes λ).
  void accumulate_work(const Config& f_minus, const Config& f_plus) {
    if constexpr (Model::kNumSymmetries > 0) {
      for (int i = 0; i < Model::kNumSymmetries; ++i)
        forced_.work[i] += f_minus.dot(model_symmetry_generator(model(), i, q_)) +
                           f_plus.dot(model_symmetry_generator(model(), i, q_next_));
    } else {
      (void)f_minus, (void)f_plus;
    }
  }

  static void check_finite(const Config& x, const char* what) {
    if (!x.allFinite()) throw InvalidStart(std::string(what) + " contains NaN or infinity");
  }

  void check_on_manifold(const Config& q) const {
    if constexpr (k > 0) {
      VecD<k> g;
      Mat<k, n> dg;
      constraints_and_jacobian(system_, q, g, dg);
      check_start_position(g, dg, q);
    }
  }

  S system_;
  double h_;
  /// The previous step's midpoint energy balance (step_check.hpp).
  EnergyBalance balance_;
  DelForm form_;
  DelNewtonSolver<S> solver_;
  StepCheckOptions check_;
  DelNewtonSolver<S> confirm_solver_;  // full Newton at h/2, its own kept state
  long confirmed_steps_ = 0;
  Config q_ = Config::Zero(), q_prev_ = Config::Zero(), p_ = Config::Zero(), q_next_;
  VecD<k> lambda_ = VecD<k>::Zero();
  VecD<k> g_k_;
  Mat<k, n> dg_k_;
  NewtonStats stats_;
  double t0_ = 0.0, t_ = 0.0;
  long step_index_ = 0;
  long total_iterations_ = 0;
  long total_jacobians_ = 0;
  /// The explicit path's M⁻¹, b and L_q(q_k) (file comment).
  enum class MassKind { kUnit, kDiagonal, kDense };
  struct ExplicitSteps {
    bool on = false;
    MassKind mass = MassKind::kDense;
    Mat<n, n> mass_inverse = Mat<n, n>::Identity();
    Config inverse_diagonal = Config::Ones(), linear = Config::Zero();
    Config kick = Config::Zero();  ///< p_k + (h/2) L_q(q_k) − b
  };
  bool allow_explicit_ = true;
  ExplicitSteps explicit_;

  /// The controls of a forced system (the one set, or a law of time; the one of the last step) and
  /// its Noether balance (the discrete work along each generator, the momenta of the first step).
  struct ForcedState {
    Control u = Control::Zero();
    ControlLaw law;
    Control u_previous = Control::Zero();
    VecD<kNumSymmetries> work = VecD<kNumSymmetries>::Zero();
    VecD<kNumSymmetries> momenta_at_start = VecD<kNumSymmetries>::Zero();
    bool balance_started = false;  // momenta_at_start taken (by the first step after a start)
  };
  struct Unforced {};
  [[no_unique_address]] std::conditional_t<kForced, ForcedState, Unforced> forced_;
};

}  // namespace mechint
