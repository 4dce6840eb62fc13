#include "app/kernel_methods.hpp"

#include <cmath>
#include <typeinfo>

#include <Eigen/LU>

#include "app/methods.hpp"
#include "app/nonholonomic_methods.hpp"
#include "app/recorder.hpp"
#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/kernel_dae.hpp"
#include "kernel/energy_step_integrator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_impact_driver.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/nonholonomic_integrator.hpp"
#include "kernel/start_checks.hpp"
#include "kernel/sundman_integrator.hpp"

namespace mechint::app {
namespace {

using kernel::KernelModel;
using kernel::Vector;

using VariationalRows = std::array<std::string_view, 3>;
constexpr VariationalRows kVariational = {MidpointRule::kName, TrapezoidRule::kName, FirstOrderRule::kName};
constexpr std::string_view kDopri5 = AdaptiveRungeKuttaMethod<RungeKuttaMethod::kDopri5>::kName;
constexpr std::string_view kRk78 = AdaptiveRungeKuttaMethod<RungeKuttaMethod::kRk78>::kName;

bool is_variational(const std::string& method) {
  return std::find(kVariational.begin(), kVariational.end(), method) != kVariational.end();
}

/// The Galerkin rules (kernel/galerkin_integrator.hpp): their quadrature and number of stages.
struct GalerkinRow {
  std::string_view name;
  kernel::Quadrature quadrature;
  int stages;
  int order() const { return quadrature == kernel::Quadrature::kGauss ? 2 * stages : 2 * stages - 2; }
  kernel::GalerkinTableau tableau() const {
    return quadrature == kernel::Quadrature::kGauss ? kernel::gauss_tableau(stages) : kernel::lobatto_tableau(stages);
  }
  /// Lobatto keeps holonomic constraints at every node; Gauss applies to unconstrained models.
  bool applies(int num_constraints) const { return quadrature == kernel::Quadrature::kLobatto || num_constraints == 0; }
};
constexpr std::array<GalerkinRow, 5> kGalerkin = {{{"vi-gauss4", kernel::Quadrature::kGauss, 2},
                                                   {"vi-gauss6", kernel::Quadrature::kGauss, 3},
                                                   {"vi-gauss8", kernel::Quadrature::kGauss, 4},
                                                   {"vi-lobatto4", kernel::Quadrature::kLobatto, 3},
                                                   {"vi-lobatto6", kernel::Quadrature::kLobatto, 4}}};

const GalerkinRow* galerkin_row(const std::string& method) {
  for (const GalerkinRow& row : kGalerkin)
    if (row.name == method) return &row;
  return nullptr;
}

ParameterSpec indicators_option() {
  return ParameterSpec::choice("indicators", {"off", "on"},
                               "on: carry a deviation by the exact tangent map of every step and add the chaos "
                               "indicators megno, lyapunov and fli as columns (docs/chaos-indicators.md); with "
                               "holonomic constraints on vi-trapezoid and the Lobatto rules");
}

/// indicators=on of the Runge–Kutta rows: the deviation by the variational equations
/// (kernel_runge_kutta.hpp); dopri5 then steps without its dense output.
ParameterSpec runge_kutta_indicators_option() {
  return ParameterSpec::choice("indicators", {"off", "on"},
                               "on: carry a deviation by the variational equations of the Euler-Lagrange ODE, "
                               "integrated with the motion, and add the chaos indicators megno, lyapunov and fli as "
                               "columns (docs/chaos-indicators.md; dopri5 then clips its steps at the output times "
                               "instead of interpolating)");
}

bool indicators_on(const ParameterValues& o) { return o.has("indicators") && o.choice("indicators") == "on"; }

/// adapt=sundman|energy and where adapt=sundman's rows come from (kernel/sundman_integrator.hpp,
/// kernel/energy_step_integrator.hpp).
std::vector<ParameterSpec> adapt_options() {
  return {ParameterSpec::choice("adapt", {"off", "sundman", "energy"},
                                "sundman: physical steps dt = h*s(q) from the model's time scale s (a model file's "
                                "time_scale; kepler and three-body: a power of the distance), the method applied at "
                                "the fixed step h in the fictive time, where it stays symplectic; energy (vi-midpoint): "
                                "each step's size solved for so that the discrete energy is conserved (Kane, Marsden & "
                                "Ortiz 1999), h the first step's (docs/adaptive-steps.md); models without forces"),
          ParameterSpec::choice("land", {"aside", "inline"},
                                "adapt=sundman's rows at the output times: aside, from a step of adjusted size taken "
                                "off the trajectory (which keeps its fixed fictive step); inline, the trajectory "
                                "itself takes that step")};
}

/// form=position and init=source of the variational rows. The options of a run that reaches the
/// kernels from an impact row (vi-trapezoid of a model whose walls are off) have neither: that row
/// starts in momentum form, with Newton's defaults.
bool position_form(const ParameterValues& o) { return o.has("form") && o.choice("form") == "position"; }
bool source_start(const ParameterValues& o) { return o.has("init") && o.choice("init") == "source"; }
NewtonOptions newton_options_of(const ParameterValues& o) {
  return o.has("newton_tol") ? read_newton_options(o) : NewtonOptions{};
}

bool sundman_on(const ParameterValues& o) { return o.has("adapt") && o.choice("adapt") == "sundman"; }
bool energy_steps_on(const ParameterValues& o) { return o.has("adapt") && o.choice("adapt") == "energy"; }

std::vector<ParameterSpec> galerkin_options() {
  std::vector<ParameterSpec> options = {ParameterSpec::choice("newton", {"full", "simplified"},
                                "full: exact Jacobian at every iterate; simplified: Jacobian kept over "
                                "iterations and steps, refreshed when convergence slows"),
          ParameterSpec::real("newton_tol", 1e-12, "Newton stops when the update moves q by less than newton_tol*(1+|q|)",
                              1e-16, 1e-3),
          ParameterSpec::choice("check", {"on", "off"},
                                "reject a step whose stage energy does not balance with the forces' work "
                                "(a Newton root that is not the continuation of the motion; docs/methods.md)"),
          indicators_option()};
  for (auto& spec : adapt_options()) options.push_back(std::move(spec));
  return options;
}

/// The step check of a Galerkin row or of a composed midpoint (their energy balance; the
/// confirmation by half steps of the second-order rows does not apply).
StepCheckOptions galerkin_step_check(const ParameterValues& o) {
  StepCheckOptions check;
  check.enabled = !o.has("check") || o.choice("check") == "on";
  return check;
}

/// The control law of the problem's controls, into u (sized by the caller).
kernel::ControlLaw control_law(const KernelProblem& p) {
  if (p.model->num_controls() == 0) return nullptr;
  return [&controls = p.controls](double t, Vector& u) { controls.at(t, u); };
}

/// The controls of a variational stepper: a schedule constant in time is held (set_control: the
/// same u at every step, without sampling a law at each step's midpoint), any other is its law, as
/// are controls a stepping session replaces as it goes.
template <class Stepper>
void give_controls(Stepper& stepper, const KernelProblem& p) {
  if (p.model->num_controls() == 0) return;
  if (p.controls_replaced_while_stepping || !p.controls.constant_in_time())
    return stepper.set_control_law(control_law(p));
  Vector u(p.model->num_controls());
  p.controls.at(0.0, u);
  stepper.set_control(u);
}

// ---- the recorder (app/recorder.hpp's columns and rows, from runtime counts) -----------------------

template <class S>
constexpr bool kIsVariational = std::is_same_v<S, kernel::KernelVariationalIntegrator> ||
                                std::is_same_v<S, kernel::KernelGalerkinIntegrator> ||
                                std::is_same_v<S, kernel::KernelSundmanIntegrator> ||
                                std::is_same_v<S, kernel::KernelEnergyStepIntegrator> ||
                                std::is_same_v<S, kernel::NonholonomicIntegrator> ||
                                std::is_same_v<S, kernel::KernelEnergyMomentumIntegrator>;
/// Steppers of constrained models that report the multipliers and the constraint residual.
template <class S>
constexpr bool kHasMultipliers = kIsVariational<S> || std::is_same_v<S, kernel::KernelDaeStepper>;
/// Steppers of forced models: the discrete work of the Noether balance and the control of a step.
template <class S>
constexpr bool kIntegratesForces = kIsVariational<S> && !std::is_same_v<S, kernel::KernelEnergyMomentumIntegrator>;
template <class S>
constexpr bool kIsEnergyStep = std::is_same_v<S, kernel::KernelEnergyStepIntegrator>;
/// The impact driver (a model with walls): canonical momenta, H̃ and the impacts counted; no Noether
/// momenta (the walls break the symmetries), as the fixed-size recorder writes it.
template <class S>
constexpr bool kIsImpactDriver = std::is_same_v<S, kernel::KernelImpactDriver>;
/// Steppers that report canonical momenta.
template <class S>
constexpr bool kHasMomentum = kIsVariational<S> || kIsImpactDriver<S>;
/// Steppers that can carry a deviation and its chaos indicators: the Galerkin rules (exact tangent
/// map), rk4 and rk78 (variational equations).
template <class S>
concept TracksDeviation = requires(S& s, const Vector& delta) {
  s.track_deviation(delta);
  { s.tracks_deviation() } -> std::convertible_to<bool>;
  s.indicators().megno();
};

/// t, coordinates, [velocities], [canonical momenta], energy, [htilde], Noether momenta, [their discrete
/// work], [constraint_residual, lambda1..k], [u1..um], [impacts]: DESIGN §4, §6.
template <class S>
class KernelRecorder {
 public:
  /// `indicators`: the stepper tracks a deviation; its chaos indicators end the row.
  KernelRecorder(const KernelProblem& p, bool indicators)
      : problem_(&p), u_(p.model->num_controls()), indicators_(indicators) {
    const KernelModel& m = *p.model;
    const OutputLabels& labels = p.labels;
    if (static_cast<int>(labels.coordinates.size()) != m.dim() ||
        static_cast<int>(labels.momenta.size()) != m.num_symmetries() ||
        (!labels.periodic.empty() && static_cast<int>(labels.periodic.size()) != m.dim()))
      throw std::logic_error("output labels do not match the model");
    columns_.push_back("t");
    append(labels.coordinates);
    append(labels.velocities);
    if constexpr (kHasMomentum<S>) append(labels.canonical_momenta);
    columns_.push_back(labels.energy_column);
    if (kIsImpactDriver<S> && labels.modified_energy) columns_.push_back("htilde");
    if (!kIsImpactDriver<S>) append(labels.momenta);
    if (kIsVariational<S> && m.forced())
      for (const auto& momentum : labels.momenta) columns_.push_back(momentum + "_work");
    if (m.num_constraints() > 0) {
      columns_.push_back("constraint_residual");
      for (int i = 1; i <= m.num_constraints(); ++i) columns_.push_back("lambda" + std::to_string(i));
    }
    if (m.num_nonholonomic() > 0) {  // DESIGN §10
      columns_.push_back("nonholonomic_residual");
      for (int i = 1; i <= m.num_nonholonomic(); ++i) columns_.push_back("mu" + std::to_string(i));
    }
    if (m.num_controls() > 0) append(numbered_controls(m.num_controls()));
    if (indicators_) append({"megno", "lyapunov", "fli"});
    if constexpr (kIsEnergyStep<S>) append({"discrete_energy", "energy_fallbacks"});
    // A run whose walls are off has no impacts to count (the double pendulum without wall=1).
    if (kIsImpactDriver<S> && m.num_unilateral() > 0) columns_.push_back("impacts");
    row_.reserve(columns_.size());
  }

  const std::vector<std::string>& columns() const { return columns_; }

  const std::vector<double>& row(const S& s, double t) {
    const KernelModel& m = *problem_->model;
    const OutputLabels& labels = problem_->labels;
    row_.clear();
    row_.push_back(t);
    const auto& q = s.q();
    for (Eigen::Index i = 0; i < q.size(); ++i)
      row_.push_back(labels.periodic.empty() || !labels.periodic[i] ? q[i] : wrap_angle(q[i]));
    if (!labels.velocities.empty()) append_vector(s.velocity());
    if constexpr (kHasMomentum<S>)
      if (!labels.canonical_momenta.empty()) append_vector(s.p());
    row_.push_back(labels.energy_factor * s.energy());
    if constexpr (kIsImpactDriver<S>) {
      if (labels.modified_energy) row_.push_back(s.htilde());
    } else {
      for (int i = 0; i < m.num_symmetries(); ++i) row_.push_back(s.momentum(i));
    }
    if constexpr (kIntegratesForces<S>)
      if (m.forced())
        for (int i = 0; i < m.num_symmetries(); ++i) row_.push_back(s.discrete_work(i));
    if constexpr (kHasMultipliers<S>) {
      if (m.num_constraints() > 0) {
        row_.push_back(s.constraint_residual().template lpNorm<Eigen::Infinity>());
        append_vector(s.lambda());
      }
    }
    if constexpr (std::is_same_v<S, kernel::NonholonomicIntegrator>) {
      row_.push_back(s.nonholonomic_residual());
      append_vector(s.multiplier());
    }
    if (m.num_controls() > 0) {
      if constexpr (kIntegratesForces<S>) {
        append_vector(s.control());
      } else {
        // The Runge–Kutta baselines integrate under u(t) itself: the control of the step that ended here.
        if (s.step_index() == 0)
          problem_->controls.at(t, u_);
        else
          problem_->controls.before(t, u_);
        append_vector(u_);
      }
    }
    if constexpr (TracksDeviation<S>)
      if (indicators_) {
        row_.push_back(s.indicators().megno());
        row_.push_back(s.indicators().lyapunov());
        row_.push_back(s.indicators().fli());
      }
    if constexpr (kIsEnergyStep<S>) {
      row_.push_back(labels.energy_factor * s.last_discrete_energy());
      row_.push_back(static_cast<double>(s.fallbacks()));
    }
    if constexpr (kIsImpactDriver<S>)
      if (m.num_unilateral() > 0) row_.push_back(static_cast<double>(s.impact_count()));
    require_finite_row(columns_, row_, s.step_index(), t);
    return row_;
  }

 private:
  void append(const std::vector<std::string>& names) { columns_.insert(columns_.end(), names.begin(), names.end()); }
  template <class V>
  void append_vector(const V& v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) row_.push_back(v[i]);
  }
  const KernelProblem* problem_;
  Vector u_;
  bool indicators_;
  std::vector<std::string> columns_;
  std::vector<double> row_;
};

// ---- the started stepper (detail::ErasedStepper's, for the kernel steppers) ----------------------

template <class S>
bool tracks(const S& stepper) {
  if constexpr (TracksDeviation<S>)
    return stepper.tracks_deviation();
  else
    return false;
}

template <class S>
class KernelStartedStepper final : public StartedStepper {
 public:
  KernelStartedStepper(std::shared_ptr<KernelProblem> problem, std::unique_ptr<S> stepper, double h)
      : problem_(std::move(problem)), stepper_(std::move(stepper)), h_(h), recorder_(*problem_, tracks(*stepper_)) {}

  void step() override {
    if constexpr (FixedStepper<S>) {
      take_step(*stepper_);
    } else {
      advance_to(*stepper_, static_cast<double>(grid_steps_ + 1) * h_);
      ++grid_steps_;
    }
  }
  double time() const override { return stepper_->time(); }
  long steps() const override {
    if constexpr (FixedStepper<S>)
      return stepper_->step_index();
    else
      return grid_steps_;
  }
  Eigen::VectorXd q() const override { return stepper_->q(); }
  std::optional<Eigen::VectorXd> p() const override {
    if constexpr (kHasMomentum<S>)
      return stepper_->p();
    else
      return std::nullopt;
  }
  std::optional<Eigen::VectorXd> velocity() const override {
    // The impact driver integrates (q, p) and states no velocity (Python's contract: None).
    if constexpr (kIsImpactDriver<S>)
      return std::nullopt;
    else
      return Eigen::VectorXd(stepper_->velocity());
  }
  double energy() const override { return stepper_->energy(); }
  Eigen::VectorXd momenta() const override {
    Eigen::VectorXd j(problem_->model->num_symmetries());
    for (int i = 0; i < j.size(); ++i) j[i] = stepper_->momentum(i);
    return j;
  }
  Eigen::VectorXd multipliers() const override {
    if constexpr (std::is_same_v<S, kernel::NonholonomicIntegrator>) {
      // λ of the holonomic constraints (if any), then the nonholonomic μ: the columns' order.
      const Eigen::VectorXd mu = stepper_->multiplier();
      Eigen::VectorXd all(stepper_->lambda().size() + mu.size());
      all << stepper_->lambda(), mu;
      return all;
    }
    else if constexpr (kHasMultipliers<S>)
      return stepper_->lambda();
    else
      return Eigen::VectorXd();
  }
  bool track_deviation(const Eigen::VectorXd& delta) override {
    if constexpr (TracksDeviation<S>) {
      stepper_->track_deviation(delta);
      return true;
    } else {
      (void)delta;
      return false;
    }
  }
  std::optional<Eigen::VectorXd> deviation() const override {
    if (!tracks(*stepper_)) return std::nullopt;
    if constexpr (TracksDeviation<S>) return Eigen::VectorXd(stepper_->deviation());
    return std::nullopt;
  }
  double log_growth() const override {
    if constexpr (TracksDeviation<S>)
      if (stepper_->tracks_deviation()) return stepper_->indicators().log_growth();
    return std::numeric_limits<double>::quiet_NaN();
  }
  Eigen::VectorXd constraint_residual() const override {
    if constexpr (kHasMultipliers<S>)
      return stepper_->constraint_residual();
    else
      return Eigen::VectorXd();
  }
  const std::vector<std::string>& columns() const override { return recorder_.columns(); }
  std::vector<double> row() override {
    const double t = FixedStepper<S> ? static_cast<double>(steps()) * h_ : stepper_->time();
    return recorder_.row(*stepper_, t);
  }

  void run(const OutputSchedule& schedule, RowWriter& out, const std::string& method) override {
    S& s = *stepper_;
    RunCheckpoint* checkpoint = out.checkpoint();
    const RunStart start = checkpoint ? begin_checkpointed_run(s, *checkpoint, method) : RunStart::kFresh;
    if (start == RunStart::kFresh) out.header(recorder_.columns());
    bool at_start = start == RunStart::kFresh;
    const auto observe = [&](const S& x) {
      if (!at_start) return out.row(recorder_.row(x, output_time(x, schedule)));
      try {
        out.row(recorder_.row(x, output_time(x, schedule)));
      } catch (const NumericalFailure& e) {
        throw InvalidStart(std::string("at the start: ") + e.what());
      }
      at_start = false;
    };
    const auto after_row = [&](S& x) {
      if constexpr (Checkpointable<S>) {
        if (checkpoint && checkpoint->due(x.time())) {
          StateWriter state;
          x.checkpoint_state(state);
          checkpoint->save(typeid(S).name(), state.bytes(), x.time(), out.flush());
        }
      }
    };
    integrate(s, schedule, observe, after_row, start, [&out, &s] { out.poll(s.time()); });
  }

 private:
  std::shared_ptr<KernelProblem> problem_;  ///< the model and the controls the stepper refers to
  std::unique_ptr<S> stepper_;              ///< on the heap: the steppers refer to their own members
  double h_;
  long grid_steps_ = 0;
  KernelRecorder<S> recorder_;
};

template <class S>
std::unique_ptr<StartedStepper> erase(const std::shared_ptr<KernelProblem>& problem, std::unique_ptr<S> stepper,
                                      double h) {
  return std::make_unique<KernelStartedStepper<S>>(problem, std::move(stepper), h);
}

}  // namespace

void check_kernel_start(const KernelProblem& p) {
  const KernelModel& m = *p.model;
  const int n = m.dim(), k = m.num_constraints();
  if (p.q0.size() != n || p.qdot0.size() != n) throw std::logic_error("start does not match the model");
  if (!p.q0.allFinite() || !p.qdot0.allFinite()) throw InvalidStart("the initial values are not finite");
  check_start_angles(p.labels, p.q0);
  kernel::check_start_precision(m, p.q0, p.qdot0, p.labels.coordinates);
  kernel::LagrangianValues l(n);
  if (!m.lagrangian(p.q0, p.qdot0, l, /*with_value=*/true)) throw InvalidStart("the model is not defined at the start (outside its domain)");
  Vector g(k);
  kernel::RowMatrix dg(k, n);
  const bool constraints_defined = k == 0 || m.constraints(p.q0, &g, &dg);
  const double e = l.v.dot(p.qdot0) - l.value;
  const char* what = !std::isfinite(l.value)                                       ? "the Lagrangian"
                     : !std::isfinite(e)                                           ? "the energy"
                     : !(l.q.allFinite() && l.v.allFinite())                       ? "the gradient of L"
                     : !(l.qq.allFinite() && l.qv.allFinite() && l.vv.allFinite()) ? "the Hessian of L"
                     : !(constraints_defined && g.allFinite() && dg.allFinite())   ? "the constraints"
                                                                                   : nullptr;
  if (what) throw InvalidStart(std::string(what) + " is not finite at the start: check the parameters and initial values");
  Eigen::MatrixXd bordered = Eigen::MatrixXd::Zero(n + k, n + k);
  bordered.topLeftCorner(n, n) = l.vv;
  if (k > 0) {
    bordered.topRightCorner(n, k) = dg.transpose();
    bordered.bottomLeftCorner(k, n) = dg;
  }
  if (!Eigen::FullPivLU<Eigen::MatrixXd>(bordered).isInvertible())
    throw InvalidStart("the kinetic energy is degenerate at the start (the mass matrix, bordered by the constraint "
                       "Jacobian, is singular): check the parameters (masses, lengths, inertia) and initial values");
}

std::vector<std::string> kernel_methods(int num_constraints) {
  std::vector<std::string> names(kVariational.begin(), kVariational.end());
  for (const GalerkinRow& row : kGalerkin)
    if (row.applies(num_constraints)) names.emplace_back(row.name);
  if (num_constraints == 0)
    for (std::string_view name : {RungeKutta4Method::kName, kDopri5, kRk78}) names.emplace_back(name);
  return names;
}

std::optional<kernel::GalerkinTableau> galerkin_tableau_of(const std::string& method) {
  if (const GalerkinRow* row = galerkin_row(method)) return row->tableau();
  return std::nullopt;
}

std::vector<std::string> kernel_impact_methods() {
  return {std::string(ImpactTrapezoidMethod::kName), std::string(StormerVerletMethod::kName)};
}

std::vector<std::string> kernel_methods(const KernelProblem& problem) {
  std::vector<std::string> names = kernel_methods(*problem.model);
  if (problem.impact_flows_without_walls && problem.model->num_unilateral() == 0) {
    const auto impact = kernel_impact_methods();
    names.insert(names.begin(), impact.begin(), impact.end());
  }
  return names;
}

std::vector<std::string> kernel_methods(const KernelModel& model) {
  if (model.num_nonholonomic() > 0) return nonholonomic_methods();
  if (model.num_unilateral() > 0) return kernel_impact_methods();
  std::vector<std::string> names = kernel_methods(model.num_constraints());
  if (model.energy_momentum_applies()) names.emplace_back(EnergyMomentumMethod::kName);
  if (model.num_constraints() > 0 && !model.forced() && model.has_constraint_curvature())
    names.emplace_back(DaeMethod::kName);
  return names;
}

std::vector<ParameterSpec> kernel_method_options(const KernelModel& model, const std::string& method) {
  if (model.num_nonholonomic() > 0) return nonholonomic_method_options(method);
  if (model.num_unilateral() > 0) return kernel_impact_method_options(method);
  return kernel_method_options(model.num_constraints(), method);
}

std::vector<ParameterSpec> kernel_impact_method_options(const std::string& method) {
  const auto names = kernel_impact_methods();
  if (std::find(names.begin(), names.end(), method) == names.end())
    throw InvalidInput("method " + quote_for_message(method) + " does not apply to a system with walls (offered: " +
                       names[0] + ", " + names[1] + ")");
  return impact_options();
}

std::vector<KernelMethodRow> kernel_only_rows() {
  std::vector<KernelMethodRow> rows;
  for (const GalerkinRow& row : kGalerkin)
    rows.push_back({std::string(row.name),
                    row.quadrature == kernel::Quadrature::kGauss
                        ? "Galerkin variational integrator on " + std::to_string(row.stages) +
                              " Gauss-Legendre points (variational partitioned Runge-Kutta), order " +
                              std::to_string(row.order()) + "; unconstrained systems"
                        : "Galerkin variational integrator on " + std::to_string(row.stages) +
                              " Lobatto points (Lobatto IIIA-IIIB), order " + std::to_string(row.order()) +
                              "; holonomic constraints at every node",
                    galerkin_options()});
  return rows;
}

std::vector<std::pair<std::string, ParameterSpec>> kernel_extra_options() {
  std::vector<std::pair<std::string, ParameterSpec>> options = {
      {std::string(MidpointRule::kName), compose_option()},
      {std::string(TrapezoidRule::kName), compose_option()},
      {std::string(MidpointRule::kName), indicators_option()},
      {std::string(TrapezoidRule::kName), indicators_option()},
      {std::string(RungeKutta4Method::kName), runge_kutta_indicators_option()},
      {std::string(kDopri5), runge_kutta_indicators_option()},
      {std::string(kRk78), runge_kutta_indicators_option()}};
  for (std::string_view method : {MidpointRule::kName, TrapezoidRule::kName})
    for (auto& spec : adapt_options()) options.emplace_back(std::string(method), std::move(spec));
  return options;
}

std::vector<std::string> kernel_only_methods(int num_constraints) {
  std::vector<std::string> names;
  for (const GalerkinRow& row : kGalerkin)
    if (row.applies(num_constraints)) names.emplace_back(row.name);
  return names;
}

std::vector<ParameterSpec> kernel_extra_options_of(int num_constraints, const std::string& method) {
  std::vector<ParameterSpec> specs;
  // With constraints only the trapezoid rule has a Galerkin form (Lobatto IIIA-IIIB, s = 2) whose
  // tangent map is linearised; compositions and adaptive steps are for unconstrained models.
  if (num_constraints > 0) {
    if (method == TrapezoidRule::kName) specs.push_back(indicators_option());
    return specs;
  }
  for (auto& [row, spec] : kernel_extra_options())
    if (row == method) specs.push_back(std::move(spec));
  return specs;
}

bool runs_on_kernels_only(int num_constraints, const std::string& method, const ParameterValues& options) {
  if (const GalerkinRow* row = galerkin_row(method)) return row->applies(num_constraints);
  if (num_constraints > 0) return method == TrapezoidRule::kName && indicators_on(options);
  if (method == RungeKutta4Method::kName || method == kDopri5 || method == kRk78) return indicators_on(options);
  if (method != MidpointRule::kName && method != TrapezoidRule::kName) return false;
  return !read_composition(options).empty() || indicators_on(options) || sundman_on(options) ||
         energy_steps_on(options);
}

int method_order(const std::string& method, const ParameterValues* options) {
  if (const GalerkinRow* row = galerkin_row(method)) return row->order();
  if (method == MidpointRule::kName || method == TrapezoidRule::kName || method == StormerVerletMethod::kName ||
      method == EnergyMomentumMethod::kName) {
    if (options && options->has("compose")) return kernel::composition_named(options->choice("compose")).order;
    return 2;
  }
  if (method == FirstOrderRule::kName) return 1;
  if (method == RungeKutta4Method::kName) return 4;
  if (method == kDopri5) return 5;
  if (method == kRk78) return 8;
  return 0;
}

std::vector<ParameterSpec> kernel_method_options(int num_constraints, const std::string& method) {
  // Offered where the model's structure admits it (kernel_methods(const KernelModel&)).
  if (method == EnergyMomentumMethod::kName) return energy_momentum_options();
  if (method == DaeMethod::kName) return tolerance_options(method);
  const auto names = kernel_methods(num_constraints);
  if (std::find(names.begin(), names.end(), method) == names.end())
    throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  if (galerkin_row(method)) return galerkin_options();
  if (is_variational(method)) {
    auto options = variational_options();
    for (auto& extra : kernel_extra_options_of(num_constraints, method)) options.push_back(std::move(extra));
    return options;
  }
  auto options = method == RungeKutta4Method::kName ? RungeKutta4Method::options() : tolerance_options(method);
  for (auto& extra : kernel_extra_options_of(num_constraints, method)) options.push_back(std::move(extra));
  return options;
}

std::unique_ptr<StartedStepper> start_kernel_method(const std::shared_ptr<KernelProblem>& problem,
                                                    const std::string& method, const ParameterValues& o, double h) {
  const auto names = kernel_methods(*problem);
  if (std::find(names.begin(), names.end(), method) == names.end())
    throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  check_kernel_start(*problem);
  const KernelModel& model = *problem->model;
  if (model.num_nonholonomic() > 0) return erase(problem, start_nonholonomic(*problem, method, o, h), h);
  const auto impact_methods = kernel_impact_methods();
  const bool impact_flow =
      model.num_unilateral() > 0 ||
      (problem->impact_flows_without_walls &&
       std::find(impact_methods.begin(), impact_methods.end(), method) != impact_methods.end() &&
       !runs_on_kernels_only(model.num_constraints(), method, o));
  if (impact_flow) {
    // 004 §III: the impact driver on the method's flow, from the canonical momenta at the start. A
    // composition is refused by the driver while the walls are on; without them it composes the flow.
    ImpactOptions impact = read_impact_options(o);
    impact.enabled = model.num_unilateral() > 0;
    auto driver = std::make_unique<kernel::KernelImpactDriver>(model, method, h, impact);
    if (problem->p0)
      driver->start(problem->q0, *problem->p0);
    else
      driver->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(driver), h);
  }
  if (method == DaeMethod::kName) {
    auto dae = std::make_unique<kernel::KernelDaeStepper>(
        model, h, kernel::KernelDaeStepper::Tolerances{o.real("rtol"), o.real("atol")});
    dae->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(dae), h);
  }
  if (method == EnergyMomentumMethod::kName) {
    auto em = std::make_unique<kernel::KernelEnergyMomentumIntegrator>(model, h, read_newton_options(o),
                                                                      read_step_check_options(o), read_composition(o));
    em->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(em), h);
  }
  const GalerkinRow* galerkin = galerkin_row(method);
  const bool composed = (method == MidpointRule::kName || method == TrapezoidRule::kName) && !read_composition(o).empty();
  // A second-order rule with indicators runs as the Galerkin rule of its discrete Lagrangian, whose
  // stage equations the tangent map linearises: the midpoint rule is Gauss with s = 1, the
  // trapezoid rule Lobatto IIIA-IIIB with s = 2 (docs/chaos-indicators.md).
  if (energy_steps_on(o)) {
    if (method != MidpointRule::kName)
      throw InvalidInput("adapt=energy is the midpoint rule's (Kane, Marsden & Ortiz 1999): use vi-midpoint");
    if (composed || indicators_on(o) || position_form(o) || source_start(o))
      throw InvalidInput("adapt=energy runs the plain midpoint rule in momentum form from velocities: drop compose, "
                         "indicators, form=position and init=source");
    auto vi = std::make_unique<kernel::KernelEnergyStepIntegrator>(model, h, newton_options_of(o));
    vi->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(vi), h);
  }
  const bool sundman = sundman_on(o);
  const bool second_order_indicators = !galerkin && is_variational(method) && indicators_on(o);
  // vi-trapezoid in momentum form on a separable model (kernel/separable.hpp): the 2-stage Lobatto
  // rule, whose steps are then the explicit Störmer–Verlet ones (kernel/galerkin_integrator.hpp), the
  // root of the trapezoid rule's DEL equations without Newton.
  const bool explicit_trapezoid = method == TrapezoidRule::kName && !position_form(o) && !source_start(o) &&
                                  model.num_controls() == 0 &&
                                  !model.supplies_own_discrete_rule(MECHINT_RULE_TRAPEZOID) &&
                                  kernel::separable_kinetics(model, problem->q0, problem->qdot0).has_value();
  if (galerkin || composed || second_order_indicators || explicit_trapezoid ||
      (sundman && method != FirstOrderRule::kName)) {
    const char* what = composed ? "compose" : sundman ? "adapt=sundman" : "indicators=on";
    if (!galerkin && position_form(o))
      throw InvalidInput(std::string(what) + " runs in momentum form: drop form=position");
    if (!galerkin && source_start(o))
      throw InvalidInput(std::string(what) + " starts from velocities: drop init=source");
    if (second_order_indicators && method == FirstOrderRule::kName)
      throw InvalidInput("indicators=on applies to the symmetric rules (vi-midpoint, vi-trapezoid, the Galerkin rules)");
    NewtonOptions newton = newton_options_of(o);
    const kernel::GalerkinTableau tableau = galerkin                            ? galerkin->tableau()
                                            : method == TrapezoidRule::kName ? kernel::lobatto_tableau(2)
                                                                             : kernel::gauss_tableau(1);
    if (sundman) {
      if (indicators_on(o))
        throw InvalidInput("indicators=on does not combine with adapt=sundman (the indicators are measured in the "
                           "physical time, the steps are fixed in the fictive one)");
      auto vi = std::make_unique<kernel::KernelSundmanIntegrator>(
          problem->model, tableau, h,
          composed ? kernel::composition_named(o.choice("compose")) : kernel::Composition{}, newton,
          galerkin_step_check(o),
          o.choice("land") == "inline" ? kernel::KernelSundmanIntegrator::Landing::kInline
                                       : kernel::KernelSundmanIntegrator::Landing::kAside);
      vi->start_from_velocity(problem->q0, problem->qdot0);
      return erase(problem, std::move(vi), h);
    }
    auto vi = std::make_unique<kernel::KernelGalerkinIntegrator>(
        model, tableau, h, composed ? kernel::composition_named(o.choice("compose")) : kernel::Composition{}, newton,
        galerkin_step_check(o));
    give_controls(*vi, *problem);
    vi->start_from_velocity(problem->q0, problem->qdot0);
    if (indicators_on(o)) vi->track_deviation(kernel::initial_deviation(2 * model.dim()));
    return erase(problem, std::move(vi), h);
  }
  if (sundman)
    throw InvalidInput("adapt=sundman applies to the symmetric rules (vi-midpoint, vi-trapezoid, the Galerkin rules)");
  if (is_variational(method)) {
    const DelForm form = o.choice("form") == "position" ? DelForm::kPosition : DelForm::kMomentum;
    StepCheckOptions check = read_step_check_options(o);
    check.angles = problem->labels.periodic;
    auto vi = std::make_unique<kernel::KernelVariationalIntegrator>(model, kernel::rule_named(method), h,
                                                                    read_newton_options(o), form, check);
    give_controls(*vi, *problem);
    if (problem->wrap_periodic) vi->set_periodic_wrap(problem->wrap_periodic);
    if (o.choice("init") == "source")
      vi->start_source_procedure(problem->q0, problem->qdot0, o.real("fine_h"));
    else
      vi->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(vi), h);
  }
  const kernel::KernelEulerLagrangeOde ode(model, control_law(*problem));
  if (method == RungeKutta4Method::kName) {
    auto rk = std::make_unique<kernel::KernelRk4>(ode, h);
    rk->start_from_velocity(problem->q0, problem->qdot0);
    if (indicators_on(o)) rk->track_deviation(kernel::initial_deviation(2 * model.dim()));
    return erase(problem, std::move(rk), h);
  }
  const RungeKuttaTolerances tolerances{o.real("rtol"), o.real("atol")};
  if (method == kDopri5 && indicators_on(o)) {
    auto rk = std::make_unique<kernel::KernelDopri5Stepped>(ode, h, tolerances);
    rk->start_from_velocity(problem->q0, problem->qdot0);
    rk->track_deviation(kernel::initial_deviation(2 * model.dim()));
    return erase(problem, std::move(rk), h);
  }
  if (method == kDopri5) {
    auto rk = std::make_unique<kernel::KernelDopri5>(ode, h, tolerances);
    rk->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(rk), h);
  }
  auto rk = std::make_unique<kernel::KernelRk78>(ode, h, tolerances);
  rk->start_from_velocity(problem->q0, problem->qdot0);
  if (indicators_on(o)) rk->track_deviation(kernel::initial_deviation(2 * model.dim()));
  return erase(problem, std::move(rk), h);
}

void run_kernel_problem(const KernelProblem& p, const std::string& method, const ParameterValues& options,
                        const OutputSchedule& schedule, RowWriter& out, const ControlSchedule& controls) {
  auto problem = std::make_shared<KernelProblem>(p);
  if (p.model->num_controls() > 0 && controls.width() != 0) {
    if (controls.width() != p.model->num_controls())
      throw std::logic_error("the run's controls do not match the model's control inputs");
    problem->controls = controls;
  }
  start_kernel_method(problem, method, options, schedule.h)->run(schedule, out, method);
}

std::unique_ptr<SteppingSession> make_kernel_stepping_session(const KernelProblem& p, const std::string& method,
                                                              const ParameterValues& options, double h,
                                                              const ControlSchedule& controls) {
  if (!(std::isfinite(h) && h > 0.0)) throw InvalidInput("the step h must be a positive number, got " + format_number(h));
  auto problem = std::make_shared<KernelProblem>(p);
  if (p.model->num_controls() > 0 && controls.width() != 0) problem->controls = controls;
  problem->controls_replaced_while_stepping = true;  // set_controls below
  // A restart replaces the start of the one problem the controls live in; refused, it is put back.
  auto starter = [problem, method, options, h](const Eigen::VectorXd* q0,
                                               const Eigen::VectorXd* qdot0) -> std::unique_ptr<StepperView> {
    if (q0 == nullptr) return start_kernel_method(problem, method, options, h);
    const Eigen::VectorXd saved_q0 = problem->q0, saved_qdot0 = problem->qdot0;
    const std::optional<Eigen::VectorXd> saved_p0 = problem->p0;
    try {
      problem->q0 = *q0;
      problem->qdot0 = *qdot0;
      problem->p0.reset();  // the restart states velocities
      return start_kernel_method(problem, method, options, h);
    } catch (...) {
      problem->q0 = saved_q0;
      problem->qdot0 = saved_qdot0;
      problem->p0 = saved_p0;
      throw;
    }
  };
  auto set_controls = [problem](const Eigen::VectorXd& u) {
    problem->controls = ControlSchedule::constant(std::vector<double>(u.data(), u.data() + u.size()));
  };
  return std::make_unique<SteppingSession>(p.model->dim(), p.model->num_controls(), starter, set_controls);
}

}  // namespace mechint::app
