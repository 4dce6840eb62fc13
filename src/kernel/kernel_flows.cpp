#include "kernel/kernel_flows.hpp"

#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_hamiltonian.hpp"
#include "kernel/sized_newton.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint::kernel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// E = ∂L/∂v·v − L at (q, v); NaN outside the model's domain.
double energy_at(const KernelModel& model, const Vector& q, const Vector& v, Vector& l_v) {
  double energy = 0.0, size = 0.0;
  return model.energy_from_gradient(q, v, energy, size, l_v) ? energy : kNaN;
}

/// The explicit Störmer–Verlet step both flows take on a separable model (kernel_flows.hpp,
/// kernel/separable.hpp's separable_drift and separable_kick).
class SeparableStep {
 public:
  SeparableStep(const KernelModel& model, SeparableKinetics kinetics)
      : model_(&model), kinetics_(std::move(kinetics)) {
    for (Vector* x : {&zero_, &force0_, &force1_, &mass_velocity_, &v_}) x->setZero(model.dim());
  }

  StepResult step(const Vector& q0, const Vector& p0, double h, Vector& q1, Vector& p1) {
    StepResult r;
    double l0 = 0.0, l1 = 0.0;
    // L_q does not depend on v here, and L(q, 0) = −V(q).
    if (!model_->gradient(q0, zero_, &l0, &force0_, nullptr)) return r;
    at_short_size(model_->dim(), [&]<int N>() { separable_drift<N>(kinetics_, q0, p0, force0_, h, mass_velocity_, v_, q1); });
    if (!model_->gradient(q1, zero_, &l1, &force1_, nullptr)) return r;
    at_short_size(model_->dim(), [&]<int N>() { separable_kick<N>(p0, force0_, force1_, h, p1); });
    // −D3 Ld = ½[E(q0, v) + E(q1, v)], E(q, v) = ½ vᵀM v − L(q, 0).
    r.discrete_energy = 0.5 * v_.dot(mass_velocity_) - 0.5 * (l0 + l1);
    r.converged = q1.allFinite() && p1.allFinite() && std::isfinite(r.discrete_energy);
    return r;
  }

 private:
  const KernelModel* model_;
  SeparableKinetics kinetics_;
  Vector zero_, force0_, force1_, mass_velocity_, v_;
};

// ---- vi-trapezoid (004 eq. 16) ----------------------------------------------------------------------

class TrapezoidFlow final : public KernelFlow {
 public:
  TrapezoidFlow(const KernelModel& model, NewtonOptions options)
      : model_(&model), options_(options), rule_(model, Rule::kTrapezoid), hamiltonian_(model),
        newton_(sized_newton(model.dim())), velocity_newton_(model.dim()),
        a_(model.dim()), b_(model.dim()) {
    const int n = model.dim();
    for (Vector* x : {&d1_, &v_, &l_v_}) x->setZero(n);
    d12_.setZero(n, n);
  }

  void set_separable(const std::optional<SeparableKinetics>& kinetics) override {
    separable_.reset();
    if (kinetics && !model_->supplies_own_discrete_rule(MECHINT_RULE_TRAPEZOID))
      separable_.emplace(*model_, *kinetics);
  }

  StepResult step(const Vector& q0, const Vector& p0, double h, Vector& q1, Vector& p1) override {
    if (separable_) return separable_->step(q0, p0, h, q1, p1);
    StepResult r;
    if (!hamiltonian_.velocity(q0, p0, hamiltonian_.zero())) return r;
    q1 = q0 + h * hamiltonian_.v();
    // R = h(p0 + D1 Ld(q0, q1)), J = h D12 Ld (the variational integrator's row scaling).
    NewtonPolicy policy = NewtonPolicy::from(options_);
    policy.variant = NewtonVariant::kFull;
    const double residual_scale = 1.0 + (h * p0).lpNorm<Eigen::Infinity>();
    const NewtonStats stats = std::visit(
        [&]<int N>(NewtonSolver<N>& newton) {
          Del<N> del{*this, h, q0, p0, q1, residual_scale};
          return newton.solve(del, policy);
        },
        newton_);
    r.iterations = stats.iterations;
    r.residual_norm = stats.residual_norm;
    if (!stats.converged || !q1.allFinite()) return r;
    v_ = (q1 - q0) / h;
    if ((q1 - q0).lpNorm<Eigen::Infinity>() < 1e-4 * (1.0 + q0.lpNorm<Eigen::Infinity>())) {
      // A short step: v from the DEL equation, p1 with v only multiplied by h (kernel_flows.hpp's file comment).
      if (!short_step_velocity(q0, q1, p0, h)) return r;
      p1 = p0 + 0.5 * h * (a_.q + b_.q);
    } else if (!rule_.d2(q0, q1, h, p1)) {
      return r;
    }
    r.discrete_energy = 0.5 * (energy_at(*model_, q0, v_, l_v_) + energy_at(*model_, q1, v_, l_v_));
    r.converged = p1.allFinite() && std::isfinite(r.discrete_energy);
    return r;
  }

  ModifiedHamiltonianKind modified_hamiltonian_kind() const override { return ModifiedHamiltonianKind::kTrapezoidVi; }
  std::string_view name() const override { return "vi-trapezoid"; }

 private:
  /// The DEL equation of the step in the solver's storage: of size N on the fast path of short
  /// models (kernel/sized_newton.hpp), runtime-sized otherwise.
  template <int N>
  struct Del {
    using V = Eigen::Matrix<double, N, 1>;
    TrapezoidFlow& f;
    double h;
    const Vector& q0;
    const Vector& p0;
    Vector& q1;
    double residual_scale;
    template <class Residual, class Jacobian>
    void assemble(Residual& res, Jacobian* j) {
      const int n = static_cast<int>(q0.size());
      if (!f.rule_.template d1<N>(q0, q1, h, f.d1_, j ? &f.d12_ : nullptr)) {
        res.setConstant(kNaN);
        return;
      }
      res = h * (Eigen::Map<const V>(p0.data(), n) + Eigen::Map<const V>(f.d1_.data(), n));
      if (j) *j = h * Eigen::Map<const Eigen::Matrix<double, N, N, Eigen::RowMajor>>(f.d12_.data(), n, n);
    }
    template <class Delta>
    double update(const Delta& delta) {
      Eigen::Map<V>(q1.data(), q1.size()) -= delta;
      return delta.template lpNorm<Eigen::Infinity>();
    }
    bool converged_on_residual(const NewtonIterate& state) const {
      return state.residual_norm <= f.options_.residual_tolerance * residual_scale;
    }
    bool converged_on_update(const NewtonIterate& state) const {
      return update_converged(state, NewtonVariant::kFull, f.options_.step_tolerance, 1.0 + q1.lpNorm<Eigen::Infinity>());
    }
  };

  /// v_ of a short step from ½[L_v(q0, v) + L_v(q1, v)] − h/2 L_q(q0, v) = p0, Newton from
  /// (q1 − q0)/h; leaves L's derivatives at (q0, v) and (q1, v) in a_ and b_.
  bool short_step_velocity(const Vector& q0, const Vector& q1, const Vector& p0, double h) {
    struct Velocity {
      TrapezoidFlow& f;
      const Vector& q0;
      const Vector& q1;
      const Vector& p0;
      double h;
      void assemble(Eigen::VectorXd& res, Eigen::MatrixXd* j) {
        if (!f.model_->lagrangian(q0, f.v_, f.a_) || !f.model_->lagrangian(q1, f.v_, f.b_)) {
          res.setConstant(kNaN);
          return;
        }
        res = 0.5 * (f.a_.v + f.b_.v) - 0.5 * h * f.a_.q - p0;
        if (j) *j = 0.5 * (f.a_.vv + f.b_.vv) - 0.5 * h * f.a_.qv;
      }
      double update(const Eigen::VectorXd& delta) {
        f.v_ -= delta;
        return delta.lpNorm<Eigen::Infinity>();
      }
      bool converged_on_update(const NewtonIterate& state) const {
        return update_below(state, 1e-14, f.v_.lpNorm<Eigen::Infinity>());
      }
    } problem{*this, q0, q1, p0, h};
    if (!velocity_newton_.solve(problem, {.max_iterations = 10}).converged) return false;
    // The derivatives at the final v (the last assembly was at the iterate before the update).
    return model_->lagrangian(q0, v_, a_) && model_->lagrangian(q1, v_, b_) && v_.allFinite();
  }

  const KernelModel* model_;
  NewtonOptions options_;
  std::optional<SeparableStep> separable_;
  DiscreteRule rule_;
  KernelHamiltonian hamiltonian_;
  SizedNewton newton_;  ///< the DEL equation's
  NewtonSolver<Eigen::Dynamic> velocity_newton_;  ///< a short step's velocity
  LagrangianValues a_, b_;  ///< L's derivatives at (q0, v) and (q1, v) of a short step
  Vector d1_, v_, l_v_;
  RowMatrix d12_;
};

// ---- stormer-verlet (Lobatto IIIA–IIIB) ------------------------------------------------------------

class StormerVerletFlow final : public KernelFlow {
 public:
  StormerVerletFlow(const KernelModel& model, NewtonOptions options)
      : model_(&model), options_(options), d0_(model), d1_(model), newton_(model.dim()) {
    const int n = model.dim();
    for (Vector* x : {&ph_, &rhs_}) x->setZero(n);
    identity_ = Eigen::MatrixXd::Identity(n, n);
  }

  void set_separable(const std::optional<SeparableKinetics>& kinetics) override {
    separable_.reset();
    if (kinetics) separable_.emplace(*model_, *kinetics);
  }

  StepResult step(const Vector& q0, const Vector& p0, double h, Vector& q1, Vector& p1) override {
    if (separable_) return separable_->step(q0, p0, h, q1, p1);
    StepResult r;
    const double half = 0.5 * h;
    // Stage 1: p½ + h/2 H_q(q0, p½) = p0.
    ph_ = p0;
    if (!d0_.derivatives(q0, ph_, d0_.zero())) return r;
    if (!newton(r, ph_, [&](Eigen::VectorXd& f, Eigen::MatrixXd& j) {
          if (!d0_.derivatives(q0, ph_, d0_.v())) return false;
          f = ph_ - p0 + half * d0_.hq();
          j = identity_ + half * d0_.hqp();
          return true;
        }))
      return r;
    if (!d0_.derivatives(q0, ph_, d0_.v())) return r;
    // Stage 2: q1 − h/2 H_p(q1, p½) = q0 + h/2 H_p(q0, p½).
    rhs_ = q0 + half * d0_.v();
    q1 = q0 + h * d0_.v();
    if (!d1_.derivatives(q1, ph_, d0_.v())) return r;
    if (!newton(r, q1, [&](Eigen::VectorXd& f, Eigen::MatrixXd& j) {
          if (!d1_.derivatives(q1, ph_, d1_.v())) return false;
          f = q1 - half * d1_.v() - rhs_;
          j = identity_ - half * d1_.hqp().transpose();
          return true;
        }))
      return r;
    if (!d1_.derivatives(q1, ph_, d1_.v())) return r;
    // Stage 3.
    p1 = ph_ - half * d1_.hq();
    r.discrete_energy = 0.5 * (d0_.h() + d1_.h());
    r.converged = p1.allFinite() && q1.allFinite() && std::isfinite(r.discrete_energy);
    return r;
  }

  ModifiedHamiltonianKind modified_hamiltonian_kind() const override {
    return ModifiedHamiltonianKind::kStormerVerlet;
  }
  std::string_view name() const override { return "stormer-verlet"; }

 private:
  /// Newton on f(x) = 0 with `eval(f, j)` at the current x (false: not defined there); stops when
  /// ‖f‖∞ ≤ residual_tolerance·(1 + ‖x‖∞) or after an update ‖Δx‖∞ ≤ step_tolerance·(1 + ‖x‖∞).
  template <class Eval>
  bool newton(StepResult& r, Vector& x, Eval&& eval) {
    struct Stage {
      Vector& x;
      Eval& eval;
      const NewtonOptions& o;
      void assemble(Eigen::VectorXd& f, Eigen::MatrixXd* j) {
        Eigen::MatrixXd& jacobian = *j;  // full Newton: always asked for
        if (!eval(f, jacobian)) f.setConstant(kNaN);
      }
      double update(const Eigen::VectorXd& dx) {
        x -= dx;
        return dx.lpNorm<Eigen::Infinity>();
      }
      bool converged_on_residual(const NewtonIterate& state) const {
        return state.residual_norm <= o.residual_tolerance * (1.0 + x.lpNorm<Eigen::Infinity>());
      }
      bool converged_on_update(const NewtonIterate& state) const {
        return update_below(state, o.step_tolerance, x.lpNorm<Eigen::Infinity>());
      }
    } stage{x, eval, options_};
    NewtonPolicy policy = NewtonPolicy::from(options_);
    policy.variant = NewtonVariant::kFull;
    const NewtonStats stats = newton_.solve(stage, policy);
    r.residual_norm = stats.residual_norm;
    r.iterations += stats.iterations;
    return stats.converged;
  }

  const KernelModel* model_;
  NewtonOptions options_;
  std::optional<SeparableStep> separable_;
  KernelHamiltonian d0_, d1_;
  NewtonSolver<Eigen::Dynamic> newton_;
  Vector ph_, rhs_;
  Eigen::MatrixXd identity_;
};

}  // namespace

std::unique_ptr<KernelFlow> make_kernel_flow(Flow flow, const KernelModel& model, NewtonOptions newton) {
  if (model.num_constraints() != 0 || model.forced())
    throw std::logic_error("the impact flows are for unconstrained models without forces");
  if (flow == Flow::kTrapezoid) return std::make_unique<TrapezoidFlow>(model, newton);
  return std::make_unique<StormerVerletFlow>(model, newton);
}

}  // namespace mechint::kernel
