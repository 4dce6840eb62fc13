#pragma once
/// \file
/// A kernel stepper behind the started-stepper interface (app/started_stepper.hpp), with the one
/// recorder of every run: the columns and rows of DESIGN §4 made from the stepper's kind and the
/// problem's output labels — t, coordinates, [velocities], [canonical momenta], energy, [htilde],
/// Noether momenta, [their discrete work], [constraint_residual, lambda1…], [nonholonomic_residual,
/// mu1…], [controls u1…], [chaos indicators], [discrete_energy, energy_fallbacks], [impacts]. A
/// non-finite value stops the run with exit 3 (app/recorder.hpp). Each method row's factory
/// (src/methods/*.cpp) instantiates `erase` for the steppers it makes; the traits below name the
/// stepper classes only, so this header includes none of them.

#include <limits>
#include <memory>
#include <type_traits>
#include <typeinfo>

#include "app/recorder.hpp"
#include "app/started_stepper.hpp"
#include "methods/kernel_problem.hpp"

namespace mechint::kernel {
class KernelVariationalIntegrator;
class KernelGalerkinIntegrator;
class KernelSundmanIntegrator;
class KernelEnergyStepIntegrator;
class NonholonomicIntegrator;
class KernelEnergyMomentumIntegrator;
class KernelDaeStepper;
class KernelImpactDriver;
}  // namespace mechint::kernel

namespace mechint::methods {

using app::begin_checkpointed_run;
using app::numbered_controls;
using app::OutputLabels;
using app::require_finite_row;
using app::RowWriter;
using app::RunCheckpoint;
using app::StartedStepper;
using app::wrap_angle;
using kernel::KernelModel;
using kernel::Vector;

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

}  // namespace mechint::methods
