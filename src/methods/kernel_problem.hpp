#pragma once
/// \file
/// What a run hands to a method (src/methods/method_registry.hpp): a kernel model, its start and its
/// output names, its controls over time. Every system builds one: a built-in from its problem
/// (app/builtin_kernels.hpp), the pendulum chain of any length, a model file, a C++ model struct.

#include <functional>
#include <memory>
#include <optional>

#include <Eigen/Core>

#include "app/control_schedule.hpp"
#include "app/problem.hpp"
#include "kernel/kernel_model.hpp"

namespace mechint::methods {

using app::ControlSchedule;
using app::OutputLabels;

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
  /// its impact rows stay offered and run the impact driver's flows without impacts, as they do with
  /// the walls on, with the Galerkin rules beside them.
  bool impact_flows_without_walls = false;
  /// The model is in the coordinates of a chart (000 §4.2): the variational rules only, whose
  /// discrete Lagrangians there are the restricted ones (000 eq. 4.9).
  bool charted = false;
  /// A chart's periodic coordinates (discrete/chart.hpp): the variational rules move each step's pair
  /// of points to their canonical representatives (none: no coordinate is wrapped).
  std::function<void(Eigen::VectorXd& previous, Eigen::VectorXd& current)> wrap_periodic;
};

/// The start check of every run: refuses (InvalidStart) a start where L, the energy,
/// L's derivatives or the constraints are not finite, where a periodic coordinate has lost its
/// precision, or where the kinetic energy is degenerate (the mass matrix bordered by the constraint
/// Jacobian singular).
void check_kernel_start(const KernelProblem& p);

/// The control law of the problem's controls (none without controls).
std::function<void(double t, kernel::Vector& u)> control_law(const KernelProblem& p);

/// The controls of a variational stepper: a schedule constant in time is held (set_control: the
/// same u at every step, without sampling a law at each step's midpoint), any other is its law, as
/// are controls a stepping session replaces as it goes.
template <class Stepper>
void give_controls(Stepper& stepper, const KernelProblem& p) {
  if (p.model->num_controls() == 0) return;
  if (p.controls_replaced_while_stepping || !p.controls.constant_in_time())
    return stepper.set_control_law(control_law(p));
  kernel::Vector u(p.model->num_controls());
  p.controls.at(0.0, u);
  stepper.set_control(u);
}

}  // namespace mechint::methods
