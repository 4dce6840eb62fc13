// The Galerkin variational integrators (Marsden & West 2001 §2.6; DESIGN §10): Gauss–Legendre
// (variational partitioned Runge–Kutta, order 2s) on unconstrained models and Lobatto IIIA-IIIB
// (order 2s − 2) with holonomic constraints at every node; and the Galerkin form that the
// second-order rules run in when composed, with chaos indicators or with adapt=sundman.

#include "kernel/galerkin_integrator.hpp"
#include "kernel/sundman_integrator.hpp"
#include "methods/method_options.hpp"
#include "methods/shared_starts.hpp"
#include "methods/started_kernel_stepper.hpp"

namespace mechint::methods {
namespace {

std::vector<ParameterSpec> options_of(const MethodStructure&) { return galerkin_options(); }

template <kernel::Quadrature kQuadrature, int kStages>
kernel::GalerkinTableau tableau() {
  return kQuadrature == kernel::Quadrature::kGauss ? kernel::gauss_tableau(kStages) : kernel::lobatto_tableau(kStages);
}

template <kernel::Quadrature kQuadrature, int kStages>
std::unique_ptr<app::StartedStepper> start(const std::shared_ptr<KernelProblem>& problem, const ParameterValues& o,
                                           double h) {
  return start_galerkin_form(problem, tableau<kQuadrature, kStages>(), std::nullopt, o, h);
}

template <kernel::Quadrature kQuadrature, int kStages>
MethodRow row(std::string name) {
  constexpr bool gauss = kQuadrature == kernel::Quadrature::kGauss;
  constexpr int order = gauss ? 2 * kStages : 2 * kStages - 2;
  const std::string summary =
      gauss ? "Galerkin variational integrator on " + std::to_string(kStages) +
                  " Gauss-Legendre points (variational partitioned Runge-Kutta), order " + std::to_string(order) +
                  "; unconstrained systems"
            : "Galerkin variational integrator on " + std::to_string(kStages) +
                  " Lobatto points (Lobatto IIIA-IIIB), order " + std::to_string(order) +
                  "; holonomic constraints at every node";
  // Lobatto keeps holonomic constraints at every node; Gauss applies to unconstrained models. Both
  // run on a model whose walls are switched off.
  return {.name = std::move(name),
          .summary = summary,
          .order = order,
          .requirements = {.constraints = gauss ? MethodRequirements::Constraints::kNone
                                                : MethodRequirements::Constraints::kAny,
                           .walls = MethodRequirements::Walls::kNoneOrSwitchedOff},
          .options = &options_of,
          .start = &start<kQuadrature, kStages>,
          .transcription = Transcription{.galerkin = tableau<kQuadrature, kStages>()},
          .tableau = tableau<kQuadrature, kStages>()};
}

}  // namespace

std::unique_ptr<app::StartedStepper> start_galerkin_form(const std::shared_ptr<KernelProblem>& problem,
                                                         const kernel::GalerkinTableau& tableau,
                                                         const std::optional<kernel::Composition>& composition,
                                                         const ParameterValues& o, double h) {
  const kernel::KernelModel& model = *problem->model;
  const NewtonOptions newton = read_newton_options(o);
  const kernel::Composition steps = composition.value_or(kernel::Composition{});
  if (chose(o, "adapt", "sundman")) {
    if (chose(o, "indicators", "on"))
      throw InvalidInput("indicators=on does not combine with adapt=sundman (the indicators are measured in the "
                         "physical time, the steps are fixed in the fictive one)");
    auto vi = std::make_unique<kernel::KernelSundmanIntegrator>(
        problem->model, tableau, h, steps, newton, read_energy_balance_check(o),
        chose(o, "land", "inline") ? kernel::KernelSundmanIntegrator::Landing::kInline
                                   : kernel::KernelSundmanIntegrator::Landing::kAside);
    vi->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(vi), h);
  }
  if (chose(o, "adapt", "energy"))
    throw InvalidInput("adapt=energy is the midpoint rule's (Kane, Marsden & Ortiz 1999): use vi-midpoint");
  auto vi = std::make_unique<kernel::KernelGalerkinIntegrator>(model, tableau, h, steps, newton,
                                                              read_energy_balance_check(o));
  give_controls(*vi, *problem);
  vi->start_from_velocity(problem->q0, problem->qdot0);
  if (chose(o, "indicators", "on")) vi->track_deviation(kernel::initial_deviation(2 * model.dim()));
  return erase(problem, std::move(vi), h);
}

std::vector<MethodRow> galerkin_rows() {
  using kernel::Quadrature;
  return {row<Quadrature::kGauss, 2>("vi-gauss4"), row<Quadrature::kGauss, 3>("vi-gauss6"),
          row<Quadrature::kGauss, 4>("vi-gauss8"), row<Quadrature::kLobatto, 3>("vi-lobatto4"),
          row<Quadrature::kLobatto, 4>("vi-lobatto6")};
}

}  // namespace mechint::methods
