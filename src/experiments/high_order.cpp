// `mechint reproduce high-order`: work–precision of the methods of order 4–8 (DESIGN §10; the
// Galerkin rules and the compositions of src/kernel/) against the second-order midpoint VI and the
// adaptive Runge–Kutta baselines at several tolerances, on the Kepler problem (e = 0.5 and 0.9, the
// closed-form orbit as the standard), the restricted three-body problem of 001 (rk78 at 1e−14 as the
// standard) and the double spherical pendulum (constrained: the Lobatto rules, the midpoint VI and
// energy-momentum with its compositions against the `dae` baseline (IDA) at several tolerances,
// vi-lobatto6 at a 16 times smaller step as the standard); then the energy error of each
// variational method over 10⁶ steps of the Kepler orbit at 50 steps per period (bounded, no drift).
#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_dae.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/core/format.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint::experiments {
namespace {

using kernel::Vector;

struct Problem {
  std::string name;
  std::shared_ptr<const kernel::KernelModel> model;
  Vector q0, v0;
  double t_end;
  std::function<Vector()> reference;  ///< q at t_end
  std::vector<double> steps_per_unit;  ///< the step sizes h = 1/steps_per_unit of the fixed-step methods
};

struct Row {
  std::string problem, method;
  double h_or_tol, error, cpu_s;
  long steps;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A variational method of the kernel boundary by name (the rows of app/kernel_methods.cpp).
std::unique_ptr<kernel::KernelGalerkinIntegrator> galerkin(const Problem& p, const std::string& method, double h) {
  const auto tableau = method == "vi-gauss4"     ? kernel::gauss_tableau(2)
                       : method == "vi-gauss6"   ? kernel::gauss_tableau(3)
                       : method == "vi-gauss8"   ? kernel::gauss_tableau(4)
                       : method == "vi-lobatto4" ? kernel::lobatto_tableau(3)
                       : method == "vi-lobatto6" ? kernel::lobatto_tableau(4)
                                                 : kernel::gauss_tableau(1);
  const auto composition = method.starts_with("compose=") ? kernel::composition_named(method.substr(8)) : kernel::Composition{};
  auto vi = std::make_unique<kernel::KernelGalerkinIntegrator>(*p.model, tableau, h, composition);
  vi->start_from_velocity(p.q0, p.v0);
  return vi;
}

Row fixed_step(const Problem& p, const std::string& method, double h, const Vector& q_ref) {
  const long steps = std::lround(p.t_end / h);
  h = p.t_end / static_cast<double>(steps);
  const auto t0 = std::chrono::steady_clock::now();
  Vector q;
  if (method.starts_with("energy-momentum")) {
    // "energy-momentum" or "energy-momentum compose=SCHEME" (003 §5–6; with constraints the
    // composition is of pairs of half steps, integrate/energy_momentum_composition.hpp).
    const auto at = method.find("compose=");
    StepCheckOptions check;
    check.enabled = false;
    kernel::KernelEnergyMomentumIntegrator em(
        *p.model, h, {}, check,
        at == std::string::npos ? std::vector<double>{} : kernel::composition_named(method.substr(at + 8)).gammas);
    em.start_from_velocity(p.q0, p.v0);
    for (long i = 0; i < steps; ++i) em.step();
    q = em.q();
  } else if (method == "vi-midpoint") {
    StepCheckOptions check;
    check.enabled = false;  // the cost of the rule itself
    kernel::KernelVariationalIntegrator vi(*p.model, kernel::Rule::kMidpoint, h, {}, DelForm::kMomentum, check);
    vi.start_from_velocity(p.q0, p.v0);
    for (long i = 0; i < steps; ++i) vi.step();
    q = vi.q();
  } else {
    auto vi = galerkin(p, method, h);
    for (long i = 0; i < steps; ++i) vi->step();
    q = vi->q();
  }
  return {p.name, method, h, (q - q_ref).norm(), seconds_since(t0), steps};
}

template <class Stepper>
Row adaptive(const Problem& p, const std::string& method, double tol, const Vector& q_ref) {
  const auto t0 = std::chrono::steady_clock::now();
  const kernel::KernelEulerLagrangeOde ode(*p.model, nullptr);
  Stepper rk(ode, p.t_end / 1000, RungeKuttaTolerances{tol, tol * 1e-2});
  rk.start_from_velocity(p.q0, p.v0);
  long steps = 0;
  while (rk.time() < p.t_end) rk.step_toward(p.t_end), ++steps;
  return {p.name, method, tol, (Vector(rk.q()) - q_ref).norm(), seconds_since(t0), steps};
}

/// The `dae` baseline (SUNDIALS IDA on the GGL form) at relative tolerance `tol` (absolute tol/100).
Row dae(const Problem& p, double tol, const Vector& q_ref) {
  const auto t0 = std::chrono::steady_clock::now();
  kernel::KernelDaeStepper ida(*p.model, p.t_end / 1000, kernel::KernelDaeStepper::Tolerances{tol, tol * 1e-2});
  ida.start_from_velocity(p.q0, p.v0);
  ida.step_toward(p.t_end);
  return {p.name, "dae", tol, (Vector(ida.q()) - q_ref).norm(), seconds_since(t0), ida.step_index()};
}

Problem kepler_problem(double e, int periods, std::vector<double> steps_per_period) {
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, e, q0, v0);
  const double period = 2 * M_PI, t_end = periods * period;
  for (double& s : steps_per_period) s /= period;
  return {"kepler-e" + format_number(e), kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.0}), q0, v0, t_end,
          [e, t_end] { return Vector(systems::Kepler::exact_position(1.0, 1.0, e, t_end)); }, steps_per_period};
}

Problem three_body_problem() {
  Problem p{"three-body", kernel::ModelAdapter<systems::ThreeBody>::kernels(systems::ThreeBody{}),
            Eigen::Vector2d(0.5, 0.0), Eigen::Vector2d(0.0, 0.9), 50.0, nullptr, {5, 10, 20, 40, 80, 160, 320}};
  p.reference = [p] {
    const kernel::KernelEulerLagrangeOde ode(*p.model, nullptr);
    kernel::KernelRk78 rk(ode, 0.01, RungeKuttaTolerances{1e-14, 1e-16});
    rk.start_from_velocity(p.q0, p.v0);
    while (rk.time() < p.t_end) rk.step_toward(p.t_end);
    return Vector(rk.q());
  };
  return p;
}

/// 003's pattern-1 start of the double spherical pendulum, z from the constraints.
Problem double_spherical_problem() {
  const systems::DoubleSphericalPendulum m;
  Vector q0(6), v0(6);
  q0 << 2.82, 0.025, 0.0, 5.085, 0.105, 0.0;
  q0[2] = -std::sqrt(m.l1 * m.l1 - q0[0] * q0[0] - q0[1] * q0[1]);
  q0[5] = q0[2] - std::sqrt(m.l2 * m.l2 - std::pow(q0[3] - q0[0], 2) - std::pow(q0[4] - q0[1], 2));
  v0 << 3.381, 2.506, 0.0, 2.497, 10.495, 0.0;
  v0[2] = -(q0[0] * v0[0] + q0[1] * v0[1]) / q0[2];
  v0[5] = v0[2] - ((q0[3] - q0[0]) * (v0[3] - v0[0]) + (q0[4] - q0[1]) * (v0[4] - v0[1])) / (q0[5] - q0[2]);
  Problem p{"double-spherical-pendulum", kernel::ModelAdapter<systems::DoubleSphericalPendulum>::kernels(m), q0, v0,
            5.0, nullptr, {10, 16, 25, 50, 100, 200, 400}};  // the coarse two: kahan-li8 reaches the reference's 3e-13 by h = 0.04
  p.reference = [p] {
    const double h = 1.0 / (16 * 400);
    auto vi = galerkin(p, "vi-lobatto6", h);
    for (long i = 0, n = std::lround(p.t_end / h); i < n; ++i) vi->step();
    return Vector(vi->q());
  };
  return p;
}

void run(const app::ExperimentContext& ctx) {
  const std::vector<std::string> unconstrained = {"vi-midpoint", "vi-gauss4", "vi-gauss6", "vi-gauss8", "vi-lobatto4",
                                                  "vi-lobatto6", "compose=yoshida4", "compose=kahan-li6",
                                                  "compose=kahan-li8"};
  const std::vector<std::string> constrained = {"vi-midpoint",
                                                "vi-lobatto4",
                                                "vi-lobatto6",
                                                "energy-momentum",
                                                "energy-momentum compose=yoshida4",
                                                "energy-momentum compose=kahan-li6",
                                                "energy-momentum compose=kahan-li8"};
  std::vector<Problem> problems = {kepler_problem(0.5, 100, {25, 50, 100, 200, 400, 800}),
                                   kepler_problem(0.9, 100, {100, 200, 400, 800, 1600, 3200}), three_body_problem(),
                                   double_spherical_problem()};
  std::vector<Row> rows;
  for (const Problem& p : problems) {
    ctx.log << "  " << p.name << std::endl;
    const Vector q_ref = p.reference();
    const bool has_constraints = p.model->num_constraints() > 0;
    for (const std::string& method : has_constraints ? constrained : unconstrained)
      for (double per_unit : p.steps_per_unit) {
        try {
          rows.push_back(fixed_step(p, method, 1.0 / per_unit, q_ref));
        } catch (const NumericalFailure&) {
          // A step too large for Newton at this h: no point on the diagram.
        } catch (const DomainError&) {
          // A pericentre passage the step does not resolve (Kepler's validate_step): no point either.
        }
      }
    if (!has_constraints)
      for (double tol : {1e-6, 1e-8, 1e-10, 1e-12, 1e-13}) {
        rows.push_back(adaptive<kernel::KernelDopri5>(p, "dopri5", tol, q_ref));
        rows.push_back(adaptive<kernel::KernelRk78>(p, "rk78", tol, q_ref));
      }
    else
      for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) rows.push_back(dae(p, tol, q_ref));
  }

  // Energy over 10⁶ steps of the e = 0.5 orbit at 50 steps per period: the largest error over the
  // first and the last tenth (a drift would make the second about ten times the first).
  ctx.log << "  energy over 1e6 steps" << std::endl;
  const Problem kepler = problems[0];
  const long long_steps = 1000000;
  const double h = 2 * M_PI / 50;
  std::ostringstream energy_csv;
  energy_csv << "method,step,energy_error\n";
  nlohmann::json energy_json;
  for (const std::string& method : unconstrained) {
    if (method == "vi-midpoint") continue;  // the second-order baseline of core-convergence
    auto vi = galerkin(kepler, method, h);
    const double e0 = vi->energy();
    double first = 0.0, last = 0.0;
    for (long i = 1; i <= long_steps; ++i) {
      vi->step();
      if (i % 1000 != 0) continue;
      const double err = std::abs(vi->energy() - e0);
      if (i <= long_steps / 10) first = std::max(first, err);
      if (i > long_steps - long_steps / 10) last = std::max(last, err);
      energy_csv << method << "," << i << "," << err << "\n";
    }
    energy_json[method] = {{"first_tenth", first}, {"last_tenth", last}};
  }

  nlohmann::json j;
  std::ostringstream csv, table;
  csv << "problem,method,h_or_tol,steps,error,cpu_s\n";
  table << "| problem | method | h or tol | steps | error at t_end | CPU s |\n|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    csv << r.problem << "," << r.method << "," << format_number(r.h_or_tol, 17) << "," << r.steps << ","
        << format_number(r.error, 17) << "," << format_number(r.cpu_s, 6) << "\n";
    table << "| " << r.problem << " | " << r.method << " | " << format_number(r.h_or_tol, 3) << " | " << r.steps
          << " | " << format_number(r.error, 3) << " | " << format_number(r.cpu_s, 3) << " |\n";
    j["rows"].push_back({{"problem", r.problem}, {"method", r.method}, {"h_or_tol", r.h_or_tol}, {"steps", r.steps},
                         {"error", r.error}, {"cpu_s", r.cpu_s}});
  }
  j["energy_over_1e6_steps"] = energy_json;
  std::ostringstream report;
  report << "# Methods of higher order: work against precision\n\n"
            "Error in q at t_end against CPU time. Kepler (100 periods): the closed-form orbit; three-body "
            "(t = 50): rk78 at rtol 1e-14; double spherical pendulum (t = 5): vi-lobatto6 at a 16 times "
            "smaller step. Fixed-step methods at several h, dopri5 and rk78 at rtol 1e-6 … 1e-13, on the "
            "constrained double spherical pendulum dae (IDA) at rtol 1e-4 … 1e-10 (atol = rtol/100); "
            "energy-momentum's compositions there are of pairs of half steps (docs/methods.md). CPU times are of this machine and run; compare them within one run.\n\n"
         << table.str()
         << "\n## Energy over 10^6 steps (Kepler e = 0.5, 50 steps per period)\n\n"
            "| method | max |E − E0|, first tenth | last tenth |\n|---|---|---|\n";
  for (const auto& [method, v] : energy_json.items())
    report << "| " << method << " | " << format_number(v["first_tenth"].get<double>(), 3) << " | "
           << format_number(v["last_tenth"].get<double>(), 3) << " |\n";
  report << "\nWithout drift, the last tenth's largest error is about the first's; a larger one is a drift or "
            "a slow oscillation of the energy error (kahan-li8 at this step has one of about 2.5e6 steps: "
            "docs/methods.md), which only a longer run tells apart.\n";
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");
  app::write_text_atomically((ctx.out_dir / "work_precision.csv").string(), csv.str());
  app::write_text_atomically((ctx.out_dir / "energy.csv").string(), energy_csv.str());
  if (app::draw_figures("high_order.py", ctx.out_dir, ctx.log))
    report << "\n![work against precision](work_precision.png)\n\n![energy over 1e6 steps](energy.png)\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), report.str());
}

}  // namespace

app::ExperimentEntry high_order_entry() {
  return {"high-order",
          "methods of order 4-8 (Galerkin, Lobatto, compositions) against dopri5/rk78: work-precision on Kepler, "
          "three-body, double spherical pendulum; energy over 1e6 steps",
          run};
}

}  // namespace mechint::experiments
