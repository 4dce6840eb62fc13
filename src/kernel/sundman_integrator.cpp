#include "kernel/sundman_integrator.hpp"

#include <cmath>
#include <limits>

#include "kernel/kernel_legendre.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::kernel {

KernelSundmanIntegrator::KernelSundmanIntegrator(std::shared_ptr<const KernelModel> base, GalerkinTableau tableau,
                                                 double h, Composition composition, NewtonOptions options,
                                                 StepCheckOptions check, Landing landing)
    : transformation_(std::move(base)), h_(h), landing_(landing) {
  const KernelModel& scaled = transformation_.model();
  main_ = std::make_unique<KernelGalerkinIntegrator>(scaled, tableau, h, composition, options, check);
  aside_ = std::make_unique<KernelGalerkinIntegrator>(scaled, std::move(tableau), h, std::move(composition), options,
                                                      check);
  main_->set_time_scale(&transformation_.base());
  aside_->set_time_scale(&transformation_.base());
}

double KernelSundmanIntegrator::scale_at(const Vector& q) const {
  double s = std::numeric_limits<double>::quiet_NaN();
  if (!transformation_.base().time_scale(q, s, nullptr, nullptr)) return std::numeric_limits<double>::quiet_NaN();
  return s;
}

void KernelSundmanIntegrator::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  const double s = scale_at(q0);
  if (!(s > 0.0) || !std::isfinite(s))
    throw InvalidStart("the time scale s(q) is " + format_number(s) +
                       " at the start: it must be positive and finite (check time_scale)");
  const double e0 = kernel_energy(transformation_.base(), q0, qdot0);
  if (!std::isfinite(e0)) throw InvalidStart("the energy is not finite at the start");
  transformation_.set_energy_level(e0);
  main_->start_from_velocity(q0, s * qdot0, t0);  // w = dq/dτ = s(q) q̇
  aside_->start_from_velocity(q0, s * qdot0, t0);  // its state sized as after a landing (checkpoints)
  previous_q_ = main_->q(), previous_p_ = main_->p(), previous_t_ = t0;
  steps_ = 0, last_dt_ = 0.0, showing_aside_ = false;
  guard_.start(h_);
}

void KernelSundmanIntegrator::step_toward(double t) {
  if (main_->time() > t) return land(t);  // another row within the trajectory's last step
  if (showing_aside_ && main_->time() > landed_t_) {
    showing_aside_ = false;  // the trajectory's own state, at or before t
    return;
  }
  showing_aside_ = false;
  previous_q_ = main_->q(), previous_p_ = main_->p(), previous_t_ = main_->time();
  take_step(*main_);
  ++steps_;
  last_dt_ = main_->time() - previous_t_;
  guard_.after_step(steps_, previous_t_, main_->time(), t, scale_at(main_->q()));
  // Only where s has fallen far below its values of the run (near a zero of s): elsewhere the
  // energy error's force is O(h^p) of the model's, and the check would cost each step allocations.
  if (last_dt_ < 1e-3 * guard_.largest_step()) check_transformation_error();
  if (main_->time() > t) land(t);
}

void KernelSundmanIntegrator::check_transformation_error() {
  const KernelModel& base = transformation_.base();
  const Vector& q = main_->q();
  double s = 0.0;
  scale_gradient_.resize(q.size()), force_.resize(q.size());
  if (!base.time_scale(q, s, &scale_gradient_, nullptr) || !(s > 0.0)) return;  // the guard's to report
  physical_velocity_ = main_->velocity() / s;
  const double error = kernel_energy(base, q, physical_velocity_) - transformation_.energy_level();
  if (!base.gradient(q, physical_velocity_, nullptr, &force_, nullptr)) return;
  const double spurious = std::abs(error) * scale_gradient_.lpNorm<Eigen::Infinity>() / s;
  const double physical = force_.lpNorm<Eigen::Infinity>();
  // Where the model exerts no force the comparison has no scale (a free particle): not judged.
  if (!(physical > 0.0) || !std::isfinite(spurious) || spurious <= physical) return;
  throw NumericalFailure("at step " + std::to_string(steps_) + " (t = " + format_number(main_->time()) +
                             ") the motion is no longer the model's: the energy error E - E0 = " +
                             format_number(error, 3) + " acts through the time scale s(q) = " + format_number(s, 3) +
                             " with a force " + format_number(spurious / physical, 3) +
                             " times the model's (s is too close to 0 along the motion); check time_scale, or "
                             "reduce the step size",
                         FailureLocation{steps_, previous_t_});
}

void KernelSundmanIntegrator::take_step(KernelGalerkinIntegrator& integrator) {
  transformation_.clear_refused_scale();
  try {
    integrator.step();
  } catch (const NumericalFailure& e) {
    double s = 0.0;
    if (!transformation_.refused_scale(s)) throw;
    throw NumericalFailure("the time scale s(q) is " + format_number(s) + " at a stage of step " +
                               std::to_string(steps_ + 1) + " (t = " + format_number(previous_t_) +
                               "): it must stay positive and finite; reduce the step size or check time_scale",
                           FailureLocation{steps_ + 1, previous_t_});
  }
}

double KernelSundmanIntegrator::aside_step(double theta) {
  aside_->set_step_size(theta * h_);
  aside_->start_from_momentum(previous_q_, previous_p_, previous_t_);
  take_step(*aside_);
  return aside_->time();
}

/// θ ∈ (0, 1) with t(θ) = T by the Illinois variant of regula falsi (Dowell & Jarratt 1971): the
/// bracket [0, 1] shrinks from both sides, superlinearly on a smooth t(θ).
void KernelSundmanIntegrator::land(double t) {
  double theta_low = 0.0, theta_high = 1.0;
  double f_low = previous_t_ - t, f_high = main_->time() - t;
  const double tolerance = 8.0 * std::numeric_limits<double>::epsilon() * std::max(std::abs(t), std::abs(previous_t_));
  int retained = 0;  // which end was kept last (Illinois halves its value when kept twice)
  bool landed = false;
  for (int iteration = 0; iteration < 60 && !landed; ++iteration) {
    const double theta = (theta_low * f_high - theta_high * f_low) / (f_high - f_low);
    const double f = aside_step(theta) - t;
    if (!std::isfinite(f)) break;
    if (std::abs(f) <= tolerance || theta_high - theta_low <= 4.0 * std::numeric_limits<double>::epsilon()) {
      landed = true;
    } else if (f < 0.0) {
      theta_low = theta, f_low = f;
      if (retained == +1) f_high *= 0.5;
      retained = +1;
    } else {
      theta_high = theta, f_high = f;
      if (retained == -1) f_low *= 0.5;
      retained = -1;
    }
  }
  if (!landed)
    throw NumericalFailure("no step from t = " + format_number(previous_t_) + " ends at the output time " +
                               format_number(t) + " (step " + std::to_string(steps_) + "); reduce the step size",
                           FailureLocation{steps_, previous_t_});
  const double scale = scale_at(aside_->q());
  if (!(scale > 0.0) || !std::isfinite(scale))
    throw NumericalFailure("the time scale s(q) is " + format_number(scale) + " at the output time t = " +
                               format_number(t) + " (step " + std::to_string(steps_) +
                               "): it must stay positive and finite; reduce the step size or check time_scale",
                           FailureLocation{steps_, previous_t_});
  landed_t_ = t;
  showing_aside_ = true;
  if (landing_ == Landing::kInline) {
    main_->start_from_momentum(aside_->q(), aside_->p(), t);
    showing_aside_ = false;
  }
}

Vector KernelSundmanIntegrator::velocity() const { return row().velocity() / scale_at(row().q()); }

double KernelSundmanIntegrator::energy() const { return kernel_energy(transformation_.base(), q(), velocity()); }

Vector KernelSundmanIntegrator::lambda() const {
  const Vector& fictive = row().lambda();
  return fictive.size() == 0 ? fictive : Vector(fictive / scale_at(row().q()));
}

}  // namespace mechint::kernel
