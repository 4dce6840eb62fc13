// `mechint reproduce optimal-control`: DMOC (004 §I and §V: "every VI naturally extends to a direct
// method for optimal control") on three problems — the minimum-effort pendulum swing-up, a cart-pole
// swing-up with bounded force and travel, and a low-thrust orbit raise — each solved with the exact
// Hessian of the Lagrangian and with Ipopt's limited-memory approximation, and the swing-up's cost
// against the number of steps. The problems are those of examples/problems/ (docs/optimal-control.md).
#include <cmath>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/optimal_control_file.hpp"
#include "app/optimize.hpp"
#include "app/output.hpp"
#include "experiments/experiments.hpp"
#include "mechint/core/format.hpp"

namespace mechint::experiments {
namespace optimal_control_experiment {

struct NamedProblem {
  const char* name;
  const char* summary;
  const char* text;  ///< the problem file
};

const NamedProblem kProblems[] = {
    {"pendulum-swing-up", "pendulum from hanging at rest to upright at rest in 3 s, torque at the pivot",
     R"(model = "damped-pendulum"
horizon = 3.0
steps = 150
[parameters]
c = 0.0
[start]
th = 0.0
[goal]
th = 3.141592653589793
th_dot = 0.0
)"},
    {"cart-pole-swing-up", "cart-pole from hanging to upright at rest in 2.5 s, |u| <= 20, |x| <= 1",
     R"(model = "cart-pole"
horizon = 2.5
steps = 125
[goal]
x = 0.0
th = 3.141592653589793
x_dot = 0.0
th_dot = 0.0
[bounds]
u1 = [-20.0, 20.0]
x = [-1.0, 1.0]
)"},
    {"orbit-raise", "circular orbit r = 1 to r = 1.5, 5 rad further round, in T = 7, thrust acceleration <= 0.1",
     R"(model = "low-thrust-spacecraft"
horizon = 7.0
steps = 200
[start]
x = 1.0
y_dot = 1.0
[goal]
x = 0.4254932781948394
y = -1.4383864119947076
x_dot = 0.7829583916310523
y_dot = 0.23160920456921077
[bounds]
u1 = [-0.1, 0.1]
u2 = [-0.1, 0.1]
[solver]
initial_guess = "simulation"
)"},
};

nlohmann::ordered_json row(const std::string& problem, const app::OptimalControlSpec& spec,
                           const app::OptimizeOutcome& o) {
  nlohmann::ordered_json r;
  r["problem"] = problem;
  r["steps"] = o.steps;
  r["h"] = o.h;
  r["hessian"] = spec.hessian == optimal::HessianMode::kExact ? "exact" : "limited-memory";
  r["cost"] = o.solution.objective;
  r["converged"] = o.solution.converged;
  r["iterations"] = o.solution.iterations;
  r["constraint_violation"] = o.solution.constraint_violation;
  r["resimulation_error"] = o.resimulation_error;
  r["cpu_s"] = o.cpu_s;
  return r;
}

void run(const app::ExperimentContext& ctx) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::ostringstream report;
  report << "# Optimal control by DMOC\n\n"
            "004 §I and §V name DMOC (discrete mechanics and optimal control) as the extension of every "
            "variational integrator to optimal control: the forced discrete Euler–Lagrange equations are the "
            "constraints of a nonlinear program over configurations and controls. Each problem below is "
            "solved by Ipopt with exact first derivatives, once with the exact Hessian of the Lagrangian and "
            "once with Ipopt's limited-memory (L-BFGS) approximation (docs/optimal-control.md).\n\n"
            "| problem | Hessian | N | cost | iterations | solve s | re-simulation error |\n"
            "|---|---|---|---|---|---|---|\n";
  // Every solve counted on the progress line: each problem with both Hessians, then the swing-up at
  // each number of steps.
  constexpr int kConvergenceSteps[] = {25, 50, 100, 200, 400};
  ctx.progress.plan(static_cast<double>(2 * std::size(kProblems) + std::size(kConvergenceSteps)), "solves");
  for (const auto& p : kProblems) {
    ctx.log << "  " << p.name << "\n";
    for (const auto hessian : {optimal::HessianMode::kExact, optimal::HessianMode::kLimitedMemory}) {
      app::OptimalControlSpec spec = app::parse_optimal_control_text(p.text, std::string(p.name) + ".toml");
      spec.hessian = hessian;
      const app::OptimizeOutcome o = app::solve_optimal_control(spec);
      ctx.progress.advance();
      rows.push_back(row(p.name, spec, o));
      report << "| " << p.name << " | " << rows.back()["hessian"].get<std::string>() << " | " << o.steps << " | "
             << format_number(o.solution.objective, 8) << " | " << o.solution.iterations << " | "
             << format_number(o.cpu_s, 3) << " | " << format_number(o.resimulation_error, 2) << " |\n";
      if (hessian == optimal::HessianMode::kExact) {
        const auto dir = ctx.out_dir / p.name;
        std::filesystem::create_directories(dir);
        app::write_optimize_files(dir, spec, o, ctx.log);
      }
    }
  }

  // The swing-up's cost against N: DMOC's midpoint rule converges at order 2.
  report << "\n## Pendulum swing-up: cost against the number of steps\n\n"
            "The test suite's independent reference (Pontryagin's conditions by multiple shooting, "
            "tests/swing_up_reference.hpp) is J* = 36.640289062391.\n\n| N | cost | cost − J* |\n|---|---|---|\n";
  constexpr double kReference = 36.640289062391;
  for (int steps : kConvergenceSteps) {
    app::OptimalControlSpec spec = app::parse_optimal_control_text(kProblems[0].text, "pendulum-swing-up.toml");
    spec.steps = steps;
    const app::OptimizeOutcome o = app::solve_optimal_control(spec);
    ctx.progress.advance();
    auto r = row("pendulum-swing-up-convergence", spec, o);
    r["cost_minus_reference"] = o.solution.objective - kReference;
    rows.push_back(r);
    report << "| " << steps << " | " << format_number(o.solution.objective, 12) << " | "
           << format_number(o.solution.objective - kReference, 3) << " |\n";
  }
  ctx.progress.clear();
  report << "\n";
  for (const auto& p : kProblems)
    report << "### " << p.name << "\n\n" << p.summary << ".\n\n![" << p.name << "](" << p.name
           << "/trajectory.png)\n\n";
  app::write_text_atomically((ctx.out_dir / "results.json").string(), rows.dump(2) + "\n");
  app::write_text_atomically((ctx.out_dir / "report.md").string(), report.str());
}

}  // namespace optimal_control_experiment

app::ExperimentEntry optimal_control_entry() {
  return {"optimal-control",
          "004 §V: DMOC on a pendulum swing-up, a cart-pole swing-up and a low-thrust orbit raise (Ipopt, exact "
          "Hessian against L-BFGS)",
          optimal_control_experiment::run};
}

}  // namespace mechint::experiments
