#include "app/run_system.hpp"

#include "app/kernel_methods.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

std::vector<std::string> names_of(const std::vector<ParameterSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  return names;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void check_schedule(const OutputSchedule& s) {
  if (!(s.h > 0.0) || !std::isfinite(s.h))
    throw InvalidInput("--h must be positive and finite, got " + format_number(s.h));
  if (!(s.t_end >= 0.0) || !std::isfinite(s.t_end))
    throw InvalidInput("--t-end must be non-negative and finite, got " + format_number(s.t_end));
  if (!(s.output_every >= 0.0) || !std::isfinite(s.output_every))
    throw InvalidInput("--output-every must be non-negative and finite");
}

/// The run's controls: the file's schedule, or each control's `--set` value (default 0) held over the run.
ControlSchedule read_controls(const SystemEntry& system, const ParameterValues& values,
                              const ControlsSource& source) {
  if (!source.given()) {
    std::vector<double> constant;
    for (const auto& name : system.controls) constant.push_back(values.real(name));
    return system.controls.empty() ? ControlSchedule() : ControlSchedule::constant(std::move(constant));
  }
  const std::string what = source.has_table ? "controls over time" : "--controls";
  if (system.controls.empty())
    throw InvalidInput(what + ": system '" + system.name + "' has no control inputs");
  for (const auto& name : system.controls)
    if (values.was_set(name))
      throw InvalidInput("control '" + name + "' is given both by --set and by " + what + ": use one");
  return source.has_table ? ControlSchedule::from_table(source.table, system.controls)
                          : ControlSchedule::read(source.file, system.controls);
}

}  // namespace

OutputSchedule with_default_step(const SystemEntry& system, OutputSchedule schedule, bool h_given) {
  if (h_given || !system.default_h) return schedule;
  schedule.h = *system.default_h;
  try {
    schedule.validate();
  } catch (const InvalidInput& e) {
    throw InvalidInput(std::string("with the model file's h = ") + format_number(schedule.h) + ": " + e.what());
  }
  return schedule;
}

namespace {

/// The system's settable names with these settings: its parameters, then its controls, settable like
/// parameters (constant over the run, 0 unless set).
std::vector<ParameterSpec> system_specs_of(const SystemEntry& system, const Overrides& overrides) {
  auto specs = system.parameters(overrides);
  for (const auto& name : system.controls)
    specs.push_back(ParameterSpec::real(name, 0.0, "control input, constant over the run (or --controls FILE.csv)"));
  return specs;
}

[[noreturn]] void refuse_unknown_name(const SystemEntry& system, const std::string& name,
                                      const std::vector<std::string>& system_names) {
  throw InvalidInput("unknown name " + quote_for_message(name) + " for system '" + system.name + "' (known: " +
                     join_names(system_names) + ", and the options of its methods: mechint list)");
}

}  // namespace

ParameterValues resolve_system_settings(const SystemEntry& system, const Overrides& overrides) {
  const auto specs = system_specs_of(system, overrides);
  const auto names = names_of(specs);
  const std::set<std::string>& options = methods::every_option_name();
  Overrides own;
  for (const auto& [name, value] : overrides) {
    if (contains(names, name))
      own[name] = value;
    else if (!options.count(name))
      refuse_unknown_name(system, name, names);
  }
  return ParameterValues::resolve(specs, own, system.name);
}

Overrides settings_with_run_options(const Overrides& system_settings, const Overrides& run_options) {
  Overrides all = system_settings;
  for (const auto& [name, value] : run_options) {
    if (all.count(name))
      throw InvalidInput(quote_for_message(name) + " is given both to the system and to the run: give it once");
    all[name] = value;
  }
  return all;
}

ResolvedRun resolve_run(const SystemEntry& system, const std::string& requested_method, const Overrides& overrides,
                        const ControlsSource& controls_source) {
  const auto system_specs = system_specs_of(system, overrides);
  const auto system_names = names_of(system_specs);
  Overrides system_overrides, option_overrides;
  for (const auto& [name, value] : overrides)
    (contains(system_names, name) ? system_overrides : option_overrides)[name] = value;
  const ParameterValues values = ParameterValues::resolve(system_specs, system_overrides, system.name);
  const ControlSchedule controls = read_controls(system, values, controls_source);

  const std::string method = requested_method.empty() ? system.default_method : requested_method;
  // What needs no model: a method name or an option name that exists nowhere is refused before the
  // model's methods are asked for (which compiles a model file).
  const std::set<std::string>& every_option = methods::every_option_name();
  {
    if (!methods::is_method(method))
      throw InvalidInput("unknown method " + quote_for_message(method) + " (the methods: " + join_names(methods::method_names()) +
                         ")");
    for (const auto& [name, value] : option_overrides)
      if (!every_option.count(name)) refuse_unknown_name(system, name, system_names);
  }
  const auto offered = system.methods(values);
  if (!contains(offered, method)) {
    throw InvalidInput("method '" + method + "' is not offered by system '" + system.name +
                       "' with these settings (offered: " + join_names(offered) + ")");
  }

  const auto option_specs = system.method_options(values, method);
  const auto option_names = names_of(option_specs);
  for (const auto& [name, value] : option_overrides) {
    if (contains(option_names, name)) continue;
    if (every_option.count(name))
      throw InvalidInput("option " + quote_for_message(name) + " does not apply to method '" + method + "' (its options: " +
                         (option_names.empty() ? std::string("none") : join_names(option_names)) + ")");
    auto known = system_names;
    known.insert(known.end(), option_names.begin(), option_names.end());
    throw InvalidInput("unknown name " + quote_for_message(name) + " for system '" + system.name + "' (known: " + join_names(known) + ")");
  }
  ParameterValues options = ParameterValues::resolve(option_specs, option_overrides, system.name);
  return ResolvedRun{values, method, std::move(options), controls};
}

void run_system(const SystemEntry& system, const std::string& requested_method, const Overrides& overrides,
                const OutputSchedule& schedule, RowWriter& out, const ControlsSource& controls_source) {
  check_schedule(schedule);
  const auto [values, method, options, controls] = resolve_run(system, requested_method, overrides, controls_source);
  if (RunCheckpoint* checkpoint = out.checkpoint())
    checkpoint->bind("system=" + system.name + (system.fingerprint.empty() ? "" : ";definition=" + system.fingerprint) +
                     ";method=" + method + ";h=" + format_number(schedule.h, 17) +
                     ";t_end=" + format_number(schedule.t_end, 17) + ";output_every=" +
                     format_number(schedule.output_every, 17) + ";" + values.describe() + ";" + options.describe() +
                     (controls_source.given() ? ";" + controls.describe() : ""));
  system.run(values, method, options, schedule, controls, out);
}

}  // namespace mechint::app
