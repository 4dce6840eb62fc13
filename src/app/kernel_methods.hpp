#pragma once
/// \file
/// The methods of every system of the command line, on its derivative kernels (src/kernel/),
/// compiled once for every dimension: the rows of app/methods.hpp (names, summaries, options) and
/// the methods only kernels have, behind the started-stepper interface (app/started_stepper.hpp),
/// with their recorder, checkpoints and stepping sessions. A built-in reaches them through
/// app/builtin_kernels.hpp; a system made of kernels (the pendulum chain of any length, a model
/// file) builds a `KernelProblem` and calls these.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/control_schedule.hpp"
#include "app/problem.hpp"
#include "app/stepping_session.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "kernel/kernel_model.hpp"

namespace mechint::app {

/// A kernel model, its start (q0, q̇0) and its output names.
struct KernelProblem {
  std::shared_ptr<const kernel::KernelModel> model;
  Eigen::VectorXd q0, qdot0;
  OutputLabels labels;
  /// The controls over time of a model with control inputs (none: every control 0).
  ControlSchedule controls;
  /// The controls are replaced while the stepper runs (a stepping session's set_controls): the
  /// stepper samples `controls` at every step, even while they are constant in time.
  bool controls_replaced_while_stepping = false;
  /// The canonical momenta at the start, when the problem states its start by them (a built-in
  /// that starts from momenta): the impact driver starts from them, as 004 §III does, instead of
  /// from their velocity q̇0 and back. A restart from (q0, q̇0) clears them.
  std::optional<Eigen::VectorXd> p0;
  /// The model's type has walls that this run switches off (the double pendulum without wall=1):
  /// its impact methods (kernel_impact_methods) stay offered and run the impact driver's flows
  /// without impacts, as they do with the walls on; the smooth methods on kernels besides.
  bool impact_flows_without_walls = false;
  /// A chart's periodic coordinates (discrete/chart.hpp): the variational rules move each step's pair
  /// of points to their canonical representatives (none: no coordinate is wrapped).
  std::function<void(Eigen::VectorXd& previous, Eigen::VectorXd& current)> wrap_periodic;
};

/// The methods that apply to a kernel model with `num_constraints` constraints, in `mechint list`'s
/// order: the variational rules, and the Runge–Kutta baselines when it is unconstrained.
std::vector<std::string> kernel_methods(int num_constraints);
/// The methods of this problem: the model's (below), and with impact_flows_without_walls the impact
/// methods before them.
std::vector<std::string> kernel_methods(const KernelProblem& problem);
/// The methods of this model: those above, then energy-momentum where the model's declared structure
/// admits it (KernelModel::Structure) and dae with constraints and no forces; a model with
/// nonholonomic constraints takes the rules of app/nonholonomic_methods.hpp instead, one with walls
/// the impact driver's (kernel_impact_methods).
std::vector<std::string> kernel_methods(const kernel::KernelModel& model);
/// The tableau of a Galerkin method (vi-gauss4/6/8, vi-lobatto4/6); none for another name.
std::optional<kernel::GalerkinTableau> galerkin_tableau_of(const std::string& method);
/// The methods of a model with walls (the impact driver's flows, kernel/kernel_impact_driver.hpp):
/// vi-trapezoid and stormer-verlet, as the fixed-size table offers them.
std::vector<std::string> kernel_impact_methods();
/// A method only the kernel boundary offers, as `mechint list` shows it.
struct KernelMethodRow {
  std::string name, summary;
  std::vector<ParameterSpec> options;
};
std::vector<KernelMethodRow> kernel_only_rows();
/// The start check of every run: refuses (InvalidStart) a start where L, the energy,
/// L's derivatives or the constraints are not finite, or where the kinetic energy is degenerate (the
/// mass matrix bordered by the constraint Jacobian singular).
void check_kernel_start(const KernelProblem& p);
/// The options a method row has on kernels beyond the row's own: (method, option) — `compose` of vi-midpoint,
/// `indicators` of vi-midpoint and vi-trapezoid.
std::vector<std::pair<std::string, ParameterSpec>> kernel_extra_options();

/// The methods only the kernel boundary offers (the Galerkin rules), which no row of app/methods.hpp
/// names: a built-in offers them after its variational rows (app/builtin_kernels.hpp).
std::vector<std::string> kernel_only_methods(int num_constraints);
/// The options a method has on kernels beyond its row's (`compose` of vi-midpoint,
/// `indicators` of vi-midpoint and vi-trapezoid on an unconstrained model).
std::vector<ParameterSpec> kernel_extra_options_of(int num_constraints, const std::string& method);
/// Whether `method` with these options runs on kernels only (a Galerkin rule, a composed midpoint,
/// a second-order rule with `indicators=on`).
bool runs_on_kernels_only(int num_constraints, const std::string& method, const ParameterValues& options);
/// The order of a method (with its options, when given: a composition raises it); 0 when unknown.
int method_order(const std::string& method, const ParameterValues* options = nullptr);

/// The options of `method`; throws InvalidInput when it does not apply.
std::vector<ParameterSpec> kernel_method_options(int num_constraints, const std::string& method);
std::vector<ParameterSpec> kernel_method_options(const kernel::KernelModel& model, const std::string& method);
/// The options of an impact method (kernel_impact_methods); throws InvalidInput for another name.
std::vector<ParameterSpec> kernel_impact_method_options(const std::string& method);

/// The started stepper of `method` (options resolved) for *problem, after the start checks.
std::unique_ptr<StartedStepper> start_kernel_method(const std::shared_ptr<KernelProblem>& problem,
                                                    const std::string& method, const ParameterValues& options, double h);

/// Runs the problem to schedule.t_end: the header and the rows at the output times to `out` (the
/// run loop, integrate/run_loop.hpp); `controls` replace the problem's when given.
void run_kernel_problem(const KernelProblem& problem, const std::string& method, const ParameterValues& options,
                        const OutputSchedule& schedule, RowWriter& out, const ControlSchedule& controls);

/// A stepping session (app/stepping_session.hpp) of `method` from the problem's start, with h.
std::unique_ptr<SteppingSession> make_kernel_stepping_session(const KernelProblem& problem, const std::string& method,
                                                              const ParameterValues& options, double h,
                                                              const ControlSchedule& controls);

}  // namespace mechint::app
