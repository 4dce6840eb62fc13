#pragma once
/// \file
/// An integrator stepped by its caller, one step at a time (the Python module's
/// `system.integrator(method, h)`, DESIGN §8): the started stepper of app/started_stepper.hpp —
/// the one `run_problem` runs — advanced with the run loop's own checks (integrate/run_loop.hpp:
/// take_step, advance_to), its state read through the stepper's capabilities
/// (integrate/stepper.hpp) and its row built by the recorder (app/recorder.hpp): the row `run`
/// writes at the same step. Types are erased once per start; a step costs one virtual call more
/// than in the run loop.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/started_stepper.hpp"

namespace mechint::app {

/// A system's integrator for a caller's own loop: started from the system's initial values, and
/// restarted by `start` from any others.
class SteppingSession {
 public:
  /// Builds a started stepper from (q0, q̇0), or from the problem's own start when both are null.
  using Starter = std::function<std::unique_ptr<StepperView>(const Eigen::VectorXd* q0, const Eigen::VectorXd* qdot0)>;
  /// Sets the controls u held from the next step on (throws InvalidInput without controls).
  using ControlSetter = std::function<void(const Eigen::VectorXd& u)>;

  SteppingSession(int dimension, int num_controls, Starter starter, ControlSetter set_controls)
      : dimension_(dimension),
        num_controls_(num_controls),
        starter_(std::move(starter)),
        set_controls_(std::move(set_controls)),
        view_(starter_(nullptr, nullptr)) {}

  /// Restarts from q0 and q̇0 (for a system that starts from momenta, p0 = ∂L/∂q̇(q0, q̇0)). Throws
  /// InvalidInput for vectors of the wrong size, InvalidStart for a start the model refuses (the
  /// previous state is kept then).
  void start(const Eigen::VectorXd& q0, const Eigen::VectorXd& qdot0) {
    for (const auto* v : {&q0, &qdot0})
      if (v->size() != dimension_)
        throw InvalidInput("start: expected " + std::to_string(dimension_) + " values for q0 and for qdot0, got " +
                           std::to_string(v->size()));
    view_ = starter_(&q0, &qdot0);
  }
  void set_controls(const Eigen::VectorXd& u) {
    if (num_controls_ == 0) throw InvalidInput("this system has no control inputs");
    if (u.size() != num_controls_)
      throw InvalidInput("controls: expected " + std::to_string(num_controls_) + " values, got " + std::to_string(u.size()));
    if (!u.allFinite()) throw InvalidInput("controls: the values must be finite");
    set_controls_(u);
  }
  /// Keeps `owner` alive as long as the session (a model file's loaded library, whose code the
  /// session runs).
  void keep_alive(std::shared_ptr<const void> owner) { owner_ = std::move(owner); }
  int dimension() const { return dimension_; }
  int num_controls() const { return num_controls_; }
  /// One caller at a time (threads of a front end): true when the session was free and is now the
  /// caller's, until release(). A session is not thread-safe; this lets a front end refuse a second
  /// thread with a clear error instead of a corrupted state.
  bool claim() const { return !in_use_.exchange(true); }
  void release() const { in_use_.store(false); }
  StepperView& view() { return *view_; }
  const StepperView& view() const { return *view_; }

 private:
  std::shared_ptr<const void> owner_;  ///< first: destroyed after everything that runs its code
  mutable std::atomic<bool> in_use_{false};
  int dimension_, num_controls_;
  Starter starter_;
  ControlSetter set_controls_;
  std::unique_ptr<StepperView> view_;
};

/// The integrator of `method` (a row that applies to P, options resolved against its options) for
/// problem `p`, started from the problem's own start; `controls` (none: those of `p`) as for run_problem.
template <class P, class Table = MethodTable>
std::unique_ptr<SteppingSession> make_stepping_session(const P& p, const std::string& method,
                                                       const ParameterValues& options, double h,
                                                       const ControlSchedule& controls = ControlSchedule()) {
  if (!(std::isfinite(h) && h > 0.0)) throw InvalidInput("the step h must be a positive number, got " + format_number(h));
  auto problem = std::make_shared<P>(p);
  constexpr int kControls = [] {
    if constexpr (P::kControlled)
      return kModelNumControls<typename P::Model>;
    else
      return 0;
  }();
  if constexpr (P::kControlled)
    if (controls.width() != 0) problem->controls = controls;
  // A restart replaces the start of the one problem the controls live in; refused, it is put back.
  auto starter = [problem, method, options, h](const Eigen::VectorXd* q0,
                                               const Eigen::VectorXd* qdot0) -> std::unique_ptr<StepperView> {
    if (q0 == nullptr) return start_method<P, Table>(problem, method, options, h);
    const auto saved_q0 = problem->q0;
    const auto saved_data = problem->initial_data;
    try {
      problem->q0 = *q0;
      if (problem->initial == InitialData::kVelocity) {
        problem->initial_data = *qdot0;
      } else if constexpr (P::kCharted) {
        problem->initial_data =
            lagrangian_dv(ChartModel(problem->model, problem->chart), problem->q0, VecD<P::kDim>(*qdot0));
      } else {
        problem->initial_data = lagrangian_dv(problem->model, problem->q0, VecD<P::kDim>(*qdot0));
      }
      return start_method<P, Table>(problem, method, options, h);
    } catch (...) {
      problem->q0 = saved_q0;
      problem->initial_data = saved_data;
      throw;
    }
  };
  auto set_controls = [problem](const Eigen::VectorXd& u) {
    if constexpr (P::kControlled)
      problem->controls = ControlSchedule::constant(std::vector<double>(u.data(), u.data() + u.size()));
    else
      (void)u;
  };
  // The first start, in the constructor, refuses a method that does not apply.
  return std::make_unique<SteppingSession>(P::kDim, kControls, starter, set_controls);
}

}  // namespace mechint::app
