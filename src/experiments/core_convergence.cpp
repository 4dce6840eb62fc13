// `mechint reproduce core-convergence`: the properties every variational integrator must show,
// measured on the planar Kepler problem (eccentricity 0.5, closed-form solution as the standard):
// the order of convergence of each discrete Lagrangian, exact discrete angular momentum, bounded
// energy error and a symplectic one-step map.
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/analysis/symplecticity.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/model/legendre.hpp"
#include "mechint/systems/kepler.hpp"

namespace mechint::experiments {
namespace core_convergence_experiment {

using systems::Kepler;
constexpr double kMu = 1.0, kA = 1.0, kE = 0.5;
const double kPeriod = 2.0 * M_PI;

struct RuleResult {
  std::string method;
  std::vector<double> h, position_error, energy_error, momentum_drift, cpu_s;
  double order = 0, symplecticity_defect = 0;
};

/// The integrator `mechint run kepler --method <Rule>` takes, on the model's kernels (which supply
/// each rule's discrete Lagrangian by AD): the kernel variational integrator, but for the trapezoid
/// rule on this separable model the two-stage Lobatto rule, whose steps are the explicit
/// Störmer–Verlet ones (src/methods/variational_rules.cpp, kernel/separable.hpp).
class RuleIntegrator {
 public:
  RuleIntegrator(const kernel::KernelModel& kernels, kernel::Rule rule, double h) {
    if (rule == kernel::Rule::kTrapezoid)
      explicit_.emplace(kernels, kernel::lobatto_tableau(2), h);
    else
      implicit_.emplace(kernels, rule, h);
  }
  template <class F>
  decltype(auto) visit(F&& f) {
    return explicit_ ? f(*explicit_) : f(*implicit_);
  }

 private:
  std::optional<kernel::KernelGalerkinIntegrator> explicit_;
  std::optional<kernel::KernelVariationalIntegrator> implicit_;
};

/// Each rule's errors against the closed form over step sizes, and the symplecticity of its step map
/// from the rule's discrete Lagrangian (analysis/symplecticity.hpp).
template <class Rule>
RuleResult measure(const kernel::KernelModel& kernels, kernel::Rule rule, const std::vector<int>& steps_per_period,
                   int periods) {
  RuleResult r;
  r.method = std::string(Rule::kName);
  using S = DiscreteSystem<Kepler, Rule>;
  VecD<2> q0, v0;
  Kepler::pericentre_start(kMu, kA, kE, q0, v0);
  const double e0 = energy(Kepler{kMu}, q0, v0);
  for (int s : steps_per_period) {
    RuleIntegrator stepper(kernels, rule, kPeriod / s);
    double pos = 0, en = 0, mom = 0;
    double cpu_s = 0;
    stepper.visit([&](auto& integ) {
      integ.start_from_velocity(kernel::Vector(q0), kernel::Vector(v0));
      const double j0 = integ.momentum(0);
      const auto t0 = std::chrono::steady_clock::now();
      const OutputSchedule every_step{.h = kPeriod / s, .t_end = periods * kPeriod, .output_every = 0.0};
      integrate(integ, every_step, [&](const auto& state) {
        pos = std::max(pos, (state.q() - Kepler::exact_position(kMu, kA, kE, state.time())).norm());
        en = std::max(en, std::abs(state.energy() - e0));
        mom = std::max(mom, std::abs(state.momentum(0) - j0) / std::abs(j0));
      });
      cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
    r.cpu_s.push_back(cpu_s);
    r.h.push_back(kPeriod / s);
    r.position_error.push_back(pos);
    r.energy_error.push_back(en);
    r.momentum_drift.push_back(mom);
  }
  r.order = convergence_order(r.h, r.position_error);
  // Symplecticity of the step map at a large step (20 per period), near pericentre.
  RuleIntegrator stepper(kernels, rule, kPeriod / 20);
  const VecD<2> q1 = stepper.visit([&](auto& integ) {
    integ.start_from_velocity(kernel::Vector(q0), kernel::Vector(v0));
    integ.step();
    return VecD<2>(integ.q());
  });
  r.symplecticity_defect = symplecticity_defect<2>(one_step_map_jacobian(S(Kepler{kMu}), q0, q1, kPeriod / 20));
  return r;
}

void run(const app::ExperimentContext& ctx) {
  std::vector<RuleResult> results;
  ctx.log << "  midpoint, trapezoid sweeps" << std::endl;
  const auto kernels = kernel::ModelAdapter<Kepler>::kernels_for_runs(Kepler{kMu});
  results.push_back(measure<MidpointRule>(*kernels, kernel::Rule::kMidpoint, {200, 400, 800, 1600, 3200}, 10));
  results.push_back(measure<TrapezoidRule>(*kernels, kernel::Rule::kTrapezoid, {200, 400, 800, 1600, 3200}, 10));
  ctx.log << "  first-order sweep" << std::endl;
  results.push_back(measure<FirstOrderRule>(*kernels, kernel::Rule::kFirstOrder, {2000, 4000, 8000, 16000, 32000}, 10));

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

}  // namespace core_convergence_experiment

app::ExperimentEntry core_convergence_entry() {
  return {"core-convergence",
          "Kepler (e = 0.5): order of each discrete Lagrangian, exact momentum, bounded energy, symplecticity",
          core_convergence_experiment::run};
}

}  // namespace mechint::experiments
