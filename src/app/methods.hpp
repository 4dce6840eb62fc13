#pragma once
/// \file
/// The one method table. A method is one row: a type with
///
///     kName, kSummary                      its name on the command line and its line in `mechint list`
///     template <class P> kApplies          which problems (app/problem.hpp) it applies to, a concept check
///     options()                            its own options (`--set NAME=VALUE`), validated by ParameterSpec
///
/// A system offers exactly the rows its problem satisfies; every system runs them on its kernels
/// (app/builtin_kernels.hpp, app/kernel_methods.hpp: the steppers compiled once, the one run loop
/// and the kernel recorder). The rows state what is offered; the kernel methods integrate.
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
#include <string>
#include <string_view>
#include <vector>

#include "app/checkpoint.hpp"
#include "app/parameters.hpp"
#include "app/problem.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/integrate/energy_momentum.hpp"
#include "mechint/integrate/impact_laws.hpp"
#include "mechint/integrate/odeint_baselines.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/solve/newton_options.hpp"
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

/// The variational integrator with the discrete Lagrangian `Rule` (000 §4), position or momentum form.
template <class Rule>
struct VariationalMethod {
  static constexpr std::string_view kName = Rule::kName;
  static constexpr std::string_view kSummary = Rule::kSummary;
  template <class P>
  static constexpr bool kApplies = SmoothProblem<P> && RuleHandlesForcesOf<Rule, P>;
  static std::vector<ParameterSpec> options() { return variational_options(); }
};

/// A one-step flow inside the impact driver (004 §III; kernel/kernel_impact_driver.hpp): the methods
/// of systems with walls. Starts from canonical momenta.
struct ImpactMethod {
  template <class P>
  static constexpr bool kApplies = HasUnilateralConstraints<typename P::Model> && !P::kCharted && !ForcedProblem<P>;
  static std::vector<ParameterSpec> options() { return impact_options(); }
};

struct ImpactTrapezoidMethod : ImpactMethod {
  static constexpr std::string_view kName = TrapezoidRule::kName;
  static constexpr std::string_view kSummary = TrapezoidRule::kSummary;
};

struct StormerVerletMethod : ImpactMethod {
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
};

/// SUNDIALS IDA on the stabilised index-2 (GGL) form; h is IDA's first step and the output grid.
struct DaeMethod {
  static constexpr std::string_view kName = "dae";
  static constexpr std::string_view kSummary =
      "SUNDIALS IDA (BDF, adaptive; --set rtol, atol) on the stabilised index-2 (GGL) DAE; constrained systems";
  template <class P>
  static constexpr bool kApplies = UnchartedSmoothProblem<P> && (P::Model::kNumConstraints > 0) && !ForcedProblem<P>;
  static std::vector<ParameterSpec> options() { return tolerance_options(std::string(kName)); }
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

}  // namespace mechint::app
