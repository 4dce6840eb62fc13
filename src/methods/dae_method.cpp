// SUNDIALS IDA (variable-order BDF) on the stabilised index-2 (GGL) form of a constrained model's
// equations (kernel/kernel_dae.hpp); h is IDA's first step and the output grid.

#include "kernel/kernel_dae.hpp"
#include "methods/method_options.hpp"
#include "methods/method_registry.hpp"
#include "methods/started_kernel_stepper.hpp"

namespace mechint::methods {
namespace {

std::vector<ParameterSpec> options_of(const MethodStructure&) { return tolerance_options("dae"); }

std::unique_ptr<app::StartedStepper> start(const std::shared_ptr<KernelProblem>& problem, const ParameterValues& o,
                                           double h) {
  auto dae = std::make_unique<kernel::KernelDaeStepper>(
      *problem->model, h, kernel::KernelDaeStepper::Tolerances{o.real("rtol"), o.real("atol")});
  dae->start_from_velocity(problem->q0, problem->qdot0);
  return erase(problem, std::move(dae), h);
}

}  // namespace

std::vector<MethodRow> dae_rows() {
  return {{.name = "dae",
           .summary = "SUNDIALS IDA (BDF, adaptive; --set rtol, atol) on the stabilised index-2 (GGL) DAE; constrained "
                      "systems; variable order 1-5",
           .order = 0,
           .requirements = {.constraints = MethodRequirements::Constraints::kSome,
                            .forces = false,
                            .constraint_curvature = true},
           .options = &options_of,
           .start = &start}};
}

}  // namespace mechint::methods
