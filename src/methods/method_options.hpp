#pragma once
/// \file
/// The options (`--set NAME=VALUE`) the method rows share (src/methods/method_registry.hpp), with
/// their defaults, and how a run reads them back. A row lists its own; several rows share these.

#include <string>
#include <vector>

#include "app/parameters.hpp"
#include "mechint/integrate/impact_laws.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint::methods {

using app::ParameterSpec;
using app::ParameterValues;

/// form, init, fine_h, newton, newton_tol of the variational integrator, and the step check's.
std::vector<ParameterSpec> variational_options();
/// check, check_ratio, check_every: step confirmation (integrate/step_check.hpp).
std::vector<ParameterSpec> step_check_options();
/// rtol, atol of an adaptive method.
std::vector<ParameterSpec> tolerance_options(const std::string& method);
/// impact, window_before, window_after of the impact driver (004 §III-C–E), and compose.
std::vector<ParameterSpec> impact_options();
/// newton_tol of the energy–momentum integrator, the step check's, and compose.
std::vector<ParameterSpec> energy_momentum_options();
/// newton, newton_tol, check, indicators, adapt, land of a Galerkin rule.
std::vector<ParameterSpec> galerkin_options();
/// compose=none|yoshida4|suzuki4|kahan-li6|kahan-li8 of a symmetric method (DESIGN §10; the
/// coefficients: kernel/galerkin_tableau.hpp).
ParameterSpec compose_option();
/// indicators=off|on of a variational rule: the deviation carried by the exact tangent map.
ParameterSpec indicators_option();
/// indicators=off|on of a Runge–Kutta method: the deviation by the variational equations.
ParameterSpec runge_kutta_indicators_option();
/// adapt=off|sundman|energy and land=aside|inline of a symmetric rule (docs/adaptive-steps.md).
std::vector<ParameterSpec> adapt_options();

/// The impact driver's settings from the options of `impact_options()` (the driver's impacts on,
/// no record of them: memory stays flat in the length of the run).
ImpactOptions read_impact_options(const ParameterValues& options);
/// The sub-step coefficients γ_i of the `compose` option; empty when absent or none.
std::vector<double> read_composition(const ParameterValues& options);
/// newton_tol (and newton, where the method has it); Newton's defaults when the method has neither.
NewtonOptions read_newton_options(const ParameterValues& options);
/// check, check_ratio, check_every of an implicit integrator.
StepCheckOptions read_step_check_options(const ParameterValues& options);
/// The step check of a Galerkin rule or of a composed midpoint (their energy balance; the
/// confirmation by half steps of the second-order rows does not apply).
StepCheckOptions read_energy_balance_check(const ParameterValues& options);

/// Whether a choice option is present and set to `value` (a row without the option: false).
bool chose(const ParameterValues& options, const std::string& name, const std::string& value);

}  // namespace mechint::methods
