#pragma once
/// \file
/// The one recorder: builds the output columns and rows of a run from the capabilities of its
/// stepper (integrate/stepper.hpp) and the system's output names. Column order (DESIGN §4):
/// t, coordinates, [velocities], [canonical momenta], energy, [htilde], Noether momenta,
/// [their discrete work, e.g. Jz_work], [constraint_residual, lambda1..k], [controls u1..um]
/// (DESIGN §6; the forced columns are docs/forces.md's), [impacts] (a run with walls: the impacts
/// resolved so far, docs/impacts.md).

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/control_schedule.hpp"
#include "app/problem.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/stepper.hpp"
#include "mechint/model/forces.hpp"

namespace mechint::app {

/// x wrapped to (-pi, pi].
inline double wrap_angle(double x) {
  constexpr double kTwoPi = 2.0 * M_PI;
  return x - kTwoPi * std::ceil((x - M_PI) / kTwoPi);
}

/// Stops a run whose row at output time t (step `step`) holds a non-finite value: NumericalFailure
/// naming the column and the time. No NaN reaches an output file.
inline void require_finite_row(const std::vector<std::string>& columns, const std::vector<double>& row, long step,
                               double t) {
  for (std::size_t i = 0; i < row.size(); ++i)
    if (!std::isfinite(row[i]))
      throw NumericalFailure("non-finite " + columns[i] + " at t = " + format_number(t) + " (step " +
                                 std::to_string(step) + "); reduce the step size or check the parameters",
                             FailureLocation{step, t});
}

template <Stepper S>
class Recorder {
 public:
  using Model = StepperModel<S>;
  static constexpr int kConstraints = Model::kNumConstraints;
  /// Control columns u1..um: one per control input of a forced model.
  static constexpr int kControls = ForcedModel<Model> ? kModelNumControls<Model> : 0;

  /// `controls`: the run's controls, for a stepper of a model with controls that does not report the
  /// control of its steps (the Runge–Kutta baselines integrate under u(t) itself).
  explicit Recorder(const OutputLabels& labels, const ControlSchedule* controls = nullptr)
      : labels_(labels), controls_(controls) {
    columns_.push_back("t");
    append(labels.coordinates);
    if constexpr (HasVelocity<S>) append(labels.velocities);
    if constexpr (HasMomentum<S>) append(labels.canonical_momenta);
    columns_.push_back(labels.energy_column);
    if constexpr (HasModifiedEnergy<S>)
      if (labels.modified_energy) columns_.push_back("htilde");
    if constexpr (HasNoetherMomenta<S>) append(labels.momenta);
    if constexpr (HasNoetherMomenta<S> && HasDiscreteWork<S>)
      for (const auto& momentum : labels.momenta) columns_.push_back(momentum + "_work");
    if (static_cast<int>(labels.coordinates.size()) != Model::kDim ||
        (!labels.periodic.empty() && static_cast<int>(labels.periodic.size()) != Model::kDim) ||
        (HasNoetherMomenta<S> && static_cast<int>(labels.momenta.size()) != Model::kNumSymmetries))
      throw std::logic_error("output labels do not match the model");
    if constexpr (kConstraints > 0) {
      columns_.push_back("constraint_residual");
      for (int i = 1; i <= kConstraints; ++i) columns_.push_back("lambda" + std::to_string(i));
    }
    if constexpr (kControls > 0) {
      append(numbered_controls(kControls));
      if (!HasControls<S> && controls_ == nullptr)
        throw std::logic_error("the recorder of a controlled run needs its controls");
    }
    if constexpr (HasImpactCount<S>)
      if (labels.impacts) columns_.push_back("impacts");
    row_.reserve(columns_.size());
  }

  const std::vector<std::string>& columns() const { return columns_; }

  /// The row of the stepper's current state at the output time `t` (integrate/run_loop.hpp,
  /// output_time). A non-finite value stops the run (NumericalFailure naming the column and the
  /// time): no NaN reaches an output file.
  const std::vector<double>& row(const S& s, double t) {
    row_.clear();
    row_.push_back(t);
    const auto& q = s.q();
    for (Eigen::Index i = 0; i < q.size(); ++i)
      row_.push_back(labels_.periodic.empty() || !labels_.periodic[i] ? q[i] : wrap_angle(q[i]));
    if constexpr (HasVelocity<S>)
      if (!labels_.velocities.empty()) append_vector(s.velocity());
    if constexpr (HasMomentum<S>)
      if (!labels_.canonical_momenta.empty()) append_vector(s.p());
    row_.push_back(labels_.energy_factor * s.energy());
    if constexpr (HasModifiedEnergy<S>)
      if (labels_.modified_energy) row_.push_back(s.htilde());
    if constexpr (HasNoetherMomenta<S>)
      for (int i = 0; i < Model::kNumSymmetries; ++i) row_.push_back(s.momentum(i));
    if constexpr (HasNoetherMomenta<S> && HasDiscreteWork<S>)
      for (int i = 0; i < Model::kNumSymmetries; ++i) row_.push_back(s.discrete_work(i));
    if constexpr (kConstraints > 0) {
      row_.push_back(s.constraint_residual().template lpNorm<Eigen::Infinity>());
      append_vector(s.lambda());
    }
    if constexpr (kControls > 0) {
      // The control of the step that ended at this row (at the start: of the first step).
      if constexpr (HasControls<S>)
        append_vector(s.control());
      else
        append_vector(s.step_index() == 0 ? controls_->template at<kControls>(t)
                                          : controls_->template before<kControls>(t));
    }
    if constexpr (HasImpactCount<S>)
      if (labels_.impacts) row_.push_back(static_cast<double>(s.impact_count()));
    require_finite_row(columns_, row_, s.step_index(), t);
    return row_;
  }

 private:
  void append(const std::vector<std::string>& names) { columns_.insert(columns_.end(), names.begin(), names.end()); }
  template <class V>
  void append_vector(const V& v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) row_.push_back(v[i]);
  }

  OutputLabels labels_;
  const ControlSchedule* controls_;
  std::vector<std::string> columns_;
  std::vector<double> row_;
};

}  // namespace mechint::app
