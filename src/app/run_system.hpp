#pragma once
/// \file
/// `mechint run` as a function: resolves a system's parameters and the chosen method's options
/// from `--set` assignments, refuses what does not apply, and runs it into a RowWriter.

#include <set>
#include <string>

#include "app/system_entry.hpp"

namespace mechint::app {

/// What a run of `system` is made of, resolved from `--set` assignments: its parameter values
/// (controls among them), the method (the system's default when none was asked for), the method's
/// options and the run's controls (`controls`' schedule when given, else the constants set).
struct ResolvedRun {
  ParameterValues values;
  std::string method;
  ParameterValues options;
  ControlSchedule controls;
};

/// The values of a system's own settings among `overrides` (--set: parameters, start values, a named
/// start, controls held constant), checked as run_system checks them. A name that is an option of
/// some method is left for the method a run chooses (resolve_run); a name that is neither throws
/// InvalidInput with run_system's line. The C++ API's System and Python's check their settings here.
ParameterValues resolve_system_settings(const SystemEntry& system, const Overrides& overrides);

/// A system's settings and those given to one run of it, as the --set of one command line; a name
/// given to both is refused (InvalidInput).
Overrides settings_with_run_options(const Overrides& system_settings, const Overrides& run_options);

/// Resolves a run; throws InvalidInput as run_system does (everything it refuses but the schedule).
ResolvedRun resolve_run(const SystemEntry& system, const std::string& method, const Overrides& overrides,
                        const ControlsSource& controls = {});

/// `schedule` with the system's own step (a model file's `h`) when no step was given
/// (`h_given` false); such a step that does not fit the grid is refused naming where it came from.
OutputSchedule with_default_step(const SystemEntry& system, OutputSchedule schedule, bool h_given);

/// Runs `system` with `method` (empty: the system's default) and the `--set` values `overrides`;
/// `controls` (`--controls FILE`, a table in memory, or none) gives the controls over time
/// (app/control_schedule.hpp).
/// Throws InvalidInput for an unknown name, a method the system does not offer, an option that
/// does not apply to the method (one line naming what does), a controls file for a system without
/// controls or a malformed one.
void run_system(const SystemEntry& system, const std::string& method, const Overrides& overrides,
                const OutputSchedule& schedule, RowWriter& out, const ControlsSource& controls = {});

}  // namespace mechint::app
