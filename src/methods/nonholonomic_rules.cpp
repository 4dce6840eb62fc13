// The discrete Lagrange–d'Alembert rules of a model with nonholonomic constraints a(q)·q̇ = 0
// (DESIGN §10; kernel/nonholonomic_integrator.hpp): the midpoint and trapezoid discrete Lagrangians
// with the constraints imposed at the step's midpoint velocity.

#include "kernel/nonholonomic_integrator.hpp"
#include "methods/method_options.hpp"
#include "methods/method_registry.hpp"
#include "methods/started_kernel_stepper.hpp"

namespace mechint::methods {
namespace {

/// The Newton options of the variational rows; their start, form and step-check options belong to
/// the holonomic DEL step and do not apply.
std::vector<ParameterSpec> options_of(const MethodStructure&) {
  std::vector<ParameterSpec> options;
  for (auto& spec : variational_options())
    if (spec.name == "newton" || spec.name == "newton_tol") options.push_back(std::move(spec));
  return options;
}

template <kernel::Rule kRule>
std::unique_ptr<app::StartedStepper> start(const std::shared_ptr<KernelProblem>& problem, const ParameterValues& o,
                                           double h) {
  auto integrator =
      std::make_unique<kernel::NonholonomicIntegrator>(*problem->model, kRule, h, read_newton_options(o));
  integrator->start_from_velocity(problem->q0, problem->qdot0);
  return erase(problem, std::move(integrator), h);
}

MethodRow row(std::string name, std::string summary, StartFunction start_function) {
  return {.name = std::move(name),
          .summary = std::move(summary),
          .order = 2,
          .requirements = {.nonholonomic = true},
          .options = &options_of,
          .start = start_function};
}

}  // namespace

std::vector<MethodRow> nonholonomic_rows() {
  using kernel::Rule;
  return {row("vi-midpoint", "discrete Lagrange-d'Alembert, midpoint rule, order 2; nonholonomic systems",
              &start<Rule::kMidpoint>),
          row("vi-trapezoid", "discrete Lagrange-d'Alembert, trapezoid rule, order 2; nonholonomic systems",
              &start<Rule::kTrapezoid>)};
}

}  // namespace mechint::methods
