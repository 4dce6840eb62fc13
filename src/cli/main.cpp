// The mechint command line (DESIGN §4):
//   mechint list
//   mechint run SYSTEM [--method M] [--h H] [--t-end T] [--output-every DT] [--set NAME=VALUE]... [--out FILE.csv]
//   mechint reproduce EXPERIMENT [--out DIR]
// Exit codes (DESIGN §4, core/errors.hpp): 2 bad input, 3 numerical failure, 4 input/output error,
// each with one line on stderr; 1 is an unexpected exception (a bug). No partial output file is left
// behind: rows go to a temporary file renamed into place at the end.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "app/experiment_entry.hpp"
#include "app/output.hpp"
#include "app/run_system.hpp"
#include "mechint/core/errors.hpp"

namespace {

using namespace mechint;

int list_everything() {
  std::cout << "systems:\n";
  for (const auto& s : app::all_systems()) {
    std::cout << "  " << s.name << "  " << s.summary << "\n    methods: ";
    const auto defaults = app::ParameterValues::resolve(s.parameters({}), {}, s.name);
    const auto methods = s.methods(defaults);
    for (std::size_t i = 0; i < methods.size(); ++i)
      std::cout << (i ? ", " : "") << methods[i] << (methods[i] == s.default_method ? " (default)" : "");
    std::cout << "\n    --set:";
    for (const auto& p : s.parameters({})) std::cout << " " << p.name << "=" << p.default_value;
    std::cout << "\n";
  }
  std::cout << "methods (their options, also with --set):\n";
  for (const auto& m : app::all_methods()) {
    std::cout << "  " << m.name << "  " << m.summary << "\n";
    std::vector<std::string> options;
    app::for_each_method([&]<class Row>() {
      if (Row::kName != m.name) return;
      for (const auto& o : Row::options()) {
        const std::string text = o.name + "=" + o.default_value;
        if (std::find(options.begin(), options.end(), text) == options.end()) options.push_back(text);
      }
    });
    if (!options.empty()) {
      std::cout << "    --set:";
      for (const auto& o : options) std::cout << " " << o;
      std::cout << "\n";
    }
  }
  std::cout << "experiments:\n";
  for (const auto& e : app::all_experiments()) std::cout << "  " << e.name << "  " << e.summary << "\n";
  std::cout << "  all  every experiment above, in turn\n";
  return 0;
}

int run_system(const std::string& system_name, const std::string& method, const OutputSchedule& schedule,
               const std::vector<std::string>& assignments, const std::string& out_path) {
  const app::SystemEntry& system = app::find_system(system_name);
  app::Overrides overrides;
  for (const auto& a : assignments) app::parse_assignment(a, overrides);
  app::CsvOutput out(out_path);
  app::run_system(system, method, overrides, schedule, out);
  out.commit();
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
  std::string system_name, method, out_path;
  OutputSchedule schedule;
  std::vector<std::string> assignments;
  run->add_option("system", system_name, "system name (see mechint list)")->required();
  run->add_option("--method", method, "integration method (default: the system's, see mechint list)");
  run->add_option("--h", schedule.h, "step size")->capture_default_str();
  run->add_option("--t-end", schedule.t_end, "final time")->capture_default_str();
  run->add_option("--output-every", schedule.output_every, "time between output rows (0: every step)");
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
      return run_system(system_name, method, schedule, assignments, out_path);
    return reproduce(experiment, out_dir);
  } catch (const mechint::Error& e) {
    std::cerr << "mechint: error: " << e.what() << "\n";
    return static_cast<int>(e.exit_code());
  } catch (const std::invalid_argument& e) {  // from a library we call (std::stod, ...): bad input
    std::cerr << "mechint: error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "mechint: error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kIoError);
  } catch (const std::exception& e) {
    std::cerr << "mechint: internal error (please report): " << e.what() << "\n";
    return static_cast<int>(ExitCode::kInternalError);
  }
}
