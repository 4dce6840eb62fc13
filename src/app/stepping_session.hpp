#pragma once
/// \file
/// An integrator stepped by its caller, one step at a time (the Python module's
/// `system.integrator(method, h)`, DESIGN §8): the started stepper of app/started_stepper.hpp —
/// the one a run runs (app/kernel_methods.hpp, make_kernel_stepping_session) — advanced with the run
/// loop's own checks (integrate/run_loop.hpp: take_step, advance_to), its state read through the
/// stepper's capabilities and its row built by the run's recorder: the row `run` writes at the same
/// step. Types are erased once per start; a step costs one virtual call more
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

}  // namespace mechint::app
