#pragma once
/// \file
/// A method row's stepper, built and started for a problem, behind one interface: the one place
/// where a run's types are erased. The same started stepper is either run to the end by the run
/// loop (`run_problem`: `StartedStepper::run`, the loop on the concrete stepper type) or stepped by
/// its caller (app/stepping_session.hpp: the Python module's `system.integrator`). Both paths use
/// the one instantiation of each row for a problem type — before, a run and a session each built
/// it, and every system, pendulum-chain size and model file compiled the method table twice.
///
/// Rows are built by the recorder (app/recorder.hpp), steps checked by the run loop's own
/// `take_step` / `advance_to` (integrate/run_loop.hpp), so a stepped trajectory is the run's row
/// for row.

#include <memory>
#include <limits>
#include <optional>
#include <string>
#include <typeinfo>
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

namespace detail {

template <class T>
Eigen::VectorXd dynamic_vector(const T& v) {
  return Eigen::VectorXd(v);
}

/// The StartedStepper of stepper S of problem P (owned with the problem it refers to).
template <class P, class S>
class ErasedStepper final : public StartedStepper {
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

  void run(const OutputSchedule& schedule, RowWriter& out, const std::string& method) override {
    RunCheckpoint* checkpoint = out.checkpoint();
    const RunStart start = checkpoint ? begin_checkpointed_run(stepper_, *checkpoint, method) : RunStart::kFresh;
    if (start == RunStart::kFresh) out.header(recorder_.columns());
    bool at_start = start == RunStart::kFresh;
    const auto observe = [&](const S& s) {
      if (!at_start) return out.row(recorder_.row(s, output_time(s, schedule)));
      // What cannot be written at the start is a start the model cannot be evaluated at.
      try {
        out.row(recorder_.row(s, output_time(s, schedule)));
      } catch (const NumericalFailure& e) {
        throw InvalidStart(std::string("at the start: ") + e.what());
      }
      at_start = false;
    };
    const auto after_row = [&](S& s) {
      if constexpr (Checkpointable<S>) {
        if (checkpoint && checkpoint->due(s.time())) {
          StateWriter state;
          s.checkpoint_state(state);
          checkpoint->save(typeid(S).name(), state.bytes(), s.time(), out.flush());
        }
      }
    };
    integrate(stepper_, schedule, observe, after_row, start, [this, &out] { out.poll(stepper_.time()); });
  }

 private:
  static Recorder<S> make_recorder(const P& p) {
    OutputLabels labels = p.labels;
    labels.impacts = p.walls;  // the impact driver of a run without walls has nothing to count
    if constexpr (P::kControlled)
      return Recorder<S>(labels, &p.controls);
    else
      return Recorder<S>(labels);
  }

  std::shared_ptr<P> problem_;  ///< the stepper's control law refers to its controls
  S stepper_;
  double h_;
  long grid_steps_ = 0;
  Recorder<S> recorder_;
};

/// Builds and starts Row's stepper for *problem, after check_start.
template <class Row, class P>
std::unique_ptr<StartedStepper> start_row_stepper(const std::shared_ptr<P>& problem, const ParameterValues& options,
                                                  double h) {
  check_start(*problem);
  std::unique_ptr<StartedStepper> started;
  Row::with_stepper(*problem, options, h, [&]<class S>(S& stepper) {
    started = std::make_unique<ErasedStepper<P, S>>(problem, std::move(stepper), h);
  });
  return started;
}

}  // namespace detail

/// The stepper of `method` (a row of `Table`, the method table unless told, that applies to P;
/// options resolved against its options) for *problem, started from the problem's start; throws
/// InvalidInput when no row of that name applies.
template <class P, class Table = MethodTable>
std::unique_ptr<StartedStepper> start_method(const std::shared_ptr<P>& problem, const std::string& method,
                                             const ParameterValues& options, double h) {
  std::unique_ptr<StartedStepper> started;
  bool found = false;
  auto start = [&]<class Row>() {
    if constexpr (Row::template kApplies<P>) {
      if (found || Row::kName != method) return;
      found = true;
      started = detail::start_row_stepper<Row>(problem, options, h);
    }
  };
  for_each_row(start, Table{});
  if (!found) throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  return started;
}

/// Runs `p` with `method` (options already resolved against method_options) to schedule.t_end.
/// `controls` (none: those of `p`, every control 0 unless set) are the run's controls when the
/// model has control inputs, and are ignored otherwise. `Table`: the rows to choose from.
template <class P, class Table = MethodTable>
void run_problem(const P& p, const std::string& method, const ParameterValues& options,
                 const OutputSchedule& schedule, RowWriter& out, const ControlSchedule& controls = ControlSchedule()) {
  auto problem = std::make_shared<P>(p);  // once per run: the stepper's control law refers to its controls
  if constexpr (P::kControlled) {
    if (controls.width() != 0) {
      if (controls.width() != kModelNumControls<typename P::Model>)
        throw std::logic_error("the run's controls do not match the model's control inputs");
      problem->controls = controls;
    }
  }
  start_method<P, Table>(problem, method, options, schedule.h)->run(schedule, out, method);
}

}  // namespace mechint::app
