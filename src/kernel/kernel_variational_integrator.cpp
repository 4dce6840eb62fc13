#include "kernel/kernel_variational_integrator.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernel/kernel_legendre.hpp"
#include "kernel/start_checks.hpp"
#include "kernel/taken_step_check.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/model/start_on_manifold.hpp"

namespace mechint::kernel {

namespace {

void check_finite(const Vector& x, const char* what) {
  if (!x.allFinite()) throw InvalidStart(std::string(what) + " contains NaN or infinity");
}

NewtonOptions full_newton(NewtonOptions options) {
  options.variant = NewtonVariant::kFull;
  return options;
}

}  // namespace

/// R = [h(p_k + D1 Ld + f⁻) + Dg(q_k)ᵀν ; g(q_{k+1})], J = [[h (D12 Ld + ∂f⁻/∂q_{k+1}), Dg(q_k)ᵀ],
/// [Dg(q_{k+1}), 0]] with ν = hλ (000 eqs. 4.14–4.18; the row scaling is kernel_variational_integrator.hpp's). An iterate where the
/// model is not defined gives a NaN residual: Newton stops there (NewtonStop::kNonFinite).
///
/// `N` and `K` are the dimension n and the number of constraints k when they are known at compile
/// time — the fast path of a short model, forced or not (docs/performance-history.md, "A step sized at
/// compile time"), instantiated for n ≤ 4 unconstrained (K = 0) and 2 ≤ n ≤ 4 with one constraint
/// (K = 1) — or Eigen::Dynamic for every model. One body: the unknowns are seen through maps of sizes
/// N and K, which changes no operation and no order of the arithmetic, only what the compiler knows.
template <int N, int K>
struct KernelVariationalIntegrator::DelSystem {
  using V = Eigen::Matrix<double, N, 1>;
  using ConstMap = Eigen::Map<const V>;
  using RowMajorBlock = Eigen::Matrix<double, N, N, Eigen::RowMajor>;
  using ConstraintRows = Eigen::Matrix<double, K, N, Eigen::RowMajor>;  // Dg: k × n, row-major
  using Multipliers = Eigen::Matrix<double, K, 1>;
  KernelVariationalIntegrator& s;
  const NewtonOptions& options;
  double h;
  const Vector& q_k;
  const Vector& p_k;
  const RowMatrix& dg_k;
  Forcing forcing;
  Vector& q_next;
  double residual_scale;  // 1 + ‖h·p_k‖∞

  /// R and J in the solver's storage: runtime-sized, or of size N + K on the fast path.
  template <class Residual, class Jacobian>
  void assemble(Residual& r, Jacobian* j) {
    const int n = s.n_, k = s.k_;
    bool defined = s.rule_.template d1<N>(q_k, q_next, h, s.d1_, j ? &s.d12_ : nullptr);
    if (defined && k > 0) defined = s.model_->constraints(q_next, &s.g_next_, j ? &s.dg_next_ : nullptr);
    if (defined && s.model_->forced()) {
      defined = s.rule_.template forces<N>(q_k, q_next, *forcing.u, forcing.t, h, s.f_minus_, s.f_plus_,
                                           j ? &s.df_minus_ : nullptr);
      if (defined) Eigen::Map<V>(s.d1_.data(), n) += ConstMap(s.f_minus_.data(), n);
      if (defined && j)
        Eigen::Map<RowMajorBlock>(s.d12_.data(), n, n) += Eigen::Map<const RowMajorBlock>(s.df_minus_.data(), n, n);
    }
    if (!defined) {
      r.setConstant(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    Eigen::Map<V>(r.data(), n) = h * (ConstMap(p_k.data(), n) + ConstMap(s.d1_.data(), n));
    if constexpr (K != 0) {
      if (k > 0) {
        Eigen::Map<V>(r.data(), n).noalias() +=
            Eigen::Map<const ConstraintRows>(dg_k.data(), k, n).transpose() * Eigen::Map<const Multipliers>(s.nu_.data(), k);
        Eigen::Map<Multipliers>(r.data() + n, k) = Eigen::Map<const Multipliers>(s.g_next_.data(), k);
      }
    }
    if (j) {
      Eigen::Map<Eigen::Matrix<double, N, N>, 0, Eigen::OuterStride<>>(j->data(), n, n, Eigen::OuterStride<>(n + k)) =
          h * Eigen::Map<const RowMajorBlock>(s.d12_.data(), n, n);
      if constexpr (K != 0) {
        if (k > 0) {
          if constexpr (K == Eigen::Dynamic) {
            j->topRightCorner(n, k) = dg_k.transpose();
            j->bottomLeftCorner(k, n) = s.dg_next_;
            j->bottomRightCorner(k, k).setZero();
          } else {
            // The same blocks of the column-major (n + k) × (n + k) matrix, entry by entry with the
            // bounds known (a map of the 1 × n block would be a row vector, stored by rows).
            static_assert(N != Eigen::Dynamic, "the constrained fast path has both sizes");
            double* const m = j->data();
            const Eigen::Index ld = N + K;
            for (int i = 0; i < K; ++i) {
              for (int c = 0; c < N; ++c) {
                m[c + (N + i) * ld] = dg_k(i, c);          // right: Dg(q_k)ᵀ
                m[(N + i) + c * ld] = s.dg_next_(i, c);  // below: Dg(q_{k+1})
              }
              for (int c = 0; c < K; ++c) m[(N + i) + (N + c) * ld] = 0.0;
            }
          }
        }
      }
    }
  }
  template <class Delta>
  double update(const Delta& delta) {
    const ConstMap step(delta.data(), s.n_);
    Eigen::Map<V>(q_next.data(), s.n_) -= step;
    if constexpr (K != 0)
      if (s.k_ > 0) Eigen::Map<Multipliers>(s.nu_.data(), s.k_) -= Eigen::Map<const Multipliers>(delta.data() + s.n_, s.k_);
    return step.template lpNorm<Eigen::Infinity>();
  }
  bool converged_on_residual(const NewtonIterate& state) const {
    return state.residual_norm <= options.residual_tolerance * residual_scale;
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_converged(state, options.variant, options.step_tolerance,
                            1.0 + ConstMap(q_next.data(), s.n_).template lpNorm<Eigen::Infinity>());
  }
};

/// The fast path's sizes (N, K): (n, 0) for an unconstrained model of n ≤ 4 coordinates, (n, 1) for
/// one of 2 ≤ n ≤ 4 coordinates and one constraint; runtime-sized otherwise. `f.template
/// operator()<N, K>()`.
template <class F>
decltype(auto) at_step_size(int n, int k, F&& f) {
  if (k == 0 && n >= 1 && n <= 4)
    return at_short_size(n, [&]<int N>() -> decltype(auto) { return f.template operator()<N, 0>(); });
  if (k == 1) {
    switch (n) {
      case 2: return f.template operator()<2, 1>();
      case 3: return f.template operator()<3, 1>();
      case 4: return f.template operator()<4, 1>();
      default: break;
    }
  }
  return f.template operator()<Eigen::Dynamic, Eigen::Dynamic>();
}

KernelVariationalIntegrator::StepNewton KernelVariationalIntegrator::step_newton_of(int n, int k) {
  return at_step_size(n, k, [&]<int N, int K>() {
    // In place, as sized_newton (kernel/sized_newton.hpp): no copy of a fixed-size solver's
    // uninitialized storage.
    if constexpr (kStepUnknowns<N, K> == Eigen::Dynamic)
      return StepNewton(std::in_place_type<NewtonSolver<Eigen::Dynamic>>, n + k);
    else
      return StepNewton(std::in_place_type<NewtonSolver<kStepUnknowns<N, K>>>);
  });
}

KernelVariationalIntegrator::KernelVariationalIntegrator(const KernelModel& model, Rule rule, double h,
                                                         NewtonOptions options, DelForm form, StepCheckOptions check)
    : model_(&model), n_(model.dim()), k_(model.num_constraints()), h_(h), form_(form), options_(options),
      confirm_options_(full_newton(options)), check_(check), rule_(model, rule), newton_(step_newton_of(n_, k_)),
      confirm_newton_(step_newton_of(n_, k_)), legendre_(model) {
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidInput("step size h must be positive and finite, got " + format_number(h));
  const int n = n_, k = k_, m = model.num_controls(), symmetries = model.num_symmetries();
  for (Vector* v : {&q_, &q_prev_, &p_, &q_next_, &p_next_, &d1_, &f_minus_, &f_plus_, &q_half_, &q_two_, &p_half_, &xi_,
                    &xi_next_, &step_f_minus_, &step_f_plus_, &energy_gradient_, &mid_, &vel_})
    v->setZero(n);
  for (Vector* v : {&lambda_, &g_k_, &g_next_, &nu_, &lambda_half_}) v->setZero(k);
  for (Vector* v : {&u_, &u_previous_, &u_law_, &u_law_before_}) v->setZero(m);
  work_.setZero(symmetries);
  momenta_at_start_.setZero(symmetries);
  diagnostics_.p.setZero(n);
  diagnostics_.velocity.setZero(n);
  vel_guess_.setZero(n);
  xi_row_.setZero(n);
  for (RowMatrix* a : {&dg_k_, &dg_next_, &dg_half_}) a->setZero(k, n);
  d12_.setZero(n, n);
  df_minus_.setZero(n, n);
  step_ = at_step_size(n, k, []<int N, int K>() { return &KernelVariationalIntegrator::step_sized<N, K>; });
}

// ---- starts ---------------------------------------------------------------------------------------

void KernelVariationalIntegrator::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  check_finite(q0, "q0");
  check_finite(qdot0, "initial velocity");
  check_on_manifold(q0);
  if (k_ > 0) {
    model_->constraints(q0, nullptr, &dg_k_);
    check_start_velocity(Eigen::MatrixXd(dg_k_), Eigen::VectorXd(qdot0));
  }
  Vector p0(n_);
  if (!model_->gradient(q0, qdot0, nullptr, nullptr, &p0))
    throw InvalidStart("the model is not defined at the start (outside its domain)");
  reset(q0, p0, q0 - h_ * qdot0, t0);
}

void KernelVariationalIntegrator::start_from_momentum(const Vector& q0, const Vector& p0, double t0) {
  check_finite(q0, "q0");
  check_finite(p0, "initial momentum");
  check_on_manifold(q0);
  reset(q0, p0, q0, t0);
  const Vector v = velocity();
  reset(q0, p0, q0 - h_ * v, t0);
}

void KernelVariationalIntegrator::start_from_two_points(const Vector& q_prev, const Vector& q0, double t0) {
  check_finite(q_prev, "q_{-1}");
  check_finite(q0, "q0");
  check_on_manifold(q_prev);
  check_on_manifold(q0);
  reset(q0, Vector::Zero(n_), q_prev, t0);
  discrete_momentum(q_prev, q0, forcing_before_start(), h_, p_);
  forget_diagnostics();
}

void KernelVariationalIntegrator::start_source_procedure(const Vector& q0, const Vector& qdot0, double fine_h,
                                                         double t0) {
  if (!(fine_h > 0.0) || fine_h > h_) throw InvalidStart("fine start step must be in (0, h]");
  const long fine_steps = std::lround(h_ / fine_h);
  if (std::abs(fine_steps * fine_h - h_) > 1e-9 * h_)
    throw InvalidStart("h must be an integer multiple of the fine start step");
  check_finite(q0, "q0");
  check_finite(qdot0, "initial velocity");
  check_on_manifold(q0);
  KernelVariationalIntegrator fine(*model_, rule_.rule(), fine_h, options_, DelForm::kPosition, check_);
  fine.u_ = u_;
  fine.law_ = law_;
  fine.wrap_ = wrap_;
  const Vector q_euler = project_to_manifold(q0 + fine_h * qdot0);
  fine.reset(q_euler, Vector::Zero(n_), q0, t0 + fine_h);
  fine.discrete_momentum(q0, q_euler, fine.forcing_before_start(), fine_h, fine.p_);
  for (long i = 1; i < fine_steps; ++i) fine.step();
  start_from_two_points(q0, fine.q(), t0 + h_);
  step_index_ = 1;
  forget_diagnostics();
}

void KernelVariationalIntegrator::set_control(const Vector& u) {
  if (!u.allFinite()) throw InvalidInput("control contains NaN or infinity");
  u_ = u;
  law_ = nullptr;
  forget_diagnostics();  // before the first step, p() holds the control
}

void KernelVariationalIntegrator::set_control_law(ControlLaw law) {
  law_ = std::move(law);
  forget_diagnostics();
}

// ---- the step -------------------------------------------------------------------------------------

void KernelVariationalIntegrator::step() {
  forget_diagnostics();
  (this->*step_)();
}

template <int N, int K>
void KernelVariationalIntegrator::step_sized() {
  using V = Eigen::Matrix<double, N, 1>;
  const auto sized = [n = n_](Vector& x) { return Eigen::Map<V>(x.data(), n); };
  const Forcing forcing = forcing_of_step();
  if (form_ == DelForm::kPosition) discrete_momentum<N>(q_prev_, q_, forcing_of_previous_step(), h_, p_);
  if (model_->forced() && !balance_started_) {
    momenta_at_start_ = noether_momenta(q_, p_);
    balance_started_ = true;
  }
  if (k_ > 0 && !model_->constraints(q_, &g_k_, &dg_k_))
    throw NewtonFailure(step_index_ + 1, t_ + h_, std::numeric_limits<double>::quiet_NaN(), 0);
  sized(q_next_) = 2.0 * sized(q_) - sized(q_prev_);
  // A model that solves its steps gives their end as well where the momentum follows from the step
  // itself (momentum form, no periodic wrap in between): p_{k+1} and the step's discrete forces at
  // q_{k+1}, by the arithmetic below without two more calls through the table.
  const bool end_by_model = form_ == DelForm::kMomentum && !wrap_ && steps_by_model(options_);
  if (end_by_model) {
    factored_h_ = 0.0;
    rule_.solve_step(h_, q_, p_, forcing.u, forcing.t, options_, q_next_, stats_, &p_next_, &step_f_minus_,
                     &step_f_plus_);
  } else {
    solve<N, K>(std::get<NewtonSolver<kStepUnknowns<N, K>>>(newton_), true, h_, q_, p_, dg_k_, forcing, q_next_, lambda_,
                stats_);
  }
  if (!stats_.converged || !sized(q_next_).allFinite()) {
    // Where Newton's last iterate left the model's own domain (a model file's `domain`, a built-in's
    // collision), that is the reason to give: the step is too large to resolve a singular point.
    if (q_next_.allFinite()) model_->check_step(q_, q_next_, t_ + h_);
    throw NewtonFailure(step_index_ + 1, t_ + h_, stats_.residual_norm, stats_.iterations);
  }
  // The discrete forces of the step, once: the energy balance and the Noether balance use them.
  if (model_->forced() && !end_by_model &&
      !rule_.forces<N>(q_, q_next_, *forcing.u, forcing.t, h_, step_f_minus_, step_f_plus_, nullptr))
    step_f_minus_.setConstant(std::numeric_limits<double>::quiet_NaN());
  if (check_.enabled) {
    check_turns<N>();
    const double energy_off = update_energy_balance<N>();
    if (energy_off > check_.trigger_energy || should_confirm<N>()) confirm_step<N, K>(forcing);
    if (!(energy_off <= check_.reject_energy)) balance_.reject(step_index_ + 1, t0_ + (step_index_ + 1) * h_, energy_off);
  }
  if (model_->forced() && model_->num_symmetries() > 0) accumulate_work();
  sized(q_prev_) = sized(q_);
  sized(q_) = sized(q_next_);
  if (wrap_) wrap_(q_prev_, q_);  // before p: the fixed-size integrator's order
  if (end_by_model) {
    sized(p_) = sized(p_next_);  // the model's D2 Ld + f⁺_k (NaN where not defined, as below)
  } else if (form_ == DelForm::kMomentum) {
    // p_{k+1} = D2 Ld(q_k, q_{k+1}) + f⁺_k, the discrete forces of this step computed above.
    const bool defined = rule_.d2<N>(q_prev_, q_, h_, p_);
    if (model_->forced()) sized(p_) += sized(step_f_plus_);
    if (!defined || (model_->forced() && !sized(step_f_minus_).allFinite()))
      p_.setConstant(std::numeric_limits<double>::quiet_NaN());
  }
  if (model_->forced()) u_previous_ = *forcing.u;
  ++step_index_;
  t_ = t0_ + static_cast<double>(step_index_) * h_;
  total_iterations_ += stats_.iterations;
  check_taken_step(*model_, q_prev_, q_, t_, step_index_);
}

template <int N, int K>
void KernelVariationalIntegrator::solve(NewtonSolver<kStepUnknowns<N, K>>& newton, bool step_solver, double h, const Vector& q_k,
                                        const Vector& p_k, const RowMatrix& dg_k, Forcing forcing, Vector& q_next,
                                        Vector& lambda, NewtonStats& stats) {
  // The step's solver follows the options (simplified Newton keeps its factorization, which belongs
  // to one step size); a confirmation's half steps take full Newton.
  const NewtonOptions& options = step_solver ? options_ : confirm_options_;
  // A model that solves its rule's steps itself does it with full Newton at its own size, the same
  // arithmetic with the discrete derivatives inlined (model_kernels.h, discrete_step); simplified
  // Newton keeps its factorization here, across steps, so it stays on this side.
  if (steps_by_model(options)) {
    if (step_solver) factored_h_ = 0.0;
    rule_.solve_step(h, q_k, p_k, forcing.u, forcing.t, options, q_next, stats);
    return;
  }
  solve_here<N, K>(newton, step_solver, options, h, q_k, p_k, dg_k, forcing, q_next, lambda, stats);
}

template <int N, int K>
void KernelVariationalIntegrator::solve_here(NewtonSolver<kStepUnknowns<N, K>>& newton, bool step_solver, const NewtonOptions& options,
                                             double h, const Vector& q_k, const Vector& p_k, const RowMatrix& dg_k,
                                             Forcing forcing, Vector& q_next, Vector& lambda, NewtonStats& stats) {
  if (step_solver && factored_h_ != h) newton.discard_factorization();
  nu_.setZero();
  const double residual_scale = 1.0 + (h * Eigen::Map<const Eigen::Matrix<double, N, 1>>(p_k.data(), n_)).template lpNorm<Eigen::Infinity>();
  DelSystem<N, K> system{*this, options, h, q_k, p_k, dg_k, forcing, q_next, residual_scale};
  stats = newton.solve(system, NewtonPolicy::from(options));
  if (step_solver) factored_h_ = newton.has_factorization() ? h : 0.0;
  if (k_ > 0) lambda = nu_ / h;
}

/// p1 = D2 Ld(q0, q1) + f⁺ (NaN where the model is not defined: the run loop's checks stop there).
template <int N>
void KernelVariationalIntegrator::discrete_momentum(const Vector& q0, const Vector& q1, Forcing forcing, double h,
                                                    Vector& p) const {
  bool defined = rule_.d2<N>(q0, q1, h, p);
  if (defined && model_->forced()) {
    defined = rule_.forces<N>(q0, q1, *forcing.u, forcing.t, h, f_minus_, f_plus_, nullptr);
    Eigen::Map<Eigen::Matrix<double, N, 1>>(p.data(), n_) += Eigen::Map<const Eigen::Matrix<double, N, 1>>(f_plus_.data(), n_);
  }
  if (!defined) p.setConstant(std::numeric_limits<double>::quiet_NaN());
}

void KernelVariationalIntegrator::reset(const Vector& q0, const Vector& p0, const Vector& q_prev, double t0) {
  q_ = q0;
  p_ = p0;
  q_prev_ = q_prev;
  lambda_.setZero();
  t0_ = t_ = t0;
  step_index_ = total_iterations_ = confirmed_steps_ = 0;
  stats_ = {};
  balance_.reset();
  work_.setZero();
  momenta_at_start_.setZero();
  balance_started_ = false;
  forget_diagnostics();
}

KernelVariationalIntegrator::Forcing KernelVariationalIntegrator::forced_step_forcing() const {
  if (law_) law_(t_ + 0.5 * h_, u_law_);
  return {law_ ? &u_law_ : &u_, t_};
}

KernelVariationalIntegrator::Forcing KernelVariationalIntegrator::forcing_of_previous_step() const {
  if (!model_->forced()) return {};
  if (step_index_ == 0) return forcing_before_start();
  return {&u_previous_, t_ - h_};
}

KernelVariationalIntegrator::Forcing KernelVariationalIntegrator::forcing_before_start() const {
  if (!model_->forced()) return {};
  // Its own buffer: the step's control (u_law_) is still in use when this is asked for.
  if (law_) law_(t_ - 0.5 * h_, u_law_before_);
  return {law_ ? &u_law_before_ : &u_, t_ - h_};
}

// ---- state ----------------------------------------------------------------------------------------

const Vector& KernelVariationalIntegrator::p() const {
  if (form_ != DelForm::kPosition || step_index_ == 0) return p_;
  if (!diagnostics_.has_p) {
    discrete_momentum(q_prev_, q_, forcing_of_previous_step(), h_, diagnostics_.p);
    diagnostics_.has_p = true;
  }
  return diagnostics_.p;
}

/// The velocity tangent to the constraint manifold whose Legendre transform is p (Newton from the
/// last step's difference quotient; kernel_legendre.hpp).
const Vector& KernelVariationalIntegrator::velocity() const {
  if (!diagnostics_.has_velocity) {
    vel_guess_ = (q_ - q_prev_) / h_;
    diagnostics_.velocity = legendre_.tangent_velocity(q_, p(), vel_guess_);
    diagnostics_.has_velocity = true;
  }
  return diagnostics_.velocity;
}

double KernelVariationalIntegrator::energy() const { return legendre_.energy(q_, velocity()); }

double KernelVariationalIntegrator::momentum(int i) const {
  if (!model_->symmetry(i, q_, xi_row_)) return std::numeric_limits<double>::quiet_NaN();
  return p().dot(xi_row_);
}

Vector KernelVariationalIntegrator::constraint_residual() const {
  Vector g(k_);
  if (k_ > 0 && !model_->constraints(q_, &g, nullptr)) g.setConstant(std::numeric_limits<double>::quiet_NaN());
  return g;
}

Vector KernelVariationalIntegrator::control() const {
  if (step_index_ > 0 || !law_) return step_index_ > 0 ? u_previous_ : u_;
  Vector u(u_.size());
  law_(t_ + 0.5 * h_, u);
  return u;
}

Vector KernelVariationalIntegrator::noether_momenta(const Vector& q, const Vector& p) const {
  Vector j(model_->num_symmetries()), xi(n_);
  for (int i = 0; i < j.size(); ++i) j[i] = model_->symmetry(i, q, xi) ? p.dot(xi) : std::numeric_limits<double>::quiet_NaN();
  return j;
}

// ---- constraints at the start ---------------------------------------------------------------------

void KernelVariationalIntegrator::check_on_manifold(const Vector& q) const {
  check_start_on_constraints(*model_, q, nullptr);
}

/// Newton projection x ← x − Dgᵀ(Dg Dgᵀ)⁻¹g until |g|∞ < 1e-15 or 50 updates.
Vector KernelVariationalIntegrator::project_to_manifold(Vector x) const {
  if (k_ == 0) return x;
  struct Projection {
    const KernelModel& model;
    Vector& x;
    Vector g;
    RowMatrix dg;
    void assemble(Eigen::VectorXd& r, Eigen::MatrixXd* gram) {
      if (!model.constraints(x, &g, &dg)) {
        r.setConstant(std::numeric_limits<double>::quiet_NaN());
        return;
      }
      r = g;
      if (gram) *gram = dg * dg.transpose();
    }
    double update(const Eigen::VectorXd& delta) {
      x -= dg.transpose() * delta;
      return 0.0;
    }
    bool converged_on_residual(const NewtonIterate& state) const { return state.residual_norm < 1e-15; }
    bool converged_on_update(const NewtonIterate&) const { return false; }
  } projection{*model_, x, Vector(k_), RowMatrix(k_, n_)};
  NewtonSolver<Eigen::Dynamic> newton(k_);
  newton.solve(projection, {.max_iterations = 50});
  if (newton.last_stop() == NewtonStop::kNonFinite) x.setConstant(std::numeric_limits<double>::quiet_NaN());
  return x;
}

// ---- step check (integrate/step_check.hpp; the fixed-size integrator's, line for line) ----------

template <int N>
bool KernelVariationalIntegrator::should_confirm() const {
  using ConstMap = Eigen::Map<const Eigen::Matrix<double, N, 1>>;
  const ConstMap q(q_.data(), n_), q_next(q_next_.data(), n_), q_prev(q_prev_.data(), n_);
  return mechint::should_confirm(check_, step_index_ + 1, stats_.first_contraction,
                                 (q_next - q).template lpNorm<Eigen::Infinity>(),
                                 (q - q_prev).template lpNorm<Eigen::Infinity>());
}

template <int N, int K>
void KernelVariationalIntegrator::confirm_step(Forcing forcing) {
  ++confirmed_steps_;
  const double half = 0.5 * h_;
  NewtonSolver<kStepUnknowns<N, K>>& newton = std::get<NewtonSolver<kStepUnknowns<N, K>>>(confirm_newton_);
  q_half_ = q_ + 0.5 * (q_ - q_prev_);
  NewtonStats first, second;
  solve<N, K>(newton, false, half, q_, p_, dg_k_, forcing, q_half_, lambda_half_, first);
  q_two_ = 2.0 * q_half_ - q_;
  bool converged = first.converged && q_half_.allFinite();
  if (converged) {
    discrete_momentum<N>(q_, q_half_, forcing, half, p_half_);
    if (k_ > 0) converged = model_->constraints(q_half_, nullptr, &dg_half_);
    Forcing second_half = forcing;
    second_half.t += half;
    if (converged) {
      solve<N, K>(newton, false, half, q_half_, p_half_, dg_half_, second_half, q_two_, lambda_half_, second);
      converged = second.converged && q_two_.allFinite();
    }
  }
  const double motion = motion_scale<Eigen::Dynamic>(q_, (q_ - q_prev_).lpNorm<Eigen::Infinity>(), q_half_, q_two_,
                                                     options_.step_tolerance);
  const double ratio = (q_two_ - q_next_).lpNorm<Eigen::Infinity>() / motion;
  judge_confirmation(converged, ratio, check_.max_ratio, step_index_ + 1, t0_ + (step_index_ + 1) * h_);
}

/// Rejects the step q_ → q_next_ when it turns an angle L depends on by more than half a turn
/// (turns_more_than_half in integrate/step_check.hpp); L's gradient only when one turns so far, out
/// of line (judge_turn): the test of every step stays in the step's body.
template <int N>
void KernelVariationalIntegrator::check_turns() {
  const int n = N == Eigen::Dynamic ? n_ : N;
  for (int i = 0; i < n; ++i) {
    const double change = q_next_[i] - q_[i];
    if (turns_more_than_half(check_, i, change)) judge_turn(i, change);
  }
}

void KernelVariationalIntegrator::judge_turn(int i, double change) {
  mid_ = 0.5 * (q_ + q_next_);
  vel_ = (q_next_ - q_) / h_;
  double value = 0.0;
  if (model_->gradient(mid_, vel_, &value, &energy_gradient_, nullptr) && energy_gradient_[i] != 0.0)
    reject_turn(step_index_ + 1, t0_ + (step_index_ + 1) * h_, i, change);
}

/// The energy balance of the step just solved (q_ to q_next_, its discrete forces) against the
/// previous one's (EnergyBalance in integrate/step_check.hpp).
template <int N>
double KernelVariationalIntegrator::update_energy_balance() {
  using V = Eigen::Matrix<double, N, 1>;
  const auto sized = [n = n_](const Vector& x) { return Eigen::Map<const V>(x.data(), n); };
  Eigen::Map<V>(mid_.data(), n_) = 0.5 * (sized(q_) + sized(q_next_));
  Eigen::Map<V>(vel_.data(), n_) = (sized(q_next_) - sized(q_)) / h_;
  double energy = std::numeric_limits<double>::quiet_NaN(), size = 0.0;
  if (!model_->energy(mid_, vel_, energy, size, energy_gradient_))
    energy = std::numeric_limits<double>::quiet_NaN(), size = 0.0;
  // F·Δq over the step: (f⁻ + f⁺)·Δq / h for the discrete forces.
  const double work = model_->forced()
                          ? (sized(step_f_minus_) + sized(step_f_plus_)).dot(sized(q_next_) - sized(q_)) / h_
                          : 0.0;
  return balance_.update(energy, size, work, check_);
}

/// Forced Noether theorem: J_i(k+1) − J_i(k) = ⟨f⁻_k, ξ_i(q_k)⟩ + ⟨f⁺_k, ξ_i(q_{k+1})⟩.
void KernelVariationalIntegrator::accumulate_work() {
  for (int i = 0; i < model_->num_symmetries(); ++i) {
    model_->symmetry(i, q_, xi_);
    model_->symmetry(i, q_next_, xi_next_);
    work_[i] += step_f_minus_.dot(xi_) + step_f_plus_.dot(xi_next_);
  }
}

}  // namespace mechint::kernel
