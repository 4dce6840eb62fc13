#include "kernel/nonholonomic_integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/LU>

#include "kernel/kernel_legendre.hpp"
#include "kernel/start_checks.hpp"
#include "kernel/taken_step_check.hpp"
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
    const int n = s.n_, m = s.r_, k = s.k_;
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
    if (defined && k > 0) defined = model.constraints(s.q_next_, &s.g_next_, j ? &s.dg_next_ : nullptr);
    if (!defined) {
      r.setConstant(kNaN);
      return;
    }
    const RowMatrix& a_minus = midpoint ? s.a_bar_ : s.a_minus_;
    r.head(n) = s.h_ * (s.p_ + s.d1_);
    r.head(n).noalias() += a_minus.transpose() * s.nu_;
    r.segment(n, m).noalias() = s.a_bar_ * s.w_;
    if (k > 0) {
      r.head(n).noalias() += s.dg_k_.transpose() * s.eta_;
      r.tail(k) = s.g_next_;
    }
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
        // Through a vector of its own: into a row of the column-major Jacobian Eigen would evaluate
        // the product in a temporary.
        s.jacobian_row_.noalias() = s.a_derivative_.transpose() * s.nu_;
        j->row(i).head(n) += 0.5 * s.jacobian_row_.transpose();
      }
    }
    // A⁻ of the trapezoid rule is A(q_k): it does not move with q_{k+1}; nor does G(q_k).
    j->block(0, n, n, m) = a_minus.transpose();
    j->block(n, 0, m, n) = s.a_bar_ + 0.5 * s.aw_q_;
    j->block(n, n, m, m + k).setZero();
    if (k > 0) {
      j->topRightCorner(n, k) = s.dg_k_.transpose();
      j->bottomLeftCorner(k, n) = s.dg_next_;
      j->bottomRightCorner(k, m + k).setZero();
    }
  }
  /// The update of q and of ν, each relative to its size: the multipliers must converge too. A test on
  /// q alone lets simplified Newton, whose kept Jacobian corrects ν slowly, stop with the force balance
  /// unsolved (measured: 8e-4 off full Newton in y after 2000 steps of the sleigh).
  double update(const Eigen::VectorXd& delta) {
    s.q_next_ -= delta.head(s.n_);
    s.nu_ -= delta.segment(s.n_, s.r_);
    double largest = std::max(delta.head(s.n_).lpNorm<Eigen::Infinity>() / (1.0 + s.q_next_.lpNorm<Eigen::Infinity>()),
                              delta.segment(s.n_, s.r_).lpNorm<Eigen::Infinity>() / (1.0 + s.nu_.lpNorm<Eigen::Infinity>()));
    if (s.k_ > 0) {
      s.eta_ -= delta.tail(s.k_);
      largest = std::max(largest, delta.tail(s.k_).lpNorm<Eigen::Infinity>() / (1.0 + s.eta_.lpNorm<Eigen::Infinity>()));
    }
    return largest;
  }
  bool converged_on_residual(const NewtonIterate& state) const {
    return state.residual_norm <= s.options_.residual_tolerance * residual_scale;
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_converged(state, s.options_.variant, s.options_.step_tolerance);
  }
};

NonholonomicIntegrator::NonholonomicIntegrator(const KernelModel& model, Rule rule, double h, NewtonOptions options)
    : model_(&model), n_(model.dim()), r_(model.num_nonholonomic()), k_(model.num_constraints()), rule_kind_(rule),
      h_(h), options_(options), rule_(model, rule),
      newton_(model.dim() + model.num_nonholonomic() + model.num_constraints()) {
  if (r_ < 1) throw std::logic_error("the nonholonomic integrator needs a model with nonholonomic constraints");
  if (model.forced()) throw InvalidInput("nonholonomic constraints together with forces are not supported");
  if (rule == Rule::kFirstOrder)
    throw InvalidInput("vi-first-order is not symmetric: nonholonomic models take vi-midpoint or vi-trapezoid");
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
  for (Vector* v : {&q_, &q_prev_, &p_, &q_next_, &d1_, &mid_, &w_, &unit_, &jacobian_row_}) v->setZero(n_);
  for (Vector* v : {&nu_, &mu_, &c_}) v->setZero(r_);
  for (Vector* v : {&eta_, &lambda_, &g_next_}) v->setZero(k_);
  d12_.setZero(n_, n_);
  for (RowMatrix* a : {&a_minus_, &a_plus_, &a_bar_, &aw_q_, &a_derivative_}) a->setZero(r_, n_);
  for (RowMatrix* a : {&dg_k_, &dg_next_}) a->setZero(k_, n_);
}

/// [A(q); Dg(q)], the velocity constraints of the distribution (false where not defined).
static bool velocity_constraints(const KernelModel& model, const Vector& q, RowMatrix& c) {
  const int r = model.num_nonholonomic(), k = model.num_constraints(), n = model.dim();
  RowMatrix a(r, n), dg(k, n);
  if (!model.nonholonomic(q, q, &a, nullptr)) return false;
  if (k > 0 && !model.constraints(q, nullptr, &dg)) return false;
  c.resize(r + k, n);
  c.topRows(r) = a;
  c.bottomRows(k) = dg;
  return c.allFinite();
}

void NonholonomicIntegrator::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  check_finite(q0, "q0");
  check_finite(qdot0, "initial velocity");
  RowMatrix a(r_, n_);
  LagrangianValues l(n_);
  if (!model_->nonholonomic(q0, qdot0, &a, nullptr) || !model_->lagrangian(q0, qdot0, l) || !a.allFinite())
    throw InvalidStart("the model or its nonholonomic constraints are not defined at the start");
  if (k_ > 0) {
    const RowMatrix dg = check_start_on_constraints(*model_, q0, &qdot0);
    a.conservativeResize(r_ + k_, n_);  // the bordered check below takes both kinds of constraint
    a.bottomRows(k_) = dg;
  }
  // A start off the distribution is a wrong start, not one to project silently.
  const double speed = qdot0.norm();
  for (int i = 0; i < r_; ++i) {  // the holonomic rows were checked above
    const double normal = a.row(i).dot(qdot0);
    if (!(std::abs(normal) <= 1e-9 * a.row(i).norm() * speed))
      throw InvalidStart("initial velocity violates nonholonomic constraint " + std::to_string(i + 1) + ": A(q0) qdot0 = " +
                         format_number(normal) + ", more than 1e-9 of |A| |qdot0| = " +
                         format_number(a.row(i).norm() * speed));
  }
  // The multipliers are defined only when [[M, Aᵀ], [A, 0]] is invertible (A of full rank on M).
  const int c = r_ + k_;
  Eigen::MatrixXd bordered = Eigen::MatrixXd::Zero(n_ + c, n_ + c);
  bordered.topLeftCorner(n_, n_) = l.vv;
  bordered.topRightCorner(n_, c) = a.transpose();
  bordered.bottomLeftCorner(c, n_) = a;
  if (!Eigen::FullPivLU<Eigen::MatrixXd>(bordered).isInvertible())
    throw InvalidStart("the constraints are dependent at the start (the mass matrix bordered by A(q0)" +
                       std::string(k_ > 0 ? " and Dg(q0)" : "") +
                       " is singular): check the constraint expressions and initial values");
  q_ = q0;
  p_ = l.v;
  q_prev_ = q0 - h_ * qdot0;  // only the first guess of the first step uses it
  nu_.setZero();
  mu_.setZero();
  eta_.setZero();
  lambda_.setZero();
  residual_ = (a.topRows(r_) * qdot0).lpNorm<Eigen::Infinity>();
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
  eta_.setZero();
  lambda_.setZero();
  residual_ = 0.0;
  t0_ = t_ = t0;
  step_index_ = 0;
  stats_ = {};
  newton_.discard_factorization();
}

void NonholonomicIntegrator::step() {
  const auto fail = [&] { return NewtonFailure(step_index_ + 1, t_ + h_, stats_.residual_norm, stats_.iterations); };
  if ((rule_kind_ == Rule::kTrapezoid && !model_->nonholonomic(q_, w_, &a_minus_, nullptr)) ||
      (k_ > 0 && !model_->constraints(q_, nullptr, &dg_k_))) {
    stats_ = {};
    stats_.residual_norm = kNaN;
    throw fail();
  }
  q_next_ = 2.0 * q_ - q_prev_;  // ν keeps the last step's value: a first guess as good as q's
  StepSystem system{*this, 1.0 + h_ * p_.lpNorm<Eigen::Infinity>()};
  stats_ = newton_.solve(system, NewtonPolicy::from(options_));
  if (!stats_.converged || !q_next_.allFinite() || !nu_.allFinite() || !eta_.allFinite()) throw fail();
  if (k_ > 0) lambda_ = eta_ / h_;
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
  check_taken_step(*model_, q_prev_, q_, t_, step_index_);
}

// ---- diagnostics ----------------------------------------------------------------------------------

Vector NonholonomicIntegrator::velocity() const {
  RowMatrix c;
  if (!velocity_constraints(*model_, q_, c)) return Vector::Constant(n_, kNaN);
  return velocity_in_kernel_of(*model_, q_, p_, c, (q_ - q_prev_) / h_);
}

Vector NonholonomicIntegrator::constraint_residual() const {
  Vector g(k_);
  if (k_ > 0 && !model_->constraints(q_, &g, nullptr)) g.setConstant(kNaN);
  return g;
}

Vector NonholonomicIntegrator::multiplier() const {
  const Vector v = velocity();
  LagrangianValues l(n_);
  RowMatrix a(r_, n_), av_q(r_, n_), dg(k_, n_), hessian(n_, n_);
  if (!v.allFinite() || !model_->lagrangian(q_, v, l) || !model_->nonholonomic(q_, v, &a, &av_q))
    return Vector::Constant(r_, kNaN);
  if (k_ > 0 && (!model_->has_constraint_curvature() || !model_->constraints(q_, nullptr, &dg)))
    return Vector::Constant(r_, kNaN);
  // d/dt ∂L/∂q̇ = M v̇ + (∂²L/∂q∂q̇)ᵀ q̇, d/dt (A(q) q̇) = A v̇ + ∂(A w)/∂q|_{w = q̇} q̇ = 0, and
  // d/dt (Dg(q) q̇) = Dg v̇ + q̇ᵀ ∂²g/∂q² q̇ = 0.
  const int c = r_ + k_;
  Eigen::MatrixXd bordered = Eigen::MatrixXd::Zero(n_ + c, n_ + c);
  bordered.topLeftCorner(n_, n_) = l.vv;
  bordered.block(0, n_, n_, r_) = -a.transpose();
  bordered.block(n_, 0, r_, n_) = a;
  Eigen::VectorXd rhs(n_ + c);
  rhs.head(n_) = l.q - l.qv.transpose() * v;
  rhs.segment(n_, r_) = -av_q * v;
  if (k_ > 0) {
    bordered.topRightCorner(n_, k_) = -dg.transpose();
    bordered.bottomLeftCorner(k_, n_) = dg;
    Vector unit = Vector::Zero(k_);
    for (int i = 0; i < k_; ++i) {
      unit.setZero();
      unit[i] = 1.0;
      if (!model_->constraint_curvature(q_, unit, hessian)) return Vector::Constant(r_, kNaN);
      rhs[n_ + r_ + i] = -v.dot(hessian * v);
    }
  }
  return Eigen::PartialPivLU<Eigen::MatrixXd>(bordered).solve(rhs).segment(n_, r_);
}

double NonholonomicIntegrator::energy() const { return kernel_energy(*model_, q_, velocity()); }

double NonholonomicIntegrator::momentum(int i) const {
  Vector xi(n_);
  if (!model_->symmetry(i, q_, xi)) return kNaN;
  return p_.dot(xi);
}

}  // namespace mechint::kernel
