#pragma once
/// \file
/// Elastic impacts for a one-step method in momentum form (004 §III-B).
///
/// The driver steps with Φ_h on the uniform grid t_j = t0 + j h. When a full step would leave the
/// feasible set (φ_c(q̂_{j+1}) < 0 for some c, 004 eqs. 19–20) it
///  1. finds the fraction α ∈ [0, 1] of the step at which the partial step Φ_{αh}(q_j, p_j) = (q_i, p⁻)
///     reaches the contact configuration φ_c(q_i) = 0 (eqs. 21–22): a bracketed scalar root in α
///     (TOMS 748), each evaluation solving the partial step, so q_i and α come out together; with
///     several walls the earliest crossing wins;
///  2. applies p⁺ = p⁻ + λ∇φ_c(q_i) (eq. 23) with λ from the impact law (impact_laws.hpp);
///  3. finishes with Φ_{(1−α)h}(q_i, p⁺) back on the grid (eq. 24). If that rest step leaves the
///     feasible set again, 1–3 repeat inside the rest of the step (a second crossing is searched with
///     φ_c/α, which removes the root at the contact point itself).
/// Each impact is recorded (step, time, α, λ, energies and H̃ before and after).
///
/// Requirements: an unconstrained model (kNumConstraints = 0) with unilateral constraints
/// (model/unilateral.hpp). A start with φ(q0) < 0 is rejected (`InvalidStart`). A step never
/// allocates (the MHC windows and room for 1024 impact records are reserved by `start`).

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <boost/math/tools/toms748_solve.hpp>

#include "mechint/model/hamiltonian.hpp"
#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/integrate/impact_laws.hpp"
#include "mechint/integrate/one_step_flow.hpp"
#include "mechint/integrate/variational_integrator.hpp"
#include "mechint/model/unilateral.hpp"

namespace mechint {

/// One resolved impact.
template <int n>
struct ImpactRecord {
  long step = 0;          ///< index j + 1 of the grid step [t_j, t_{j+1}] that contains the impact
  double time = 0.0;      ///< t_i
  double alpha = 0.0;     ///< (t_i − t_j)/h, in [0, 1]
  double lambda = 0.0;    ///< impulse magnitude, p⁺ = p⁻ + λ∇φ
  int constraint = 0;     ///< which φ_c
  double energy_before = 0.0, energy_after = 0.0;    ///< H(q_i, p⁻), H(q_i, p⁺)
  double htilde_before = 0.0, htilde_after = 0.0;    ///< H̃(q_i, p∓) of the driver's kind
  VecD<n> q, p_before, p_after;
};

template <OneStepFlow Flow>
  requires HasUnilateralConstraints<typename Flow::Model>
class ImpactDriver {
 public:
  using Model = typename Flow::Model;
  static constexpr int n = Flow::kDim;
  static constexpr int m = Model::kNumUnilateral;
  using Config = VecD<n>;
  using Record = ImpactRecord<n>;

  /// The flow is built in place from the model (its Newton workspace is not copied).
  ImpactDriver(const Model& model, double h, ImpactOptions options = {}, NewtonOptions newton = {})
      : flow_(model, newton), h_(h), options_(options) {
    if (!(h > 0.0) || !std::isfinite(h))
      throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
    if (!(options.window_before > 0.0) || !(options.window_after > 0.0))
      throw InvalidInput("MHC windows must be positive");
    if (options.composition.size() > 1 && options.enabled)
      throw InvalidInput("compose composes the smooth flow, and the impact step is not symmetric (partial steps "
                         "around the jump of p): the composition would not reach its order; run without the walls "
                         "or drop compose");
    kind_ = options.override_modified_hamiltonian ? options.modified_hamiltonian
                                                  : Flow::kModifiedHamiltonian;
    window_before_steps_ = std::max(1L, std::lround(options.window_before / h));
    window_after_steps_ = std::max(1L, std::lround(options.window_after / h));
    if (options_.law == ImpactLaw::kMhc) {
      history_.assign(static_cast<std::size_t>(window_before_steps_), 0.0);
      scratch_.reserve(static_cast<std::size_t>(std::max(window_before_steps_, window_after_steps_)));
    }
  }

  /// Start at (q0, p0), p0 the canonical momentum. Throws `InvalidStart` for a non-finite start or
  /// one outside the feasible set (φ_c(q0) < 0).
  void start(const Config& q0, const Config& p0, double t0 = 0.0) {
    if (!q0.allFinite() || !p0.allFinite()) throw InvalidStart("start contains NaN or infinity");
    if (options_.enabled) {
      const VecD<m> phi = unilateral_values(model(), q0);
      for (int c = 0; c < m; ++c)
        if (!(phi[c] >= 0.0))
          throw InvalidStart("start outside the feasible set: phi" + std::to_string(c + 1) +
                             "(q0) = " + format_number(phi[c]) + " < 0");
    }
    q_ = q0;
    p_ = p0;
    t0_ = t_ = t0;
    step_index_ = 0;
    impacts_.clear();
    if (options_.record_impacts) impacts_.reserve(kReservedImpacts);
    impact_count_ = 0;
    history_count_ = 0;
    history_head_ = 0;
    remember_htilde();
  }

  /// One step of size h, resolving every impact inside it.
  void step() {
    Config q = q_, p = p_, q1, p1;
    double t_seg = t_, tau = h_;
    int contact = -1;
    int hits = 0;
    bool impacted = false;
    for (;;) {
      checked_step(q, p, tau, q1, p1, t_seg);
      int c = -1;
      double alpha = 1.0;
      if (!options_.enabled || !locate(q, p, tau, q1, contact, alpha, c, t_seg)) break;
      if (++hits > options_.max_impacts_per_step)
        throw ImpactFailure("more than " + std::to_string(options_.max_impacts_per_step) +
                            " impacts within one step at t = " + format_number(t_seg) +
                            " (chattering against the wall); reduce the step size");
      // Partial step to the contact configuration (004 eqs. 21–22).
      const double s = alpha * tau;
      Config qi = q, pm = p;
      double e_before;
      if (s > kNegligible * h_) {
        e_before = checked_step(q, p, s, qi, pm, t_seg).discrete_energy;
      } else {
        e_before = hamiltonian(model(), q, p);  // the limit of −D3 Ld as the step vanishes
      }
      const double rest = tau - s;
      Record rec;
      rec.step = step_index_ + 1;
      rec.time = t_seg + s;
      rec.alpha = (rec.time - t_) / h_;
      rec.constraint = c;
      rec.q = qi;
      rec.p_before = pm;
      rec.lambda = resolve(qi, pm, e_before, rest, c, rec.time);
      rec.p_after = pm + rec.lambda * unilateral_gradient(model(), c, qi);
      rec.energy_before = hamiltonian(model(), qi, pm);
      rec.energy_after = hamiltonian(model(), qi, rec.p_after);
      rec.htilde_before = htilde(qi, pm);
      rec.htilde_after = htilde(qi, rec.p_after);
      if (options_.record_impacts) impacts_.push_back(rec);
      last_impact_ = rec;
      ++impact_count_;
      impacted = true;
      q = qi;
      p = rec.p_after;
      t_seg = rec.time;
      tau = rest;
      contact = c;
      if (tau <= kNegligible * h_) {
        q1 = q;
        p1 = p;
        break;
      }
    }
    q_ = q1;
    p_ = p1;
    ++step_index_;
    t_ = t0_ + step_index_ * h_;
    if (impacted) history_count_ = history_head_ = 0;
    remember_htilde();
  }

  const Config& q() const { return q_; }
  const Config& p() const { return p_; }
  double time() const { return t_; }
  long step_index() const { return step_index_; }
  double step_size() const { return h_; }
  const Model& model() const { return flow_.model(); }
  /// Every impact so far (empty unless ImpactOptions::record_impacts).
  const std::vector<Record>& impacts() const { return impacts_; }
  /// Number of impacts resolved so far, and the last one (valid when the count is positive).
  long impact_count() const { return impact_count_; }
  const Record& last_impact() const { return last_impact_; }
  const ImpactOptions& options() const { return options_; }
  ModifiedHamiltonianKind modified_hamiltonian_kind() const { return kind_; }

  /// Everything the next steps depend on: the state, the impacts so far, the window of H̃ values
  /// the MHC law averages over, and the flow's own memory (core/state_archive.hpp).
  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(q_), a(p_), a(t0_), a(t_), a(step_index_), a(impact_count_);
    const auto record = [&a](auto& r) {
      a(r.step), a(r.time), a(r.alpha), a(r.lambda), a(r.constraint), a(r.energy_before), a(r.energy_after);
      a(r.htilde_before), a(r.htilde_after), a(r.q), a(r.p_before), a(r.p_after);
    };
    record(last_impact_);
    a(impacts_, record);
    a(history_), a(history_count_), a(history_head_);
    flow_.checkpoint_state(a);
  }

  /// H(q_j, p_j).
  double energy() const { return hamiltonian(model(), q_, p_); }
  /// H̃(q_j, p_j, h) of the driver's kind (by default the integrator's own).
  double htilde() const { return htilde(q_, p_); }
  double htilde(const Config& q, const Config& p) const {
    return mechint::modified_hamiltonian(kind_, model(), q, p, h_);
  }
  /// Number of MHC window steps before and after an impact.
  long window_before_steps() const { return window_before_steps_; }
  long window_after_steps() const { return window_after_steps_; }

 private:
  /// Impacts recorded before the list has to grow (the only allocation a step can make).
  static constexpr std::size_t kReservedImpacts = 1024;
  /// Partial steps shorter than this fraction of h are skipped (state unchanged).
  static constexpr double kNegligible = 1e-12;

  StepResult checked_step(const Config& q, const Config& p, double tau, Config& q1, Config& p1,
                          double t_seg) {
    if (options_.composition.size() > 1) return composed_step(q, p, tau, q1, p1, t_seg);
    const StepResult r = flow_.step(q, p, tau, q1, p1);
    if (!r.converged) throw NewtonFailure(step_index_ + 1, t_seg + tau, r.residual_norm, r.iterations);
    return r;
  }

  /// The flow's steps γ_i τ in turn (ImpactOptions::composition; impacts are off, so τ = h).
  StepResult composed_step(const Config& q, const Config& p, double tau, Config& q1, Config& p1, double t_seg) {
    Config qa = q, pa = p;
    StepResult total;
    double t = t_seg;
    for (double gamma : options_.composition) {
      const StepResult r = flow_.step(qa, pa, gamma * tau, q1, p1);
      t += gamma * tau;
      if (!r.converged) throw NewtonFailure(step_index_ + 1, t, r.residual_norm, total.iterations + r.iterations);
      total.iterations += r.iterations;
      total.residual_norm = r.residual_norm;
      total.discrete_energy = r.discrete_energy;
      qa = q1, pa = p1;
    }
    total.converged = true;
    return total;
  }

  bool feasible(const Config& q) const {
    const VecD<m> phi = unilateral_values(model(), q);
    for (int c = 0; c < m; ++c)
      if (!(phi[c] >= 0.0)) return false;
    return true;
  }

  /// If Φ_τ(q, p) ends outside the feasible set, the earliest crossing: fraction `alpha` of τ and
  /// constraint `c`. `contact` is the constraint the segment starts on (−1: none).
  bool locate(const Config& q, const Config& p, double tau, const Config& q_end, int contact,
              double& alpha, int& c, double t_seg) {
    const VecD<m> phi_end = unilateral_values(model(), q_end);
    const VecD<m> phi0 = unilateral_values(model(), q);
    bool any = false;
    alpha = 2.0;
    for (int k = 0; k < m; ++k) {
      if (phi_end[k] >= 0.0) continue;
      any = true;
      const double a = crossing(q, p, tau, k, k == contact, phi0[k], phi_end[k], t_seg);
      if (a < alpha) {
        alpha = a;
        c = k;
      }
    }
    return any;
  }

  /// Fraction α of τ at which φ_k(Φ_{ατ}(q, p)) = 0; the feasible end of the final bracket.
  double crossing(const Config& q, const Config& p, double tau, int k, bool on_contact, double phi0,
                  double phi_end, double t_seg) {
    Config qa, pa;
    auto phi_at = [&](double a) {
      checked_step(q, p, a * tau, qa, pa, t_seg);
      return unilateral_values(model(), qa)[k];
    };
    double f0 = phi0;
    if (on_contact) {
      // φ_k(q) = 0 here: search φ_k/α, whose value at α → 0 is τ ∇φ_k · H_p(q, p).
      LagrangianDerivatives<n> l;
      const Config v = velocity_and_derivatives_from_momentum(model(), q, p, l);
      f0 = tau * unilateral_gradient(model(), k, q).dot(v);
    }
    const auto f = [&](double a) {
      if (a <= 0.0) return f0;
      const double value = phi_at(a);
      return on_contact ? value / a : value;
    };
    if (!(f0 > 0.0)) return 0.0;
    boost::uintmax_t max_iter = 200;
    const auto tol = [](double a, double b) {
      return std::abs(b - a) <= 4.0 * std::numeric_limits<double>::epsilon();
    };
    const auto [lo, hi] = boost::math::tools::toms748_solve(f, 0.0, 1.0, f0, phi_end, tol, max_iter);
    (void)hi;
    return lo;
  }

  /// λ of the impact law at (q_i, p⁻); `e_before` is the discrete energy of the partial step,
  /// `rest` the time left to the grid point.
  double resolve(const Config& qi, const Config& pm, double e_before, double rest, int c, double time) {
    const Config grad = unilateral_gradient(model(), c, qi);
    const auto d = hamiltonian_derivatives(model(), qi, pm);
    const double lambda_elastic = -2.0 * grad.dot(d.v) / grad.dot(d.hpp * grad);  // 004 eq. 14
    Config q1, p1;
    switch (options_.law) {
      case ImpactLaw::kCtec: {
        const double h0 = d.value;
        return solve_impulse([&](double lam) { return hamiltonian(model(), qi, Config(pm + lam * grad)) - h0; },
                             lambda_elastic, time, "ctec");
      }
      case ImpactLaw::kDtec: {
        return solve_impulse(
            [&](double lam) {
              const Config pp = pm + lam * grad;
              if (rest <= kNegligible * h_) return hamiltonian(model(), qi, pp) - e_before;
              return checked_step(qi, pp, rest, q1, p1, time).discrete_energy - e_before;
            },
            lambda_elastic, time, "dtec");
      }
      case ImpactLaw::kMhc: {
        const double target = stable_before(qi, pm);
        return solve_impulse([&](double lam) { return stable_after(qi, Config(pm + lam * grad), rest) - target; },
                             lambda_elastic, time, "mhc");
      }
    }
    return lambda_elastic;
  }

  /// Median of H̃ over the grid points of the window before the impact (since the last impact).
  double stable_before(const Config& qi, const Config& pm) {
    if (history_count_ == 0) return htilde(qi, pm);
    scratch_.assign(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(history_count_));
    return median_in_place(scratch_);
  }

  /// Median of H̃ over the grid points of the window after the impact, simulated from (q_i, p⁺):
  /// the rest step, then full steps, stopping before a step that leaves the feasible set.
  double stable_after(const Config& qi, const Config& pp, double rest) {
    scratch_.clear();
    Config q = qi, p = pp, q1, p1;
    if (rest > kNegligible * h_) {
      const StepResult r = flow_.step(q, p, rest, q1, p1);
      if (r.converged && feasible(q1)) {
        q = q1;
        p = p1;
        scratch_.push_back(htilde(q, p));
        while (static_cast<long>(scratch_.size()) < window_after_steps_) {
          const StepResult s = flow_.step(q, p, h_, q1, p1);
          if (!s.converged || !feasible(q1)) break;
          q = q1;
          p = p1;
          scratch_.push_back(htilde(q, p));
        }
      }
    }
    if (scratch_.empty()) return htilde(qi, pp);
    return median_in_place(scratch_);
  }

  /// Adds H̃(q_j, p_j) to the MHC window before the next impact (ring buffer).
  void remember_htilde() {
    if (options_.law != ImpactLaw::kMhc || !options_.enabled) return;
    history_[history_head_] = htilde(q_, p_);
    history_head_ = (history_head_ + 1) % history_.size();
    history_count_ = std::min(history_count_ + 1, history_.size());
  }

  Flow flow_;
  double h_;
  ImpactOptions options_;
  ModifiedHamiltonianKind kind_;
  long window_before_steps_ = 1, window_after_steps_ = 1;
  Config q_ = Config::Zero(), p_ = Config::Zero();
  double t0_ = 0.0, t_ = 0.0;
  long step_index_ = 0;
  std::vector<Record> impacts_;
  Record last_impact_{};
  long impact_count_ = 0;
  std::vector<double> history_, scratch_;
  std::size_t history_count_ = 0, history_head_ = 0;
};

}  // namespace mechint
