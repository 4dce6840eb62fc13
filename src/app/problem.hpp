#pragma once
/// \file
/// What a system hands to a method: the model (optionally in the generalized coordinates of a
/// chart), the initial data, the names of the output columns and, for a model with control inputs,
/// its controls. A system builds one from its
/// parameter values (app/system_entry.hpp); a method row (src/methods/method_registry.hpp) turns it into a started
/// stepper.

#include <concepts>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/control_schedule.hpp"
#include "mechint/core/linear_algebra.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/model/forces.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace mechint::app {

/// Column names of a system's output (the recorder, app/recorder.hpp, fills them).
struct OutputLabels {
  std::vector<std::string> coordinates;  ///< one per configuration coordinate
  std::vector<std::string> momenta;      ///< one per symmetry generator, e.g. "Jz"
  /// If not empty: velocity columns written right after the coordinates (e.g. "vx", "vy").
  std::vector<std::string> velocities = {};
  /// If not empty: canonical momentum columns after the coordinates (e.g. "p1", "p2").
  std::vector<std::string> canonical_momenta = {};
  /// Name and factor of the energy column; the three-body problem reports its Jacobi constant
  /// C = −2E this way.
  std::string energy_column = "energy";
  double energy_factor = 1.0;
  /// Adds the column `htilde` (the integrator's truncated modified Hamiltonian) where the stepper has it.
  bool modified_energy = false;
  /// Adds the column `impacts` (how many impacts the run has resolved so far) where the stepper counts
  /// them (HasImpactCount): set from Problem::walls when the recorder is made (app/started_stepper.hpp).
  bool impacts = false;
  /// If not empty: per coordinate, whether it is an angle written wrapped to (-pi, pi] (the
  /// integrator itself runs on the unwrapped value).
  std::vector<bool> periodic = {};
};

/// Whether the initial data next to q0 are velocities q̇0 or canonical momenta p0 = ∂L/∂q̇.
enum class InitialData { kVelocity, kMomentum };

/// No chart: the model's own coordinates.
struct NoChart {};

/// What a problem of a model without control inputs holds of its controls: nothing.
struct NoControls {};

/// Forces act on M and it has control inputs u (model/forces.hpp).
template <class M>
inline constexpr bool kControlledModel = ForcedModel<M> && kModelNumControls<M> > 0;

/// A model, its start and its output names. `Chart` (discrete/chart.hpp) makes the variational
/// methods integrate in its generalized coordinates (000 §4.2); q0 and the initial data are then in
/// those coordinates.
template <LagrangianModel M, class Chart = NoChart>
struct Problem {
  using Model = M;
  using ChartType = Chart;
  static constexpr bool kCharted = !std::is_same_v<Chart, NoChart>;
  static constexpr bool kControlled = kControlledModel<M>;
  static constexpr int kDim = [] {
    if constexpr (kCharted) return Chart::kChartDim;
    else return M::kDim;
  }();

  Problem() requires std::default_initializable<M> && std::default_initializable<Chart> = default;
  explicit Problem(M m, Chart c = {}) : model(std::move(m)), chart(std::move(c)) {}

  M model{};
  Chart chart{};
  VecD<kDim> q0 = VecD<kDim>::Zero();
  VecD<kDim> initial_data = VecD<kDim>::Zero();
  InitialData initial = InitialData::kVelocity;
  OutputLabels labels;
  /// false: the model's unilateral constraints (walls) are ignored (the double pendulum without wall).
  bool walls = true;
  /// The controls over time of a model with control inputs (a run sets them from the
  /// command line; none: every control 0).
  [[no_unique_address]] std::conditional_t<kControlled, ControlSchedule, NoControls> controls{};
};

}  // namespace mechint::app
