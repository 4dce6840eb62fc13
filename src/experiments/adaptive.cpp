// `mechint reproduce adaptive`: variable time steps that keep the structure (DESIGN §10, issue of
// 000 §6's "variable time steps"). Work against precision of the fixed-step variational rules, the
// same rules with adapt=sundman, dopri5 and rk78, on eccentric Kepler orbits (e = 0.9 and 0.99,
// Kepler's exact solution as the standard) and Arenstorf's periodic orbit of the restricted
// three-body problem (its start after one period, known to 30 digits, as the standard); the orders
// measured; the CPU time of the fixed step against adapt=sundman at equal error; and the energy over
// 10⁴ orbits of e = 0.99 (adapt=sundman against dopri5).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/energy_step_integrator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/model_adapter.hpp"
#include "kernel/sundman_integrator.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint::experiments {
namespace adaptive_experiment {

using kernel::Vector;

struct Problem {
  std::string name;
  std::shared_ptr<const kernel::KernelModel> model;
  Vector q0, v0;
  double t_end;
  Vector q_ref;                        ///< q at t_end
  std::vector<double> fixed_steps;     ///< numbers of fixed steps over [0, t_end] (midpoint; ×1/4 for order 4)
  std::vector<double> fictive_steps;   ///< adapt=sundman's fictive h (midpoint; ×4 for order 4)
};

struct Row {
  std::string problem, method;
  double parameter, error, cpu_s;
  long steps;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

kernel::GalerkinTableau tableau_of(int order) { return kernel::gauss_tableau(order / 2); }
std::string rule_name(int order) { return order == 2 ? "vi-midpoint" : "vi-gauss" + std::to_string(order); }

Row fixed_step(const Problem& p, int order, long steps) {
  const auto t0 = std::chrono::steady_clock::now();
  kernel::KernelGalerkinIntegrator vi(*p.model, tableau_of(order), p.t_end / static_cast<double>(steps));
  vi.start_from_velocity(p.q0, p.v0);
  for (long i = 0; i < steps; ++i) vi.step();
  return {p.name, rule_name(order), p.t_end / static_cast<double>(steps), (vi.q() - p.q_ref).norm(), seconds_since(t0), steps};
}

Row sundman(const Problem& p, int order, double h) {
  const auto t0 = std::chrono::steady_clock::now();
  kernel::KernelSundmanIntegrator vi(p.model, tableau_of(order), h);
  vi.start_from_velocity(p.q0, p.v0);
  advance_to(vi, p.t_end);
  return {p.name, rule_name(order) + " adapt=sundman", h, (vi.q() - p.q_ref).norm(), seconds_since(t0), vi.step_index()};
}

/// adapt=energy (the midpoint rule's step solved for the discrete energy); `fallbacks` its steps that
/// could not keep it.
Row energy_steps(const Problem& p, double h, long& fallbacks) {
  const auto t0 = std::chrono::steady_clock::now();
  kernel::KernelEnergyStepIntegrator vi(*p.model, h);
  vi.start_from_velocity(p.q0, p.v0);
  advance_to(vi, p.t_end);
  fallbacks = vi.fallbacks();
  return {p.name, "vi-midpoint adapt=energy", h, (vi.q() - p.q_ref).norm(), seconds_since(t0), vi.step_index()};
}

template <class Stepper>
Row runge_kutta(const Problem& p, const std::string& method, double tol) {
  const auto t0 = std::chrono::steady_clock::now();
  const kernel::KernelEulerLagrangeOde ode(*p.model, nullptr);
  Stepper rk(ode, p.t_end / 1e4, RungeKuttaTolerances{tol, tol});
  rk.start_from_velocity(p.q0, p.v0);
  long steps = 0;
  while (rk.time() < p.t_end) rk.step_toward(p.t_end), ++steps;
  return {p.name, method, tol, (Vector(rk.q()) - p.q_ref).norm(), seconds_since(t0), steps};
}

Problem kepler_problem(double e, int periods, std::vector<double> fixed_per_period, std::vector<double> fictive) {
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, e, q0, v0);
  const double t_end = periods * 2 * M_PI;
  for (double& n : fixed_per_period) n *= periods;
  return {"kepler-e" + format_number(e),
          kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.0, 1.5}),
          q0,
          v0,
          t_end,
          Vector(systems::Kepler::exact_position(1.0, 1.0, e, t_end)),
          fixed_per_period,
          fictive};
}

/// Hairer, Nørsett & Wanner I, II.0 (the orbit of their Fig. 0.1).
Problem arenstorf_problem() {
  const Vector q0 = Eigen::Vector2d(0.994, 0.0);
  return {"arenstorf",
          kernel::ModelAdapter<systems::ThreeBody>::kernels(systems::ThreeBody{0.012277471, 1e-6, 1.5}),
          q0,
          Eigen::Vector2d(0.0, -2.00158510637908252240537862224),
          17.0652165601579625588917206249,
          q0,
          {2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 512000},
          {0.08, 0.04, 0.02, 0.01, 0.005, 0.0025}};
}

/// log(e1/e2)/log(r) over consecutive points, their median: the observed order (the coarsest,
/// pre-asymptotic and the finest, round-off points do not move a median of several).
double median_order(std::vector<std::pair<double, double>> points) {  // (step, error)
  std::sort(points.begin(), points.end());
  std::vector<double> orders;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (points[i].second > 0 && points[i - 1].second > 0 && points[i - 1].second > 1e-13)
      orders.push_back(std::log(points[i].second / points[i - 1].second) / std::log(points[i].first / points[i - 1].first));
  if (orders.empty()) return std::nan("");
  std::sort(orders.begin(), orders.end());
  return orders[orders.size() / 2];
}

/// The CPU time (and steps) the fixed-step curve needs for `error`, by log-log interpolation between
/// its two points that bracket it; NaN when none does.
std::pair<double, double> fixed_cost_at(const std::vector<Row>& fixed, double error) {
  for (std::size_t i = 1; i < fixed.size(); ++i) {
    const Row &a = fixed[i - 1], &b = fixed[i];
    if ((a.error - error) * (b.error - error) > 0 || a.error <= 0 || b.error <= 0) continue;
    const double w = std::log(error / a.error) / std::log(b.error / a.error);
    const auto interpolate = [w](double x, double y) { return std::exp(std::log(x) + w * (std::log(y) - std::log(x))); };
    return {interpolate(a.cpu_s, b.cpu_s), interpolate(static_cast<double>(a.steps), static_cast<double>(b.steps))};
  }
  return {std::nan(""), std::nan("")};
}

void run(const app::ExperimentContext& ctx) {
  std::vector<Problem> problems = {
      kepler_problem(0.9, 10, {1000, 2000, 4000, 8000, 16000, 32000, 64000}, {0.08, 0.04, 0.02, 0.01, 0.005, 0.0025}),
      kepler_problem(0.99, 1, {20000, 40000, 80000, 160000, 320000, 640000, 1280000},
                     {0.08, 0.04, 0.02, 0.01, 0.005, 0.0025}),
      arenstorf_problem()};
  std::vector<Row> rows;
  nlohmann::json summary;
  for (const Problem& p : problems) {
    ctx.log << "  " << p.name << std::endl;
    for (int order : {2, 4}) {
      const double scale = order == 2 ? 1.0 : 0.25;  // order 4 reaches the same errors with fewer steps
      std::vector<Row> fixed, adapted;
      for (double n : p.fixed_steps) {
        try {
          fixed.push_back(fixed_step(p, order, std::max(1L, std::lround(n * scale))));
        } catch (const NumericalFailure&) {  // a pericentre passage the fixed step does not resolve
        } catch (const DomainError&) {
        }
      }
      for (double h : p.fictive_steps) {
        try {
          adapted.push_back(sundman(p, order, h / scale));
        } catch (const NumericalFailure&) {  // a fictive step too coarse for Newton: no point
        } catch (const DomainError&) {
        }
      }
      // Fixed rows by increasing steps (decreasing error): the cost of an error by interpolation.
      std::vector<std::pair<double, double>> fixed_points, adapted_points;
      for (const Row& r : fixed) fixed_points.push_back({r.parameter, r.error});
      for (const Row& r : adapted) adapted_points.push_back({r.parameter, r.error});
      nlohmann::json s = {{"fixed_order", median_order(fixed_points)}, {"sundman_order", median_order(adapted_points)}};
      double best_time = 0.0, best_steps = 0.0;
      for (const Row& r : adapted) {
        const auto [cpu, steps] = fixed_cost_at(fixed, r.error);
        if (std::isfinite(cpu)) best_time = std::max(best_time, cpu / r.cpu_s);
        if (std::isfinite(steps)) best_steps = std::max(best_steps, steps / static_cast<double>(r.steps));
      }
      // Where no fixed step reaches even the coarsest Sundman run's error, the ratio is at least that
      // of the finest fixed step's cost to the coarsest Sundman run's.
      bool lower_bound = false;
      if (best_time == 0.0 && !fixed.empty() && !adapted.empty()) {
        const Row& finest = *std::min_element(fixed.begin(), fixed.end(), [](const Row& a, const Row& b) { return a.error < b.error; });
        const Row& coarsest = *std::max_element(adapted.begin(), adapted.end(), [](const Row& a, const Row& b) { return a.error < b.error; });
        if (finest.error > coarsest.error) {
          lower_bound = true;
          best_time = finest.cpu_s / coarsest.cpu_s;
          best_steps = static_cast<double>(finest.steps) / static_cast<double>(coarsest.steps);
        }
      }
      s["cpu_ratio_fixed_over_sundman"] = best_time;
      s["steps_ratio_fixed_over_sundman"] = best_steps;
      s["ratios_are_lower_bounds"] = lower_bound;
      summary[p.name][rule_name(order)] = s;
      rows.insert(rows.end(), fixed.begin(), fixed.end());
      rows.insert(rows.end(), adapted.begin(), adapted.end());
    }
    // adapt=energy from three nominal steps of the fixed-step midpoint rule about its middle: its steps
    // that could not keep the discrete energy are counted (docs/adaptive-steps.md, "Where it fails";
    // where they collapse, a run costs up to 64 times the nominal step's, hence not the finest).
    nlohmann::json energy_fallbacks = nlohmann::json::object();
    for (std::size_t i = p.fixed_steps.size() / 2 - 1; i < p.fixed_steps.size() / 2 + 2; ++i) {
      const double h = p.t_end / p.fixed_steps[i];
      long fallbacks = 0;
      try {
        rows.push_back(energy_steps(p, h, fallbacks));
        energy_fallbacks[format_number(h, 6)] = fallbacks;
      } catch (const NumericalFailure& e) {
        energy_fallbacks[format_number(h, 6)] = std::string("failed: ") + e.what();
      } catch (const DomainError& e) {
        energy_fallbacks[format_number(h, 6)] = std::string("failed: ") + e.what();
      }
    }
    summary[p.name]["vi-midpoint adapt=energy fallbacks"] = energy_fallbacks;
    for (double tol : {1e-6, 1e-8, 1e-10, 1e-12}) {
      rows.push_back(runge_kutta<kernel::KernelDopri5>(p, "dopri5", tol));
      rows.push_back(runge_kutta<kernel::KernelRk78>(p, "rk78", tol));
    }
  }

  // Energy over 10⁴ orbits of e = 0.99 at every step each method takes: the largest |E − E0| of each
  // orbit (at a fixed time, e.g. the end of each period, the sample would slide along the orbit as
  // its phase error grows, and the error of a Sundman step, ~ K/s, is largest at pericentre).
  ctx.log << "  energy over 1e4 orbits of e = 0.99" << std::endl;
  const int orbits = 10000;
  const Problem& eccentric = problems[1];
  std::ostringstream energy_csv;
  energy_csv << "method,orbit,energy_error\n";
  nlohmann::json energy;
  const auto track = [&](const std::string& method, auto& stepper) {
    const auto t0 = std::chrono::steady_clock::now();
    const double e0 = stepper.energy(), period = 2 * M_PI;
    std::vector<double> per_orbit(orbits, 0.0);
    long steps = 0;
    while (stepper.time() < orbits * period) {
      stepper.step_toward(1e300);  // its own steps, no rows
      ++steps;
      const auto k = static_cast<std::size_t>(stepper.time() / period);
      if (k < per_orbit.size()) per_orbit[k] = std::max(per_orbit[k], std::abs(stepper.energy() - e0));
    }
    double first = 0.0, last = 0.0;
    for (int k = 0; k < orbits; ++k) {
      if (k < orbits / 10) first = std::max(first, per_orbit[k]);
      if (k >= orbits - orbits / 10) last = std::max(last, per_orbit[k]);
      if (k % 10 == 9) {
        double window = 0.0;
        for (int i = k - 9; i <= k; ++i) window = std::max(window, per_orbit[i]);
        energy_csv << method << "," << k + 1 << "," << format_number(window, 6) << "\n";
      }
    }
    energy[method] = {{"first_tenth", first}, {"last_tenth", last}, {"cpu_s", seconds_since(t0)}, {"steps", steps}};
  };
  {
    kernel::KernelSundmanIntegrator vi(eccentric.model, kernel::gauss_tableau(2), 0.1);
    vi.start_from_velocity(eccentric.q0, eccentric.v0);
    track("vi-gauss4 adapt=sundman h=0.1", vi);
  }
  {
    const kernel::KernelEulerLagrangeOde ode(*eccentric.model, nullptr);
    kernel::KernelDopri5 rk(ode, 1e-3, RungeKuttaTolerances{1e-10, 1e-10});
    rk.start_from_velocity(eccentric.q0, eccentric.v0);
    track("dopri5 rtol=1e-10", rk);
  }

  nlohmann::json j;
  std::ostringstream csv, table;
  csv << "problem,method,h_or_tol,steps,error,cpu_s\n";
  table << "| problem | method | h or tol | steps | error at t_end | CPU s |\n|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    csv << r.problem << "," << r.method << "," << format_number(r.parameter, 17) << "," << r.steps << ","
        << format_number(r.error, 17) << "," << format_number(r.cpu_s, 6) << "\n";
    table << "| " << r.problem << " | " << r.method << " | " << format_number(r.parameter, 3) << " | " << r.steps
          << " | " << format_number(r.error, 3) << " | " << format_number(r.cpu_s, 3) << " |\n";
    j["rows"].push_back({{"problem", r.problem}, {"method", r.method}, {"h_or_tol", r.parameter}, {"steps", r.steps},
                         {"error", r.error}, {"cpu_s", r.cpu_s}});
  }
  j["summary"] = summary;
  j["energy_over_1e4_orbits"] = energy;

  std::ostringstream report;
  report << "# Variable time steps that keep the structure (adapt=sundman)\n\n"
            "Error in q at t_end against cost. Kepler e = 0.9 over 10 periods and e = 0.99 over one: the "
            "exact solution; Arenstorf's orbit (mu = 0.012277471) after its period 17.0652165601579625588917206249: "
            "its start. Fixed steps at several h; adapt=sundman at several fictive h (s = r^1.5; three-body: "
            "(r1^-2 + r2^-2)^-0.75); dopri5 and rk78 at rtol = atol = 1e-6 ... 1e-12. CPU times are of this "
            "machine and run: compare them within one run.\n\n"
            "## Orders and the cost of a fixed step at equal error\n\n"
            "| problem | rule | order, fixed step | order, adapt=sundman | CPU fixed / sundman | steps fixed / sundman |\n"
            "|---|---|---|---|---|---|\n";
  for (const auto& [problem, by_rule] : summary.items())
    for (const auto& [rule, s] : by_rule.items()) {
      if (!s.contains("sundman_order")) continue;  // adapt=energy's fallbacks: below
      const std::string bound = s["ratios_are_lower_bounds"].get<bool>() ? "> " : "";
      report << "| " << problem << " | " << rule << " | " << format_number(s["fixed_order"].get<double>(), 3) << " | "
             << format_number(s["sundman_order"].get<double>(), 3) << " | " << bound
             << format_number(s["cpu_ratio_fixed_over_sundman"].get<double>(), 3) << " | " << bound
             << format_number(s["steps_ratio_fixed_over_sundman"].get<double>(), 3) << " |\n";
    }
  report << "\nThe ratios are the largest over the adapt=sundman points whose error the fixed-step curve "
            "reaches (interpolated log-log between its two bracketing points); where it reaches none, a lower "
            "bound (> : the finest fixed step's cost over the coarsest Sundman run's, whose error is still smaller).\n\n"
         << "\nadapt=energy (vi-midpoint; the step solved for the discrete energy), steps that fell back to the "
            "previous size at each nominal h:\n\n| problem | h: fallbacks |\n|---|---|\n";
  for (const auto& [problem, by_rule] : summary.items()) {
    report << "| " << problem << " |";
    for (const auto& [h, fallbacks] : by_rule["vi-midpoint adapt=energy fallbacks"].items())
      report << " " << h << ": " << (fallbacks.is_string() ? fallbacks.get<std::string>() : std::to_string(fallbacks.get<long>())) << ";";
    report << " |\n";
  }
  report << "\n"
         << table.str()
         << "\n## Energy over 10^4 orbits of e = 0.99\n\n"
            "The largest abs(E - E0) at the steps each method takes, over the first and the last 1000 orbits.\n\n"
            "| method | first tenth | last tenth | steps | CPU s |\n|---|---|---|---|---|\n";
  for (const auto& [method, v] : energy.items())
    report << "| " << method << " | " << format_number(v["first_tenth"].get<double>(), 3) << " | "
           << format_number(v["last_tenth"].get<double>(), 3) << " | " << v["steps"].get<long>() << " | "
           << format_number(v["cpu_s"].get<double>(), 3) << " |\n";
  report << "\nBounded: the last tenth's largest error about the first's. A drift: several times it (dopri5's "
            "grows linearly with the number of orbits).\n";
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");
  app::write_text_atomically((ctx.out_dir / "work_precision.csv").string(), csv.str());
  app::write_text_atomically((ctx.out_dir / "energy.csv").string(), energy_csv.str());
  if (app::draw_figures("adaptive.py", ctx.out_dir, ctx.log))
    report << "\n![work against precision](work_precision.png)\n\n![energy over 1e4 orbits](energy.png)\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), report.str());
}

}  // namespace adaptive_experiment

app::ExperimentEntry adaptive_entry() {
  return {"adaptive",
          "variable steps that keep the structure: adapt=sundman against fixed steps, dopri5 and rk78 on Kepler "
          "e = 0.9, 0.99 and the Arenstorf orbit; energy over 1e4 orbits",
          adaptive_experiment::run};
}

}  // namespace mechint::experiments
