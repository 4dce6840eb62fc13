// The Runge–Kutta baselines on the (forced) Euler–Lagrange ODE of an unconstrained model
// (Boost.Odeint; kernel/kernel_runge_kutta.hpp): classical rk4 at the fixed step h, Dormand–Prince
// 5(4) and Runge–Kutta–Fehlberg 7(8) with error control, h their first step and the output grid.
// With indicators=on each carries a deviation by the variational equations.

#include "kernel/kernel_runge_kutta.hpp"
#include "methods/method_options.hpp"
#include "methods/method_registry.hpp"
#include "methods/started_kernel_stepper.hpp"

namespace mechint::methods {
namespace {

std::vector<ParameterSpec> rk4_options(const MethodStructure&) { return {runge_kutta_indicators_option()}; }

template <RungeKuttaMethod kMethod>
std::vector<ParameterSpec> adaptive_options(const MethodStructure&) {
  auto options = tolerance_options(kMethod == RungeKuttaMethod::kDopri5 ? "dopri5" : "rk78");
  options.push_back(runge_kutta_indicators_option());
  return options;
}

template <class Stepper, class... Args>
std::unique_ptr<app::StartedStepper> started(const std::shared_ptr<KernelProblem>& problem, bool indicators,
                                             double h, Args&&... args) {
  const kernel::KernelEulerLagrangeOde ode(*problem->model, control_law(*problem));
  auto rk = std::make_unique<Stepper>(ode, h, std::forward<Args>(args)...);
  rk->start_from_velocity(problem->q0, problem->qdot0);
  if constexpr (requires { rk->track_deviation(kernel::Vector()); })
    if (indicators) rk->track_deviation(kernel::initial_deviation(2 * problem->model->dim()));
  return erase(problem, std::move(rk), h);
}

std::unique_ptr<app::StartedStepper> start_rk4(const std::shared_ptr<KernelProblem>& problem,
                                               const ParameterValues& o, double h) {
  return started<kernel::KernelRk4>(problem, chose(o, "indicators", "on"), h);
}

std::unique_ptr<app::StartedStepper> start_dopri5(const std::shared_ptr<KernelProblem>& problem,
                                                  const ParameterValues& o, double h) {
  const RungeKuttaTolerances tolerances{o.real("rtol"), o.real("atol")};
  // With a deviation dopri5 steps without its dense output, clipped at the output times.
  if (chose(o, "indicators", "on")) return started<kernel::KernelDopri5Stepped>(problem, true, h, tolerances);
  return started<kernel::KernelDopri5>(problem, false, h, tolerances);
}

std::unique_ptr<app::StartedStepper> start_rk78(const std::shared_ptr<KernelProblem>& problem,
                                                const ParameterValues& o, double h) {
  const RungeKuttaTolerances tolerances{o.real("rtol"), o.real("atol")};
  return started<kernel::KernelRk78>(problem, chose(o, "indicators", "on"), h, tolerances);
}

MethodRow row(std::string name, std::string summary, int order, OptionsFunction options, StartFunction start) {
  return {.name = std::move(name),
          .summary = std::move(summary),
          .order = order,
          .requirements = {.constraints = MethodRequirements::Constraints::kNone},
          .options = options,
          .start = start};
}

}  // namespace

std::vector<MethodRow> runge_kutta_rows() {
  return {row("rk4",
              "classical Runge-Kutta, fixed step h, on the (forced) Euler-Lagrange ODE (Boost.Odeint; unconstrained "
              "systems)",
              4, &rk4_options, &start_rk4),
          row("dopri5", "Dormand-Prince 5(4), adaptive (--set rtol, atol), Boost.Odeint; unconstrained systems", 5,
              &adaptive_options<RungeKuttaMethod::kDopri5>, &start_dopri5),
          row("rk78", "Runge-Kutta-Fehlberg 7(8), adaptive, the high-accuracy reference; unconstrained systems", 8,
              &adaptive_options<RungeKuttaMethod::kRk78>, &start_rk78)};
}

}  // namespace mechint::methods
