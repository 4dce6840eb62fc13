#pragma once
/// \file
/// Energy–momentum integrator of 003 §5 (eqs. 5.5–5.9), written for any model with a constant mass
/// matrix M, a potential V and quadratic holonomic constraints g (DESIGN §2):
///
///     q_{n+1} − q_n = h M⁻¹ p_{n+½},                p_{n+½} = ½ (p_n + p_{n+1})     (003 eqs. 5.5–5.6)
///     p_{n+1} − p_n + h 𝔻V(q_n, q_{n+1}) + h Dg(q_{n+½})ᵀ λ = 0                      (003 eq. 5.7)
///     g(q_{n+1}) = 0                                                                 (003 eqs. 5.8–5.9)
///
/// 𝔻V is a discrete gradient (𝔻V·(q_{n+1} − q_n) = V(q_{n+1}) − V(q_n)): for a potential that is at
/// most quadratic (the model declares `kPotentialAtMostQuadratic = true`) the midpoint gradient
/// ∇V(q_{n+½}) is one; otherwise Gonzalez's midpoint discrete gradient
/// ∇V(q_{n+½}) + [(ΔV − ∇V(q_{n+½})·Δq) / |Δq|²] Δq is used (003 eq. 5.3). For quadratic g, the
/// midpoint gradient Dg(q_{n+½}) is an exact discrete gradient of g as well, and 003 eq. 5.7's
/// λ-terms (q_{n+1} + q_n, ...) are exactly h Dg(q_{n+½})ᵀ λ with 003's λ absorbing 2h.
///
/// Energy: ½ p_{n+1}ᵀM⁻¹p_{n+1} − ½ p_nᵀM⁻¹p_n = (p_{n+1} − p_n)·Δq / h = −ΔV − λ·Δg = −ΔV.
/// Momentum J = p·ξ(q) for a linear symmetry ξ(q) = A q (A skew, commuting with M) that leaves V and g
/// invariant: J_{n+1} − J_n = −h (𝔻V + Dgᵀλ)·A q_{n+½} = 0 when 𝔻V = ∇V(q_{n+½}). With the Gonzalez
/// correction the momentum is kept only where the correction is orthogonal to A q_{n+½}
/// (docs/rigid-body-and-dsp.md). Both hold to the tolerance of the Newton solve.
///
/// As 003 describes, p_{n+1} is eliminated: Newton solves for (q_{n+1}, μ), μ = (h²/2) λ, then
/// p_{n+1} = 2 M (q_{n+1} − q_n)/h − p_n. `step()` never allocates.
///
/// Composition (DESIGN §10, `compose=`; 003 §6's higher-order energy–momentum integrators): the step
/// is symmetric (exchanging (q_n, p_n) and (q_{n+1}, p_{n+1}) and h ↦ −h leaves eqs. 5.5–5.9 and the
/// midpoint and Gonzalez discrete gradients unchanged), so the composition Φ_{γ_m h} ∘ … ∘ Φ_{γ_1 h}
/// with the coefficients of a symmetric composition of order r (HLW V.3.2, Thm 3.1) has order r.
/// With constraints the step flips p's component off the hidden constraint, and the composition is
/// one of half-step pairs Φ_{γh/2} ∘ Φ_{γh/2} (integrate/energy_momentum_composition.hpp).
/// Every sub-step keeps H and J as above, so the composed step keeps them exactly too: sub-steps of
/// negative size γ_i h are steps of the same equations.
///
/// Steps are confirmed as the variational integrator's are (integrate/step_check.hpp): on the steps
/// `should_confirm` selects, two steps of h/2 from the same state must converge and end within
/// `max_ratio` step lengths of the motion from q_{n+1}, else the step is a `RejectedStep` (exit 3).

#include <algorithm>
#include <cmath>
#include <concepts>
#include <memory>
#include <string>
#include <vector>

#include "mechint/model/start_on_manifold.hpp"
#include "mechint/model/legendre.hpp"
#include "mechint/core/autodiff.hpp"
#include "mechint/core/format.hpp"
#include "mechint/model/lagrangian_model.hpp"
#include "mechint/integrate/energy_momentum_composition.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/solve/newton.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint {

/// A model the energy–momentum integrator can step: constant mass matrix, potential, constraints.
template <class M>
concept ConstantMassModel = LagrangianModel<M> && requires(const M& m, const VecD<M::kDim>& q) {
  { m.mass_matrix() } -> std::convertible_to<Mat<M::kDim, M::kDim>>;
  { m.template potential<double>(q) } -> std::convertible_to<double>;
};

/// Gradient and Hessian of a scalar function of q (core/second_order_jet.hpp).
template <int N, class F>
void gradient_and_hessian(const F& f, const VecD<N>& x, VecD<N>& grad, Mat<N, N>& hess) {
  const SecondOrderJet<N> r = second_order_expansion<N>(f, x);
  grad = gradient_of(r);
  hess = hessian_of(r);
}

template <ConstantMassModel M>
class EnergyMomentumIntegrator {
 public:
  static constexpr int n = M::kDim;
  static constexpr int k = M::kNumConstraints;
  using Config = VecD<n>;

  /// `substeps`: the coefficients γ_1..γ_m (Σγ = 1) of a symmetric composition, each step then m
  /// sub-steps γ_i h (empty: the plain step).
  EnergyMomentumIntegrator(M model, double h, NewtonOptions options = {}, StepCheckOptions check = {},
                           std::vector<double> substeps = {})
      : model_(std::move(model)),
        h_(h),
        options_(options),
        check_(check),
        mass_(model_.mass_matrix()),
        mass_inverse_(mass_.inverse()) {
    // Shared, not copied: the confirmation's copy of the integrator then allocates nothing.
    // With constraints each γ_i is taken as two half sub-steps (integrate/energy_momentum_composition.hpp).
    substeps = energy_momentum_substeps(substeps, k);
    if (substeps.size() > 1) substeps_ = std::make_shared<const std::vector<double>>(std::move(substeps));
  }

  /// Start from (q0, q̇0) on the constraint manifold; p0 = M q̇0.
  void start_from_velocity(const Config& q0, const Config& v0, double t0 = 0.0) {
    if (!q0.allFinite() || !v0.allFinite()) throw InvalidStart("initial data contain NaN or infinity");
    if constexpr (k > 0) {
      const auto dg = constraint_jacobian(model_, q0);
      check_start_position(model_constraints<M, double>(model_, q0), dg, q0);
      check_start_velocity(dg, v0);
    }
    q_ = q0;
    q_carry_.setZero();
    p_ = mass_ * v0;
    p_carry_.setZero();
    t0_ = t_ = t0;
    step_index_ = 0;
    lambda_.setZero();
    previous_step_ = (h_ * v0).template lpNorm<Eigen::Infinity>();
    confirmed_steps_ = 0;
  }

  /// Advances one step (003 eqs. 5.5–5.9), or the sub-steps of the composition. Throws NewtonFailure
  /// if the equations are not solved, and then leaves the state at the last good step.
  void step() {
    const Saved start{q_, q_carry_, p_, p_carry_, lambda_};
    double first_contraction = 0.0;
    try {
      if (substeps_) {
        for (double gamma : *substeps_) first_contraction = std::max(first_contraction, substep(gamma * h_));
      } else {
        first_contraction = substep(h_);
      }
    } catch (...) {
      restore(start);
      throw;
    }
    const double step_length = (q_ - start.q).template lpNorm<Eigen::Infinity>();
    if (check_.enabled && should_confirm(check_, step_index_ + 1, first_contraction, step_length, previous_step_))
      confirm_step(start);
    previous_step_ = step_length;
    ++step_index_;
    t_ = t0_ + static_cast<double>(step_index_) * h_;  // on the grid, not accumulated
  }

  const Config& q() const { return q_; }
  const Config& p() const { return p_; }
  Config velocity() const { return mass_inverse_ * p_; }
  /// Multipliers λ of the last step: the constraint force −Dg(q_{n+½})ᵀλ (continuous units, N/m²).
  const VecD<k>& lambda() const { return lambda_; }
  double time() const { return t_; }
  double step_size() const { return h_; }
  long step_index() const { return step_index_; }
  int last_iterations() const { return last_iterations_; }
  long total_iterations() const { return total_iterations_; }
  const M& model() const { return model_; }
  /// H = ½ pᵀM⁻¹p + V(q).
  double energy() const { return 0.5 * p_.dot(velocity()) + model_.template potential<double>(q_); }
  /// J_i = p·ξ_i(q).
  double momentum(int i) const { return p_.dot(model_symmetry_generator(model_, i, q_)); }
  VecD<k> constraint_residual() const { return model_constraints<M, double>(model_, q_); }

  /// Everything the next steps depend on, the compensations of the sums included
  /// (core/state_archive.hpp).
  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(q_), a(p_), a(q_carry_), a(p_carry_), a(lambda_), a(t0_), a(t_), a(step_index_);
    a(last_iterations_), a(total_iterations_), a(previous_step_), a(confirmed_steps_);
    newton_.checkpoint_state(a);
  }

  const StepCheckOptions& step_check() const { return check_; }
  /// Steps confirmed by two half steps since the start.
  long confirmed_steps() const { return confirmed_steps_; }

 private:
  /// The state a step starts from (restored when the step fails or is rejected).
  struct Saved {
    Config q, q_carry, p, p_carry;
    VecD<k> lambda;
  };
  void restore(const Saved& s) { q_ = s.q, q_carry_ = s.q_carry, p_ = s.p, p_carry_ = s.p_carry, lambda_ = s.lambda; }

  /// One step of size h of eqs. 5.5–5.9 from (q_, p_); returns Newton's first contraction.
  double substep(double h) {
    // The unknown is the correction e to the explicit increment, q_{n+1} − q_n = d = h M⁻¹p_n + e, so
    // that eq. 5.7 reads M e + (h²/2)(∇V + Dgᵀλ) = 0 with no cancellation of O(h p) terms: the
    // rounding of the residual, which sets where Newton lands and enters the energy as 2ρ·d/h² per
    // step, is then O(ulp(h²F)) instead of O(ulp(h p)). Measured on the double spherical pendulum
    // over 30 s at h = 1e-4: 4.4e-10 relative energy drift with d as the unknown, 2e-9 with q_{n+1},
    // 4e-12 with e (and 8e-15 with the compensated sums below).
    const Config explicit_d = h * (mass_inverse_ * p_);
    // From e = 0 and the last step's multipliers.
    Step problem{*this, h, explicit_d, Config::Zero(), explicit_d, 0.5 * h * h * lambda_};
    NewtonPolicy policy = NewtonPolicy::from(options_);
    policy.variant = NewtonVariant::kFull;
    const NewtonStats stats = newton_.solve(problem, policy);
    if (!stats.converged) {
      double res = stats.residual_norm;
      if (newton_.last_stop() == NewtonStop::kMaxIterations) {  // the residual at the last iterate
        VecD<n + k> r;
        problem.assemble(r, nullptr);
        res = r.template lpNorm<Eigen::Infinity>();
      }
      throw NewtonFailure(step_index_ + 1, t_ + h_, res, stats.iterations);
    }
    last_iterations_ = stats.iterations;
    total_iterations_ += stats.iterations;
    // q and p are summed with Kahan's compensation: at small h consecutive increments are alike,
    // so the rounding of q + d (and of p + Δp) repeats with one sign and drifts energy and momentum
    // linearly (measured at h = 1e-4 over 30 s on the double spherical pendulum: 4e-12 relative
    // energy drift without, 8e-15 with).
    compensated_add(q_, q_carry_, problem.d);
    compensated_add(p_, p_carry_, Config((2.0 / h) * (mass_ * problem.e)));  // p_{n+1} = 2 M d / h − p_n
    lambda_ = (2.0 / (h * h)) * problem.mu;
    return stats.first_contraction;
  }

  /// Two steps of h/2 from the step's start by a copy of this integrator (fixed-size, the
  /// composition shared: no allocation); throws RejectedStep, the state put back to `start`, unless
  /// they converge and end within max_ratio step lengths of the step's end q_.
  void confirm_step(const Saved& start) {
    ++confirmed_steps_;
    EnergyMomentumIntegrator half(*this);
    half.restore(start);
    half.h_ = 0.5 * h_;
    half.check_.enabled = false;
    Config q_half, q_two;
    bool converged = true;
    try {
      half.step();
      q_half = half.q_;
      half.step();
      q_two = half.q_;
      converged = q_half.allFinite() && q_two.allFinite();
    } catch (const NumericalFailure&) {
      converged = false;
    }
    const double motion = motion_scale<n>(start.q, previous_step_, q_half, q_two, options_.step_tolerance);
    const double ratio = (q_two - q_).template lpNorm<Eigen::Infinity>() / motion;
    try {
      judge_confirmation(converged, ratio, check_.max_ratio, step_index_ + 1, t0_ + (step_index_ + 1) * h_);
    } catch (...) {
      restore(start);
      throw;
    }
  }

  /// Eq. 5.7 and g(q_{n+1}) = 0 for the correction e to the explicit increment and μ = (h²/2)λ:
  /// R = [M e + (h²/2)(𝔻V + Dg(q_{n+½})ᵀλ) ; g(q_n + d)], d = h M⁻¹p_n + e.
  struct Step {
    const EnergyMomentumIntegrator& s;
    double h;  // the (sub-)step
    Config explicit_d;
    Config e;  // the unknown: d = explicit_d + e
    Config d;
    VecD<k> mu;

    void assemble(VecD<n + k>& r, Mat<n + k, n + k>* jac) const {
      const Config q1 = s.q_ + d, qm = s.q_ + 0.5 * d, dq = d;
      VecD<n> gv;
      Mat<n, n> hv;
      // φ = V + (2/h²) μ·g: (h²/2)∇φ = (h²/2)∇V + Dgᵀμ is the force term of eq. 5.7 times h/2·h.
      gradient_and_hessian<n>([&](const auto& x) { return s.potential_plus_constraints(x, mu, h); }, qm, gv, hv);
      VecD<n> force = gv;
      if constexpr (!kQuadraticPotential) {  // Gonzalez's correction (003 eq. 5.3)
        const double dq2 = dq.squaredNorm();
        if (dq2 > 0) {
          const VecD<n> gvm = s.potential_gradient(qm);
          const double dv = s.model_.template potential<double>(q1) - s.model_.template potential<double>(s.q_);
          force += ((dv - gvm.dot(dq)) / dq2) * dq;
        }
      }
      r.template head<n>() = s.mass_ * e + 0.5 * h * h * force;
      r.template tail<k>() = model_constraints<M, double>(s.model_, q1);
      if (jac) {
        jac->template topLeftCorner<n, n>() = s.mass_ + 0.25 * h * h * hv;
        jac->template topRightCorner<n, k>() = constraint_jacobian(s.model_, qm).transpose();
        jac->template bottomLeftCorner<k, n>() = constraint_jacobian(s.model_, q1);
        jac->template bottomRightCorner<k, k>().setZero();
      }
    }
    double update(const VecD<n + k>& delta) {
      e -= delta.template head<n>();
      d = explicit_d + e;
      mu -= delta.template tail<k>();
      return delta.template head<n>().template lpNorm<Eigen::Infinity>();
    }
    /// Relative to the increment (Newton is quadratic, so the next error is far below this), or
    /// stalled at round-off below the absolute tolerance of the variational integrator, or a
    /// residual at round-off (after the update computed from it).
    bool converged_on_update(const NewtonIterate& state) const {
      const NewtonOptions& o = s.options_;
      const double dn = state.update_norm;
      if (dn <= 1e-2 * o.step_tolerance * d.template lpNorm<Eigen::Infinity>()) return true;
      if (stalled_at_roundoff(state, o.step_tolerance * (1.0 + s.q_.template lpNorm<Eigen::Infinity>()))) return true;
      return state.residual_norm <= o.residual_tolerance * (1.0 + std::abs(h) * s.p_.template lpNorm<Eigen::Infinity>()) &&
             state.iteration > 0;
    }
  };

  /// x += dx with Kahan's compensation `carry` (the part of earlier increments lost to rounding).
  static void compensated_add(Config& x, Config& carry, const Config& dx) {
    const Config y = dx - carry;
    const Config sum = x + y;
    carry = (sum - x) - y;
    x = sum;
  }

  static constexpr bool kQuadraticPotential = [] {
    if constexpr (requires { M::kPotentialAtMostQuadratic; }) return static_cast<bool>(M::kPotentialAtMostQuadratic);
    return false;
  }();

  /// φ(x) = V(x) + (2/h²) μ·g(x), μ = (h²/2) λ, h the (sub-)step.
  template <class T>
  T potential_plus_constraints(const Vec<T, n>& x, const VecD<k>& mu, double h) const {
    T s = model_.template potential<T>(x);
    const Vec<T, k> g = model_constraints<M, T>(model_, x);
    for (int i = 0; i < k; ++i) s += (2.0 / (h * h) * mu[i]) * g[i];
    return s;
  }

  VecD<n> potential_gradient(const Config& x) const {
    const Jet<n> v = model_.template potential<Jet<n>>(seed_gradient<n>(x));
    return v.v;
  }

  M model_;
  double h_;
  NewtonOptions options_;
  StepCheckOptions check_;
  NewtonSolver<n + k> newton_;
  std::shared_ptr<const std::vector<double>> substeps_;  ///< the composition's γ_i (null: plain steps)
  Mat<n, n> mass_, mass_inverse_;
  Config q_ = Config::Zero(), p_ = Config::Zero();
  Config q_carry_ = Config::Zero(), p_carry_ = Config::Zero();  // Kahan compensations of q and p
  VecD<k> lambda_ = VecD<k>::Zero();
  double t0_ = 0, t_ = 0;
  long step_index_ = 0;
  int last_iterations_ = 0;
  long total_iterations_ = 0;
  double previous_step_ = 0.0;  ///< ‖q_n − q_{n−1}‖∞ (at the start: ‖h q̇_0‖∞)
  long confirmed_steps_ = 0;
};

}  // namespace mechint
