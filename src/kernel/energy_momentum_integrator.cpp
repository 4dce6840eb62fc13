#include "kernel/energy_momentum_integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <Eigen/LU>

#include "kernel/start_checks.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/energy_momentum_composition.hpp"

namespace mechint::kernel {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

/// R = [M e + (h²/2)(𝔻V + Dg(q_{n+½})ᵀ λ) ; g(q_n + d)], d = h M⁻¹p_n + e, for (e, μ = (h²/2)λ);
/// J = [[M + (h²/4)(∇²V + Σ λ_i ∂²g_i/∂q²)(q_{n+½}), Dg(q_{n+½})ᵀ], [Dg(q_{n+1}), 0]] (the Gonzalez
/// correction is left out of J, as in the fixed-size integrator: Newton stays quadratic where the
/// correction is small, and its root is the same). An iterate where the model is not defined gives a
/// NaN residual.
struct KernelEnergyMomentumIntegrator::StepEquations {
  KernelEnergyMomentumIntegrator& s;
  const State& from;
  double h;
  double potential_before;  // V(q_n), for Gonzalez's correction

  void assemble(Eigen::VectorXd& r, Eigen::MatrixXd* j) {
    const int n = s.n_, k = s.k_;
    s.q1_ = from.q + s.d_;
    s.qm_ = from.q + 0.5 * s.d_;
    // φ = V + (2/h²) μ·g at the midpoint: (h²/2)∇φ = (h²/2)∇V + Dgᵀμ, the force term of eq. 5.7.
    // ∇²V only for the Jacobian, and only when it varies: a potential of degree at most 2 keeps the
    // one taken at the start (start_from_velocity), and a jet over q of V gives ∇V alone.
    bool defined = j && !s.quadratic_potential_ ? s.model_->lagrangian(s.qm_, s.zero_, s.values_)
                                                : s.model_->gradient(s.qm_, s.zero_, nullptr, &s.values_.q, nullptr);
    s.scaled_mu_ = (2.0 / (h * h)) * s.mu_;
    if (defined && k > 0) defined = s.model_->constraints(s.qm_, nullptr, &s.dg_m_) && s.model_->constraints(s.q1_, &s.g1_, j ? &s.dg_1_ : nullptr);
    if (defined && k > 0 && j) {  // Σ μ̃_i ∂²g_i/∂q², constant Hessians (constraints of degree ≤ 2)
      s.curvature_.setZero();
      for (int i = 0; i < k; ++i) s.curvature_ += s.scaled_mu_[i] * s.constraint_hessians_.middleRows(i * n, n);
    }
    s.force_ = -s.values_.q;  // ∇V(q_{n+½})
    if (k > 0) s.force_.noalias() += s.dg_m_.transpose() * s.scaled_mu_;
    if (defined && !s.quadratic_potential_) {  // Gonzalez's correction (003 eq. 5.3)
      const double dq2 = s.d_.squaredNorm();
      if (dq2 > 0) {
        const double dv = s.potential(s.q1_) - potential_before;
        s.force_ += ((dv + s.values_.q.dot(s.d_)) / dq2) * s.d_;
      }
    }
    if (!defined) {
      r.setConstant(kNaN);
      return;
    }
    r.head(n).noalias() = s.mass_ * s.e_;
    r.head(n) += 0.5 * h * h * s.force_;
    if (k > 0) r.tail(k) = s.g1_;
    if (j) {
      j->topLeftCorner(n, n) = s.mass_ - 0.25 * h * h * s.values_.qq;
      if (k > 0) {
        j->topLeftCorner(n, n) += 0.25 * h * h * s.curvature_;
        j->topRightCorner(n, k) = s.dg_m_.transpose();
        j->bottomLeftCorner(k, n) = s.dg_1_;
        j->bottomRightCorner(k, k).setZero();
      }
    }
  }
  double update(const Eigen::VectorXd& delta) {
    s.e_ -= delta.head(s.n_);
    s.d_ = s.explicit_d_ + s.e_;
    if (s.k_ > 0) s.mu_ -= delta.tail(s.k_);
    return delta.head(s.n_).lpNorm<Eigen::Infinity>();
  }
  /// Relative to the increment (Newton is quadratic, so the next error is far below this), or stalled
  /// at round-off below the variational integrator's absolute tolerance, or a residual at round-off.
  bool converged_on_update(const NewtonIterate& state) const {
    const NewtonOptions& o = s.options_;
    if (state.update_norm <= 1e-2 * o.step_tolerance * s.d_.lpNorm<Eigen::Infinity>()) return true;
    if (stalled_at_roundoff(state, o.step_tolerance * (1.0 + from.q.lpNorm<Eigen::Infinity>()))) return true;
    return state.residual_norm <= o.residual_tolerance * (1.0 + std::abs(h) * from.p.lpNorm<Eigen::Infinity>()) &&
           state.iteration > 0;
  }
};

KernelEnergyMomentumIntegrator::KernelEnergyMomentumIntegrator(const KernelModel& model, double h,
                                                               NewtonOptions options, StepCheckOptions check,
                                                               std::vector<double> substeps)
    : model_(&model), n_(model.dim()), k_(model.num_constraints()), h_(h), options_(options), check_(check),
      quadratic_potential_(model.structure().potential_at_most_quadratic), newton_(n_ + k_),
      confirm_newton_(n_ + k_), values_(n_) {
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
  if (!model.energy_momentum_applies())
    throw InvalidInput("energy-momentum needs a constant mass matrix, constraints of degree at most 2 and no forces");
  if (k_ > 0 && !model.has_constraint_curvature())
    throw std::logic_error("energy-momentum on kernels needs the constraints' curvature");
  // With constraints each γ_i is taken as two half sub-steps (integrate/energy_momentum_composition.hpp).
  substeps = energy_momentum_substeps(substeps, k_);
  if (substeps.size() > 1) substeps_ = std::move(substeps);
  options_.variant = NewtonVariant::kFull;
  for (State* s : {&state_, &start_, &half_}) {
    for (Vector* v : {&s->q, &s->q_carry, &s->p, &s->p_carry}) v->setZero(n_);
    s->lambda.setZero(k_);
  }
  for (Vector* v : {&zero_, &gradient_, &explicit_d_, &e_, &d_, &q1_, &qm_, &force_, &increment_, &scratch_, &q_half_})
    v->setZero(n_);
  for (Vector* v : {&mu_, &scaled_mu_, &g1_}) v->setZero(k_);
  for (RowMatrix* a : {&dg_m_, &dg_1_}) a->setZero(k_, n_);
  curvature_.setZero(n_, n_);
  constraint_hessians_.setZero(k_ * n_, n_);
  mass_.setZero(n_, n_);
  mass_inverse_.setZero(n_, n_);
}

void KernelEnergyMomentumIntegrator::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  if (!q0.allFinite() || !qdot0.allFinite()) throw InvalidStart("initial data contain NaN or infinity");
  check_start_on_constraints(*model_, q0, &qdot0);
  // M = ∂²L/∂v², the same everywhere (the model's structure says so); with a potential of degree at
  // most 2, values_.qq = −∇²V is too, and the steps keep it.
  if (!model_->lagrangian(q0, zero_, values_)) throw InvalidStart("the model is not defined at the start (outside its domain)");
  mass_ = values_.vv;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu{Eigen::MatrixXd(mass_)};
  if (!lu.isInvertible()) throw InvalidStart("the mass matrix is singular: check the parameters");
  mass_inverse_ = lu.inverse();
  for (int i = 0; i < k_; ++i) {  // ∂²g_i/∂q²: the curvature with λ = e_i, the same at every q
    Vector unit = Vector::Zero(k_);
    unit[i] = 1.0;
    RowMatrix hessian(n_, n_);
    if (!model_->constraint_curvature(q0, unit, hessian))
      throw InvalidStart("the constraints are not defined at the start");
    constraint_hessians_.middleRows(i * n_, n_) = hessian;
  }
  state_.q = q0;
  state_.q_carry.setZero();
  state_.p.noalias() = mass_ * qdot0;
  state_.p_carry.setZero();
  state_.lambda.setZero();
  t0_ = t_ = t0;
  step_index_ = 0;
  previous_step_ = (h_ * qdot0).lpNorm<Eigen::Infinity>();
  confirmed_steps_ = 0;
}

void KernelEnergyMomentumIntegrator::step() {
  start_ = state_;
  double first_contraction = 0.0;
  try {
    first_contraction = advance(state_, h_, newton_);
  } catch (...) {
    state_ = start_;
    throw;
  }
  const double step_length = (state_.q - start_.q).lpNorm<Eigen::Infinity>();
  if (check_.enabled && should_confirm(check_, step_index_ + 1, first_contraction, step_length, previous_step_))
    confirm_step(start_);
  previous_step_ = step_length;
  ++step_index_;
  t_ = t0_ + static_cast<double>(step_index_) * h_;  // on the grid, not accumulated
  model_->check_step(start_.q, state_.q, t_);
}

/// The plain step or the composition's sub-steps; returns the largest first contraction of Newton.
double KernelEnergyMomentumIntegrator::advance(State& state, double h, NewtonSolver<Eigen::Dynamic>& newton) {
  if (substeps_.empty()) return substep(state, h, newton);
  double first_contraction = 0.0;
  for (double gamma : substeps_) first_contraction = std::max(first_contraction, substep(state, gamma * h, newton));
  return first_contraction;
}

/// One step of size h of eqs. 5.5–5.9 from `state`. The unknown is the correction e to the explicit
/// increment: solving for e rather than q_{n+1} keeps its digits, with no cancellation of O(h p) terms.
double KernelEnergyMomentumIntegrator::substep(State& state, double h, NewtonSolver<Eigen::Dynamic>& newton) {
  explicit_d_.noalias() = mass_inverse_ * state.p;
  explicit_d_ *= h;
  e_.setZero();
  d_ = explicit_d_;
  mu_ = (0.5 * h * h) * state.lambda;  // from the last step's multipliers
  StepEquations equations{*this, state, h, quadratic_potential_ ? 0.0 : potential(state.q)};
  const NewtonStats stats = newton.solve(equations, NewtonPolicy::from(options_));
  if (!stats.converged) {
    double residual = stats.residual_norm;
    if (newton.last_stop() == NewtonStop::kMaxIterations) {  // the residual at the last iterate
      Eigen::VectorXd r(n_ + k_);
      equations.assemble(r, nullptr);
      residual = r.lpNorm<Eigen::Infinity>();
    }
    // Newton's last iterate outside the model's own domain is the reason to give (as the variational
    // integrator's, kernel_variational_integrator.cpp).
    if (d_.allFinite()) {
      q1_ = state.q + d_;
      model_->check_step(state.q, q1_, t_ + h_);
    }
    throw NewtonFailure(step_index_ + 1, t_ + h_, residual, stats.iterations);
  }
  last_iterations_ = stats.iterations;
  total_iterations_ += stats.iterations;
  // q and p summed with Kahan's compensation (the fixed-size integrator's reasons).
  compensated_add(state.q, state.q_carry, d_, scratch_);
  increment_.noalias() = mass_ * e_;
  increment_ *= 2.0 / h;  // p_{n+1} − p_n = 2 M d / h − 2 p_n = 2 M e / h
  compensated_add(state.p, state.p_carry, increment_, scratch_);
  state.lambda = (2.0 / (h * h)) * mu_;
  return stats.first_contraction;
}

/// Two steps of h/2 from the step's start must converge and end within max_ratio step lengths of
/// the step's end (integrate/step_check.hpp); else RejectedStep, the state put back to `start`.
void KernelEnergyMomentumIntegrator::confirm_step(const State& start) {
  ++confirmed_steps_;
  half_ = start;
  bool converged = true;
  try {
    advance(half_, 0.5 * h_, confirm_newton_);
    q_half_ = half_.q;
    advance(half_, 0.5 * h_, confirm_newton_);
    converged = q_half_.allFinite() && half_.q.allFinite();
  } catch (const NumericalFailure&) {
    converged = false;
  }
  const double motion = motion_scale<Eigen::Dynamic>(start.q, previous_step_, q_half_, half_.q, options_.step_tolerance);
  const double ratio = (half_.q - state_.q).lpNorm<Eigen::Infinity>() / motion;
  try {
    judge_confirmation(converged, ratio, check_.max_ratio, step_index_ + 1, t0_ + (step_index_ + 1) * h_);
  } catch (...) {
    state_ = start;
    throw;
  }
}

/// V(q) = −L(q, 0) (NaN outside the model's domain).
double KernelEnergyMomentumIntegrator::potential(const Vector& q) const {
  double value = 0.0;
  return model_->gradient(q, zero_, &value, nullptr, nullptr) ? -value : kNaN;
}

double KernelEnergyMomentumIntegrator::energy() const {
  return 0.5 * state_.p.dot(mass_inverse_ * state_.p) + potential(state_.q);
}

double KernelEnergyMomentumIntegrator::momentum(int i) const {
  if (!model_->symmetry(i, state_.q, gradient_)) return kNaN;
  return state_.p.dot(gradient_);
}

Vector KernelEnergyMomentumIntegrator::constraint_residual() const {
  Vector g(k_);
  if (k_ > 0 && !model_->constraints(state_.q, &g, nullptr)) g.setConstant(kNaN);
  return g;
}

/// x += dx with Kahan's compensation `carry` (the part of earlier increments lost to rounding).
void KernelEnergyMomentumIntegrator::compensated_add(Vector& x, Vector& carry, const Vector& dx, Vector& scratch) {
  scratch = dx - carry;    // y
  carry = x + scratch;     // sum, kept in carry for now
  carry.swap(x);           // x = sum, carry = the old x
  carry = (x - carry) - scratch;  // (sum − x_old) − y
}

}  // namespace mechint::kernel
