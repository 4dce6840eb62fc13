#include "kernel/energy_step_integrator.hpp"

#include <cmath>
#include <limits>

#include "kernel/kernel_legendre.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::kernel {

/// The midpoint rule's residual in V at a given h, and its Jacobian, with L and its derivatives at
/// (Q, V): ∂R/∂V = L_vv + (h/2)(L_qvᵀ − L_qv) − (h²/4) L_qq.
struct KernelEnergyStepIntegrator::StepSystem {
  KernelEnergyStepIntegrator& s;
  const Vector& q0;
  const Vector& p0;
  Vector& v;
  double h;

  void assemble(Eigen::VectorXd& r, Eigen::MatrixXd* a) {
    s.midpoint_ = q0;
    s.midpoint_.noalias() += (0.5 * h) * v;
    LagrangianValues& l = s.values_;
    if (!s.model_->lagrangian(s.midpoint_, v, l)) {
      r.setConstant(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    r = l.v - p0;
    r.noalias() -= (0.5 * h) * l.q;
    if (!a) return;
    *a = l.vv;
    a->noalias() += (0.5 * h) * l.qv.transpose();
    a->noalias() -= (0.5 * h) * l.qv;
    a->noalias() -= (0.25 * h * h) * l.qq;
  }
  double update(const Eigen::VectorXd& delta) {
    v -= delta;
    return delta.lpNorm<Eigen::Infinity>();
  }
  bool converged_on_residual(const NewtonIterate& state) const {
    return state.residual_norm <= s.options_.residual_tolerance * (1.0 + p0.lpNorm<Eigen::Infinity>());
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_below(state, s.options_.step_tolerance, v.lpNorm<Eigen::Infinity>());
  }
};

KernelEnergyStepIntegrator::KernelEnergyStepIntegrator(const KernelModel& model, double h, NewtonOptions options)
    : model_(&model),
      n_(model.dim()),
      nominal_h_(h),
      options_(options),
      newton_(model.dim()),
      values_(model.dim()),
      midpoint_(model.dim()) {
  if (model.num_constraints() > 0 || model.num_nonholonomic() > 0)
    throw InvalidInput("adapt=energy applies to unconstrained models");
  if (model.forced()) throw InvalidInput("adapt=energy applies to models without forces (their work changes the energy)");
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidInput("the step h must be a positive number, got " + format_number(h));
  options_.variant = NewtonVariant::kFull;  // h changes every step: nothing to keep
}

void KernelEnergyStepIntegrator::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  if (!q0.allFinite() || !qdot0.allFinite()) throw InvalidStart("the initial values are not finite");
  Vector p0(n_);
  if (!model_->gradient(q0, qdot0, nullptr, nullptr, &p0) || !p0.allFinite())
    throw InvalidStart("the model is not defined at the start (outside its domain)");
  q_ = q0, p_ = p0, v_ = qdot0;
  t_ = t0, h_ = nominal_h_, target_ = last_energy_ = kernel_energy(*model_, q0, qdot0);
  steps_ = fallbacks_ = 0;
  started_ = false, showing_aside_ = false;
  energy_jumps_.reset();
  previous_q_ = q_, previous_p_ = p_, previous_v_ = v_, previous_t_ = t_;
  aside_q_ = q_, aside_p_ = p_, aside_v_ = v_, aside_t_ = t_;  // sized as after a landing (checkpoints)
}

bool KernelEnergyStepIntegrator::solve(const Vector& q0, const Vector& p0, Vector& v, double h) {
  StepSystem system{*this, q0, p0, v, h};
  const NewtonStats stats = newton_.solve(system, NewtonPolicy::from(options_));
  return stats.converged && v.allFinite();
}

double KernelEnergyStepIntegrator::midpoint_energy(const Vector& q0, const Vector& v, double h, double* size) {
  midpoint_ = q0;
  midpoint_.noalias() += (0.5 * h) * v;
  double l = std::numeric_limits<double>::quiet_NaN();
  if (!model_->gradient(midpoint_, v, &l, nullptr, &values_.v)) return std::numeric_limits<double>::quiet_NaN();
  const double kinetic_part = v.dot(values_.v);
  if (size) *size = std::abs(kinetic_part) + std::abs(l);
  return kinetic_part - l;
}

/// The step size h with E(Q(h), V(h)) = E_d, from the previous one: E − E_d is close to linear in
/// u = h² (E(Q, V) = E(q_k, v_k) + c h² + O(h⁴), the midpoint rule being symmetric), so the secant
/// method on u converges in a few steps and never picks the mirrored root −h. Each evaluation solves
/// the midpoint rule at that h (from the last V). False when the root leaves [h/4, 4h] or is not met.
bool KernelEnergyStepIntegrator::energy_step(double& h) {
  const auto residual = [&](double u, double& size) {
    if (!solve(q_, p_, v_, std::sqrt(u))) return std::numeric_limits<double>::quiet_NaN();
    return midpoint_energy(q_, v_, std::sqrt(u), &size) - target_;
  };
  // Within a factor 4 of the previous step, and of kMaxRange of the nominal one.
  const double low = std::max(h_ / 4.0, nominal_h_ / kMaxRange), high = std::min(4.0 * h_, kMaxRange * nominal_h_);
  const double u_low = low * low, u_high = high * high;
  double size = 0.0;
  double u0 = h_ * h_, f0 = residual(u0, size);
  double u1 = 1.21 * u0, f1 = residual(u1, size);
  for (int iteration = 0; iteration < 30; ++iteration) {
    if (!std::isfinite(f0) || !std::isfinite(f1)) return false;
    if (std::abs(f1) <= 8.0 * std::numeric_limits<double>::epsilon() * size) {
      h = std::sqrt(u1);
      return true;
    }
    if (f1 == f0) return false;
    const double u2 = u1 - f1 * (u1 - u0) / (f1 - f0);
    if (!(u2 >= u_low && u2 <= u_high)) return false;
    if (std::abs(u2 - u1) <= 4.0 * std::numeric_limits<double>::epsilon() * u1) {  // at round-off: u1 is the root
      h = std::sqrt(u1);
      return true;
    }
    u0 = u1, f0 = f1;
    u1 = u2, f1 = residual(u1, size);
  }
  return false;
}

double KernelEnergyStepIntegrator::finish(const Vector& q0, const Vector& v, double h, Vector& q1, Vector& p1,
                                          double* size) {
  midpoint_ = q0;
  midpoint_.noalias() += (0.5 * h) * v;
  double l = std::numeric_limits<double>::quiet_NaN();
  if (!model_->gradient(midpoint_, v, &l, &values_.q, &values_.v))
    throw NewtonFailure(steps_ + 1, t_, std::numeric_limits<double>::quiet_NaN(), 0);
  q1 = q0;
  q1.noalias() += h * v;
  p1 = values_.v;
  p1.noalias() += (0.5 * h) * values_.q;
  if (size) *size = std::abs(v.dot(values_.v)) + std::abs(l);
  return v.dot(values_.v) - l;
}

void KernelEnergyStepIntegrator::trajectory_step() {
  double h = h_;
  if (!started_) {
    // The first step at the nominal h fixes E_d.
    if (!solve(q_, p_, v_, h)) throw NewtonFailure(steps_ + 1, t_ + h, std::nan(""), 0);
    target_ = midpoint_energy(q_, v_, h, nullptr);
    started_ = true;
  } else {
    saved_v_ = v_;
    if (!energy_step(h)) {
      v_ = saved_v_, h = h_;  // within the range already: every kept step is
      if (!solve(q_, p_, v_, h)) throw NewtonFailure(steps_ + 1, t_ + h, std::nan(""), 0);
      ++fallbacks_;
    }
  }
  double size = 0.0;
  last_energy_ = finish(q_, v_, h, q1_, p1_, &size);
  if (!q1_.allFinite() || !p1_.allFinite()) throw NewtonFailure(steps_ + 1, t_ + h, std::nan(""), 0);
  // The step stays within [h/64, 64 h] of the nominal one (energy_step), so it cannot collapse; only
  // a time so large that h is below its rounding could stop it from advancing.
  if (!(t_ + h > t_))
    throw NumericalFailure("the step h = " + format_number(h) + " no longer advances the time t = " + format_number(t_) +
                               " (step " + std::to_string(steps_ + 1) + "); use a larger h",
                           FailureLocation{steps_ + 1, t_});
  energy_jumps_.judge(last_energy_, size, steps_ + 1, t_ + h);
  model_->check_step(q_, q1_, t_ + h);
  q_ = q1_, p_ = p1_;
  t_ += h, h_ = h;
  ++steps_;
}

void KernelEnergyStepIntegrator::step_toward(double t) {
  if (t_ > t) return land(t);  // another row within the trajectory's last step
  if (showing_aside_ && t_ > aside_t_) {
    showing_aside_ = false;
    return;
  }
  showing_aside_ = false;
  previous_q_ = q_, previous_p_ = p_, previous_v_ = v_, previous_t_ = t_;
  trajectory_step();
  if (t_ > t) land(t);
}

/// A plain midpoint step from the trajectory's previous node to t, off the trajectory.
void KernelEnergyStepIntegrator::land(double t) {
  double h = t - previous_t_;
  aside_v_ = previous_v_;
  if (!solve(previous_q_, previous_p_, aside_v_, h))
    throw NewtonFailure(steps_, t, std::numeric_limits<double>::quiet_NaN(), 0);
  Vector q1(n_), p1(n_);
  finish(previous_q_, aside_v_, h, q1, p1);
  aside_q_ = q1, aside_p_ = p1, aside_t_ = t;
  showing_aside_ = true;
}

Vector KernelEnergyStepIntegrator::velocity() const {
  return tangent_velocity(*model_, q(), p(), showing_aside_ ? aside_v_ : v_);
}

double KernelEnergyStepIntegrator::energy() const { return kernel_energy(*model_, q(), velocity()); }

double KernelEnergyStepIntegrator::momentum(int i) const {
  Vector xi(n_);
  if (!model_->symmetry(i, q(), xi)) return std::numeric_limits<double>::quiet_NaN();
  return p().dot(xi);
}

}  // namespace mechint::kernel
