#include "kernel/nonholonomic_integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/LU>

#include "kernel/kernel_legendre.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::kernel {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_finite(const Vector& x, const char* what) {
  if (!x.allFinite()) throw InvalidStart(std::string(what) + " contains NaN or infinity");
}

}  // namespace

/// The row-scaled step equations of the file comment in (q_{k+1}, ν), ν = h²μ/2. An iterate where the
/// model is not defined gives a NaN residual: Newton stops there (NewtonStop::kNonFinite).
struct NonholonomicIntegrator::StepSystem {
  NonholonomicIntegrator& s;
  double residual_scale;  // 1 + ‖h·p_k‖∞

  void assemble(Eigen::VectorXd& r, Eigen::MatrixXd* j) {
    const int n = s.n_, m = s.r_;
    const KernelModel& model = *s.model_;
    const bool midpoint = s.rule_kind_ == Rule::kMidpoint;
    s.w_ = s.q_next_ - s.q_;
    bool defined = s.rule_.d1(s.q_, s.q_next_, s.h_, s.d1_, j ? &s.d12_ : nullptr);
    if (midpoint) {
      s.mid_ = 0.5 * (s.q_ + s.q_next_);
      defined = defined && model.nonholonomic(s.mid_, s.w_, &s.a_bar_, j ? &s.aw_q_ : nullptr);
    } else {
      defined = defined && model.nonholonomic(s.q_next_, s.w_, &s.a_plus_, j ? &s.aw_q_ : nullptr);
      if (defined) s.a_bar_ = 0.5 * (s.a_minus_ + s.a_plus_);
    }
    if (!defined) {
      r.setConstant(kNaN);
      return;
    }
    const RowMatrix& a_minus = midpoint ? s.a_bar_ : s.a_minus_;
    r.head(n) = s.h_ * (s.p_ + s.d1_);
    r.head(n).noalias() += a_minus.transpose() * s.nu_;
    r.tail(m).noalias() = s.a_bar_ * s.w_;
    if (!j) return;
    j->topLeftCorner(n, n) = s.h_ * s.d12_;
    if (midpoint) {
      // ∂(A(q_{k+½})ᵀν)/∂q_{k+1} = ½ Σ_a ν_a ∂A_ai/∂q_j: row i from ∂(A e_i)/∂q, one kernel call per
      // coordinate (the kernel gives ∂(A w)/∂q for a given w).
      for (int i = 0; i < n; ++i) {
        s.unit_.setZero();
        s.unit_[i] = 1.0;
        if (!model.nonholonomic(s.mid_, s.unit_, nullptr, &s.a_derivative_)) {
          r.setConstant(kNaN);
          return;
        }
        j->block(i, 0, 1, n).noalias() += 0.5 * s.nu_.transpose() * s.a_derivative_;
      }
    }
    // A⁻ of the trapezoid rule is A(q_k): it does not move with q_{k+1}.
    j->topRightCorner(n, m) = a_minus.transpose();
    j->bottomLeftCorner(m, n) = s.a_bar_ + 0.5 * s.aw_q_;
    j->bottomRightCorner(m, m).setZero();
  }
  /// The update of q and of ν, each relative to its size: the multipliers must converge too. A test on
  /// q alone lets simplified Newton, whose kept Jacobian corrects ν slowly, stop with the force balance
  /// unsolved (measured: 8e-4 off full Newton in y after 2000 steps of the sleigh).
  double update(const Eigen::VectorXd& delta) {
    s.q_next_ -= delta.head(s.n_);
    s.nu_ -= delta.tail(s.r_);
    return std::max(delta.head(s.n_).lpNorm<Eigen::Infinity>() / (1.0 + s.q_next_.lpNorm<Eigen::Infinity>()),
                    delta.tail(s.r_).lpNorm<Eigen::Infinity>() / (1.0 + s.nu_.lpNorm<Eigen::Infinity>()));
  }
  bool converged_on_residual(const NewtonIterate& state) const {
    return state.residual_norm <= s.options_.residual_tolerance * residual_scale;
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_converged(state, s.options_.variant, s.options_.step_tolerance);
  }
};

NonholonomicIntegrator::NonholonomicIntegrator(const KernelModel& model, Rule rule, double h, NewtonOptions options)
    : model_(&model), n_(model.dim()), r_(model.num_nonholonomic()), rule_kind_(rule), h_(h), options_(options),
      rule_(model, rule), newton_(model.dim() + model.num_nonholonomic()) {
  if (r_ < 1) throw std::logic_error("the nonholonomic integrator needs a model with nonholonomic constraints");
  if (model.num_constraints() > 0)
    throw InvalidInput("nonholonomic constraints together with holonomic constraints are not supported: write the "
                       "holonomic ones away in the choice of coordinates");
  if (model.forced()) throw InvalidInput("nonholonomic constraints together with forces are not supported");
  if (rule == Rule::kFirstOrder)
    throw InvalidInput("vi-first-order is not symmetric: nonholonomic models take vi-midpoint or vi-trapezoid");
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
  for (Vector* v : {&q_, &q_prev_, &p_, &q_next_, &d1_, &mid_, &w_, &unit_}) v->setZero(n_);
  for (Vector* v : {&nu_, &mu_, &c_}) v->setZero(r_);
  d12_.setZero(n_, n_);
  for (RowMatrix* a : {&a_minus_, &a_plus_, &a_bar_, &aw_q_, &a_derivative_}) a->setZero(r_, n_);
}

void NonholonomicIntegrator::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  check_finite(q0, "q0");
  check_finite(qdot0, "initial velocity");
  RowMatrix a(r_, n_);
  LagrangianValues l(n_);
  if (!model_->nonholonomic(q0, qdot0, &a, nullptr) || !model_->lagrangian(q0, qdot0, l) || !a.allFinite())
    throw InvalidStart("the model or its nonholonomic constraints are not defined at the start");
  // A start off the distribution is a wrong start, not one to project silently.
  const double speed = qdot0.norm();
  for (int i = 0; i < r_; ++i) {
    const double normal = a.row(i).dot(qdot0);
    if (!(std::abs(normal) <= 1e-9 * a.row(i).norm() * speed))
      throw InvalidStart("initial velocity violates nonholonomic constraint " + std::to_string(i + 1) + ": A(q0) qdot0 = " +
                         format_number(normal) + ", more than 1e-9 of |A| |qdot0| = " +
                         format_number(a.row(i).norm() * speed));
  }
  // The multipliers are defined only when [[M, Aᵀ], [A, 0]] is invertible (A of full rank on M).
  Eigen::MatrixXd bordered = Eigen::MatrixXd::Zero(n_ + r_, n_ + r_);
  bordered.topLeftCorner(n_, n_) = l.vv;
  bordered.topRightCorner(n_, r_) = a.transpose();
  bordered.bottomLeftCorner(r_, n_) = a;
  if (!Eigen::FullPivLU<Eigen::MatrixXd>(bordered).isInvertible())
    throw InvalidStart("the nonholonomic constraints are dependent at the start (the mass matrix bordered by A(q0) is "
                       "singular): check the constraint expressions and initial values");
  q_ = q0;
  p_ = l.v;
  q_prev_ = q0 - h_ * qdot0;  // only the first guess of the first step uses it
  nu_.setZero();
  mu_.setZero();
  residual_ = (a * qdot0).lpNorm<Eigen::Infinity>();
  t0_ = t_ = t0;
  step_index_ = 0;
  stats_ = {};
  newton_.discard_factorization();
}

void NonholonomicIntegrator::start_from_momentum(const Vector& q0, const Vector& p0, double t0) {
  check_finite(q0, "q0");
  check_finite(p0, "initial momentum");
  q_ = q_prev_ = q0;
  p_ = p0;
  const Vector v = velocity();  // from the guess 0: one Newton step for L quadratic in q̇
  if (!v.allFinite()) throw InvalidStart("the model is not defined at the start (outside its domain)");
  q_prev_ = q0 - h_ * v;  // only the first guess of the first step uses it
  nu_.setZero();
  mu_.setZero();
  residual_ = 0.0;
  t0_ = t_ = t0;
  step_index_ = 0;
  stats_ = {};
  newton_.discard_factorization();
}

void NonholonomicIntegrator::step() {
  const auto fail = [&] { return NewtonFailure(step_index_ + 1, t_ + h_, stats_.residual_norm, stats_.iterations); };
  if (rule_kind_ == Rule::kTrapezoid && !model_->nonholonomic(q_, w_, &a_minus_, nullptr)) {
    stats_ = {};
    stats_.residual_norm = kNaN;
    throw fail();
  }
  q_next_ = 2.0 * q_ - q_prev_;  // ν keeps the last step's value: a first guess as good as q's
  StepSystem system{*this, 1.0 + h_ * p_.lpNorm<Eigen::Infinity>()};
  stats_ = newton_.solve(system, NewtonPolicy::from(options_));
  if (!stats_.converged || !q_next_.allFinite() || !nu_.allFinite()) throw fail();
  // The end of the step at the solution: A⁺ and Ā, p_{k+1} = D2 Ld + h/2 A⁺ᵀμ = D2 Ld + A⁺ᵀν / h.
  w_ = q_next_ - q_;
  bool defined;
  if (rule_kind_ == Rule::kMidpoint) {
    mid_ = 0.5 * (q_ + q_next_);
    defined = model_->nonholonomic(mid_, w_, &a_plus_, nullptr);
    a_bar_ = a_plus_;
  } else {
    defined = model_->nonholonomic(q_next_, w_, &a_plus_, nullptr);
    a_bar_ = 0.5 * (a_minus_ + a_plus_);
  }
  defined = defined && rule_.d2(q_, q_next_, h_, p_);
  if (!defined) p_.setConstant(kNaN);  // the run loop's finite-state check stops there
  p_.noalias() += (1.0 / h_) * a_plus_.transpose() * nu_;
  mu_ = (2.0 / (h_ * h_)) * nu_;
  c_.noalias() = a_bar_ * w_;
  residual_ = c_.lpNorm<Eigen::Infinity>() / h_;
  q_prev_ = q_;
  q_ = q_next_;
  ++step_index_;
  t_ = t0_ + static_cast<double>(step_index_) * h_;
  model_->check_step(q_prev_, q_, t_);
}

// ---- diagnostics ----------------------------------------------------------------------------------

Vector NonholonomicIntegrator::velocity() const {
  RowMatrix a(r_, n_);
  if (!model_->nonholonomic(q_, q_, &a, nullptr)) return Vector::Constant(n_, kNaN);
  return velocity_in_kernel_of(*model_, q_, p_, a, (q_ - q_prev_) / h_);
}

Vector NonholonomicIntegrator::multiplier() const {
  const Vector v = velocity();
  LagrangianValues l(n_);
  RowMatrix a(r_, n_), av_q(r_, n_);
  if (!v.allFinite() || !model_->lagrangian(q_, v, l) || !model_->nonholonomic(q_, v, &a, &av_q))
    return Vector::Constant(r_, kNaN);
  // d/dt ∂L/∂q̇ = M v̇ + (∂²L/∂q∂q̇)ᵀ q̇, and d/dt (A(q) q̇) = A v̇ + ∂(A w)/∂q|_{w = q̇} q̇ = 0.
  Eigen::MatrixXd bordered = Eigen::MatrixXd::Zero(n_ + r_, n_ + r_);
  bordered.topLeftCorner(n_, n_) = l.vv;
  bordered.topRightCorner(n_, r_) = -a.transpose();
  bordered.bottomLeftCorner(r_, n_) = a;
  Eigen::VectorXd rhs(n_ + r_);
  rhs.head(n_) = l.q - l.qv.transpose() * v;
  rhs.tail(r_) = -av_q * v;
  return Eigen::PartialPivLU<Eigen::MatrixXd>(bordered).solve(rhs).tail(r_);
}

double NonholonomicIntegrator::energy() const { return kernel_energy(*model_, q_, velocity()); }

double NonholonomicIntegrator::momentum(int i) const {
  Vector xi(n_);
  if (!model_->symmetry(i, q_, xi)) return kNaN;
  return p_.dot(xi);
}

}  // namespace mechint::kernel
