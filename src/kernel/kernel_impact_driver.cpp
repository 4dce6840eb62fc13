#include "kernel/kernel_impact_driver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <boost/math/tools/toms748_solve.hpp>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint::kernel {

KernelImpactDriver::KernelImpactDriver(const KernelModel& model, Flow flow, double h,
                                       ImpactOptions options, NewtonOptions newton)
    : model_(&model), n_(model.dim()), m_(model.num_unilateral()), flow_(make_kernel_flow(flow, model, newton)),
      h_(h), options_(options), hamiltonian_(model) {
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
  if (!(options.window_before > 0.0) || !(options.window_after > 0.0)) throw InvalidInput("MHC windows must be positive");
  if (options.composition.size() > 1 && options.enabled)
    throw InvalidInput("compose composes the smooth flow, and the impact step is not symmetric (partial steps "
                       "around the jump of p): the composition would not reach its order; run without the walls "
                       "or drop compose");
  if (options.enabled && m_ < 1) throw std::logic_error("the impact driver needs a model with walls");
  kind_ = options.override_modified_hamiltonian ? options.modified_hamiltonian : flow_->modified_hamiltonian_kind();
  window_before_steps_ = std::max(1L, std::lround(options.window_before / h));
  window_after_steps_ = std::max(1L, std::lround(options.window_after / h));
  if (options_.law == ImpactLaw::kMhc) {
    history_.assign(static_cast<std::size_t>(window_before_steps_), 0.0);
    scratch_.reserve(static_cast<std::size_t>(std::max(window_before_steps_, window_after_steps_)));
  }
  for (Vector* x : {&q_, &p_, &xi_, &q_seg_, &p_seg_, &q1_, &p1_, &qi_, &pm_, &grad_, &pp_, &qa_, &pa_, &qb_, &pb_,
                    &qc_, &pc_, &qd_, &pd_})
    x->setZero(n_);
  for (Vector* x : {&phi_, &phi0_, &phi_end_}) x->setZero(m_);
  dphi_.setZero(m_, n_);
  last_impact_.q = last_impact_.p_before = last_impact_.p_after = Vector::Zero(n_);
}

// ---- model quantities -------------------------------------------------------------------------------

void KernelImpactDriver::walls(const Vector& q, Vector& phi, int c, Vector* gradient) const {
  if (!model_->unilateral(q, &phi, gradient ? &dphi_ : nullptr))
    throw DomainError("the walls are not defined at t = " + format_number(t_) + " (the model's domain was left)");
  if (gradient) *gradient = dphi_.row(c).transpose();
}

double KernelImpactDriver::hamiltonian(const Vector& q, const Vector& p) const { return hamiltonian_.value(q, p); }

double KernelImpactDriver::htilde(const Vector& q, const Vector& p) const { return hamiltonian_.modified(kind_, q, p, h_); }

double KernelImpactDriver::energy() const { return hamiltonian(q_, p_); }

Vector KernelImpactDriver::velocity() const {
  if (!hamiltonian_.velocity(q_, p_, hamiltonian_.zero())) return Vector::Constant(n_, std::numeric_limits<double>::quiet_NaN());
  return hamiltonian_.v();
}

double KernelImpactDriver::momentum(int i) const {
  if (!model_->symmetry(i, q_, xi_)) return std::numeric_limits<double>::quiet_NaN();
  return p_.dot(xi_);
}

// ---- start and step (004 §III-B) -----------------------------------------------------------------

void KernelImpactDriver::start(const Vector& q0, const Vector& p0, double t0) {
  if (q0.size() != n_ || p0.size() != n_) throw std::logic_error("start does not match the model");
  if (!q0.allFinite() || !p0.allFinite()) throw InvalidStart("start contains NaN or infinity");
  if (options_.enabled) {
    if (!model_->unilateral(q0, &phi_, nullptr)) throw InvalidStart("the walls are not defined at the start");
    for (int c = 0; c < m_; ++c)
      if (!(phi_[c] >= 0.0))
        throw InvalidStart("start outside the feasible set: phi" + std::to_string(c + 1) + "(q0) = " +
                           format_number(phi_[c]) + " < 0");
  }
  // A separable model's flows step explicitly and its Legendre transform needs no Newton
  // (kernel_flows.hpp); probed at the start, so a resumed run decides as the run it continues.
  std::optional<SeparableKinetics> kinetics;
  hamiltonian_.set_separable(std::nullopt);
  if (hamiltonian_.velocity(q0, p0, hamiltonian_.zero())) kinetics = separable_kinetics(*model_, q0, hamiltonian_.v());
  hamiltonian_.set_separable(kinetics);
  flow_->set_separable(kinetics);
  q_ = q0;
  p_ = p0;
  t0_ = t_ = t0;
  step_index_ = 0;
  impact_count_ = 0;
  history_count_ = 0;
  history_head_ = 0;
  remember_htilde();
  energy_jumps_.reset();
  judge_energy();
}

void KernelImpactDriver::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  Vector p0(n_);
  if (!model_->gradient(q0, qdot0, nullptr, nullptr, &p0) || !p0.allFinite())
    throw InvalidStart("the momentum dL/dq_dot is not finite at the start");
  start(q0, p0, t0);
}

void KernelImpactDriver::step() {
  Vector& q = q_seg_;
  Vector& p = p_seg_;
  q = q_, p = p_;
  double t_seg = t_, tau = h_;
  int contact = -1, hits = 0;
  bool impacted = false;
  for (;;) {
    checked_step(q, p, tau, q1_, p1_, t_seg);
    int c = -1;
    double alpha = 1.0;
    if (!options_.enabled || !locate(q, p, tau, q1_, contact, alpha, c, t_seg)) break;
    if (++hits > options_.max_impacts_per_step)
      throw ImpactFailure("more than " + std::to_string(options_.max_impacts_per_step) +
                          " impacts within one step at t = " + format_number(t_seg) +
                          " (chattering against the wall); reduce the step size");
    // Partial step to the contact configuration (004 eqs. 21–22).
    const double s = alpha * tau;
    qi_ = q, pm_ = p;
    double e_before;
    if (s > kNegligible * h_)
      e_before = checked_step(q, p, s, qi_, pm_, t_seg).discrete_energy;
    else
      e_before = hamiltonian(q, p);  // the limit of −D3 Ld as the step vanishes
    const double rest = tau - s;
    KernelImpactRecord& rec = last_impact_;
    rec.step = step_index_ + 1;
    rec.time = t_seg + s;
    rec.alpha = (rec.time - t_) / h_;
    rec.constraint = c;
    rec.q = qi_;
    rec.p_before = pm_;
    rec.lambda = resolve(qi_, pm_, e_before, rest, c, rec.time);
    walls(qi_, phi_, c, &grad_);
    rec.p_after = pm_ + rec.lambda * grad_;
    rec.energy_before = hamiltonian(qi_, pm_);
    rec.energy_after = hamiltonian(qi_, rec.p_after);
    rec.htilde_before = htilde(qi_, pm_);
    rec.htilde_after = htilde(qi_, rec.p_after);
    ++impact_count_;
    impacted = true;
    q = qi_;
    p = rec.p_after;
    t_seg = rec.time;
    tau = rest;
    contact = c;
    if (tau <= kNegligible * h_) {
      q1_ = q;
      p1_ = p;
      break;
    }
  }
  model_->check_step(q_, q1_, t0_ + static_cast<double>(step_index_ + 1) * h_);
  q_ = q1_;
  p_ = p1_;
  ++step_index_;
  t_ = t0_ + static_cast<double>(step_index_) * h_;
  if (impacted) history_count_ = history_head_ = 0;
  remember_htilde();
  judge_energy();
}

StepResult KernelImpactDriver::checked_step(const Vector& q, const Vector& p, double tau, Vector& q1, Vector& p1,
                                            double t_seg) {
  if (options_.composition.size() > 1) return composed_step(q, p, tau, q1, p1, t_seg);
  const StepResult r = flow_->step(q, p, tau, q1, p1);
  if (!r.converged) throw NewtonFailure(step_index_ + 1, t_seg + tau, r.residual_norm, r.iterations);
  return r;
}

StepResult KernelImpactDriver::composed_step(const Vector& q, const Vector& p, double tau, Vector& q1, Vector& p1,
                                             double t_seg) {
  qd_ = q, pd_ = p;
  StepResult total;
  double t = t_seg;
  for (double gamma : options_.composition) {
    const StepResult r = flow_->step(qd_, pd_, gamma * tau, q1, p1);
    t += gamma * tau;
    if (!r.converged) throw NewtonFailure(step_index_ + 1, t, r.residual_norm, total.iterations + r.iterations);
    total.iterations += r.iterations;
    total.residual_norm = r.residual_norm;
    total.discrete_energy = r.discrete_energy;
    qd_ = q1, pd_ = p1;
  }
  total.converged = true;
  return total;
}

bool KernelImpactDriver::feasible(const Vector& q) const {
  walls(q, phi_);
  for (int c = 0; c < m_; ++c)
    if (!(phi_[c] >= 0.0)) return false;
  return true;
}

bool KernelImpactDriver::locate(const Vector& q, const Vector& p, double tau, const Vector& q_end, int contact,
                                double& alpha, int& c, double t_seg) {
  walls(q_end, phi_end_);
  walls(q, phi0_);
  bool any = false;
  alpha = 2.0;
  for (int k = 0; k < m_; ++k) {
    if (phi_end_[k] >= 0.0) continue;
    any = true;
    const double a = crossing(q, p, tau, k, k == contact, phi0_[k], phi_end_[k], t_seg);
    if (a < alpha) {
      alpha = a;
      c = k;
    }
  }
  return any;
}

double KernelImpactDriver::crossing(const Vector& q, const Vector& p, double tau, int k, bool on_contact, double phi0,
                                    double phi_end, double t_seg) {
  auto phi_at = [&](double a) {
    checked_step(q, p, a * tau, qa_, pa_, t_seg);
    walls(qa_, phi_);
    return phi_[k];
  };
  double f0 = phi0;
  if (on_contact) {
    // φ_k(q) = 0 here: search φ_k/α, whose value at α → 0 is τ ∇φ_k · H_p(q, p).
    if (!hamiltonian_.velocity(q, p, hamiltonian_.zero()))
      throw NumericalFailure("Legendre transform: no velocity found for the given momentum at t = " + format_number(t_seg));
    walls(q, phi_, k, &grad_);
    f0 = tau * grad_.dot(hamiltonian_.v());
  }
  const auto f = [&](double a) {
    if (a <= 0.0) return f0;
    const double value = phi_at(a);
    return on_contact ? value / a : value;
  };
  if (!(f0 > 0.0)) return 0.0;
  boost::uintmax_t max_iter = 200;
  const auto tol = [](double a, double b) { return std::abs(b - a) <= 4.0 * std::numeric_limits<double>::epsilon(); };
  const auto [lo, hi] = boost::math::tools::toms748_solve(f, 0.0, 1.0, f0, phi_end, tol, max_iter);
  (void)hi;
  return lo;
}

double KernelImpactDriver::resolve(const Vector& qi, const Vector& pm, double e_before, double rest, int c,
                                   double time) {
  walls(qi, phi_, c, &grad_);
  const Vector& grad = grad_;
  if (!hamiltonian_.derivatives(qi, pm, hamiltonian_.zero()))
    throw NumericalFailure("Legendre transform: no velocity found for the given momentum at t = " + format_number(time));
  const double h0 = hamiltonian_.h();
  pp_.noalias() = hamiltonian_.hpp() * grad;
  const double lambda_elastic = -2.0 * grad.dot(hamiltonian_.v()) / grad.dot(pp_);  // 004 eq. 14
  switch (options_.law) {
    case ImpactLaw::kCtec:
      return solve_impulse(
          [&](double lam) {
            pp_ = pm + lam * grad;
            return hamiltonian(qi, pp_) - h0;
          },
          lambda_elastic, time, "ctec");
    case ImpactLaw::kDtec:
      return solve_impulse(
          [&](double lam) {
            pp_ = pm + lam * grad;
            if (rest <= kNegligible * h_) return hamiltonian(qi, pp_) - e_before;
            return checked_step(qi, pp_, rest, qb_, pb_, time).discrete_energy - e_before;
          },
          lambda_elastic, time, "dtec");
    case ImpactLaw::kMhc: {
      const double target = stable_before(qi, pm);
      return solve_impulse(
          [&](double lam) {
            pp_ = pm + lam * grad;
            return stable_after(qi, pp_, rest) - target;
          },
          lambda_elastic, time, "mhc");
    }
  }
  return lambda_elastic;
}

double KernelImpactDriver::stable_before(const Vector& qi, const Vector& pm) {
  if (history_count_ == 0) return htilde(qi, pm);
  scratch_.assign(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(history_count_));
  return median_in_place(scratch_);
}

double KernelImpactDriver::stable_after(const Vector& qi, const Vector& pp, double rest) {
  scratch_.clear();
  if (rest > kNegligible * h_) {
    const StepResult r = flow_->step(qi, pp, rest, qb_, pb_);
    if (r.converged && feasible(qb_)) {
      qc_ = qb_, pc_ = pb_;
      scratch_.push_back(htilde(qc_, pc_));
      while (static_cast<long>(scratch_.size()) < window_after_steps_) {
        const StepResult s = flow_->step(qc_, pc_, h_, qb_, pb_);
        if (!s.converged || !feasible(qb_)) break;
        qc_ = qb_, pc_ = pb_;
        scratch_.push_back(htilde(qc_, pc_));
      }
    }
  }
  if (scratch_.empty()) return htilde(qi, pp);
  return median_in_place(scratch_);
}

void KernelImpactDriver::judge_energy() {
  if (model_->forced()) return;
  const double energy = hamiltonian_.value(q_, p_);
  if (!std::isfinite(energy)) return;  // a state that is not finite is the run loop's to report
  // The size of the energy's terms, |L_v·v| + |L| (KernelModel::energy) at the velocity just found.
  const double size = std::abs(p_.dot(hamiltonian_.v())) + std::abs(hamiltonian_.l().value);
  energy_jumps_.judge(energy, size, step_index_, t_);
}

void KernelImpactDriver::remember_htilde() {
  if (options_.law != ImpactLaw::kMhc || !options_.enabled) return;
  history_[history_head_] = htilde(q_, p_);
  history_head_ = (history_head_ + 1) % history_.size();
  history_count_ = std::min(history_count_ + 1, history_.size());
}

}  // namespace mechint::kernel
