// `mechint reproduce core-convergence`: the properties every variational integrator must show,
// measured on the planar Kepler problem (eccentricity 0.5, closed-form solution as the standard):
// the order of convergence of each discrete Lagrangian, exact discrete angular momentum, bounded
// energy error and a symplectic one-step map.
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/mechint.hpp"
#include "mechint/systems/kepler.hpp"

namespace mechint::experiments {
namespace {

using systems::Kepler;
constexpr double kMu = 1.0, kA = 1.0, kE = 0.5;
const double kPeriod = 2.0 * M_PI;

struct RuleResult {
  std::string method;
  std::vector<double> h, position_error, energy_error, momentum_drift, cpu_s;
  double order = 0, symplecticity_defect = 0;
};

template <class Rule>
RuleResult measure(const std::vector<int>& steps_per_period, int periods) {
  RuleResult r;
  r.method = std::string(Rule::kName);
  using S = DiscreteSystem<Kepler, Rule>;
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, kA, kE, q0, v0);
  const double e0 = energy(Kepler{kMu}, q0, v0);
  for (int s : steps_per_period) {
    VariationalIntegrator integ(S(Kepler{kMu}), kPeriod / s);
    integ.start_from_velocity(q0, v0);
    const double j0 = integ.momentum(0);
    double pos = 0, en = 0, mom = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const OutputSchedule every_step{.h = kPeriod / s, .t_end = periods * kPeriod, .output_every = 0.0};
    integrate(integ, every_step, [&](const auto& state) {
      pos = std::max(pos, (state.q() - Kepler::exact_position(kMu, kA, kE, state.time())).norm());
      en = std::max(en, std::abs(state.energy() - e0));
      mom = std::max(mom, std::abs(state.momentum(0) - j0) / std::abs(j0));
    });
    r.cpu_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    r.h.push_back(kPeriod / s);
    r.position_error.push_back(pos);
    r.energy_error.push_back(en);
    r.momentum_drift.push_back(mom);
  }
  r.order = convergence_order(r.h, r.position_error);
  // Symplecticity of the step map at a large step (20 per period), near pericentre.
  VariationalIntegrator integ(S(Kepler{kMu}), kPeriod / 20);
  integ.start_from_velocity(q0, v0);
  integ.step();
  r.symplecticity_defect =
      symplecticity_defect<2>(one_step_map_jacobian(integ.system(), q0, integ.q(), kPeriod / 20));
  return r;
}

void run(const app::ExperimentContext& ctx) {
  std::vector<RuleResult> results;
  ctx.log << "  midpoint, trapezoid sweeps" << std::endl;
  results.push_back(measure<MidpointRule>({200, 400, 800, 1600, 3200}, 10));
  results.push_back(measure<TrapezoidRule>({200, 400, 800, 1600, 3200}, 10));
  ctx.log << "  first-order sweep" << std::endl;
  results.push_back(measure<FirstOrderRule>({2000, 4000, 8000, 16000, 32000}, 10));

  nlohmann::json j;
  j["system"] = "kepler";
  j["eccentricity"] = kE;
  j["periods"] = 10;
  std::ostringstream csv;
  csv << "method,h,position_error,energy_error,momentum_drift,cpu_s\n";
  std::ostringstream table;
  table << "| method | h | max position error | max energy error | momentum drift | cpu_s |\n"
           "|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    for (std::size_t i = 0; i < r.h.size(); ++i) {
      j["rows"].push_back({{"method", r.method}, {"h", r.h[i]}, {"position_error", r.position_error[i]},
                           {"energy_error", r.energy_error[i]}, {"momentum_drift", r.momentum_drift[i]},
                           {"cpu_s", r.cpu_s[i]}});
      csv << r.method << "," << r.h[i] << "," << r.position_error[i] << "," << r.energy_error[i] << ","
          << r.momentum_drift[i] << "," << r.cpu_s[i] << "\n";
      table << "| " << r.method << " | " << format_number(r.h[i], 4) << " | "
            << format_number(r.position_error[i], 3) << " | " << format_number(r.energy_error[i], 3)
            << " | " << format_number(r.momentum_drift[i], 2) << " | " << format_number(r.cpu_s[i], 3)
            << " |\n";
    }
    j["orders"][r.method] = r.order;
    j["symplecticity_defect"][r.method] = r.symplecticity_defect;
  }
  std::ostringstream report;
  report << "# Core convergence checks (Kepler, e = 0.5, 10 periods)\n\n"
            "The standard is the closed-form orbit (Kepler's equation). Errors are maxima over every step.\n\n"
         << table.str() << "\n| method | observed order | symplecticity defect at 20 steps/period |\n|---|---|---|\n";
  for (const auto& r : results)
    report << "| " << r.method << " | " << format_number(r.order, 4) << " | "
           << format_number(r.symplecticity_defect, 3) << " |\n";
  report << "\nExpected: order 2 for midpoint and trapezoid, 1 for the first-order rule; the discrete "
            "angular momentum constant to round-off at every step size; the energy error bounded and "
            "falling with the order of the method.\n";
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");
  app::write_text_atomically((ctx.out_dir / "convergence.csv").string(), csv.str());
  if (app::draw_figures("core_convergence.py", ctx.out_dir, ctx.log))
    report << "\n![errors against h](convergence.png)\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), report.str());
}

}  // namespace

app::ExperimentEntry core_convergence_entry() {
  return {"core-convergence",
          "Kepler (e = 0.5): order of each discrete Lagrangian, exact momentum, bounded energy, symplecticity",
          run};
}

}  // namespace mechint::experiments
