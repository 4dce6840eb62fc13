// The energy–momentum integrator of 003 §5 (kernel/energy_momentum_integrator.hpp): energy and the
// Noether momenta conserved exactly, for a constant mass matrix and quadratic constraints;
// compose= raises it to order 4, 6 or 8 with both still exact (003 §6).

#include "kernel/energy_momentum_integrator.hpp"
#include "methods/method_options.hpp"
#include "methods/method_registry.hpp"
#include "methods/started_kernel_stepper.hpp"

namespace mechint::methods {
namespace {

std::vector<ParameterSpec> options_of(const MethodStructure&) { return energy_momentum_options(); }

std::unique_ptr<app::StartedStepper> start(const std::shared_ptr<KernelProblem>& problem, const ParameterValues& o,
                                           double h) {
  auto em = std::make_unique<kernel::KernelEnergyMomentumIntegrator>(
      *problem->model, h, read_newton_options(o), read_step_check_options(o), read_composition(o));
  em->start_from_velocity(problem->q0, problem->qdot0);
  return erase(problem, std::move(em), h);
}

}  // namespace

std::vector<MethodRow> energy_momentum_rows() {
  return {{.name = "energy-momentum",
           .summary = "energy-momentum integrator of 003 sec. 5 (constant mass matrix, quadratic constraints), order 2; "
                      "compose= gives orders 4, 6, 8 with energy and momentum still exact (003 sec. 6; with constraints "
                      "as pairs of half sub-steps)",
           .order = 2,
           .composable = true,
           .requirements = {.forces = false, .energy_momentum = true},
           .options = &options_of,
           .start = &start}};
}

}  // namespace mechint::methods
