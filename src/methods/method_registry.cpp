#include "methods/method_registry.hpp"

#include <algorithm>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::methods {
namespace {

/// One structure of each kind a row may apply to: where `every_option_of` looks for its options.
std::vector<MethodStructure> every_kind_of_structure() {
  std::vector<MethodStructure> kinds;
  for (int constraints : {0, 1})
    for (bool walls : {false, true})
      for (bool switched_off : {false, true})
        for (bool nonholonomic : {false, true})
          for (bool forced : {false, true})
            for (bool charted : {false, true})
              kinds.push_back({.num_constraints = constraints, .walls = walls && !switched_off,
                               .walls_switched_off = switched_off, .nonholonomic = nonholonomic, .forced = forced,
                               .charted = charted, .energy_momentum = !forced && !nonholonomic,
                               .constraint_curvature = constraints > 0});
  return kinds;
}

}  // namespace

MethodStructure structure_of(const kernel::KernelModel& model) {
  return {.num_constraints = model.num_constraints(),
          .walls = model.num_unilateral() > 0,
          .nonholonomic = model.num_nonholonomic() > 0,
          .forced = model.forced(),
          .energy_momentum = model.energy_momentum_applies(),
          .constraint_curvature = model.has_constraint_curvature()};
}

MethodStructure structure_of(const KernelProblem& problem) {
  MethodStructure s = structure_of(*problem.model);
  s.walls_switched_off = problem.impact_flows_without_walls && !s.walls;
  s.charted = problem.charted;
  return s;
}

bool applies(const MethodRequirements& r, const MethodStructure& s) {
  using C = MethodRequirements::Constraints;
  using W = MethodRequirements::Walls;
  if (r.constraints == C::kNone && s.num_constraints > 0) return false;
  if (r.constraints == C::kSome && s.num_constraints == 0) return false;
  const bool walls_ok = r.walls == W::kNone                ? !s.walls && !s.walls_switched_off
                        : r.walls == W::kOnOrSwitchedOff   ? s.walls || s.walls_switched_off
                                                           : !s.walls;
  if (!walls_ok) return false;
  if (r.nonholonomic != s.nonholonomic) return false;
  if (s.forced && !r.forces) return false;
  if (s.charted && (r.charts == MethodRequirements::Charts::kNo || s.forced)) return false;
  if (r.energy_momentum && !s.energy_momentum) return false;
  if (r.constraint_curvature && !s.constraint_curvature) return false;
  return true;
}

const std::vector<MethodRow>& method_rows() {
  static const std::vector<MethodRow> rows = [] {
    std::vector<MethodRow> all;
    for (auto family : {variational_rows, nonholonomic_rows, galerkin_rows, impact_rows, runge_kutta_rows,
                        energy_momentum_rows, dae_rows})
      for (MethodRow& row : family()) all.push_back(std::move(row));
    return all;
  }();
  return rows;
}

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodRow& row : method_rows())
    if (std::find(names.begin(), names.end(), row.name) == names.end()) names.push_back(row.name);
  return names;
}

bool is_method(const std::string& name) { return first_row_named(name) != nullptr; }

const MethodRow* first_row_named(const std::string& name) {
  for (const MethodRow& row : method_rows())
    if (row.name == name) return &row;
  return nullptr;
}

const MethodRow* find_row(const MethodStructure& structure, const std::string& method) {
  for (const MethodRow& row : method_rows())
    if (row.name == method && applies(row.requirements, structure)) return &row;
  return nullptr;
}

std::vector<std::string> offered_methods(const MethodStructure& structure) {
  std::vector<std::string> names;
  for (const MethodRow& row : method_rows())
    if (applies(row.requirements, structure)) names.push_back(row.name);
  return names;
}

std::vector<ParameterSpec> method_options(const MethodStructure& structure, const std::string& method) {
  if (const MethodRow* row = find_row(structure, method)) return row->options(structure);
  throw InvalidInput("method " + quote_for_message(method) + " does not apply here (offered: " +
                     join_names(offered_methods(structure)) + ")");
}

std::vector<ParameterSpec> every_option_of(const std::string& name) {
  std::vector<ParameterSpec> options;
  for (const MethodStructure& structure : every_kind_of_structure())
    if (const MethodRow* row = find_row(structure, name))
      for (ParameterSpec& spec : row->options(structure)) {
        const auto same = [&](const ParameterSpec& o) { return o.name == spec.name; };
        if (std::none_of(options.begin(), options.end(), same)) options.push_back(std::move(spec));
      }
  return options;
}

const std::set<std::string>& every_option_name() {
  static const std::set<std::string> names = [] {
    std::set<std::string> all;
    for (const std::string& method : method_names())
      for (const auto& spec : every_option_of(method)) all.insert(spec.name);
    return all;
  }();
  return names;
}

int method_order(const std::string& method, const ParameterValues* options) {
  const MethodRow* row = first_row_named(method);
  if (!row) return 0;
  if (row->composable && options && options->has("compose"))
    return kernel::composition_named(options->choice("compose")).order;
  return row->order;
}

std::optional<kernel::GalerkinTableau> galerkin_tableau_of(const std::string& method) {
  if (const MethodRow* row = first_row_named(method)) return row->tableau;
  return std::nullopt;
}

std::unique_ptr<app::StartedStepper> start_method(const std::shared_ptr<KernelProblem>& problem,
                                                  const std::string& method, const ParameterValues& options,
                                                  double h) {
  const MethodStructure structure = structure_of(*problem);
  const MethodRow* row = find_row(structure, method);
  if (!row)
    throw InvalidInput("method " + quote_for_message(method) + " does not apply here (offered: " +
                       join_names(offered_methods(structure)) + ")");
  check_kernel_start(*problem);
  return row->start(problem, options, h);
}

}  // namespace mechint::methods
