#pragma once
/// \file
/// An integrator stepped by its caller, one step at a time (the Python module's
/// `system.integrator(method, h)`, DESIGN §8): the stepper the method row builds for a system's
/// problem (app/methods.hpp), advanced with the run loop's own checks (integrate/run_loop.hpp:
/// take_step, advance_to), its state read through the stepper's capabilities
/// (integrate/stepper.hpp) and its row built by the recorder (app/recorder.hpp) — the row `run`
/// writes at the same step. Types are erased once per start; a step costs one virtual call more
/// than in the run loop.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/methods.hpp"

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
};

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
  StepperView& view() { return *view_; }
  const StepperView& view() const { return *view_; }

 private:
  std::shared_ptr<const void> owner_;  ///< first: destroyed after everything that runs its code
  int dimension_, num_controls_;
  Starter starter_;
  ControlSetter set_controls_;
  std::unique_ptr<StepperView> view_;
};

namespace detail {

template <class T>
Eigen::VectorXd dynamic_vector(const T& v) {
  return Eigen::VectorXd(v);
}

/// The StepperView of stepper S of problem P (owned with the problem it refers to).
template <class P, class S>
class ErasedStepper final : public StepperView {
 public:
  using Model = StepperModel<S>;

  ErasedStepper(std::shared_ptr<P> problem, S&& stepper, double h)
      : problem_(std::move(problem)), stepper_(std::move(stepper)), h_(h), recorder_(make_recorder(*problem_)) {}

  void step() override {
    if constexpr (FixedStepper<S>) {
      take_step(stepper_);
    } else {
      advance_to(stepper_, static_cast<double>(grid_steps_ + 1) * h_);
      ++grid_steps_;
    }
  }
  double time() const override { return stepper_.time(); }
  long steps() const override {
    if constexpr (FixedStepper<S>)
      return stepper_.step_index();
    else
      return grid_steps_;
  }
  Eigen::VectorXd q() const override { return dynamic_vector(stepper_.q()); }
  std::optional<Eigen::VectorXd> p() const override {
    if constexpr (HasMomentum<S>)
      return dynamic_vector(stepper_.p());
    else
      return std::nullopt;
  }
  std::optional<Eigen::VectorXd> velocity() const override {
    if constexpr (HasVelocity<S>)
      return dynamic_vector(stepper_.velocity());
    else
      return std::nullopt;
  }
  double energy() const override { return stepper_.energy(); }
  Eigen::VectorXd momenta() const override {
    if constexpr (HasNoetherMomenta<S>) {
      Eigen::VectorXd j(Model::kNumSymmetries);
      for (int i = 0; i < Model::kNumSymmetries; ++i) j[i] = stepper_.momentum(i);
      return j;
    } else {
      return Eigen::VectorXd();
    }
  }
  Eigen::VectorXd multipliers() const override {
    if constexpr (HasMultipliers<S>)
      return dynamic_vector(stepper_.lambda());
    else
      return Eigen::VectorXd();
  }
  Eigen::VectorXd constraint_residual() const override {
    if constexpr (HasConstraintResidual<S>)
      return dynamic_vector(stepper_.constraint_residual());
    else
      return Eigen::VectorXd();
  }
  const std::vector<std::string>& columns() const override { return recorder_.columns(); }
  std::vector<double> row() override {
    // The run loop's output time (integrate/run_loop.hpp, output_time) on an unbounded grid.
    const double t = FixedStepper<S> ? static_cast<double>(steps()) * h_ : stepper_.time();
    return recorder_.row(stepper_, t);
  }

 private:
  static Recorder<S> make_recorder(const P& p) {
    if constexpr (P::kControlled)
      return Recorder<S>(p.labels, &p.controls);
    else
      return Recorder<S>(p.labels);
  }

  std::shared_ptr<P> problem_;  ///< the stepper's control law refers to its controls
  S stepper_;
  double h_;
  long grid_steps_ = 0;
  Recorder<S> recorder_;
};

}  // namespace detail

/// Builds and starts Row's stepper for *problem (check_start first, as run_problem does).
template <class Row, class P>
std::unique_ptr<StepperView> start_row_stepper(const std::shared_ptr<P>& problem, const ParameterValues& options,
                                               double h) {
  check_start(*problem);
  std::unique_ptr<StepperView> view;
  Row::with_stepper(*problem, options, h, [&]<class S>(S& stepper) {
    view = std::make_unique<detail::ErasedStepper<P, S>>(problem, std::move(stepper), h);
  });
  return view;
}

/// The integrator of `method` (a row that applies to P, options resolved against its options) for
/// problem `p`, started from the problem's own start; `controls` (none: those of `p`) as for run_problem.
template <class P>
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
  std::unique_ptr<SteppingSession> session;
  for_each_method([&]<class Row>() {
    if constexpr (Row::template kApplies<P>) {
      if (session || Row::kName != method) return;
      auto starter = [problem, options, h](const Eigen::VectorXd* q0, const Eigen::VectorXd* qdot0) {
        if (q0 != nullptr) {
          // A restart replaces the start of the one problem the controls live in; refused, it is put back.
          const auto saved_q0 = problem->q0;
          const auto saved_data = problem->initial_data;
          try {
            problem->q0 = *q0;
            if (problem->initial == InitialData::kVelocity) {
              problem->initial_data = *qdot0;
            } else if constexpr (P::kCharted) {
              problem->initial_data = lagrangian_dv(ChartModel(problem->model, problem->chart), problem->q0,
                                                    VecD<P::kDim>(*qdot0));
            } else {
              problem->initial_data = lagrangian_dv(problem->model, problem->q0, VecD<P::kDim>(*qdot0));
            }
            return start_row_stepper<Row>(problem, options, h);
          } catch (...) {
            problem->q0 = saved_q0;
            problem->initial_data = saved_data;
            throw;
          }
        }
        return start_row_stepper<Row>(problem, options, h);
      };
      auto set_controls = [problem](const Eigen::VectorXd& u) {
        if constexpr (P::kControlled)
          problem->controls = ControlSchedule::constant(std::vector<double>(u.data(), u.data() + u.size()));
        else
          (void)u;
      };
      session = std::make_unique<SteppingSession>(P::kDim, kControls, starter, set_controls);
    }
  });
  if (!session) throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  return session;
}

}  // namespace mechint::app
