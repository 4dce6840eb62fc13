#pragma once
/// \file
/// A method's stepper, built and started for a problem, behind one interface: the one place where a
/// run's types are erased (src/methods/started_kernel_stepper.hpp's KernelStartedStepper). The same started stepper
/// is either run to the end by the run loop (`StartedStepper::run`, the loop on the concrete stepper
/// type) or stepped by its caller (app/stepping_session.hpp: the Python module's
/// `system.integrator`).
///
/// Steps are checked by the run loop's own `take_step` / `advance_to` (integrate/run_loop.hpp) and
/// rows built by the run's recorder, so a stepped trajectory is the run's row for row.

#include <memory>
#include <limits>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "app/checkpoint.hpp"
#include "app/row_writer.hpp"
#include "mechint/core/state_archive.hpp"
#include "mechint/integrate/run_loop.hpp"

namespace mechint::app {

/// A started stepper behind one interface. Vectors are in the problem's coordinates (a chart's
/// where the system has one). Failures as in the run loop: NumericalFailure / DomainError with their
/// FailureLocation, the state left at the last good step.
class StepperView {
 public:
  virtual ~StepperView() = default;
  /// One step of h; an adaptive method takes its own steps to the next multiple of h.
  virtual void step() = 0;
  virtual double time() const = 0;
  /// Steps of h since t = 0.
  virtual long steps() const = 0;
  virtual Eigen::VectorXd q() const = 0;
  /// The canonical (discrete) momentum, where the method has one.
  virtual std::optional<Eigen::VectorXd> p() const = 0;
  /// The velocity, where the method has one.
  virtual std::optional<Eigen::VectorXd> velocity() const = 0;
  virtual double energy() const = 0;
  /// The Noether momenta, one per symmetry of the model (empty: none, or the method has none).
  virtual Eigen::VectorXd momenta() const = 0;
  /// The multipliers λ of the constraints (empty for an unconstrained model).
  virtual Eigen::VectorXd multipliers() const = 0;
  /// g(q) (empty for an unconstrained model).
  virtual Eigen::VectorXd constraint_residual() const = 0;
  /// The recorder's columns, and its row of the current state (what `run` writes at this step).
  virtual const std::vector<std::string>& columns() const = 0;
  virtual std::vector<double> row() = 0;

  // The exact tangent map (docs/chaos-indicators.md), where the method has one (the Galerkin rules
  // on kernels, and the second-order rules with indicators=on).
  /// Carries `delta` (2n values: δq, δp) by the tangent map of every step from now on; false when the
  /// method has no tangent map. Throws InvalidInput for a delta of the wrong size, zero or not finite.
  virtual bool track_deviation(const Eigen::VectorXd& delta) {
    (void)delta;
    return false;
  }
  /// The carried deviation, scaled to unit length, when one is carried.
  virtual std::optional<Eigen::VectorXd> deviation() const { return std::nullopt; }
  /// ln(|δ_k| / |δ_0|) since the deviation was given (0 before a step; NaN when none is carried):
  /// the tangent map of the steps since applied to δ_0 is deviation() · exp(log_growth()) · |δ_0|.
  virtual double log_growth() const { return std::numeric_limits<double>::quiet_NaN(); }
};

/// A stepper just started (or restored from a checkpoint by `run`): stepped through StepperView, or
/// run to the end once.
class StartedStepper : public StepperView {
 public:
  /// Runs to `schedule.t_end` through the run loop: the header and the rows at the output times go
  /// to `out`, a checkpointed run (out.checkpoint()) resumes from and saves the stepper's state, and
  /// `out.poll(t)` may stop the run. `method` names the method in refusals.
  virtual void run(const OutputSchedule& schedule, RowWriter& out, const std::string& method) = 0;
};

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
