#pragma once
/// \file
/// The one method table. A method is one row: a type with
///
///     kName, kSummary                      its name on the command line and its line in `mechint list`
///     template <class P> kApplies          which problems (app/problem.hpp) it applies to, a concept check
///     options()                            its own options (`--set NAME=VALUE`), validated by ParameterSpec
///     with_stepper(problem, options, h, f) builds and starts its stepper and calls f(stepper)
///
/// A system offers exactly the rows its problem satisfies; `run_problem` (app/started_stepper.hpp)
/// drives the chosen row's stepper through the one run loop (integrate/run_loop.hpp) and the one
/// recorder (app/recorder.hpp).
/// To add an integrator: its header in include/mechint/integrate/ and one row here (in MethodTable).
/// A new discrete Lagrangian needs no row: the variational rows are made from CommandLineRules.
///
/// Forced models (model/forces.hpp, docs/forces.md) are offered exactly the rows that handle
/// forces: the variational rules that state discrete forces (uncharted), and the Runge–Kutta
/// baselines on the forced Euler–Lagrange ODE. Their controls are the problem's (app/problem.hpp).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <typeinfo>
#include <string>
#include <string_view>
#include <vector>

#include "app/checkpoint.hpp"
#include "app/parameters.hpp"
#include "app/problem.hpp"
#include "app/recorder.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/state_archive.hpp"
#include "mechint/core/format.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/integrate/energy_momentum.hpp"
#include "mechint/integrate/euler_lagrange_ode.hpp"
#include "mechint/integrate/ida_dae.hpp"
#include "mechint/integrate/impact_driver.hpp"
#include "mechint/integrate/odeint_baselines.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/integrate/stormer_verlet.hpp"
#include "mechint/integrate/trapezoid_flow.hpp"
#include "mechint/integrate/variational_integrator.hpp"
#include "mechint/model/forces.hpp"
#include "mechint/model/unilateral.hpp"

namespace mechint::app {

// ---- options shared by several rows (methods.cpp) ------------------------------------------------

/// form, init, fine_h, newton, newton_tol of the variational integrator, and the step check's.
std::vector<ParameterSpec> variational_options();
/// check, check_ratio, check_every: step confirmation (integrate/step_check.hpp).
std::vector<ParameterSpec> step_check_options();
/// rtol, atol of an adaptive method.
std::vector<ParameterSpec> tolerance_options(const std::string& method);
/// impact, window_before, window_after of the impact driver (004 §III-C–E).
std::vector<ParameterSpec> impact_options();
/// The impact driver's settings from the options of `impact_options()` (the driver's impacts on,
/// no record of them: memory stays flat in the length of the run).
ImpactOptions read_impact_options(const ParameterValues& options);
/// newton_tol of the energy–momentum integrator, the step check's, and compose.
std::vector<ParameterSpec> energy_momentum_options();
/// compose=none|yoshida4|suzuki4|kahan-li6|kahan-li8 of a symmetric method (DESIGN §10; the
/// coefficients: kernel/galerkin_tableau.hpp).
ParameterSpec compose_option();
/// The sub-step coefficients γ_i of the `compose` option; empty when absent or none.
std::vector<double> read_composition(const ParameterValues& options);

NewtonOptions read_newton_options(const ParameterValues& options);
/// check, check_ratio, check_every of an implicit integrator.
StepCheckOptions read_step_check_options(const ParameterValues& options);

/// Refuses (InvalidStart) a periodic coordinate so large that its doubles have lost their precision.
void check_start_angles(const OutputLabels& labels, const Eigen::VectorXd& q0);
/// Refuses a start from momenta for methods that start from velocities.
void require_velocity_start(InitialData initial, std::string_view method);

// ---- the rows ------------------------------------------------------------------------------------

template <class P>
concept SmoothProblem = !HasUnilateralConstraints<typename P::Model>;
template <class P>
concept UnchartedSmoothProblem = SmoothProblem<P> && !P::kCharted;
/// Non-conservative forces act on the problem's model.
template <class P>
concept ForcedProblem = ForcedModel<typename P::Model>;
/// The variational rule `Rule` integrates P: any rule without forces; with forces, a rule that
/// states its discrete forces, in the model's own coordinates (the chart formulation would have to
/// pull the forces back).
template <class Rule, class P>
concept RuleHandlesForcesOf =
    !ForcedProblem<P> || (!P::kCharted && RuleWithDiscreteForces<Rule, typename P::Model>);

/// The problem's controls u(t) as a control law: piecewise constant, sampled wherever the method
/// asks (the variational integrator at each step's midpoint, Runge–Kutta at its stage times). Refers
/// to `p`, which outlives the stepper.
template <class P>
  requires P::kControlled
auto control_law(const P& p) {
  constexpr int m = kModelNumControls<typename P::Model>;
  return std::function<VecD<m>(double)>([&controls = p.controls](double t) { return controls.template at<m>(t); });
}

/// The Euler–Lagrange ODE of the Runge–Kutta baselines, forced by the problem's controls.
template <class P>
EulerLagrangeOde<typename P::Model> euler_lagrange_ode(const P& p) {
  if constexpr (P::kControlled)
    return EulerLagrangeOde<typename P::Model>(p.model, control_law(p));
  else
    return EulerLagrangeOde<typename P::Model>(p.model);
}

/// The variational integrator with the discrete Lagrangian `Rule` (000 §4), position or momentum form.
template <class Rule>
struct VariationalMethod {
  static constexpr std::string_view kName = Rule::kName;
  static constexpr std::string_view kSummary = Rule::kSummary;
  template <class P>
  static constexpr bool kApplies = SmoothProblem<P> && RuleHandlesForcesOf<Rule, P>;
  static std::vector<ParameterSpec> options() { return variational_options(); }

  template <class P>
  static auto discrete_system(const P& p) {
    if constexpr (P::kCharted)
      return ChartedDiscreteSystem<typename P::Model, typename P::ChartType, Rule>(p.model, p.chart);
    else
      return typename DiscreteSystemFor<typename P::Model, Rule>::type(p.model);
  }

  template <class P, class F>
  static void with_stepper(const P& p, const ParameterValues& o, double h, F&& use) {
    const DelForm form = o.choice("form") == "position" ? DelForm::kPosition : DelForm::kMomentum;
    StepCheckOptions check = read_step_check_options(o);
    check.angles = p.labels.periodic;
    VariationalIntegrator vi(discrete_system(p), h, read_newton_options(o), form, check);
    // Before the start: a start in position form takes the control of the step before it.
    if constexpr (P::kControlled) vi.set_control_law(control_law(p));
    if (o.choice("init") == "source") {
      if (p.initial != InitialData::kVelocity)
        throw InvalidInput("init=source needs initial velocities; this system starts from momenta");
      vi.start_source_procedure(p.q0, p.initial_data, o.real("fine_h"));
    } else if (p.initial == InitialData::kVelocity) {
      vi.start_from_velocity(p.q0, p.initial_data);
    } else {
      vi.start_from_momentum(p.q0, p.initial_data);
    }
    use(vi);
  }
};

/// A one-step flow (integrate/one_step_flow.hpp) inside the impact driver (004 §III): the
/// methods of systems with walls. Starts from canonical momenta.
template <template <class> class Flow>
struct ImpactMethod {
  template <class P>
  static constexpr bool kApplies = HasUnilateralConstraints<typename P::Model> && !P::kCharted && !ForcedProblem<P>;
  static std::vector<ParameterSpec> options() { return impact_options(); }

  template <class P, class F>
  static void with_stepper(const P& p, const ParameterValues& o, double h, F&& use) {
    if (p.initial != InitialData::kMomentum) throw InvalidInput("the impact driver starts from momenta");
    ImpactOptions impact = read_impact_options(o);
    impact.enabled = p.walls;  // a composition is refused by the driver while the walls are on
    ImpactDriver<Flow<typename P::Model>> driver(p.model, h, impact);
    driver.start(p.q0, p.initial_data);
    use(driver);
  }
};

struct ImpactTrapezoidMethod : ImpactMethod<TrapezoidFlow> {
  static constexpr std::string_view kName = TrapezoidRule::kName;
  static constexpr std::string_view kSummary = TrapezoidRule::kSummary;
};

struct StormerVerletMethod : ImpactMethod<StormerVerletFlow> {
  static constexpr std::string_view kName = "stormer-verlet";
  static constexpr std::string_view kSummary =
      "generalized Stormer-Verlet in Hamiltonian form (Lobatto IIIA-IIIB), order 2; systems with impacts";
};

/// Classical Runge–Kutta at the fixed step h on the Euler–Lagrange ODE (Boost.Odeint).
struct RungeKutta4Method {
  static constexpr std::string_view kName = "rk4";
  static constexpr std::string_view kSummary =
      "classical Runge-Kutta, fixed step h, on the (forced) Euler-Lagrange ODE (Boost.Odeint; unconstrained systems)";
  template <class P>
  static constexpr bool kApplies = UnchartedSmoothProblem<P> && P::Model::kNumConstraints == 0;
  static std::vector<ParameterSpec> options() { return {}; }

  template <class P, class F>
  static void with_stepper(const P& p, const ParameterValues&, double h, F&& use) {
    require_velocity_start(p.initial, kName);
    RungeKutta4Stepper<typename P::Model> rk(euler_lagrange_ode(p), h);
    rk.start_from_velocity(p.q0, p.initial_data);
    use(rk);
  }
};

/// An adaptive Runge–Kutta method on the Euler–Lagrange ODE; h is its first step and the output grid.
template <RungeKuttaMethod kMethod>
struct AdaptiveRungeKuttaMethod {
  static constexpr std::string_view kName = kMethod == RungeKuttaMethod::kDopri5 ? "dopri5" : "rk78";
  static constexpr std::string_view kSummary =
      kMethod == RungeKuttaMethod::kDopri5
          ? "Dormand-Prince 5(4), adaptive (--set rtol, atol), Boost.Odeint; unconstrained systems"
          : "Runge-Kutta-Fehlberg 7(8), adaptive, the high-accuracy reference; unconstrained systems";
  template <class P>
  static constexpr bool kApplies = RungeKutta4Method::kApplies<P>;
  static std::vector<ParameterSpec> options() { return tolerance_options(std::string(kName)); }

  template <class P, class F>
  static void with_stepper(const P& p, const ParameterValues& o, double h, F&& use) {
    require_velocity_start(p.initial, kName);
    AdaptiveRungeKuttaStepper<typename P::Model, kMethod> rk(euler_lagrange_ode(p), h,
                                                             RungeKuttaTolerances{o.real("rtol"), o.real("atol")});
    rk.start_from_velocity(p.q0, p.initial_data);
    use(rk);
  }
};

/// The energy–momentum integrator of 003 §5 (constant mass matrix, quadratic constraints).
struct EnergyMomentumMethod {
  static constexpr std::string_view kName = "energy-momentum";
  static constexpr std::string_view kSummary =
      "energy-momentum integrator of 003 sec. 5 (constant mass matrix, quadratic constraints), order 2; "
      "compose= gives orders 4, 6, 8 with energy and momentum still exact (003 sec. 6; with constraints as pairs of half "
      "sub-steps)";
  template <class P>
  static constexpr bool kApplies =
      UnchartedSmoothProblem<P> && ConstantMassModel<typename P::Model> && !ForcedProblem<P>;
  static std::vector<ParameterSpec> options() { return energy_momentum_options(); }

  template <class P, class F>
  static void with_stepper(const P& p, const ParameterValues& o, double h, F&& use) {
    require_velocity_start(p.initial, kName);
    using M = typename P::Model;
    EnergyMomentumIntegrator<M> em(p.model, h, read_newton_options(o), read_step_check_options(o),
                                   read_composition(o));
    em.start_from_velocity(p.q0, p.initial_data);
    use(em);
  }
};

/// SUNDIALS IDA on the stabilised index-2 (GGL) form; h is IDA's first step and the output grid.
struct DaeMethod {
  static constexpr std::string_view kName = "dae";
  static constexpr std::string_view kSummary =
      "SUNDIALS IDA (BDF, adaptive; --set rtol, atol) on the stabilised index-2 (GGL) DAE; constrained systems";
  template <class P>
  static constexpr bool kApplies = UnchartedSmoothProblem<P> && (P::Model::kNumConstraints > 0) && !ForcedProblem<P>;
  static std::vector<ParameterSpec> options() { return tolerance_options(std::string(kName)); }

  template <class P, class F>
  static void with_stepper(const P& p, const ParameterValues& o, double h, F&& use) {
    if constexpr (P::Model::kNumConstraints > 0) {
      require_velocity_start(p.initial, kName);
      DaeStepper<typename P::Model> dae(p.model, h, DaeTolerances{o.real("rtol"), o.real("atol")});
      dae.start_from_velocity(p.q0, p.initial_data);
      use(dae);
    }
  }
};

// ---- the table -----------------------------------------------------------------------------------

template <class... Rows>
struct MethodList {};

template <class Rules>
struct VariationalRows;
template <class... Rules>
struct VariationalRows<RuleList<Rules...>> {
  using type = MethodList<VariationalMethod<Rules>...>;
};

template <class A, class B>
struct Concat;
template <class... A, class... B>
struct Concat<MethodList<A...>, MethodList<B...>> {
  using type = MethodList<A..., B...>;
};

/// Every method of the command line, in the order `mechint list` shows them. Rows may share a
/// name when they apply to disjoint problems (vi-trapezoid: the VI, or the impact driver).
using MethodTable = typename Concat<
    typename VariationalRows<CommandLineRules>::type,
    MethodList<ImpactTrapezoidMethod, StormerVerletMethod, RungeKutta4Method,
               AdaptiveRungeKuttaMethod<RungeKuttaMethod::kDopri5>,
               AdaptiveRungeKuttaMethod<RungeKuttaMethod::kRk78>, EnergyMomentumMethod, DaeMethod>>::type;
/// Calls `f.template operator()<Row>()` for every row of `list`.
template <class F, class... Rows>
void for_each_row(F& f, MethodList<Rows...>) {
  (f.template operator()<Rows>(), ...);
}

/// Calls `f.template operator()<Row>()` for every row of the method table.
template <class F>
void for_each_method(F&& f) {
  for_each_row(f, MethodTable{});
}

/// Name and summary of every method (names once each), and the options of every row by name.
struct MethodInfo {
  std::string name, summary;
};
std::vector<MethodInfo> all_methods();

/// The names of the methods that apply to problems of type P.
template <class P>
std::vector<std::string> offered_methods() {
  std::vector<std::string> names;
  for_each_method([&]<class Row>() {
    if constexpr (Row::template kApplies<P>) names.emplace_back(Row::kName);
  });
  return names;
}

/// The options of `method` for problems of type P; throws InvalidInput if it does not apply.
template <class P>
std::vector<ParameterSpec> method_options(const std::string& method) {
  std::vector<ParameterSpec> specs;
  bool found = false;
  for_each_method([&]<class Row>() {
    if constexpr (Row::template kApplies<P>)
      if (!found && Row::kName == method) {
        specs = Row::options();
        found = true;
      }
  });
  if (!found) throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  return specs;
}

/// Where a run ends and how its rows leave: `header` once, then `row` per output time.
class RowWriter {
 public:
  virtual ~RowWriter() = default;
  virtual void header(const std::vector<std::string>& columns) = 0;
  virtual void row(const std::vector<double>& values) = 0;
  /// The checkpoint of a checkpointed run (app/checkpoint.hpp), or none.
  virtual RunCheckpoint* checkpoint() { return nullptr; }
  /// Writes out what is buffered; returns the bytes of output so far (what a checkpoint records).
  virtual std::uint64_t flush() { return 0; }
  /// Called between steps, every kPollInterval steps (integrate/run_loop.hpp), with the time the run
  /// has reached: throws (Interrupted) to stop the run. The Python module checks for Ctrl-C here, the
  /// command line updates its progress line (app/progress.hpp).
  virtual void poll(double /*t*/) {}
};

/// Refuses (InvalidStart) a start the model cannot be evaluated at: non-finite L, energy, first or
/// second derivatives of L, constraints or their Jacobian, or a kinetic energy that is degenerate
/// there ([[∂²L/∂q̇², Dgᵀ], [Dg, 0]] singular: no velocity for a momentum, no Newton step). Such a
/// start would otherwise surface as a Newton failure or a NaN row with a misleading message.
template <class P>
void check_start(const P& p) {
  auto check = [&](const auto& model, const auto& q, const auto& v) {
    using M = std::decay_t<decltype(model)>;
    constexpr int n = M::kDim, k = M::kNumConstraints;
    const auto l = lagrangian_second_derivatives(model, q, v);
    VecD<k> g;
    Mat<k, n> dg;
    constraints_and_jacobian(model, q, g, dg);
    const double value = model.template lagrangian<double>(q, v), e = l.v.dot(v) - value;
    const char* what = !std::isfinite(value)                                         ? "the Lagrangian"
                       : !std::isfinite(e)                                           ? "the energy"
                       : !(l.q.allFinite() && l.v.allFinite())                       ? "the gradient of L"
                       : !(l.qq.allFinite() && l.qv.allFinite() && l.vv.allFinite()) ? "the Hessian of L"
                       : !(g.allFinite() && dg.allFinite())                          ? "the constraints"
                                                                                     : nullptr;
    if (what)
      throw InvalidStart(std::string(what) + " is not finite at the start: check the parameters and initial values");
    Mat<n + k, n + k> bordered = Mat<n + k, n + k>::Zero();
    bordered.template topLeftCorner<n, n>() = l.vv;
    if constexpr (k > 0) {
      bordered.template topRightCorner<n, k>() = dg.transpose();
      bordered.template bottomLeftCorner<k, n>() = dg;
    }
    if (!Eigen::FullPivLU<Mat<n + k, n + k>>(bordered).isInvertible())
      throw InvalidStart("the kinetic energy is degenerate at the start (the mass matrix, bordered by the constraint "
                         "Jacobian, is singular): check the parameters (masses, lengths, inertia) and initial values");
  };
  const VecD<P::kDim> v = p.initial == InitialData::kVelocity ? p.initial_data : VecD<P::kDim>::Zero();
  if (!p.q0.allFinite() || !p.initial_data.allFinite()) throw InvalidStart("the initial values are not finite");
  check_start_angles(p.labels, Eigen::VectorXd(p.q0));
  if constexpr (P::kCharted)
    check(ChartModel(p.model, p.chart), p.q0, v);
  else
    check(p.model, p.q0, v);
}

/// A checkpointed run of `stepper` (just started): refuses a method whose stepper cannot be
/// checkpointed; when resuming, restores the saved state (refusing one of another stepper type).
template <class S>
RunStart begin_checkpointed_run(S& stepper, const RunCheckpoint& checkpoint, const std::string& method) {
  if constexpr (!Checkpointable<S>) {
    (void)stepper, (void)checkpoint;
    throw InvalidInput("--checkpoint is not available for method '" + method +
                       "' (its solver keeps state mechint cannot save: dopri5's dense output, IDA's history); "
                       "choose rk78 or a variational method");
  } else {
    if (!checkpoint.resuming()) return RunStart::kFresh;
    if (checkpoint.saved_stepper_type() != typeid(S).name())
      throw InvalidInput("--resume: the checkpoint was written by another integrator than this run's");
    StateReader state(checkpoint.saved_state());
    stepper.checkpoint_state(state);
    state.finish();
    // The checksum finds damage, not a file edited with its checksum recomputed: the restored
    // stepper must be where the checkpoint's row is, on the time grid.
    const double t = stepper.time();
    bool consistent = std::isfinite(t) && t >= 0.0 &&
                      std::abs(t - checkpoint.saved_time()) <= 1e-12 * std::max(1.0, std::abs(t));
    if constexpr (FixedStepper<S>)
      consistent = consistent && stepper.step_index() >= 0 &&
                   std::abs(static_cast<double>(stepper.step_index()) * stepper.step_size() - t) <=
                       1e-9 * std::max(1.0, std::abs(t));
    if (!consistent)
      throw InvalidInput("--resume: the checkpoint is not consistent (its state is at t = " + format_number(t) +
                         ", its row at t = " + format_number(checkpoint.saved_time()) + "): it was damaged or edited");
    return RunStart::kResumed;
  }
}

}  // namespace mechint::app
