#pragma once
/// \file
/// A system of the command line: its name, its parameters and initial values (`--set`), its named
/// starts, its control inputs, a default method, and how to build its problem (app/problem.hpp) from
/// parameter values.
/// The methods it offers are the rows of the method registry (src/methods/method_registry.hpp) its
/// problem's structure admits.
/// Types are erased once per run: the std::function here, then the started stepper
/// (app/started_stepper.hpp); no virtual call happens inside a step.
///
/// To add a system: its model in include/mechint/systems/ and one file src/systems/NAME.cpp that
/// calls MECHINT_REGISTER_SYSTEM with a make_system_entry (docs/adding-a-system.md).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/builtin_kernels.hpp"
#include "app/control_schedule.hpp"
#include "app/row_writer.hpp"
#include "app/optimize_problem.hpp"
#include "app/parameters.hpp"
#include "app/stepping_session.hpp"

namespace mechint::app {

class Drawing;

using Overrides = std::map<std::string, std::string>;

struct SystemEntry {
  std::string name;
  std::string summary;
  std::string default_method;
  /// The step when `--h` is not given (a model file's `h`); none: the command line's default.
  std::optional<double> default_h;
  /// What identifies the system's definition beyond its name and values, for checkpoints: a model
  /// file's digest of its text (a built-in system is fixed by the version).
  std::string fingerprint;
  /// The system's settable names (parameters, initial values, named starts). `overrides` lets the
  /// list depend on structural choices (number of links, coordinates) made with --set.
  std::function<std::vector<ParameterSpec>(const Overrides& overrides)> parameters;
  /// The names of the control inputs of a forced model with controls (empty: none), one per
  /// control of the model, in order: settable with `--set` (constant, default 0) or given over time
  /// by `--controls FILE.csv` (app/control_schedule.hpp). Built-in systems name them u1, u2, …
  std::vector<std::string> controls = {};
  /// The methods offered with these values (structural choices may change them).
  std::function<std::vector<std::string>(const ParameterValues& values)> methods;
  /// The options of `method` with these values; throws InvalidInput if the method is not offered.
  std::function<std::vector<ParameterSpec>(const ParameterValues& values, const std::string& method)> method_options;
  /// Runs the system; options are the resolved method_options, `controls` those of the run (a
  /// system without controls ignores them).
  std::function<void(const ParameterValues& values, const std::string& method, const ParameterValues& options,
                     const OutputSchedule& schedule, const ControlSchedule& controls, RowWriter& out)>
      run;
  /// The integrator of `method` for a caller's own loop (app/stepping_session.hpp), started from
  /// these values; options and controls as for `run`.
  std::function<std::unique_ptr<SteppingSession>(const ParameterValues& values, const std::string& method,
                                                 const ParameterValues& options, double h,
                                                 const ControlSchedule& controls)>
      stepping;
  /// Solves an optimal control problem (`mechint optimize`, app/optimize_problem.hpp) on the system
  /// with these parameter values, its controls named `controls` (the entry's own); refuses a system
  /// without controls.
  std::function<OptimizeOutcome(const ParameterValues& values, const OptimalControlSpec& spec,
                                const std::vector<std::string>& controls)>
      optimize;
  /// How the system is drawn on an animation page with these values (app/drawing.hpp, DESIGN §11):
  /// a built-in's own drawing, a model file's `[draw]` from the description its entry was made of.
  /// Throws InvalidInput for a system without one; empty (a model struct's entry): none.
  std::function<Drawing(const ParameterValues& values)> drawing;
};

/// Builds an entry from `with_problem(values, f)`, which builds the system's problem from its
/// parameter values and returns f(problem).
template <class WithProblem>
SystemEntry make_system_entry(std::string name, std::string summary, std::string default_method,
                              std::function<std::vector<ParameterSpec>(const Overrides&)> parameters,
                              WithProblem with_problem) {
  SystemEntry e;
  e.name = std::move(name);
  e.summary = std::move(summary);
  e.default_method = std::move(default_method);
  e.parameters = std::move(parameters);
  e.methods = [with_problem](const ParameterValues& v) {
    return with_problem(v, []<class P>(const P& p) { return methods::offered_methods(method_structure_of(p)); });
  };
  e.method_options = [with_problem](const ParameterValues& v, const std::string& method) {
    return with_problem(v, [&]<class P>(const P& p) { return methods::method_options(method_structure_of(p), method); });
  };
  e.run = [with_problem](const ParameterValues& v, const std::string& method, const ParameterValues& options,
                         const OutputSchedule& schedule, const ControlSchedule& controls, RowWriter& out) {
    with_problem(v, [&]<class P>(const P& p) {
      run_kernel_problem(kernel_problem_of(p), method, options, schedule, out, controls);
    });
  };
  e.stepping = [with_problem](const ParameterValues& v, const std::string& method, const ParameterValues& options,
                              double h, const ControlSchedule& controls) {
    return with_problem(v, [&]<class P>(const P& p) {
      return make_kernel_stepping_session(kernel_problem_of(p), method, options, h, controls);
    });
  };
  e.optimize = [with_problem](const ParameterValues& v, const OptimalControlSpec& spec,
                               const std::vector<std::string>& controls) {
    return with_problem(v, [&]<class P>(const P& p) { return optimize_problem(p, spec, controls); });
  };
  return e;
}

/// Every registered system, sorted by name.
const std::vector<SystemEntry>& all_systems();
/// Looks a system up by name; throws InvalidInput naming the known ones.
const SystemEntry& find_system(const std::string& name);

/// Adds a system to the registry (at static initialization; use MECHINT_REGISTER_SYSTEM).
struct SystemRegistration {
  explicit SystemRegistration(SystemEntry (*make)());
};

}  // namespace mechint::app

/// Registers the system returned by `make_function` (a function `app::SystemEntry ()`).
#define MECHINT_REGISTER_SYSTEM(make_function) \
  static const ::mechint::app::SystemRegistration mechint_system_registration_##make_function{&make_function}
