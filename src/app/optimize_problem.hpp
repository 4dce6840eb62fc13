#pragma once
/// \file
/// `mechint optimize` for one system's problem type: gives the names of an optimal control problem
/// file (app/optimal_control_spec.hpp) their meaning on the system's coordinates and controls, builds
/// the DMOC program (mechint/optimal/dmoc.hpp) with the chosen discrete Lagrangian, solves it with
/// Ipopt and re-simulates the optimal controls with the forced VI. Instantiated once per system by
/// make_system_entry (app/system_entry.hpp); a system without controls refuses with one line.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "app/methods.hpp"
#include "app/optimal_control_spec.hpp"
#include "app/problem.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/integrate/variational_integrator.hpp"
#include "mechint/optimal/dmoc.hpp"
#include "model_file/diagnostics.hpp"

namespace mechint::app {

namespace optimize_detail {

inline int index_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

/// The coordinate a [start]/[goal] name sets, and whether it is its velocity (NAME_dot).
struct StateName {
  int coordinate = -1;
  bool velocity = false;
};

inline StateName state_name(const OptimalControlSpec& spec, const std::vector<std::string>& coordinates,
                            const std::string& table, const std::string& name, model_file::SourcePosition where) {
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

/// The forced VI of the same discrete Lagrangian run from the start under `controls`, one per step:
/// the configurations at the N+1 nodes. Throws what the integrator throws.
template <class System>
std::vector<VecD<System::kDim>> simulate(const System& system, const VecD<System::kDim>& q0, const VecD<System::kDim>& v0,
                                         double h, const std::vector<VecD<System::kNumControls>>& controls) {
  VariationalIntegrator integrator(system, h);
  integrator.start_from_velocity(q0, v0);
  std::vector<VecD<System::kDim>> q{q0};
  for (const auto& u : controls) {
    integrator.set_control(u);
    integrator.step();
    q.push_back(integrator.q());
  }
  return q;
}

/// Refuses (InvalidInput naming `table`) a state (q, v) of the problem's model where its
/// Lagrangian, energy or their derivatives are not finite or its kinetic energy is degenerate.
template <class P, class Vector>
void check_state(const P& problem_data, const Vector& q, const Vector& v, const OptimalControlSpec& spec,
                 const std::string& table) {
  P state = problem_data;
  state.q0 = q;
  state.initial = InitialData::kVelocity;
  state.initial_data = v;
  try {
    check_start(state);
  } catch (const InvalidStart& e) {
    std::string what = e.what();
    const std::string at_start = " at the start";
    if (const auto at = what.find(at_start); at != std::string::npos) what.replace(at, at_start.size(), " there");
    throw InvalidInput(spec.file + ": " + table + ": " + what);
  }
}

template <class Rule, class P>
OptimizeOutcome solve(const P& problem_data, const OptimalControlSpec& spec, const std::vector<std::string>& controls) {
  using Model = typename P::Model;
  using System = DiscreteSystem<Model, Rule>;
  constexpr int n = Model::kDim;
  constexpr int m = kModelNumControls<Model>;
  const std::vector<std::string>& coordinates = problem_data.labels.coordinates;

  optimal::OptimalControlProblem<n, m> problem;
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
    (s.velocity ? problem.v_goal_given : problem.q_goal_given)[s.coordinate] = true;
  }
  for (const auto& [name, bounds] : spec.bounds) {
    const int qi = index_of(coordinates, name), ui = index_of(controls, name);
    if (qi < 0 && ui < 0) {
      std::vector<std::string> known = coordinates;
      known.insert(known.end(), controls.begin(), controls.end());
      spec.fail(bounds.where, "unknown name " + quote_for_message(name) + " in [bounds]" +
                                  model_file::did_you_mean(name, known) +
                                  " (known: " + model_file::join_names(known) + ")");
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
      spec.fail(bounds.where, "the start " + name + " = " + format_number(problem.q_start[qi]) +
                                  " is outside its bounds");
    if (problem.q_goal_given[qi] && (problem.q_goal[qi] < bounds.lower || problem.q_goal[qi] > bounds.upper))
      spec.fail(bounds.where, "the goal " + name + " = " + format_number(problem.q_goal[qi]) +
                                  " is outside its bounds");
  }

  // The start — and a goal that names every coordinate — must be states the model is defined at,
  // as `run` requires of its start (check_start, app/methods.hpp): bad input (exit 2), not a failure
  // of the optimizer that meets it (Ipopt stops at an invalid number, exit 3).
  check_state(problem_data, problem.q_start, problem.v_start, spec, "[start]");
  if (problem.q_goal_given.all()) {
    VecD<n> v_goal = VecD<n>::Zero();
    for (int i = 0; i < n; ++i)
      if (problem.v_goal_given[i]) v_goal[i] = problem.v_goal[i];
    check_state(problem_data, problem.q_goal, v_goal, spec, "[goal]");
  }

  const System system(problem_data.model);
  std::optional<optimal::DmocTranscription<System>> program;
  try {
    program.emplace(system, problem);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(spec.file + ": " + e.what());
  }
  const double h = program->step();
  if (spec.simulation_guess) {
    std::vector<VecD<m>> zero(spec.steps, VecD<m>::Zero());
    for (auto& u : zero)
      for (int i = 0; i < m; ++i) u[i] = std::clamp(0.0, problem.u_lower[i], problem.u_upper[i]);
    try {
      const auto q = simulate(system, problem.q_start, problem.v_start, h, zero);
      program->set_initial_guess(q, zero, (q[spec.steps] - q[spec.steps - 1]) / h);
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
  out.method = std::string(Rule::kName);
  out.h = h;
  out.steps = spec.steps;
  out.coordinates = coordinates;
  out.controls = controls;
  std::vector<VecD<n>> q(spec.steps + 1);
  std::vector<VecD<m>> u(spec.steps);
  for (int k = 0; k <= spec.steps; ++k) {
    q[k] = program->q_at(solution.x, k);
    out.t.push_back(k * h);
    out.q.emplace_back(q[k].data(), q[k].data() + n);
  }
  for (int k = 0; k < spec.steps; ++k) {
    u[k] = program->u_at(solution.x, k);
    out.u.emplace_back(u[k].data(), u[k].data() + m);
  }
  out.energy = program->energies(solution.x);
  std::string replay_failure;
  try {
    const auto replay = simulate(system, problem.q_start, problem.v_start, h, u);
    for (int k = 0; k <= spec.steps; ++k)
      out.resimulation_error = std::max(out.resimulation_error, (replay[k] - q[k]).template lpNorm<Eigen::Infinity>());
  } catch (const NumericalFailure& e) {
    out.resimulation_error = std::numeric_limits<double>::infinity();
    replay_failure = e.what();
  }
  // A converged program whose controls do not reproduce its motion is no answer: the forward VI
  // found another root of the discrete equations (or none), so the "optimal" motion is not what
  // these controls do. Refused rather than reported as converged.
  double scale = 1.0;
  for (const auto& qk : q) scale = std::max(scale, qk.template lpNorm<Eigen::Infinity>());
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

}  // namespace optimize_detail

/// Solves `spec` on `problem` (the system's model, coordinate names) whose controls are named
/// `controls`. Throws InvalidInput for a system without controls, with constraints or in a chart, an
/// unknown name, empty bounds, a start or goal outside them; NumericalFailure when Ipopt fails.
template <class P>
OptimizeOutcome optimize_problem(const P& problem, const OptimalControlSpec& spec,
                                 const std::vector<std::string>& controls) {
  if constexpr (!P::kControlled) {
    (void)problem, (void)controls;
    spec.fail(spec.model_where, "the system has no control inputs: there is nothing to optimize");
  } else if constexpr (P::kCharted || P::Model::kNumConstraints > 0) {
    (void)problem, (void)controls;
    spec.fail(spec.model_where, "optimal control of a system with holonomic constraints is not supported");
  } else {
    if (spec.method == MidpointRule::kName) return optimize_detail::solve<MidpointRule>(problem, spec, controls);
    if (spec.method == TrapezoidRule::kName) return optimize_detail::solve<TrapezoidRule>(problem, spec, controls);
    spec.fail(spec.method_where, "method " + quote_for_message(spec.method) +
                                     " is not offered for optimal control (known: vi-midpoint, vi-trapezoid)");
  }
}

}  // namespace mechint::app
