#pragma once
/// \file
/// The one method registry (DESIGN §3, layer 6). A method is one row — its name, its summary, its
/// order, the model structure it applies to, its options with their defaults and a factory that
/// starts its stepper on a problem — and the rows of one family live in one file of src/methods/
/// (variational_rules.cpp, galerkin_rules.cpp, nonholonomic_rules.cpp, impact_flows.cpp,
/// runge_kutta_methods.cpp, energy_momentum_method.cpp, dae_method.cpp). `mechint list`, option
/// checking, every system's offered methods, the runs and stepping sessions, Python, sweeps,
/// optimize and the experiments read this table; nothing else interprets a method's name.
///
/// Whether a row applies is decided in one function, `applies`, from what the row requires
/// (`MethodRequirements`) and what the model is (`MethodStructure`: constraints, walls,
/// nonholonomic constraints, forces, a chart, the energy–momentum structure). Rows may share a
/// name when they apply to disjoint structures (vi-trapezoid: the variational rule, the
/// nonholonomic rule, the impact driver's flow).

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/parameters.hpp"
#include "app/started_stepper.hpp"
#include "kernel/discrete_rules.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "methods/kernel_problem.hpp"

namespace mechint::methods {

using app::ParameterSpec;
using app::ParameterValues;

/// What decides which methods apply to a model.
struct MethodStructure {
  int num_constraints = 0;          ///< holonomic constraints g(q) = 0
  bool walls = false;               ///< walls φ(q) ≥ 0 that are on: the impact driver's flows only
  bool walls_switched_off = false;  ///< the model has walls this run switches off (double-pendulum, wall=0)
  bool nonholonomic = false;        ///< a(q)·q̇ = 0 (DESIGN §10)
  bool forced = false;              ///< non-conservative forces or controls
  bool charted = false;             ///< in the coordinates of a chart (000 §4.2)
  bool energy_momentum = false;     ///< constant mass, quadratic constraints, no forces (003 §5)
  bool constraint_curvature = false;  ///< Σλ_i g_i'' is known (the DAE's index-2 form)
};

/// The structure of a kernel model (its walls on when it has them).
MethodStructure structure_of(const kernel::KernelModel& model);
/// The structure of a run's problem: its model's, with its chart and switched-off walls.
MethodStructure structure_of(const KernelProblem& problem);

/// What a row requires of a model's structure.
struct MethodRequirements {
  enum class Constraints { kAny, kNone, kSome };
  enum class Walls { kNone, kOnOrSwitchedOff, kNoneOrSwitchedOff };
  enum class Charts { kNo, kWithoutForces };
  Constraints constraints = Constraints::kAny;
  Walls walls = Walls::kNone;
  Charts charts = Charts::kNo;
  bool nonholonomic = false;  ///< the row is for nonholonomic models (and only for them)
  bool forces = true;         ///< the row integrates forced models
  bool energy_momentum = false;
  bool constraint_curvature = false;
};

/// Whether a row with these requirements applies to a model of this structure: the one place
/// applicability is decided.
bool applies(const MethodRequirements& requires_, const MethodStructure& structure);

/// How DMOC transcribes a method (its discrete Lagrangian), for the rows `mechint optimize` offers.
struct Transcription {
  std::optional<kernel::Rule> rule;                 ///< vi-midpoint, vi-trapezoid
  std::optional<kernel::GalerkinTableau> galerkin;  ///< vi-gauss4/6/8, vi-lobatto4/6
};

using StartFunction = std::unique_ptr<app::StartedStepper> (*)(const std::shared_ptr<KernelProblem>& problem,
                                                               const ParameterValues& options, double h);
using OptionsFunction = std::vector<ParameterSpec> (*)(const MethodStructure& structure);

struct MethodRow {
  std::string name;
  std::string summary;      ///< its line in `mechint list`
  int order = 0;            ///< 0: variable (dae)
  bool composable = false;  ///< `compose` raises its order (kernel/galerkin_tableau.hpp)
  MethodRequirements requirements;
  OptionsFunction options;  ///< its options on a model of this structure (one it applies to)
  StartFunction start;      ///< its stepper on the problem, started (options resolved, start checked)
  std::optional<Transcription> transcription = std::nullopt;  ///< offered by `mechint optimize`
  /// Galerkin rows: their tableau (the experiments' and optimize's way to a rule by its name).
  std::optional<kernel::GalerkinTableau> tableau = std::nullopt;
};

/// Every row, in `mechint list`'s order.
const std::vector<MethodRow>& method_rows();

/// The method names, each once, in the registry's order (`mechint list`, unknown-name messages).
std::vector<std::string> method_names();
/// Whether `name` is a method of mechint at all.
bool is_method(const std::string& name);
/// The first row named `name` (its summary, order, tableau), or null.
const MethodRow* first_row_named(const std::string& name);
/// The row named `method` that applies to `structure`, or null.
const MethodRow* find_row(const MethodStructure& structure, const std::string& method);
/// The names of the rows that apply to `structure`, in the registry's order.
std::vector<std::string> offered_methods(const MethodStructure& structure);
/// The options of `method` on `structure`; throws InvalidInput naming the offered methods when it
/// does not apply.
std::vector<ParameterSpec> method_options(const MethodStructure& structure, const std::string& method);
/// Every option a row named `name` can take, each once, in order (`mechint list`).
std::vector<ParameterSpec> every_option_of(const std::string& name);
/// The names of every method's options (`newton_tol`, `adapt`, ...), computed once: a name given with
/// --set that is none of these nor a system's is refused before anything is built.
const std::set<std::string>& every_option_name();
/// The order of a method (with its options, when given: a composition raises it); 0 when unknown or
/// variable.
int method_order(const std::string& method, const ParameterValues* options = nullptr);
/// The tableau of a Galerkin method by name; none for another name.
std::optional<kernel::GalerkinTableau> galerkin_tableau_of(const std::string& method);

/// The started stepper of `method` for *problem (options resolved), after the start checks;
/// throws InvalidInput when the method does not apply to the problem.
std::unique_ptr<app::StartedStepper> start_method(const std::shared_ptr<KernelProblem>& problem,
                                                  const std::string& method, const ParameterValues& options,
                                                  double h);

// The rows of each family (one file each), in the registry's order.
std::vector<MethodRow> variational_rows();
std::vector<MethodRow> nonholonomic_rows();
std::vector<MethodRow> galerkin_rows();
std::vector<MethodRow> impact_rows();
std::vector<MethodRow> runge_kutta_rows();
std::vector<MethodRow> energy_momentum_rows();
std::vector<MethodRow> dae_rows();

}  // namespace mechint::methods
