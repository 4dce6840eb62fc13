#include "kernel/galerkin_integrator.hpp"

#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include "kernel/energy_jump_check.hpp"
#include "kernel/kernel_legendre.hpp"
#include "kernel/sized_newton.hpp"
#include "kernel/start_checks.hpp"
#include "kernel/taken_step_check.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::kernel {
namespace {

void check_finite(const Vector& x, const char* what) {
  if (!x.allFinite()) throw InvalidStart(std::string(what) + " contains NaN or infinity");
}

/// The m-th node of the predictor: c_m, and 1 (the sub-step's end) after them.
double predictor_node(const Vector& c, Eigen::Index m) { return m < c.size() ? c[m] : 1.0; }

/// ℓ_j(τ) over the first `count` predictor nodes.
double lagrange_basis(const Vector& c, Eigen::Index count, Eigen::Index j, double tau) {
  double l = 1.0;
  for (Eigen::Index m = 0; m < count; ++m)
    if (m != j) l *= (tau - predictor_node(c, m)) / (predictor_node(c, j) - predictor_node(c, m));
  return l;
}

}  // namespace

/// R_i = ∂L/∂v(Q_i, V_i) − p0 − h Σ_j ā_ij P'_j, and its Jacobian in V:
///   ∂R_i/∂V_k = δ_ik L_vv,i + h a_ik L_qv,iᵀ − h ā_ik (L_qv,k + f_v,k) − h² Σ_j ā_ij a_jk (L_qq,j + f_q,j).
/// An iterate where the model is not defined gives a NaN residual (NewtonStop::kNonFinite).
struct KernelGalerkinIntegrator::StageSystem {
  KernelGalerkinIntegrator& s;
  double h, t_start;
  Vector& v;  // the unknowns V (n·s)

  void assemble(Eigen::VectorXd& r, Eigen::MatrixXd* jac) {
    const int n = s.n_, st = s.s_, nk = s.k_;
    s.last_assembled_jacobian_ = jac;
    const GalerkinTableau& tab = s.tableau_;
    const KernelModel& m = *s.model_;
    // Entry by entry below, in the order of the sums as written (the numbers of adding the terms as
    // vectors and n x n blocks, without the runtime-sized expressions' overhead, which was most of a
    // Gauss step at n = 2: docs/performance-history.md, "The Galerkin stage system, entry by entry").
    // Each entry is summed in a register and stored once (stored, then loaded again as a pair by a
    // vectorised loop, it would wait on a store-forwarding stall).
    double* const w = s.stage_weights_.data();
    for (int i = 0; i < st; ++i) {
      for (int j = 0; j < st; ++j) w[j] = h * tab.a(i, j);
      double* qi = s.q_stages_.data() + i * n;
      for (int a = 0; a < n; ++a) {
        double x = s.q_[a];
        for (int j = 0; j < st; ++j) x += w[j] * v[j * n + a];
        qi[a] = x;
      }
    }
    bool defined = true;
    for (int i = 0; i < st && defined; ++i) {
      LagrangianValues& l = s.values_[i];
      s.predicted_ = s.q_stages_.segment(i * n, n);   // Q_i
      s.xi_ = v.segment(i * n, n);                     // V_i
      if (!jac) defined = m.gradient(s.predicted_, s.xi_, nullptr, &l.q, &l.v);
      else if (s.separable_jacobian_) defined = m.position_hessian(s.predicted_, s.xi_, l);  // qv, vv kept
      else defined = m.lagrangian(s.predicted_, s.xi_, l);
      auto slope = s.slopes_.segment(i * n, n);
      slope = l.q;
      if (defined && m.forced()) {
        defined = m.forces(s.predicted_, s.xi_, s.u_step_, t_start + tab.c[i] * h, s.force_[i],
                           jac ? &s.force_q_[i] : nullptr, jac ? &s.force_v_[i] : nullptr);
        slope += s.force_[i];
      }
      // The constraint force −G_iᵀΛ_i of the nodes whose multiplier is an unknown here (i < s;
      // Lobatto IIIB's last column is zero, Λ_s enters p1 only: the projection of substep()).
      if (defined && nk > 0) {
        defined = m.constraints(s.predicted_, &s.g_stage_[i], &s.dg_stage_[i]);
        if (defined && i < st - 1) slope.noalias() -= s.dg_stage_[i].transpose() * s.multipliers_.segment(i * nk, nk);
      }
    }
    if (!defined) {
      r.setConstant(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    for (int i = 0; i < st; ++i) {
      for (int j = 0; j < st; ++j) w[j] = h * tab.a_bar(i, j);
      double* ri = r.data() + i * n;
      const double* l_v = s.values_[i].v.data();
      for (int a = 0; a < n; ++a) {
        double x = l_v[a] - s.p_[a];
        for (int j = 0; j < st; ++j) x -= w[j] * s.slopes_[j * n + a];
        ri[a] = x;
      }
    }
    // g(Q_i) = 0 at the nodes after the first (Q_1 = q0 is on the manifold).
    for (int i = 1; i < st && nk > 0; ++i) r.segment(n * st + (i - 1) * nk, nk) = s.g_stage_[i];
    if (!jac) return;
    if (nk > 0) {
      // ∂R_P,i/∂Λ_j = h ā_ij G_jᵀ (j < s); ∂g(Q_i)/∂V_j = h a_ij G_i. The constraints' curvature
      // K_j = ∂(G_jᵀΛ_j)/∂Q_j (model_kernels.h, constraint_curvature) enters ∂R_P/∂V below with the
      // Hessians; a table without it leaves it out, and Newton converges linearly there, with a
      // contraction of order h²|λ| (docs/methods.md).
      if (s.curvature_known_)
        for (int j = 0; j < st - 1; ++j) {
          s.stage_lambda_ = s.multipliers_.segment(j * nk, nk);
          s.predicted_ = s.q_stages_.segment(j * n, n);
          if (!m.constraint_curvature(s.predicted_, s.stage_lambda_, s.curvature_[j])) {
            r.setConstant(std::numeric_limits<double>::quiet_NaN());
            return;
          }
        }
      jac->rightCols(nk * (st - 1)).setZero();
      jac->bottomRows(nk * (st - 1)).setZero();
      for (int i = 0; i < st; ++i)
        for (int j = 0; j < st - 1; ++j)
          if (tab.a_bar(i, j) != 0.0)
            jac->block(i * n, n * st + j * nk, n, nk) = (h * tab.a_bar(i, j)) * s.dg_stage_[j].transpose();
      for (int i = 1; i < st; ++i)
        for (int j = 0; j < st; ++j)
          if (tab.a(i, j) != 0.0) jac->block(n * st + (i - 1) * nk, j * n, nk, n) = (h * tab.a(i, j)) * s.dg_stage_[i];
    }
    // Block (i, k): −h² Σ_j ā_ij a_jk (L_qq,j + f_q,j − K_j) + δ_ik L_vv,i + h a_ik L_qv,iᵀ
    // − h ā_ik (L_qv,k + f_v,k), each entry summed in that order. Up to kScalarBlocks coordinates at
    // the model's size, a block's entries all at once (jacobian_blocks: the runtime-sized block
    // expressions cost more than their arithmetic there), the short models without forces and
    // curvature by loops without those terms' tests (which cost 3–8 % of a Kepler or three-body
    // step); above, as n x n block expressions, which vectorise. The same numbers every way.
    const bool forced = m.forced(), curved = s.curvature_known_;
    if (!forced && !curved && n <= 4) {
      at_short_size(n, [&]<int N>() {
        if constexpr (N != Eigen::Dynamic) jacobian_blocks<N, false>(*jac, false, false);
      });
      return;
    }
    static_assert(kScalarBlocks == 8, "one case per size up to kScalarBlocks");
    switch (n) {
      case 1: return jacobian_blocks<1, true>(*jac, forced, curved);
      case 2: return jacobian_blocks<2, true>(*jac, forced, curved);
      case 3: return jacobian_blocks<3, true>(*jac, forced, curved);
      case 4: return jacobian_blocks<4, true>(*jac, forced, curved);
      case 5: return jacobian_blocks<5, true>(*jac, forced, curved);
      case 6: return jacobian_blocks<6, true>(*jac, forced, curved);
      case 7: return jacobian_blocks<7, true>(*jac, forced, curved);
      case 8: return jacobian_blocks<8, true>(*jac, forced, curved);
      default: break;
    }
    for (int i = 0; i < st; ++i) {
      for (int k = 0; k < st; ++k) {
        for (int j = 0; j < st; ++j) w[j] = -h * h * tab.a_bar(i, j) * tab.a(j, k);
        const double h_a = h * tab.a(i, k), h_a_bar = h * tab.a_bar(i, k);
        const bool diagonal = i == k, with_a = tab.a(i, k) != 0.0, with_a_bar = tab.a_bar(i, k) != 0.0;
        auto block = jac->block(i * n, k * n, n, n);
        block.setZero();
        for (int j = 0; j < st; ++j) {
          if (w[j] == 0.0) continue;
          block.noalias() += w[j] * s.values_[j].qq;
          if (forced) block.noalias() += w[j] * s.force_q_[j];
          if (curved && j < st - 1) block.noalias() -= w[j] * s.curvature_[j];
        }
        if (diagonal) block += s.values_[i].vv;
        if (with_a) block.noalias() += h_a * s.values_[i].qv.transpose();
        if (with_a_bar) {
          block.noalias() -= h_a_bar * s.values_[k].qv;
          if (forced) block.noalias() -= h_a_bar * s.force_v_[k];
        }
      }
    }
  }
  /// Up to this many coordinates the Jacobian's blocks are summed at the model's size (assemble).
  static constexpr int kScalarBlocks = 8;

  /// The blocks of a model of N ≤ kScalarBlocks coordinates, each block's N² entries summed at once
  /// (independent sums the compiler keeps in registers, where one entry's sum after another waited on
  /// its additions' latency), each entry in the order of the sums above: the same numbers.
  /// kWithForcesOrCurvature false: no forces and no curvature, whatever the flags say.
  template <int N, bool kWithForcesOrCurvature>
  void jacobian_blocks(Eigen::MatrixXd& jac, bool forced, bool curved) const {
    if constexpr (!kWithForcesOrCurvature) forced = curved = false;
    const int st = s.s_;
    const GalerkinTableau& tab = s.tableau_;
    const Eigen::Index rows = jac.rows();
    for (int i = 0; i < st; ++i) {
      const double* vv = s.values_[i].vv.data();
      const double* qv_i = s.values_[i].qv.data();
      for (int k = 0; k < st; ++k) {
        const double* qv_k = s.values_[k].qv.data();
        const double* fv_k = forced ? s.force_v_[k].data() : nullptr;
        const double h_a = h * tab.a(i, k), h_a_bar = h * tab.a_bar(i, k);
        double acc[N * N];  // column-major: (a, b) at b·N + a; the kernels' matrices are row-major
        for (double& x : acc) x = 0.0;
        for (int j = 0; j < st; ++j) {
          const double w = -h * h * tab.a_bar(i, j) * tab.a(j, k);
          if (w == 0.0) continue;
          add_scaled<N>(acc, w, s.values_[j].qq.data());
          if (forced) add_scaled<N>(acc, w, s.force_q_[j].data());
          if (curved && j < st - 1) subtract_scaled<N>(acc, w, s.curvature_[j].data());
        }
        if (i == k) add<N>(acc, vv);
        if (tab.a(i, k) != 0.0)
          for (int e = 0; e < N * N; ++e) acc[e] += h_a * qv_i[e];  // (L_qv,iᵀ)_ab = qv_i[b·N + a]
        if (tab.a_bar(i, k) != 0.0) {
          subtract_scaled<N>(acc, h_a_bar, qv_k);
          if (forced) subtract_scaled<N>(acc, h_a_bar, fv_k);
        }
        double* const block = jac.data() + static_cast<Eigen::Index>(k) * N * rows + i * N;
        for (int b = 0; b < N; ++b)
          for (int a = 0; a < N; ++a) block[b * rows + a] = acc[b * N + a];
      }
    }
  }

  /// acc += w·mᵀ, acc −= w·mᵀ, acc += mᵀ: acc column-major, m row-major (N x N both), entry by entry.
  template <int N>
  static void add_scaled(double* acc, double w, const double* m) {
    for (int b = 0; b < N; ++b)
      for (int a = 0; a < N; ++a) acc[b * N + a] += w * m[a * N + b];
  }
  template <int N>
  static void subtract_scaled(double* acc, double w, const double* m) {
    for (int b = 0; b < N; ++b)
      for (int a = 0; a < N; ++a) acc[b * N + a] -= w * m[a * N + b];
  }
  template <int N>
  static void add(double* acc, const double* m) {
    for (int b = 0; b < N; ++b)
      for (int a = 0; a < N; ++a) acc[b * N + a] += m[a * N + b];
  }

  double update(const Eigen::VectorXd& delta) {
    const int nv = s.n_ * s.s_;
    v -= delta.head(nv);
    if (s.k_ > 0) s.multipliers_.head(s.k_ * (s.s_ - 1)) -= delta.tail(s.k_ * (s.s_ - 1));
    return std::abs(h) * delta.head(nv).lpNorm<Eigen::Infinity>();  // what the update moves the positions by
  }
  bool converged_on_residual(const NewtonIterate& state) const {
    return state.residual_norm <= s.options_.residual_tolerance * (1.0 + s.p_.lpNorm<Eigen::Infinity>());
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_converged(state, s.options_.variant, s.options_.step_tolerance, 1.0 + s.q_.lpNorm<Eigen::Infinity>());
  }
};

KernelGalerkinIntegrator::KernelGalerkinIntegrator(const KernelModel& model, GalerkinTableau tableau, double h,
                                                   Composition composition, NewtonOptions options,
                                                   StepCheckOptions check)
    : model_(&model), tableau_(std::move(tableau)), composition_(std::move(composition)), n_(model.dim()),
      s_(tableau_.stages), k_(model.num_constraints()), h_(h), options_(options), check_(check),
      newton_(model.dim() * tableau_.stages + model.num_constraints() * (tableau_.stages - 1)),
      projection_(model.dim() + model.num_constraints()) {
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
  if (k_ > 0 && tableau_.quadrature != Quadrature::kLobatto)
    throw InvalidInput("the Gauss–Legendre Galerkin methods apply to unconstrained models only (with constraints: "
                       "vi-lobatto4, vi-lobatto6)");
  if (k_ > 0 && composition_.gammas.size() > 1) throw InvalidInput("compose applies to unconstrained models only");
  const int n = n_, m = model.num_controls();
  q_.setZero(n), q_before_.setZero(n), p_.setZero(n), predicted_.setZero(n), xi_.setZero(n);
  stages_.setZero(n * s_), q_stages_.setZero(n * s_), slopes_.setZero(n * s_), stage_weights_.setZero(s_);
  u_.setZero(m), u_previous_.setZero(m), u_step_.setZero(m);
  work_.setZero(model.num_symmetries());
  balances_.assign(composition_.gammas.size(), EnergyBalance());
  explicit_jumps_.assign(composition_.gammas.size(), EnergyJumpCheck());
  substep_work_.setZero(static_cast<Eigen::Index>(composition_.gammas.size()));
  values_.assign(s_, LagrangianValues(n));
  predictor_weights_.setZero(s_, s_ + 1);
  stage_lagrangian_.assign(s_, 0.0);
  multipliers_.setZero(k_ * s_), lambda_.setZero(k_), g_end_.setZero(k_), mu_.setZero(k_);
  g_stage_.assign(s_, Vector::Zero(k_));
  dg_stage_.assign(s_, RowMatrix::Zero(k_, n));
  dg_end_.setZero(k_, n), v_end_.setZero(n), p_hat_.setZero(n);
  force_now_.setZero(n), force_next_.setZero(n), explicit_rhs_.setZero(n), explicit_v_.setZero(n);
  zero_velocity_.setZero(n);
  end_values_ = LagrangianValues(n);
  deviation_ = initial_deviation(2 * n);
  for (Vector* v : {&lin_q0_, &lin_p0_, &lin_dq0_, &lin_dp0_, &lin_dq_stage_}) v->setZero(n);
  // The stage unknowns: V_1..V_s and, with constraints, Λ_1..Λ_{s−1}.
  const int unknowns = n * s_ + k_ * (s_ - 1);
  for (Vector* v : {&lin_residual_, &lin_rhs_, &lin_dv_}) v->setZero(unknowns);
  lin_hdq_.setZero(n * s_);
  column_.setZero(2 * n);
  lin_jacobian_.setZero(unknowns, unknowns);
  lin_lu_ = RuntimeLu(unknowns);
  curvature_known_ = model.has_constraint_curvature();
  if (k_ > 0) {
    curvature_.assign(s_, RowMatrix::Zero(n, n));
    end_curvature_.setZero(n, n), end_velocity_jacobian_.setZero(k_, n), unit_.setZero(k_), stage_lambda_.setZero(k_);
    projection_matrix_.setZero(n + k_, n + k_);
    projection_lu_ = RuntimeLu(n + k_);
    projection_rhs_.setZero(n + k_), projection_solution_.setZero(n + k_);
    lin_dp_hat_.setZero(n), lin_dq1_.setZero(n);
  }
  if (model.forced()) {
    force_.assign(s_, Vector::Zero(n));
    force_q_.assign(s_, RowMatrix::Zero(n, n));
    force_v_.assign(s_, RowMatrix::Zero(n, n));
  }
}

void KernelGalerkinIntegrator::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  check_finite(q0, "q0");
  check_finite(qdot0, "initial velocity");
  check_start_on_constraints(*model_, q0, &qdot0);
  Vector p0(n_);
  if (!model_->gradient(q0, qdot0, nullptr, nullptr, &p0))
    throw InvalidStart("the model is not defined at the start (outside its domain)");
  check_finite(p0, "the initial momentum ∂L/∂v");
  q_ = q0, p_ = p0;
  for (int i = 0; i < s_; ++i) stages_.segment(i * n_, n_) = qdot0;
  t0_ = t_ = t0;
  last_h_ = 0.0;  // no step yet: the predictor holds the start velocity
  for (EnergyBalance& balance : balances_) balance.reset();
  for (EnergyJumpCheck& jumps : explicit_jumps_) jumps.reset();
  substep_work_.setZero();
  step_index_ = 0;
  work_.setZero();
  indicators_.restart(t0);
  explicit_.reset();
  force_now_valid_ = false;
  potential_now_valid_ = false;
  // A separable model (kernel/separable.hpp): the trapezoid rule is explicit, and every rule's Newton
  // Jacobian takes L_qq alone from the model, L_qv = 0 and L_vv = M being constants (assemble).
  const bool explicit_rule = tableau_.quadrature == Quadrature::kLobatto && s_ == 2;
  std::optional<SeparableKinetics> kinetics = separable_kinetics(*model_, q0, qdot0);
  separable_jacobian_ = kinetics && allow_separable_jacobian_;
  if (separable_jacobian_)
    for (LagrangianValues& l : values_) l.qv.setZero(), l.vv = kinetics->mass;
  // Gauss nodes are inside the sub-step: its end velocity M⁻¹(p1 − b) is a node more for the predictor.
  end_velocity_predictor_.reset();
  if (kinetics && tableau_.quadrature == Quadrature::kGauss) end_velocity_predictor_ = kinetics;
  if (allow_explicit_ && explicit_rule) explicit_ = std::move(kinetics);
  // The model's own step returns no value of L, which the step check's energy balance needs at q1:
  // with the check on, the methods' drift and kick (the same numbers, tests/test_model_explicit_step)
  // take it from the gradient evaluation the step makes anyway (check_explicit_energy_balance).
  model_steps_itself_ = explicit_ && allow_model_step_ && !check_.enabled && supplies_separable_step(*model_);
}

void KernelGalerkinIntegrator::start_from_momentum(const Vector& q0, const Vector& p0, double t0) {
  check_finite(q0, "q0");
  check_finite(p0, "initial momentum");
  const Vector v = tangent_velocity(*model_, q0, p0, Vector::Zero(n_));
  if (!v.allFinite()) throw InvalidStart("no velocity has the initial momentum (the Legendre transform failed)");
  start_from_velocity(q0, v, t0);
  p_ = p0;
}

void KernelGalerkinIntegrator::set_control(const Vector& u) {
  if (!u.allFinite()) throw InvalidInput("control contains NaN or infinity");
  u_ = u;
  law_ = nullptr;
}

void KernelGalerkinIntegrator::set_control_law(ControlLaw law) { law_ = std::move(law); }

void KernelGalerkinIntegrator::step() { take_step(nullptr); }

void KernelGalerkinIntegrator::set_step_size(double h) {
  if (!(h > 0.0) || !std::isfinite(h)) throw std::logic_error("set_step_size: h must be positive and finite");
  h_ = h;
}

void KernelGalerkinIntegrator::require_tangent_map() const {
  if (k_ > 0 && !curvature_known_)
    throw InvalidInput("the tangent map of a constrained step needs the constraints' curvature, which this "
                       "model's kernels do not supply (model_kernels.h, constraint_curvature)");
}

Eigen::MatrixXd KernelGalerkinIntegrator::step_with_jacobian() {
  require_tangent_map();
  Eigen::MatrixXd jacobian = Eigen::MatrixXd::Identity(2 * n_, 2 * n_);
  take_step(&jacobian);
  return jacobian;
}

void KernelGalerkinIntegrator::track_deviation(const Vector& delta) {
  require_tangent_map();
  const double norm = delta.norm();
  if (delta.size() != 2 * n_ || !(norm > 0.0) || !std::isfinite(norm))
    throw InvalidInput("the deviation must be a non-zero finite vector of 2n = " + std::to_string(2 * n_) + " values");
  deviation_ = delta / norm;
  tracking_ = true;
  indicators_.restart(t_);  // the indicators measure from now on
}

void KernelGalerkinIntegrator::take_step(Eigen::MatrixXd* jacobian) {
  if (model_->forced()) {
    if (law_)
      law_(t_ + 0.5 * h_, u_step_);  // held over the step, as the variational rules hold it
    else
      u_step_ = u_;
  }
  q_before_ = q_;
  double t = t_;
  int index = 0;
  for (double gamma : composition_.gammas) t += substep(gamma * h_, t, jacobian, index++);
  if (model_->forced()) u_previous_ = u_step_;
  ++step_index_;
  t_ = time_scale_ ? t : t0_ + static_cast<double>(step_index_) * h_;
  check_taken_step(*model_, q_before_, q_, t_, step_index_);
  if (tracking_) {
    const double stretch = deviation_.norm();
    if (!(stretch > 0.0) || !std::isfinite(stretch))
      throw NumericalFailure("the deviation of the chaos indicators is not finite at t = " + format_number(t_) +
                                 " (step " + std::to_string(step_index_) + "); reduce the step size",
                             FailureLocation{step_index_, t_});
    indicators_.add_step(t_, std::log(stretch));
    deviation_ /= stretch;
  }
}

/// The first iterate: the previous sub-step's interpolating polynomial extended to this sub-step's
/// nodes (order s), or the start velocity at every stage before the first step. On a separable model
/// with Gauss nodes the polynomial also passes through the end velocity v1 = M⁻¹(p1 − b), exact
/// there (order s + 1).
void KernelGalerkinIntegrator::predict(double h) {
  if (last_h_ == 0.0) return;  // stages_ hold the start velocity
  const double ratio = h / last_h_;
  q_stages_ = stages_;  // the previous stages, kept while stages_ is overwritten
  const bool with_end = end_velocity_predictor_.has_value();
  if (with_end) {
    predicted_ = p_ - end_velocity_predictor_->linear;
    xi_.noalias() = end_velocity_predictor_->mass_inverse * predicted_;  // v1
  }
  const Eigen::Index nodes = with_end ? s_ + 1 : s_;
  // The weights ℓ_j(1 + c_i·ratio), formed again only when the ratio changes (never at a fixed step;
  // at every sub-step of a composition): s²(s + 1) divisions, a few per cent of a Gauss step on Kepler.
  if (ratio != predictor_ratio_ || nodes != predictor_nodes_) {
    for (int i = 0; i < s_; ++i)
      for (Eigen::Index j = 0; j < nodes; ++j)
        predictor_weights_(i, j) = lagrange_basis(tableau_.c, nodes, j, 1.0 + tableau_.c[i] * ratio);
    predictor_ratio_ = ratio, predictor_nodes_ = nodes;
  }
  for (int i = 0; i < s_; ++i)
    for (int a = 0; a < n_; ++a) {  // entry by entry, in the order of the vector sums: the same numbers
      double x = 0.0;
      for (int j = 0; j < s_; ++j) x += predictor_weights_(i, j) * q_stages_[j * n_ + a];
      if (with_end) x += predictor_weights_(i, s_) * xi_[a];
      stages_[i * n_ + a] = x;
    }
}

double KernelGalerkinIntegrator::substep(double h, double t_start, Eigen::MatrixXd* jacobian, int index) {
  const bool linearise = jacobian != nullptr || tracking_;
  if (explicit_ && !linearise && !time_scale_) {
    explicit_substep(h, t_start, index);
    return h;
  }
  force_now_valid_ = false;  // q changes by a Newton step: the reused L_q would be stale
  if (linearise) lin_q0_ = q_, lin_p0_ = p_;
  predict(h);
  if (options_.variant == NewtonVariant::kSimplified && h != factored_h_) newton_.discard_factorization();
  StageSystem system{*this, h, t_start, stages_};
  stats_ = newton_.solve(system, NewtonPolicy::from(options_));
  factored_h_ = h;
  // Where a failure is located: the sub-step's end, or its start in a time-scaled run (whose physical
  // end is known only once the stages are).
  const double t_end = time_scale_ ? t_start : t_start + h;
  if (!stats_.converged || !stages_.allFinite())
    throw NewtonFailure(step_index_ + 1, t_end, stats_.residual_norm, stats_.iterations);
  // The last iterate's evaluation is of the converged stages up to one update below tolerance:
  // assemble once more so that q1, p1 and the work use the stages' own values.
  // Entry by entry, each summed in a register in the order of the vector sums it replaces (the same
  // numbers, without the runtime-sized expressions' set-up for n = 2 entries).
  for (int j = 0; j < s_; ++j)
    for (int a = 0; a < n_; ++a) {
      double x = q_[a];
      for (int i = 0; i < s_; ++i) x += (h * tableau_.a(j, i)) * stages_[i * n_ + a];
      q_stages_[j * n_ + a] = x;
    }
  bool defined = true;
  for (int j = 0; j < s_ && defined; ++j) {
    predicted_ = q_stages_.segment(j * n_, n_);
    xi_ = stages_.segment(j * n_, n_);
    LagrangianValues& l = values_[j];
    defined = model_->gradient(predicted_, xi_, &stage_lagrangian_[j], &l.q, &l.v);
    slopes_.segment(j * n_, n_) = l.q;
    if (defined && model_->forced()) {
      defined = model_->forces(predicted_, xi_, u_step_, t_start + tableau_.c[j] * h, force_[j], nullptr, nullptr);
      slopes_.segment(j * n_, n_) += force_[j];
    }
    if (defined && k_ > 0 && j < s_ - 1) {
      defined = model_->constraints(predicted_, nullptr, &dg_stage_[j]);
      slopes_.segment(j * n_, n_).noalias() -= dg_stage_[j].transpose() * multipliers_.segment(j * k_, k_);
    }
  }
  if (!defined) throw NewtonFailure(step_index_ + 1, t_end, std::numeric_limits<double>::quiet_NaN(), stats_.iterations);
  const double duration = time_scale_ ? scaled_duration(h, t_start) : h;
  if (check_.enabled) check_energy_balance(h, t_end, index);
  if (model_->forced()) accumulate_work(h);
  for (int a = 0; a < n_; ++a) {
    double q = q_[a], p = p_[a];
    for (int j = 0; j < s_; ++j) {
      q += (h * tableau_.b[j]) * stages_[j * n_ + a];
      p += (h * tableau_.b[j]) * slopes_[j * n_ + a];
    }
    q_[a] = q, p_[a] = p;
  }
  if (k_ > 0) {
    q_ = q_stages_.tail(n_);  // Q_s = q1 exactly (c_s = 1), on the manifold to Newton's tolerance
    project_momentum(h, t_end);
  }
  last_h_ = h;
  if (!linearise) return duration;
  factor_linearisation(h, t_start);
  if (tracking_) apply_linearisation(h, deviation_);
  if (jacobian)
    for (Eigen::Index c = 0; c < jacobian->cols(); ++c) {
      column_ = jacobian->col(c);
      apply_linearisation(h, column_);
      jacobian->col(c) = column_;
    }
  return duration;
}

/// The model's own explicit step (model_kernels.h, separable_step), q and p updated in place; false,
/// and nothing changed, where the model is not defined at q1.
bool KernelGalerkinIntegrator::model_substep(double h) {
  const int n = n_;
  if (!model_separable_step(*model_, *explicit_, h, q_, p_, force_now_, q_, explicit_v_, force_next_, p_)) return false;
  lagrangian_next_ = std::numeric_limits<double>::quiet_NaN();  // the balance evaluates U(q1) itself
  // V_1 = V_2 = v, read one entry at a time: a plugin's C writes its outputs entry by entry, and two
  // of them loaded as a pair right after would wait on a failed store forward (the fence keeps the
  // compiler from pairing the loads). The stage positions are not kept: nothing reads them after an
  // explicit step (a Newton sub-step forms its own).
  for (int a = 0; a < n; ++a) {
    stages_[a] = stages_[n + a] = explicit_v_[a];
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  return true;
}

/// The same step by the methods' drift and kick around the model's L_q(q1). At fixed size for 1–4
/// coordinates (kernel/sized_newton.hpp's cut): the step is a handful of vector operations, whose
/// runtime-sized overhead was most of its cost on Kepler.
bool KernelGalerkinIntegrator::methods_substep(double h) {
  const int n = n_;
  return at_short_size(n, [&]<int N>() {
    using V = Eigen::Matrix<double, N, 1>;
    separable_drift<N>(*explicit_, q_, p_, force_now_, h, explicit_rhs_, explicit_v_, predicted_);  // V_1 = V_2
    // With the step check on, L's value comes with the gradient (the same pass of the kernel): the
    // energy balance's U(q1) follows from it (check_explicit_energy_balance).
    double* lagrangian = check_.enabled ? &lagrangian_next_ : nullptr;
    if (!model_->gradient(predicted_, explicit_v_, lagrangian, &force_next_, nullptr) ||
        !Eigen::Map<const V>(force_next_.data(), n).allFinite())
      return false;
    Eigen::Map<V>(stages_.data(), n) = Eigen::Map<const V>(explicit_v_.data(), n);
    Eigen::Map<V>(stages_.data() + n, n) = Eigen::Map<const V>(explicit_v_.data(), n);
    Eigen::Map<V>(q_.data(), n) = Eigen::Map<const V>(predicted_.data(), n);
    separable_kick<N>(p_, force_now_, force_next_, h, p_);
    return true;
  });
}

/// The Störmer–Verlet sub-step of the class comment. The state changes only once L_q(q1) is known, so
/// a q1 outside the model's domain leaves the last good step.
void KernelGalerkinIntegrator::explicit_substep(double h, double t_start, int index) {
  const int n = n_;
  if (!force_now_valid_) {
    if (!model_->gradient(q_, stages_.head(n), nullptr, &force_now_, nullptr))
      throw NewtonFailure(step_index_ + 1, t_start, std::numeric_limits<double>::quiet_NaN(), 0);
    force_now_valid_ = true;
  }
  if (check_.enabled && !potential_now_valid_) {
    if (!model_->gradient(q_, zero_velocity_, &potential_now_, nullptr, nullptr))
      potential_now_ = std::numeric_limits<double>::quiet_NaN();
    potential_now_valid_ = true;
  }
  const bool defined = model_steps_itself_ ? model_substep(h) : methods_substep(h);
  if (!defined)
    throw NewtonFailure(step_index_ + 1, t_start + h, std::numeric_limits<double>::quiet_NaN(), 0);
  force_now_.swap(force_next_);
  stats_ = NewtonStats{};
  stats_.converged = true;
  last_h_ = h;
  if (check_.enabled) check_explicit_energy_balance(t_start + h, index);
}

/// Ē = ½VᵀMV − ½[U(q0) + U(q1)] with U(q) = L(q, 0), and the size of its terms Σ b_i (|L_v·V| + |L_i|)
/// with L_v = MV + b and L_i = ½VᵀMV + b·V + U(Q_i): the stage mean check_energy_balance forms, for
/// the two stages of the explicit step. U(q1) is kept as the next sub-step's U(q0).
///
/// U(q1) = L(q1, V) − ½VᵀMV − b·V from the value of L the sub-step's gradient evaluation returned
/// (separable L: kernel/separable.hpp), else L(q1, 0) evaluated here: an evaluation more per step
/// made the explicit step about twice as costly on Kepler (docs/performance-history.md). The difference
/// rounds at ε times the terms' size, which the balance is judged against.
void KernelGalerkinIntegrator::check_explicit_energy_balance(double t_end, int index) {
  // ½VᵀMV and b·V in plain loops: the step itself is a few tens of nanoseconds on Kepler, and
  // runtime-sized Eigen products of two-vectors cost as much again (M = I and diagonal M apart).
  const int n = n_;
  const double* v = explicit_v_.data();
  double twice_kinetic = 0.0, linear = 0.0;
  if (explicit_->unit) {
    for (int i = 0; i < n; ++i) twice_kinetic += v[i] * v[i];
  } else {
    const double* m = explicit_->mass.data();  // row-major
    for (int i = 0; i < n; ++i) {
      double row = 0.0;
      if (explicit_->diagonal)
        row = m[i * n + i] * v[i];
      else
        for (int j = 0; j < n; ++j) row += m[i * n + j] * v[j];
      twice_kinetic += v[i] * row;
    }
    if (explicit_->linear.size() == n)
      for (int i = 0; i < n; ++i) linear += explicit_->linear[i] * v[i];
  }
  const double kinetic = 0.5 * twice_kinetic;
  double potential_next = lagrangian_next_ - kinetic - linear;
  if (std::isnan(lagrangian_next_) && !model_->gradient(q_, zero_velocity_, &potential_next, nullptr, nullptr))
    potential_next = std::numeric_limits<double>::quiet_NaN();
  const double energy = kinetic - 0.5 * (potential_now_ + potential_next);
  const double size = std::abs(2.0 * kinetic + linear) +
                      0.5 * (std::abs(kinetic + linear + potential_now_) + std::abs(kinetic + linear + potential_next));
  potential_now_ = potential_next;
  explicit_jumps_[static_cast<std::size_t>(index)].judge(energy, size, step_index_ + 1, t_end);
}

/// h Σ_j b_j s(Q_j) at the converged stages (set_time_scale).
double KernelGalerkinIntegrator::scaled_duration(double h, double t_start) {
  double duration = 0.0;
  for (int j = 0; j < s_; ++j) {
    predicted_ = q_stages_.segment(j * n_, n_);
    double scale = std::numeric_limits<double>::quiet_NaN();
    const bool defined = time_scale_->time_scale(predicted_, scale, nullptr, nullptr);
    if (!defined || !(scale > 0.0) || !std::isfinite(scale))
      throw NumericalFailure("the time scale s(q) is " + (defined ? format_number(scale) : std::string("not defined")) +
                                 " at step " + std::to_string(step_index_ + 1) + " (t = " + format_number(t_start) +
                                 "): it must stay positive and finite (check time_scale)",
                             FailureLocation{step_index_ + 1, t_start});
    duration += h * tableau_.b[j] * scale;
  }
  return duration;
}

/// The tangent map of a sub-step by the implicit function theorem. With F(V; q0, p0) the stage
/// residual (StageSystem), dV = −F_V⁻¹ (F_q0 dq0 − dp0) where, with H_j = L_qq,j + f_q,j and
/// C_j = L_qv,j + f_v,j at the converged stages,
///   (F_q0)_i = L_qv,iᵀ − h Σ_j ā_ij H_j;
/// then dq1 = dq0 + h Σ_j b_j dV_j and dp1 = dp0 + h Σ_j b_j [H_j dQ_j + C_j dV_j] with
/// dQ_j = dq0 + h Σ_k a_jk dV_k.
///
/// factor_linearisation factors F_V with the stage Hessians at the converged stages of the sub-step
/// just taken from (lin_q0_, lin_p0_); apply_linearisation maps one vector. When Newton's last
/// evaluation assembled the Jacobian (full Newton always does), F_V and the Hessians of that
/// evaluation are used: they are those of the last iterate, within one update below Newton's
/// tolerance of the converged stages — as exact as the step itself — and cost no evaluation of the
/// model. Otherwise (simplified Newton ending on a kept Jacobian) they are assembled here.
void KernelGalerkinIntegrator::factor_linearisation(double h, double t_start) {
  if (k_ > 0) factor_projection_linearisation(t_start + h);
  if (last_assembled_jacobian_ != nullptr && last_assembled_jacobian_ != &lin_jacobian_) {
    lin_lu_.compute(*last_assembled_jacobian_);
    return;
  }
  q_.swap(lin_q0_), p_.swap(lin_p0_);  // the stage equations are those of the sub-step's start
  StageSystem system{*this, h, t_start, stages_};
  system.assemble(lin_residual_, &lin_jacobian_);
  q_.swap(lin_q0_), p_.swap(lin_p0_);
  if (!lin_residual_.allFinite())
    throw NewtonFailure(step_index_ + 1, t_start + h, std::numeric_limits<double>::quiet_NaN(), stats_.iterations);
  lin_lu_.compute(lin_jacobian_);
}

/// The linearisation of the momentum projection (MomentumProjection): with E1 = L_v(q1, v1) + G1ᵀμ − p̂
/// and E2 = G1 v1,
///   [L_vv  G1ᵀ] [dv1]   [dp̂ − (L_qvᵀ + K1) dq1]
///   [G1    0  ] [dμ ] = [−W dq1               ],   dp1 = dp̂ − G1ᵀ dμ − K1 dq1,
/// where K1 = Σ_r μ_r ∂²g_r/∂q² and W = ∂(G v1)/∂q (row r: (∂²g_r/∂q² v1)ᵀ), all at (q1, v1, μ).
void KernelGalerkinIntegrator::factor_projection_linearisation(double t_end) {
  const int n = n_, k = k_;
  bool defined = model_->lagrangian(q_, v_end_, end_values_) && model_->constraint_curvature(q_, mu_, end_curvature_);
  for (int r = 0; r < k && defined; ++r) {
    unit_.setZero();
    unit_[r] = 1.0;
    defined = model_->constraint_curvature(q_, unit_, curvature_[s_ - 1]);  // ∂²g_r/∂q², a scratch matrix
    end_velocity_jacobian_.row(r).transpose().noalias() = curvature_[s_ - 1] * v_end_;  // symmetric
  }
  if (!defined) throw NewtonFailure(step_index_ + 1, t_end, std::numeric_limits<double>::quiet_NaN(), stats_.iterations);
  projection_matrix_.topLeftCorner(n, n) = end_values_.vv;
  projection_matrix_.topRightCorner(n, k) = dg_end_.transpose();
  projection_matrix_.bottomLeftCorner(k, n) = dg_end_;
  projection_matrix_.bottomRightCorner(k, k).setZero();
  projection_lu_.compute(projection_matrix_);
}

void KernelGalerkinIntegrator::apply_linearisation(double h, Vector& delta) {
  const int n = n_, st = s_, nk = k_;
  const bool forced = model_->forced();
  // H̃_j δq0 with H̃_j = L_qq,j + f_q,j − K_j (K_j: the curvature of the constraint force −G_jᵀΛ_j
  // of the nodes whose multiplier is an unknown, j < s).
  const auto effective_hessian_times = [&](int j, const Vector& dq, auto&& out) {
    out.noalias() = values_[j].qq * dq;
    if (forced) out.noalias() += force_q_[j] * dq;
    if (nk > 0 && j < st - 1) out.noalias() -= curvature_[j] * dq;
  };
  lin_dq0_ = delta.head(n), lin_dp0_ = delta.tail(n);
  for (int j = 0; j < st; ++j) effective_hessian_times(j, lin_dq0_, lin_hdq_.segment(j * n, n));
  for (int i = 0; i < st; ++i) {
    auto rhs = lin_rhs_.segment(i * n, n);
    rhs = lin_dp0_;
    rhs.noalias() -= values_[i].qv.transpose() * lin_dq0_;
    for (int j = 0; j < st; ++j)
      if (tableau_.a_bar(i, j) != 0.0) rhs.noalias() += (h * tableau_.a_bar(i, j)) * lin_hdq_.segment(j * n, n);
  }
  // The constraint rows g(Q_i) = 0, i > 1: G_i dQ_i = 0 with dQ_i = δq0 + h Σ_k a_ik dV_k.
  for (int i = 1; i < st && nk > 0; ++i) {
    auto rhs = lin_rhs_.segment(n * st + (i - 1) * nk, nk);
    rhs.setZero();
    rhs.noalias() -= dg_stage_[i] * lin_dq0_;
  }
  lin_lu_.solve(lin_rhs_, lin_dv_);
  auto dq1 = delta.head(n);
  auto dp1 = delta.tail(n);
  for (int j = 0; j < st; ++j) {
    const auto dv_j = lin_dv_.segment(j * n, n);
    lin_dq_stage_ = lin_dq0_;
    for (int k = 0; k < st; ++k)
      if (tableau_.a(j, k) != 0.0) lin_dq_stage_.noalias() += (h * tableau_.a(j, k)) * lin_dv_.segment(k * n, n);
    const double w = h * tableau_.b[j];
    dq1.noalias() += w * dv_j;
    effective_hessian_times(j, lin_dq_stage_, lin_hdq_.segment(j * n, n));
    dp1.noalias() += w * lin_hdq_.segment(j * n, n);
    dp1.noalias() += w * (values_[j].qv * dv_j);
    if (forced) dp1.noalias() += w * (force_v_[j] * dv_j);
    if (nk > 0 && j < st - 1) dp1.noalias() -= w * (dg_stage_[j].transpose() * lin_dv_.segment(n * st + j * nk, nk));
  }
  if (nk == 0) return;
  // dp1 so far is dp̂, the momentum before the projection (factor_projection_linearisation).
  lin_dp_hat_ = dp1, lin_dq1_ = dq1;
  projection_rhs_.head(n) = lin_dp_hat_;
  projection_rhs_.head(n).noalias() -= end_values_.qv.transpose() * lin_dq1_;
  projection_rhs_.head(n).noalias() -= end_curvature_ * lin_dq1_;
  projection_rhs_.tail(nk).setZero();
  projection_rhs_.tail(nk).noalias() -= end_velocity_jacobian_ * lin_dq1_;
  projection_lu_.solve(projection_rhs_, projection_solution_);
  dp1.noalias() -= dg_end_.transpose() * projection_solution_.tail(nk);
  dp1.noalias() -= end_curvature_ * lin_dq1_;
}

/// Ē = Σ b_i E(Q_i, V_i) with E = ∂L/∂v·v − L, its size Σ b_i (|∂L/∂v·V_i| + |L_i|), and the forces'
/// work h Σ b_i f_i·V_i, into the balance kept from step to step; in a composition, the balance of
/// sub-step `index`, kept from one step's sub-step `index` to the next's (class comment).
void KernelGalerkinIntegrator::check_energy_balance(double h, double t_end, int index) {
  double energy = 0.0, size = 0.0, work = 0.0;
  for (int i = 0; i < s_; ++i) {
    const auto v = stages_.segment(i * n_, n_);
    const double kinetic_part = values_[i].v.dot(v);
    energy += tableau_.b[i] * (kinetic_part - stage_lagrangian_[i]);
    size += tableau_.b[i] * (std::abs(kinetic_part) + std::abs(stage_lagrangian_[i]));
    if (model_->forced()) work += h * tableau_.b[i] * force_[i].dot(v);
  }
  if (balances_.size() == 1) {
    const double ratio = balances_[0].update(energy, size, work, check_);
    if (!(ratio <= check_.reject_energy)) balances_[0].reject(step_index_ + 1, t_end, ratio);
    return;
  }
  // A composition: the sub-step against the same sub-step of the previous step. Consecutive sub-steps
  // of different lengths differ in the midpoint energy by the difference of their O(h²) offsets from
  // the conserved one, which the check took for a failed step (a pendulum chain from rest at the zero
  // of its potential, composed with kahan-li8 at h = 0.01, was rejected at its first step with its
  // energy conserved to 1e-14); the same sub-step one step later has the same offset. The work
  // between the two is half of each one's and all of the sub-steps' in between, the latest of each.
  const int i = index;
  double between = 0.0;
  if (model_->forced()) {
    between = 0.5 * substep_work_[i];
    for (Eigen::Index j = 0; j < substep_work_.size(); ++j)
      if (j != i) between += substep_work_[j];
    between += 0.5 * work;
    substep_work_[i] = work;
  }
  const double ratio = balances_[i].update_with_work_between(energy, size, between, check_);
  if (!(ratio <= check_.reject_energy)) balances_[i].reject(step_index_ + 1, t_end, ratio);
}

/// The end node's multiplier Λ_s (Lobatto IIIB puts it in p1 only) from the hidden constraint: with
/// p̂ the momentum without it, find v1 and μ = h b_s Λ_s with ∂L/∂v(q1, v1) + G(q1)ᵀμ = p̂ and
/// G(q1) v1 = 0 (Jay 1996; RATTLE's second half for s = 2); then p1 = p̂ − G(q1)ᵀμ.
struct KernelGalerkinIntegrator::MomentumProjection {
  KernelGalerkinIntegrator& s;
  void assemble(Eigen::VectorXd& r, Eigen::MatrixXd* a) {
    const int n = s.n_, k = s.k_;
    if (!s.model_->lagrangian(s.q_, s.v_end_, s.end_values_)) {
      r.setConstant(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    r.head(n) = s.end_values_.v - s.p_;
    r.head(n).noalias() += s.dg_end_.transpose() * s.mu_;
    r.tail(k).noalias() = s.dg_end_ * s.v_end_;
    if (a) {
      a->topLeftCorner(n, n) = s.end_values_.vv;
      a->topRightCorner(n, k) = s.dg_end_.transpose();
      a->bottomLeftCorner(k, n) = s.dg_end_;
      a->bottomRightCorner(k, k).setZero();
    }
  }
  double update(const Eigen::VectorXd& delta) {
    s.v_end_ -= delta.head(s.n_);
    s.mu_ -= delta.tail(s.k_);
    return delta.head(s.n_).lpNorm<Eigen::Infinity>();
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_below(state, 1e-14, s.v_end_.lpNorm<Eigen::Infinity>());
  }
};

void KernelGalerkinIntegrator::project_momentum(double h, double t_end) {
  if (!model_->constraints(q_, &g_end_, &dg_end_))
    throw NewtonFailure(step_index_ + 1, t_end, std::numeric_limits<double>::quiet_NaN(), stats_.iterations);
  v_end_ = stages_.tail(n_);  // V_s, the velocity at the end node
  mu_.setZero();
  MomentumProjection projection{*this};
  const NewtonStats stats = projection_.solve(projection, {.max_iterations = 25});
  if (!stats.converged || !v_end_.allFinite() || !mu_.allFinite())
    throw NewtonFailure(step_index_ + 1, t_end, stats.residual_norm, stats.iterations);
  p_.noalias() -= dg_end_.transpose() * mu_;
  multipliers_.tail(k_) = mu_ / (h * tableau_.b[s_ - 1]);
  lambda_ = multipliers_.tail(k_);
}

Vector KernelGalerkinIntegrator::constraint_residual() const {
  Vector g(k_);
  if (k_ > 0 && !model_->constraints(q_, &g, nullptr)) g.setConstant(std::numeric_limits<double>::quiet_NaN());
  return g;
}

/// J_i = p·ξ_i(q) changes by h Σ_j b_j f_j·ξ_i(Q_j) (the forced discrete Noether theorem).
void KernelGalerkinIntegrator::accumulate_work(double h) {
  for (int i = 0; i < work_.size(); ++i)
    for (int j = 0; j < s_; ++j) {
      predicted_ = q_stages_.segment(j * n_, n_);
      if (!model_->symmetry(i, predicted_, xi_)) {
        work_[i] = std::numeric_limits<double>::quiet_NaN();
        break;
      }
      work_[i] += h * tableau_.b[j] * force_[j].dot(xi_);
    }
}

Vector KernelGalerkinIntegrator::velocity() const {
  Vector guess = Vector::Zero(n_);
  for (int j = 0; j < s_; ++j) guess += tableau_.end_weights[j] * stages_.segment(j * n_, n_);
  if (last_h_ == 0.0) guess = stages_.head(n_);
  return tangent_velocity(*model_, q_, p_, guess);
}

double KernelGalerkinIntegrator::energy() const { return kernel_energy(*model_, q_, velocity()); }

double KernelGalerkinIntegrator::momentum(int i) const {
  Vector xi(n_);
  if (!model_->symmetry(i, q_, xi)) return std::numeric_limits<double>::quiet_NaN();
  return p_.dot(xi);
}

Vector KernelGalerkinIntegrator::control() const {
  if (step_index_ > 0) return u_previous_;
  if (!law_) return u_;
  Vector u(u_.size());
  law_(t_ + 0.5 * h_, u);
  return u;
}

}  // namespace mechint::kernel
