// The mechint command line (DESIGN §4):
//   mechint list
//   mechint run SYSTEM [--method M] [--h H] [--t-end T] [--output-every DT] [--set NAME=VALUE]... [--out FILE.csv]
//   mechint reproduce EXPERIMENT [--out DIR]
// Bad input exits with status 2 and one line on stderr; a failed integration with status 3. No
// partial output file is left behind: rows go to a temporary file renamed into place at the end.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "app/output.hpp"
#include "app/simulation.hpp"
#include "mechint/core/format.hpp"
#include "mechint/solve/newton_options.hpp"

namespace {

using namespace mechint;

int list_everything() {
  std::cout << "systems:\n";
  for (const auto& s : app::all_systems()) {
    std::cout << "  " << s.name << "  " << s.summary << "\n    methods: ";
    for (std::size_t i = 0; i < s.methods.size(); ++i) std::cout << (i ? ", " : "") << s.methods[i];
    std::cout << "\n    --set:";
    for (const auto& p : s.parameters({})) std::cout << " " << p.name << "=" << p.default_value;
    std::cout << "\n";
  }
  std::cout << "methods:\n";
  for (const auto& m : app::all_methods()) std::cout << "  " << m.name << "  " << m.summary << "\n";
  std::cout << "experiments:\n";
  for (const auto& e : app::all_experiments()) std::cout << "  " << e.name << "  " << e.summary << "\n";
  std::cout << "  all  every experiment above, in turn\n";
  return 0;
}

int run_system(const std::string& system_name, const std::string& method, double h, double t_end,
               double output_every, const std::vector<std::string>& assignments,
               const std::string& out_path) {
  if (!(h > 0.0) || !std::isfinite(h))
    throw std::invalid_argument("--h must be positive and finite, got " + format_number(h));
  if (!(t_end >= 0.0) || !std::isfinite(t_end))
    throw std::invalid_argument("--t-end must be non-negative and finite, got " + format_number(t_end));
  if (!(output_every >= 0.0) || !std::isfinite(output_every))
    throw std::invalid_argument("--output-every must be non-negative and finite");
  const app::SystemEntry& system = app::find_system(system_name);
  bool method_known = false;
  for (const auto& m : system.methods) method_known = method_known || m == method;
  if (!method_known) {
    std::string known;
    for (const auto& m : system.methods) known += (known.empty() ? "" : ", ") + m;
    throw std::invalid_argument("unknown method '" + method + "' for system '" + system_name +
                                "' (known: " + known + ")");
  }
  std::map<std::string, std::string> overrides;
  for (const auto& a : assignments) app::parse_assignment(a, overrides);
  const auto values = app::ParameterValues::resolve(system.parameters(overrides), overrides, system_name);
  auto simulation = system.make(values, method);
  app::RunSettings settings{method, h, t_end, output_every};
  app::write_csv_atomically(out_path, simulation->columns(),
                            [&](const app::RowSink& sink) { simulation->run(settings, sink); });
  return 0;
}

int reproduce(const std::string& name, const std::string& out_dir) {
  std::vector<const app::ExperimentEntry*> chosen;
  if (name == "all") {
    for (const auto& e : app::all_experiments()) chosen.push_back(&e);
  } else {
    chosen.push_back(&app::find_experiment(name));
  }
  const std::filesystem::path root(out_dir);
  std::size_t index = 0;
  for (const auto* e : chosen) {
    ++index;
    const auto dir = name == "all" ? root / e->name : root;
    std::filesystem::create_directories(dir);
    std::cerr << "[" << index << "/" << chosen.size() << "] " << e->name << " -> " << dir.string()
              << std::endl;
    app::ExperimentContext context{dir, std::cerr};
    e->run(context);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"mechint: variational integrators for mechanical systems"};
  cli.require_subcommand(1);

  cli.add_subcommand("list", "systems, methods and experiments, one line each");

  auto* run = cli.add_subcommand("run", "integrate one system and write CSV");
  std::string system_name, method = "vi-midpoint", out_path;
  double h = 0.01, t_end = 10.0, output_every = 0.0;
  std::vector<std::string> assignments;
  run->add_option("system", system_name, "system name (see mechint list)")->required();
  run->add_option("--method", method, "integration method")->capture_default_str();
  run->add_option("--h", h, "step size")->capture_default_str();
  run->add_option("--t-end", t_end, "final time")->capture_default_str();
  run->add_option("--output-every", output_every, "time between output rows (0: every step)");
  run->add_option("--set", assignments, "NAME=VALUE: a parameter or initial value")->take_all();
  run->add_option("--out", out_path, "CSV file (default: standard output)");

  auto* repro = cli.add_subcommand("reproduce", "reproduce an experiment of the source documents");
  std::string experiment, out_dir = "out";
  repro->add_option("experiment", experiment, "experiment name or all")->required();
  repro->add_option("--out", out_dir, "output directory")->capture_default_str();

  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "mechint: error: " << e.what() << "\n";
    return 2;
  }
  try {
    if (cli.got_subcommand("list")) return list_everything();
    if (cli.got_subcommand("run"))
      return run_system(system_name, method, h, t_end, output_every, assignments, out_path);
    return reproduce(experiment, out_dir);
  } catch (const NewtonFailure& e) {
    std::cerr << "mechint: error: " << e.what() << "\n";
    return 3;
  } catch (const std::invalid_argument& e) {
    std::cerr << "mechint: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mechint: error: " << e.what() << "\n";
    return 1;
  }
}
