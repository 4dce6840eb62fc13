// The variational rules (000 §4): the DEL equations of the midpoint (000 eq. 4.1), trapezoid
// (004 eq. 16) and right-endpoint (000 eq. 4.20) discrete Lagrangians, with holonomic constraints,
// forces and controls, in momentum or position form; the symmetric two in their Galerkin form
// when composed, with chaos indicators or with adaptive steps.

#include "kernel/energy_step_integrator.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/separable.hpp"
#include "methods/method_options.hpp"
#include "methods/shared_starts.hpp"
#include "methods/started_kernel_stepper.hpp"

namespace mechint::methods {
namespace {

using Constraints = MethodRequirements::Constraints;

bool position_form(const ParameterValues& o) { return chose(o, "form", "position"); }
bool source_start(const ParameterValues& o) { return chose(o, "init", "source"); }

/// The options of a variational rule: its own, and on an unconstrained model (not in a chart) what
/// its Galerkin form adds — compose, indicators, adapt of the symmetric rules; with constraints only
/// the trapezoid rule's Galerkin form (Lobatto IIIA-IIIB, s = 2) linearises its tangent map.
template <kernel::Rule kRule>
std::vector<ParameterSpec> options_of(const MethodStructure& s) {
  std::vector<ParameterSpec> options = variational_options();
  if (s.charted || kRule == kernel::Rule::kFirstOrder) return options;
  if (s.num_constraints > 0) {
    if (kRule == kernel::Rule::kTrapezoid) options.push_back(indicators_option());
    return options;
  }
  options.push_back(compose_option());
  options.push_back(indicators_option());
  for (auto& spec : adapt_options()) options.push_back(std::move(spec));
  return options;
}

template <kernel::Rule kRule>
std::unique_ptr<app::StartedStepper> start(const std::shared_ptr<KernelProblem>& problem, const ParameterValues& o,
                                           double h) {
  return start_variational_rule(problem, kRule, o, h);
}

MethodRow row(std::string name, std::string summary, int order, kernel::Rule rule, OptionsFunction options,
              StartFunction start_function) {
  const bool symmetric = rule != kernel::Rule::kFirstOrder;
  MethodRow r{.name = std::move(name),
              .summary = std::move(summary),
              .order = order,
              .composable = symmetric,
              .requirements = {.constraints = Constraints::kAny, .charts = MethodRequirements::Charts::kWithoutForces},
              .options = options,
              .start = start_function};
  if (symmetric) r.transcription = Transcription{.rule = rule};
  return r;
}

}  // namespace

bool asks_for_smooth_rule(const ParameterValues& o) {
  return !read_composition(o).empty() || chose(o, "indicators", "on") || chose(o, "adapt", "sundman") ||
         chose(o, "adapt", "energy");
}

std::unique_ptr<app::StartedStepper> start_variational_rule(const std::shared_ptr<KernelProblem>& problem,
                                                            kernel::Rule rule, const ParameterValues& o, double h) {
  const kernel::KernelModel& model = *problem->model;
  const bool composed = rule != kernel::Rule::kFirstOrder && !read_composition(o).empty();
  if (chose(o, "adapt", "energy")) {
    if (rule != kernel::Rule::kMidpoint)
      throw InvalidInput("adapt=energy is the midpoint rule's (Kane, Marsden & Ortiz 1999): use vi-midpoint");
    if (composed || chose(o, "indicators", "on") || position_form(o) || source_start(o))
      throw InvalidInput("adapt=energy runs the plain midpoint rule in momentum form from velocities: drop compose, "
                         "indicators, form=position and init=source");
    auto vi = std::make_unique<kernel::KernelEnergyStepIntegrator>(model, h, read_newton_options(o));
    vi->start_from_velocity(problem->q0, problem->qdot0);
    return erase(problem, std::move(vi), h);
  }
  const bool sundman = chose(o, "adapt", "sundman");
  const bool indicators = chose(o, "indicators", "on");
  // vi-trapezoid in momentum form on a separable model (kernel/separable.hpp): the 2-stage Lobatto
  // rule, whose steps are then the explicit Störmer–Verlet ones (kernel/galerkin_integrator.hpp), the
  // root of the trapezoid rule's DEL equations without Newton.
  const bool explicit_trapezoid = rule == kernel::Rule::kTrapezoid && !position_form(o) && !source_start(o) &&
                                  model.num_controls() == 0 &&
                                  !model.supplies_own_discrete_rule(MECHINT_RULE_TRAPEZOID) &&
                                  kernel::separable_kinetics(model, problem->q0, problem->qdot0).has_value();
  // A second-order rule with indicators runs as the Galerkin rule of its discrete Lagrangian, whose
  // stage equations the tangent map linearises: the midpoint rule is Gauss with s = 1, the
  // trapezoid rule Lobatto IIIA-IIIB with s = 2 (docs/chaos-indicators.md).
  if (composed || indicators || explicit_trapezoid || (sundman && rule != kernel::Rule::kFirstOrder)) {
    const char* what = composed ? "compose" : sundman ? "adapt=sundman" : "indicators=on";
    if (position_form(o)) throw InvalidInput(std::string(what) + " runs in momentum form: drop form=position");
    if (source_start(o)) throw InvalidInput(std::string(what) + " starts from velocities: drop init=source");
    if (indicators && rule == kernel::Rule::kFirstOrder)
      throw InvalidInput("indicators=on applies to the symmetric rules (vi-midpoint, vi-trapezoid, the Galerkin rules)");
    const kernel::GalerkinTableau tableau =
        rule == kernel::Rule::kTrapezoid ? kernel::lobatto_tableau(2) : kernel::gauss_tableau(1);
    std::optional<kernel::Composition> composition;
    if (composed) composition = kernel::composition_named(o.choice("compose"));
    return start_galerkin_form(problem, tableau, composition, o, h);
  }
  if (sundman)
    throw InvalidInput("adapt=sundman applies to the symmetric rules (vi-midpoint, vi-trapezoid, the Galerkin rules)");
  const DelForm form = position_form(o) ? DelForm::kPosition : DelForm::kMomentum;
  StepCheckOptions check = o.has("check") ? read_step_check_options(o) : StepCheckOptions{};
  check.angles = problem->labels.periodic;
  auto vi = std::make_unique<kernel::KernelVariationalIntegrator>(model, rule, h, read_newton_options(o), form, check);
  give_controls(*vi, *problem);
  if (problem->wrap_periodic) vi->set_periodic_wrap(problem->wrap_periodic);
  if (source_start(o))
    vi->start_source_procedure(problem->q0, problem->qdot0, o.real("fine_h"));
  else
    vi->start_from_velocity(problem->q0, problem->qdot0);
  return erase(problem, std::move(vi), h);
}

std::vector<MethodRow> variational_rows() {
  using kernel::Rule;
  return {row("vi-midpoint", "variational integrator, midpoint discrete Lagrangian (000 eq. 4.1), order 2", 2,
              Rule::kMidpoint, &options_of<Rule::kMidpoint>, &start<Rule::kMidpoint>),
          row("vi-trapezoid",
              "variational integrator, trapezoid discrete Lagrangian (004 eq. 16), order 2; explicit (Stormer-Verlet) "
              "where L = T(qdot) - V(q) with a constant mass matrix; with impacts on systems with walls",
              2, Rule::kTrapezoid, &options_of<Rule::kTrapezoid>, &start<Rule::kTrapezoid>),
          row("vi-first-order", "variational integrator, right-endpoint discrete Lagrangian (000 eq. 4.20), order 1", 1,
              Rule::kFirstOrder, &options_of<Rule::kFirstOrder>, &start<Rule::kFirstOrder>)};
}

}  // namespace mechint::methods
