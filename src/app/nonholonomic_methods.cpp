#include "app/nonholonomic_methods.hpp"

#include <algorithm>

#include "app/methods.hpp"

namespace mechint::app {

std::vector<std::string> nonholonomic_methods() {
  return {std::string(MidpointRule::kName), std::string(TrapezoidRule::kName)};
}

std::vector<ParameterSpec> nonholonomic_method_options(const std::string& method) {
  const auto names = nonholonomic_methods();
  if (std::find(names.begin(), names.end(), method) == names.end())
    throw InvalidInput("method " + quote_for_message(method) +
                       " does not apply to a model with nonholonomic constraints (offered: vi-midpoint, vi-trapezoid)");
  // The Newton options of the variational rows; their start, form and step-check options belong to the
  // holonomic DEL step and do not apply.
  std::vector<ParameterSpec> options;
  for (auto& spec : variational_options())
    if (spec.name == "newton" || spec.name == "newton_tol") options.push_back(std::move(spec));
  return options;
}

std::unique_ptr<kernel::NonholonomicIntegrator> start_nonholonomic(const KernelProblem& problem, const std::string& method,
                                                                   const ParameterValues& options, double h) {
  nonholonomic_method_options(method);  // refuses a method that does not apply
  auto integrator = std::make_unique<kernel::NonholonomicIntegrator>(*problem.model, kernel::rule_named(method), h,
                                                                     read_newton_options(options));
  integrator->start_from_velocity(problem.q0, problem.qdot0);
  return integrator;
}

}  // namespace mechint::app
