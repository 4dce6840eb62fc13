#include "app/kernel_optimize.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "app/kernel_methods.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_dmoc.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/diagnostics.hpp"

namespace mechint::app {

namespace {

using kernel::Vector;

int index_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

/// The coordinate a [start]/[goal] name sets, and whether it is its velocity (NAME_dot).
struct StateName {
  int coordinate = -1;
  bool velocity = false;
};

StateName state_name(const OptimalControlSpec& spec, const std::vector<std::string>& coordinates, const std::string& table,
                     const std::string& name, model_file::SourcePosition where) {
  constexpr std::string_view kDot = "_dot";
  StateName s;
  s.coordinate = index_of(coordinates, name);
  if (s.coordinate < 0 && name.size() > kDot.size() && name.ends_with(kDot)) {
    s.coordinate = index_of(coordinates, name.substr(0, name.size() - kDot.size()));
    s.velocity = s.coordinate >= 0;
  }
  if (s.coordinate < 0) {
    std::vector<std::string> known = coordinates;
    for (const auto& c : coordinates) known.push_back(c + "_dot");
    spec.fail(where, "unknown name " + quote_for_message(name) + " in [" + table + "]" +
                         model_file::did_you_mean(name, known) + " (known: " + model_file::join_names(known) + ")");
  }
  return s;
}

/// Refuses (InvalidInput naming `table`) a state (q, v) of the model where its Lagrangian, energy or
/// their derivatives are not finite or its kinetic energy is degenerate: what `run` refuses of its
/// start (check_kernel_start).
void check_state(const KernelProblem& problem, const Vector& q, const Vector& v, const OptimalControlSpec& spec,
                 const std::string& table) {
  KernelProblem state;
  state.model = problem.model;
  state.labels = problem.labels;
  state.q0 = q;
  state.qdot0 = v;
  try {
    check_kernel_start(state);
  } catch (const InvalidStart& e) {
    std::string what = e.what();
    const std::string at_start = " at the start";
    if (const auto at = what.find(at_start); at != std::string::npos) what.replace(at, at_start.size(), " there");
    throw InvalidInput(spec.file + ": " + table + ": " + what);
  }
}

/// The discrete Lagrangian of an optimize `method`, and the integrator that steps it.
struct OptimizeRule {
  kernel::DmocRule dmoc;
  std::optional<kernel::Rule> second_order;         ///< vi-midpoint, vi-trapezoid
  std::optional<kernel::GalerkinTableau> galerkin;  ///< vi-gauss4/6/8, vi-lobatto4/6
};

/// The rule of an optimize `method`: the variational methods whose discrete Lagrangian DMOC
/// transcribes (the registry's rows with a transcription).
OptimizeRule rule_of(const OptimalControlSpec& spec) {
  std::vector<std::string> known;
  for (const methods::MethodRow& row : methods::method_rows()) {
    if (!row.transcription) continue;
    if (row.name == spec.method) {
      if (row.transcription->galerkin)
        return {kernel::dmoc_rule(*row.transcription->galerkin), std::nullopt, row.transcription->galerkin};
      return {kernel::dmoc_rule(*row.transcription->rule), row.transcription->rule, std::nullopt};
    }
    if (std::find(known.begin(), known.end(), row.name) == known.end()) known.push_back(row.name);
  }
  spec.fail(spec.method_where, "method " + quote_for_message(spec.method) +
                                   " is not offered for optimal control (known: " + model_file::join_names(known) + ")");
}

/// The forced variational integrator of the same discrete Lagrangian run from the start under
/// `controls`, one per step: the configurations at the N+1 nodes. Throws what the integrator throws.
std::vector<Vector> simulate(const kernel::KernelModel& model, const OptimizeRule& rule, const Vector& q0,
                             const Vector& v0, double h, const std::vector<Vector>& controls) {
  const auto run = [&](auto& integrator) {
    integrator.start_from_velocity(q0, v0);
    std::vector<Vector> q{q0};
    for (const Vector& u : controls) {
      integrator.set_control(u);
      integrator.step();
      q.push_back(integrator.q());
    }
    return q;
  };
  if (rule.galerkin) {
    kernel::KernelGalerkinIntegrator integrator(model, *rule.galerkin, h);
    return run(integrator);
  }
  kernel::KernelVariationalIntegrator integrator(model, *rule.second_order, h);
  return run(integrator);
}

}  // namespace

OptimizeOutcome optimize_kernel_problem(const KernelProblem& problem_data, const OptimalControlSpec& spec,
                                        const std::vector<std::string>& controls) {
  const kernel::KernelModel& model = *problem_data.model;
  if (model.num_controls() == 0) spec.fail(spec.model_where, "the system has no control inputs: there is nothing to optimize");
  if (model.num_constraints() > 0)
    spec.fail(spec.model_where, "optimal control of a system with holonomic constraints is not supported");
  if (model.num_nonholonomic() > 0)
    spec.fail(spec.model_where, "optimal control of a system with nonholonomic constraints is not supported");
  // The program knows no impacts: its motion would pass through a wall.
  if (model.num_unilateral() > 0)
    spec.fail(spec.model_where, "optimal control of a system with walls (impacts) is not supported");
  if (!model.supplies_optimal_control_kernels())
    spec.fail(spec.model_where, "the model's kernels do not supply the third derivatives optimal control needs");
  const OptimizeRule rule = rule_of(spec);
  const int n = model.dim(), m = model.num_controls();
  const std::vector<std::string>& coordinates = problem_data.labels.coordinates;

  optimal::DmocProblem problem(n, m);
  problem.horizon = spec.horizon;
  problem.steps = spec.steps;
  problem.effort = spec.effort;
  for (const auto& [name, value] : spec.start) {
    const StateName s = state_name(spec, coordinates, "start", name, value.where);
    (s.velocity ? problem.v_start : problem.q_start)[s.coordinate] = value.value;
  }
  for (const auto& [name, value] : spec.goal) {
    const StateName s = state_name(spec, coordinates, "goal", name, value.where);
    (s.velocity ? problem.v_goal : problem.q_goal)[s.coordinate] = value.value;
    (s.velocity ? problem.v_goal_given : problem.q_goal_given)[static_cast<std::size_t>(s.coordinate)] = true;
  }
  for (const auto& [name, bounds] : spec.bounds) {
    const int qi = index_of(coordinates, name), ui = index_of(controls, name);
    if (qi < 0 && ui < 0) {
      std::vector<std::string> known = coordinates;
      known.insert(known.end(), controls.begin(), controls.end());
      spec.fail(bounds.where, "unknown name " + quote_for_message(name) + " in [bounds]" +
                                  model_file::did_you_mean(name, known) + " (known: " + model_file::join_names(known) + ")");
    }
    if (!(bounds.lower < bounds.upper))
      spec.fail(bounds.where, "the bounds of " + name + " are empty: lower " + format_number(bounds.lower) +
                                  " is not below upper " + format_number(bounds.upper));
    if (qi >= 0) {
      problem.q_lower[qi] = bounds.lower;
      problem.q_upper[qi] = bounds.upper;
    } else {
      problem.u_lower[ui] = bounds.lower;
      problem.u_upper[ui] = bounds.upper;
    }
  }
  // Start and goal inside the bounds: named where the bound was written.
  for (const auto& [name, bounds] : spec.bounds) {
    const int qi = index_of(coordinates, name);
    if (qi < 0) continue;
    if (problem.q_start[qi] < bounds.lower || problem.q_start[qi] > bounds.upper)
      spec.fail(bounds.where, "the start " + name + " = " + format_number(problem.q_start[qi]) + " is outside its bounds");
    if (problem.q_goal_given[static_cast<std::size_t>(qi)] &&
        (problem.q_goal[qi] < bounds.lower || problem.q_goal[qi] > bounds.upper))
      spec.fail(bounds.where, "the goal " + name + " = " + format_number(problem.q_goal[qi]) + " is outside its bounds");
  }

  // The start — and a goal that names every coordinate — must be states the model is defined at,
  // as `run` requires of its start: bad input (exit 2), not a failure of the optimizer that meets it
  // (Ipopt stops at an invalid number, exit 3).
  check_state(problem_data, problem.q_start, problem.v_start, spec, "[start]");
  if (std::all_of(problem.q_goal_given.begin(), problem.q_goal_given.end(), [](bool given) { return given; })) {
    Vector v_goal = Vector::Zero(n);
    for (int i = 0; i < n; ++i)
      if (problem.v_goal_given[static_cast<std::size_t>(i)]) v_goal[i] = problem.v_goal[i];
    check_state(problem_data, problem.q_goal, v_goal, spec, "[goal]");
  }

  std::optional<kernel::KernelDmocTranscription> program;
  try {
    program.emplace(model, rule.dmoc, problem);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(spec.file + ": " + e.what());
  }
  const double h = program->step();
  if (spec.simulation_guess) {
    std::vector<Vector> zero(static_cast<std::size_t>(spec.steps), Vector::Zero(m));
    for (Vector& u : zero)
      for (int i = 0; i < m; ++i) u[i] = std::clamp(0.0, problem.u_lower[i], problem.u_upper[i]);
    try {
      const std::vector<Vector> q = simulate(model, rule, problem.q_start, problem.v_start, h, zero);
      program->set_initial_guess(q, zero, (q[static_cast<std::size_t>(spec.steps)] - q[static_cast<std::size_t>(spec.steps) - 1]) / h);
    } catch (const NumericalFailure& e) {
      throw NumericalFailure(spec.file + ": initial_guess = \"simulation\": the forward simulation failed: " + e.what());
    }
  }

  const auto started = std::chrono::steady_clock::now();
  optimal::NlpSolution solution = optimal::solve_with_ipopt(
      *program, {.hessian = spec.hessian, .tolerance = spec.tolerance, .max_iterations = spec.max_iterations,
                 .print_level = spec.print_level, .on_iteration = spec.on_iteration});
  const double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!solution.converged) {
    if (solution.infeasible)
      throw NumericalFailure(spec.file + ": no feasible motion found (Ipopt: " + solution.status +
                             "): the goal may be unreachable in the horizon within the bounds");
    throw NumericalFailure(spec.file + ": the optimizer did not converge (Ipopt: " + solution.status + ", " +
                           std::to_string(solution.iterations) + " iterations, constraint violation " +
                           format_number(solution.constraint_violation) + ")");
  }

  OptimizeOutcome out;
  out.method = spec.method;
  out.h = h;
  out.steps = spec.steps;
  out.coordinates = coordinates;
  out.controls = controls;
  std::vector<Vector> q(static_cast<std::size_t>(spec.steps) + 1);
  std::vector<Vector> u(static_cast<std::size_t>(spec.steps));
  for (int k = 0; k <= spec.steps; ++k) {
    q[static_cast<std::size_t>(k)] = solution.x.segment(program->q_index(k), n);
    out.t.push_back(k * h);
    out.q.emplace_back(q[static_cast<std::size_t>(k)].data(), q[static_cast<std::size_t>(k)].data() + n);
  }
  for (int k = 0; k < spec.steps; ++k) {
    u[static_cast<std::size_t>(k)] = solution.x.segment(program->u_index(k), m);
    out.u.emplace_back(u[static_cast<std::size_t>(k)].data(), u[static_cast<std::size_t>(k)].data() + m);
  }
  out.energy = program->energies(solution.x);
  std::string replay_failure;
  try {
    const std::vector<Vector> replay = simulate(model, rule, problem.q_start, problem.v_start, h, u);
    for (std::size_t k = 0; k < q.size(); ++k)
      out.resimulation_error = std::max(out.resimulation_error, (replay[k] - q[k]).lpNorm<Eigen::Infinity>());
  } catch (const NumericalFailure& e) {
    out.resimulation_error = std::numeric_limits<double>::infinity();
    replay_failure = e.what();
  }
  // A converged program whose controls do not reproduce its motion is no answer: the forward VI
  // found another root of the discrete equations (or none), so the "optimal" motion is not what
  // these controls do. Refused rather than reported as converged.
  double scale = 1.0;
  for (const Vector& qk : q) scale = std::max(scale, qk.lpNorm<Eigen::Infinity>());
  if (!replay_failure.empty())
    throw NumericalFailure(spec.file + ": the optimizer converged, but its controls replayed by the forward VI from the "
                           "start do not give its motion (" + replay_failure + "): the optimal motion is not a motion "
                           "these controls produce at this step; try more steps or another initial_guess");
  if (!(out.resimulation_error <= spec.resimulation_tolerance * scale))
    throw NumericalFailure(spec.file + ": the optimizer converged, but its controls replayed by the forward VI from the "
                           "start miss its motion by " + format_number(out.resimulation_error, 3) + " (more than " +
                           "[solver] resimulation_tolerance = " + format_number(spec.resimulation_tolerance, 3) +
                           " x " + format_number(scale, 3) + "): the discrete equations have another solution nearby; "
                           "try more steps or another initial_guess");
  solution.x.resize(0);
  solution.multipliers.resize(0);
  out.solution = std::move(solution);
  out.cpu_s = cpu_s;
  return out;
}

}  // namespace mechint::app
