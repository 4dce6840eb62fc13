#pragma once
/// \file
/// The type-erased boundary between the command line and the templated integrators: a system
/// entry builds a `Simulation`, which integrates and hands each output row to a sink. Virtual calls
/// happen once per output row, never inside a step.

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "app/parameters.hpp"

namespace mechint::app {

/// What `mechint run` asks of a simulation.
struct RunSettings {
  std::string method = "vi-midpoint";
  double h = 0.01;
  double t_end = 10.0;
  double output_every = 0.0;  ///< 0: every step
};

/// Receives one output row: t, coordinates, diagnostics (in the order of `columns()`).
using RowSink = std::function<void(const std::vector<double>&)>;

class Simulation {
 public:
  virtual ~Simulation() = default;
  /// CSV header: "t", the coordinates by name, then the diagnostics.
  virtual std::vector<std::string> columns() const = 0;
  /// Integrates from t = 0 to t_end and emits rows at t = 0 and every output_every.
  virtual void run(const RunSettings& settings, const RowSink& sink) = 0;
};

/// A system as `mechint list` shows it and `mechint run` builds it.
struct SystemEntry {
  std::string name;
  std::string summary;
  std::vector<std::string> methods;
  /// The settable names. `overrides` lets the list depend on structural choices (number of links,
  /// choice of coordinates) made with --set.
  std::function<std::vector<ParameterSpec>(const std::map<std::string, std::string>& overrides)>
      parameters;
  /// Builds the simulation; throws std::invalid_argument on an unusable combination.
  std::function<std::unique_ptr<Simulation>(const ParameterValues&, const std::string& method)> make;
};

struct MethodEntry {
  std::string name;
  std::string summary;
};

/// Where an experiment writes and reports progress.
struct ExperimentContext {
  std::filesystem::path out_dir;
  std::ostream& log;
};

struct ExperimentEntry {
  std::string name;
  std::string summary;
  std::function<void(const ExperimentContext&)> run;
};

const std::vector<SystemEntry>& all_systems();
const std::vector<MethodEntry>& all_methods();
const std::vector<ExperimentEntry>& all_experiments();

/// Looks a system up by name; throws std::invalid_argument naming the known ones.
const SystemEntry& find_system(const std::string& name);
const ExperimentEntry& find_experiment(const std::string& name);

/// Number of steps of size h to reach t_end, and of steps between output rows.
long steps_to_reach(double t_end, double h);
long output_stride(double output_every, double h);

}  // namespace mechint::app
