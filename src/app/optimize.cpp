#include "app/optimize.hpp"

#include "app/animation_page.hpp"
#include "app/drawing.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "app/optimal_control_file.hpp"
#include "app/output.hpp"
#include "app/plotting.hpp"
#include "app/progress.hpp"
#include "app/progress_log.hpp"
#include "app/system_entry.hpp"
#include "app/temporary_files.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "app/open_system.hpp"
#include "model_file/system_file.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

/// The marker left in an output directory of `mechint optimize`: such a directory may be replaced.
constexpr const char* kOptimizeMarker = ".mechint-optimize";

std::string full(double x) { return format_number(x, 17); }

/// The files an output directory of optimize holds: the marker first, then what write_optimize_files
/// writes. Nothing else in such a directory is optimize's to remove.
constexpr std::array<const char*, 7> kOptimizeFiles = {kOptimizeMarker, "trajectory.csv", "controls.csv", "results.json",
                                                       "trajectory.png", "trajectory.html", "report.md"};

bool written_by_optimize(const fs::directory_entry& entry) {
  std::error_code error;
  const std::string name = entry.path().filename().string();
  return entry.is_regular_file(error) && !entry.is_symlink(error) &&
         std::any_of(kOptimizeFiles.begin(), kOptimizeFiles.end(), [&](const char* own) { return name == own; });
}

/// Refuses an --out that is not a directory mechint optimize may replace: a file, a directory holding
/// anything but a previous output of optimize, or a previous output beside which something else was
/// put (a user's notes): optimize replaces only what it wrote, and says what is in the way. Checked
/// before solving and again before the replacement.
void check_output_directory(const fs::path& dir) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(dir, error))) return;
  const std::string shown = quote_for_message(dir.string(), 200);
  if (!fs::is_directory(dir, error)) throw InvalidInput("optimize --out " + shown + " is not a directory");
  if (fs::is_empty(dir, error)) return;
  if (!fs::exists(fs::symlink_status(dir / kOptimizeMarker, error)))
    throw InvalidInput("optimize --out " + shown +
                       " is not empty and is not a previous output of mechint optimize: choose a new or empty directory");
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (!written_by_optimize(entry))
      throw InvalidInput("optimize --out " + shown + " holds " + quote_for_message(entry.path().filename().string(), 80) +
                         ", which mechint optimize did not write: move it, or choose another directory");
  }
  if (error) throw IoError("cannot read the directory " + shown + ": " + error.message());
}

/// Removes a previous output of optimize, file by file (nothing it did not write), then the directory.
void remove_previous_output(const fs::path& dir) {
  check_output_directory(dir);
  std::error_code error;
  if (!fs::exists(fs::symlink_status(dir, error))) return;
  for (const char* name : kOptimizeFiles) {
    if (std::string(name) == kOptimizeMarker) continue;  // last: the directory stays recognisable until empty
    fs::remove(dir / name, error);
  }
  fs::remove(dir / kOptimizeMarker, error);
  if (!fs::remove(dir, error))
    throw IoError("cannot replace optimize --out " + quote_for_message(dir.string(), 200) + ": " +
                  (error ? error.message() : std::string("something was put into it meanwhile")));
}

std::string trajectory_csv(const OptimizeOutcome& o) {
  std::ostringstream csv;
  csv << "t";
  for (const auto& c : o.coordinates) csv << "," << c;
  // The controls as u1, u2, … (DESIGN §6–§7), whatever a model file calls them (controls.csv uses its names).
  for (std::size_t i = 0; i < o.controls.size(); ++i) csv << ",u" << i + 1;
  csv << ",energy\n";
  for (std::size_t k = 0; k < o.t.size(); ++k) {
    csv << full(o.t[k]);
    for (double q : o.q[k]) csv << "," << full(q);
    // u_k holds over [t_k, t_{k+1}); the last row repeats the last step's control.
    for (double u : o.u[std::min(k, o.u.size() - 1)]) csv << "," << full(u);
    csv << "," << full(o.energy[k]) << "\n";
  }
  return csv.str();
}

/// The controls as a schedule `mechint run SYSTEM --controls controls.csv` reads (app/control_schedule.hpp).
std::string controls_csv(const OptimizeOutcome& o) {
  std::ostringstream csv;
  csv << "t";
  for (const auto& c : o.controls) csv << "," << c;
  csv << "\n";
  for (std::size_t k = 0; k < o.u.size(); ++k) {
    csv << full(o.t[k]);
    for (double u : o.u[k]) csv << "," << full(u);
    csv << "\n";
  }
  return csv.str();
}

std::string report_md(const OptimalControlSpec& spec, const OptimizeOutcome& o, bool figure, bool page) {
  std::ostringstream md;
  md << "# Optimal control by DMOC: " << fs::path(spec.file).filename().string() << "\n\n";
  md << "System `" << fs::path(spec.model).filename().string() << "`, discrete Lagrangian `" << o.method
     << "`, horizon T = " << format_number(spec.horizon) << " in N = " << o.steps << " steps (h = " << format_number(o.h)
     << "). Cost J = Σ h·w·|u_k|² with w = " << format_number(spec.effort) << ".\n\n";
  md << "| quantity | value |\n|---|---|\n";
  md << "| cost | " << format_number(o.solution.objective, 12) << " |\n";
  md << "| converged | " << (o.solution.converged ? "yes" : "no") << " (Ipopt: " << o.solution.status << ") |\n";
  md << "| iterations | " << o.solution.iterations << " |\n";
  md << "| constraint violation | " << format_number(o.solution.constraint_violation, 3) << " |\n";
  md << "| re-simulation error (max over nodes of max abs q difference) | "
     << format_number(o.resimulation_error, 3) << " |\n";
  md << "| solve time (s) | " << format_number(o.cpu_s, 3) << " |\n\n";
  md << "The constraints are the forced discrete Euler–Lagrange equations of the variational integrator, "
        "with the boundary conditions on velocities through the forced discrete Legendre transforms. The "
        "re-simulation error compares the optimal configurations with the forced VI run from the start under "
        "the optimal controls alone (`controls.csv`, usable with `mechint run --controls`).\n\n";
  if (figure) md << "![optimal coordinates and controls](trajectory.png)\n";
  if (page) md << "\nThe motion, animated: [trajectory.html](trajectory.html) (docs/animations.md).\n";
  return md.str();
}

/// `spec` with [bounds] written as u1, u2, … (DESIGN §6–§7 number every system's controls) renamed to
/// the system's own control names (a model file's `controls = ["F"]`: u1 is F). A name the system
/// already uses (a control, or a coordinate or parameter called u1) keeps its meaning.
OptimalControlSpec with_numbered_controls(const OptimalControlSpec& spec, const std::vector<std::string>& controls,
                                          const ParameterValues& values) {
  OptimalControlSpec renamed = spec;
  for (std::size_t i = 0; i < controls.size(); ++i) {
    const std::string number = "u" + std::to_string(i + 1);
    const auto it = spec.bounds.find(number);
    if (it == spec.bounds.end() || number == controls[i] || values.has(number) ||
        std::find(controls.begin(), controls.end(), number) != controls.end())
      continue;
    if (spec.bounds.count(controls[i]))
      spec.fail(it->second.where, "bounds of control " + controls[i] + " given twice, as " + controls[i] + " and " + number);
    renamed.bounds.erase(number);
    renamed.bounds[controls[i]] = it->second;
  }
  return renamed;
}

}  // namespace

/// The problem's system (app/open_system.hpp) and its parameter values.
std::shared_ptr<const SystemEntry> problem_system(const OptimalControlSpec& spec, ParameterValues& values) {
  std::shared_ptr<const SystemEntry> found;
  if (model_file::is_system_file_name(spec.model)) {
    found = open_system(spec.model);  // its errors are located in the model file
  } else {
    try {
      found = open_system(spec.model);
    } catch (const InvalidInput& e) {
      spec.fail(spec.model_where, e.what());  // an unknown name, located in the problem file
    }
  }
  // An initial value set in [parameters] would be ignored: an optimal control problem starts where
  // [start] says. Initial values are the parameters described as "initial ..." (every system's
  // convention, tests/test_systems_conventions.cpp) and `start`, the choice of a named start.
  for (const auto& spec_of : found->parameters(spec.parameters))
    if (spec.parameters.count(spec_of.name) &&
        (spec_of.name == "start" || spec_of.description.rfind("initial", 0) == 0)) {
      const auto where = spec.parameter_where.find(spec_of.name);
      spec.fail(where == spec.parameter_where.end() ? spec.model_where : where->second,
                quote_for_message(spec_of.name) + " in [parameters] sets the start of a run (" + spec_of.description +
                    "): an optimal control problem starts where [start] says (its coordinates and NAME_dot)");
    }
  try {
    values = ParameterValues::resolve(found->parameters(spec.parameters), spec.parameters, found->name);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(spec.file + ": [parameters]: " + e.what());
  }
  return found;
}

OptimizeOutcome solve_optimal_control(const OptimalControlSpec& spec) {
  ParameterValues values;
  const auto opened = problem_system(spec, values);
  const SystemEntry& system = *opened;
  OptimizeOutcome outcome = system.optimize(values, with_numbered_controls(spec, system.controls, values), system.controls);
  // The drawing of the system opened here, so that the page draws the model that was solved (a
  // model file is not read again).
  try {
    outcome.drawing = std::make_shared<const Drawing>(system_drawing(system, values));
  } catch (const InvalidInput&) {
  }
  return outcome;
}

/// The optimal motion as an animated page (docs/animations.md), drawn from trajectory.csv as
/// `mechint view` would; a system without a drawing (a model file without [draw]) gets none, and its
/// report links none.
bool write_motion_page(const fs::path& dir, const OptimalControlSpec& spec, const OptimizeOutcome& outcome) {
  if (!outcome.drawing) return false;
  write_animation_page((dir / "trajectory.html").string(), *outcome.drawing, read_run_csv((dir / "trajectory.csv").string()),
                       "mechint optimize " + printable_line(spec.file, 200));
  return true;
}

std::string optimize_results_json(const OptimalControlSpec& spec, const OptimizeOutcome& o) {
  nlohmann::ordered_json j;
  j["cost"] = o.solution.objective;
  j["converged"] = o.solution.converged;
  j["iterations"] = o.solution.iterations;
  j["constraint_violation"] = o.solution.constraint_violation;
  j["cpu_s"] = o.cpu_s;
  j["h"] = o.h;
  j["steps"] = o.steps;
  j["horizon"] = spec.horizon;
  j["model"] = spec.model;
  j["method"] = o.method;
  j["hessian"] = spec.hessian == optimal::HessianMode::kExact ? "exact" : "limited-memory";
  j["status"] = o.solution.status;
  j["resimulation_error"] = o.resimulation_error;
  return j.dump(2) + "\n";
}

void write_optimize_files(const fs::path& dir, const OptimalControlSpec& spec, const OptimizeOutcome& outcome,
                          std::ostream& log) {
  write_text_atomically((dir / "trajectory.csv").string(), trajectory_csv(outcome));
  write_text_atomically((dir / "controls.csv").string(), controls_csv(outcome));
  write_text_atomically((dir / "results.json").string(), optimize_results_json(spec, outcome));
  const bool figure = draw_figures("optimize.py", dir, log);
  const bool page = write_motion_page(dir, spec, outcome);
  write_text_atomically((dir / "report.md").string(), report_md(spec, outcome, figure, page));
}

void optimize_command(const std::string& problem_file, const std::string& out_dir, bool verbose, bool progress,
                      std::ostream& log) {
  OptimalControlSpec spec = read_optimal_control_file(problem_file);
  if (verbose) spec.print_level = 5;
  // Ipopt's iterations on one line; --verbose prints Ipopt's own log instead, a line per iteration.
  ProgressLine line("mechint optimize " + printable_line(problem_file, 60), ProgressLine::OpenEnded{},
                    progress && !verbose, "iterations");
  spec.on_iteration = [&line, limit = spec.max_iterations](const optimal::IpoptIteration& at) {
    line.update(at.iteration, [&] {
      return "cost " + format_number(at.objective, 4) + ", violation " + format_number(at.infeasibility, 2) +
             " (at most " + std::to_string(limit) + " iterations)";
    });
  };
  ProgressLog shared(log);
  const OptimizeOutcome outcome = optimize_into(spec, out_dir, shared);
  line.clear();
  if (out_dir.empty()) std::cout << optimize_results_json(spec, outcome);
}

OptimizeOutcome optimize_into(const OptimalControlSpec& spec, const std::string& out_dir, std::ostream& log) {
  const fs::path target(out_dir);
  if (!out_dir.empty()) check_output_directory(target);
  OptimizeOutcome outcome = solve_optimal_control(spec);
  if (out_dir.empty()) return outcome;

  // Everything is written into a fresh directory beside the target, which then replaces it.
  const fs::path staging(temporary_path_for(fs::absolute(target).lexically_normal().string()));
  std::vector<std::unique_ptr<TemporaryFileGuard>> guards;
  guards.push_back(std::make_unique<TemporaryFileGuard>(staging.string()));
  std::error_code error;
  fs::remove_all(staging, error);
  if (!fs::create_directory(staging, error))
    throw IoError("cannot create " + quote_for_message(staging.string(), 200) + ": " + error.message());
  try {
    guards.push_back(std::make_unique<TemporaryFileGuard>((staging / kOptimizeMarker).string()));
    write_text_atomically((staging / kOptimizeMarker).string(), "optimize\n");
    for (const char* name : kOptimizeFiles)
      if (std::string(name) != kOptimizeMarker) guards.push_back(std::make_unique<TemporaryFileGuard>((staging / name).string()));
    write_optimize_files(staging, spec, outcome, log);
    remove_previous_output(target);
    fs::rename(staging, target);
  } catch (...) {
    fs::remove_all(staging, error);
    throw;
  }
  log << "mechint optimize: cost " << format_number(outcome.solution.objective, 10) << ", " << outcome.solution.iterations
      << " iterations -> " << target.string() << "\n";
  return outcome;
}

}  // namespace mechint::app
