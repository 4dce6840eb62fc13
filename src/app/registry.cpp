#include <algorithm>

#include "app/experiment_entry.hpp"
#include "app/system_entry.hpp"
#include "experiments/experiments.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

std::vector<SystemEntry>& system_registry() {
  static std::vector<SystemEntry> entries;
  return entries;
}

}  // namespace

SystemRegistration::SystemRegistration(SystemEntry (*make)()) {
  auto& entries = system_registry();
  entries.push_back(make());
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

const std::vector<SystemEntry>& all_systems() { return system_registry(); }

const SystemEntry& find_system(const std::string& name) {
  for (const auto& e : all_systems())
    if (e.name == name) return e;
  std::string known;
  for (const auto& e : all_systems()) known += (known.empty() ? "" : ", ") + e.name;
  throw InvalidInput("unknown system " + quote_for_message(name) + " (known: " + known + ")");
}

const std::vector<ExperimentEntry>& all_experiments() {
  static const std::vector<ExperimentEntry> entries = {
      experiments::core_convergence_entry(),
      experiments::impacts_entry(),
      experiments::three_body_entry(),
      experiments::rigid_body_entry(),
      experiments::double_spherical_pendulum_entry(),
      experiments::dsp_dae_entry(),
      experiments::pattern_evocation_entry(),
      experiments::damped_systems_entry(),
      experiments::optimal_control_entry(),
      experiments::high_order_entry(),
      experiments::chaos_maps_entry(),
      experiments::adaptive_entry(),
      experiments::nonholonomic_entry(),
  };
  return entries;
}

const ExperimentEntry& find_experiment(const std::string& name) {
  for (const auto& e : all_experiments())
    if (e.name == name) return e;
  std::string known = "all";
  for (const auto& e : all_experiments()) known += ", " + e.name;
  throw InvalidInput("unknown experiment " + quote_for_message(name) + " (known: " + known + ")");
}

}  // namespace mechint::app
