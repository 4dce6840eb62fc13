// The methods of a model with walls φ(q) ≥ 0 (004 §III; kernel/kernel_impact_driver.hpp): the
// impact driver on the flow of the trapezoid rule or of the generalized Störmer–Verlet method, from
// the canonical momenta at the start, with the impact laws MHC, CTEC and DTEC. A model whose walls
// this run switches off keeps these rows (the driver without impacts, whose flow may be composed);
// vi-trapezoid then takes the smooth rule's options too and runs as the smooth rule when it asks
// for what only that has.

#include <algorithm>

#include "kernel/kernel_impact_driver.hpp"
#include "methods/method_options.hpp"
#include "methods/shared_starts.hpp"
#include "methods/started_kernel_stepper.hpp"

namespace mechint::methods {
namespace {

template <bool kTrapezoid>
std::vector<ParameterSpec> options_of(const MethodStructure& s) {
  std::vector<ParameterSpec> options = impact_options();
  if (kTrapezoid && s.walls_switched_off) {
    // The smooth trapezoid rule's extras (compose is the impact rows' already).
    options.push_back(indicators_option());
    if (s.num_constraints == 0)
      for (auto& spec : adapt_options()) options.push_back(std::move(spec));
  }
  return options;
}

template <bool kTrapezoid>
std::unique_ptr<app::StartedStepper> start(const std::shared_ptr<KernelProblem>& problem, const ParameterValues& o,
                                           double h) {
  const kernel::KernelModel& model = *problem->model;
  const bool walls = model.num_unilateral() > 0;
  if (kTrapezoid && !walls && asks_for_smooth_rule(o))
    return start_variational_rule(problem, kernel::Rule::kTrapezoid, o, h);
  // 004 §III: the impact driver on the method's flow, from the canonical momenta at the start. A
  // composition is refused by the driver while the walls are on; without them it composes the flow.
  ImpactOptions impact = read_impact_options(o);
  impact.enabled = walls;
  auto driver = std::make_unique<kernel::KernelImpactDriver>(model, kTrapezoid ? kernel::Flow::kTrapezoid : kernel::Flow::kStormerVerlet,
                                                             h, impact);
  if (problem->p0)
    driver->start(problem->q0, *problem->p0);
  else
    driver->start_from_velocity(problem->q0, problem->qdot0);
  return erase(problem, std::move(driver), h);
}

template <bool kTrapezoid>
MethodRow row(std::string name, std::string summary) {
  return {.name = std::move(name),
          .summary = std::move(summary),
          .order = 2,
          .composable = true,
          .requirements = {.walls = MethodRequirements::Walls::kOnOrSwitchedOff, .forces = false},
          .options = &options_of<kTrapezoid>,
          .start = &start<kTrapezoid>};
}

}  // namespace

std::vector<MethodRow> impact_rows() {
  return {row<true>("vi-trapezoid",
                    "variational integrator, trapezoid discrete Lagrangian (004 eq. 16), order 2, in the impact driver "
                    "(004 sec. III); systems with walls"),
          row<false>("stormer-verlet",
                     "generalized Stormer-Verlet in Hamiltonian form (Lobatto IIIA-IIIB), order 2; systems with "
                     "impacts")};
}

}  // namespace mechint::methods
